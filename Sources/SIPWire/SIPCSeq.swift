/// `CSeq` (RFC 3261 §20.16): a sequence number below 2^31 (§8.1.1.5) and the request method.
public struct SIPCSeq: SIPHeaderValue, CustomStringConvertible {
    public var number: UInt32
    public var method: SIPMethod

    public init(_ number: UInt32, _ method: SIPMethod) {
        self.number = number
        self.method = method
    }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let digits = scanner.run(SIPCharacters.digit), let number = SIPCharacters.decimal(digits, as: UInt32.self),
              number < 1 << 31 else { throw .invalidHeader(name: header) }
        let afterNumber = scanner.index
        scanner.skipWhitespace()
        guard scanner.index > afterNumber, let token = scanner.token(), let method = SIPMethod(token) else {
            throw .invalidHeader(name: header)
        }
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw .invalidHeader(name: header) }
        self.number = number
        self.method = method
    }

    public var headerValue: String { "\(number) \(method)" }
    public var description: String { headerValue }
}

/// `RAck` (RFC 3262 §7.2): the RSeq of the provisional response, then its CSeq number and method.
public struct SIPRAck: SIPHeaderValue {
    public var rseq: UInt32
    public var cseq: UInt32
    public var method: SIPMethod

    public init(rseq: UInt32, cseq: UInt32, method: SIPMethod) {
        self.rseq = rseq
        self.cseq = cseq
        self.method = method
    }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 3, let rseq = SIPCharacters.decimal(fields[0], as: UInt32.self), rseq > 0,
              let cseq = SIPCharacters.decimal(fields[1], as: UInt32.self), cseq < 1 << 31,
              let method = SIPMethod(fields[2]) else { throw .invalidHeader(name: header) }
        self.rseq = rseq
        self.cseq = cseq
        self.method = method
    }

    public var headerValue: String { "\(rseq) \(cseq) \(method)" }
}
