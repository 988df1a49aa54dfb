/// A response written straight to bytes (RFC 3261 §8.2.6.2) for a server's hot path: the start
/// line, the request's Via, From, To, Call-ID and CSeq copied in order (the To tag added when
/// the request's To has none, never on 100), the fields added, then Content-Length and the body —
/// what `SIPResponse(replyingTo:…)` then `serialized()` write, without building either. A To
/// without a tag gets `;tag=` appended as received (for an addr-spec, too: §20.10 makes
/// parameters after it header parameters).
public struct SIPReplyWriter: Sendable {
    public let statusCode: Int
    private var bytes: [UInt8]

    public init(replyingTo request: SIPRequest, statusCode: Int, reasonPhrase: String? = nil, toTag: String? = nil) {
        self.statusCode = statusCode
        bytes = []
        bytes.reserveCapacity(640)
        bytes.append(contentsOf: "SIP/2.0 ".utf8)
        bytes.append(contentsOf: String(statusCode).utf8)
        bytes.append(0x20)
        bytes.append(contentsOf: (reasonPhrase ?? SIPStatus.reasonPhrase(statusCode)).utf8)
        bytes.append(contentsOf: [0x0D, 0x0A])
        let tag = statusCode > 100 && toTag != nil && request.to.map({ $0.tag == nil }) == true ? toTag : nil
        for field in request.headers.fields {
            switch field.key {
            case "via": line("Via", field.value)
            case "from": line("From", field.value)
            case "call-id": line("Call-ID", field.value)
            case "cseq": line("CSeq", field.value)
            case "to":
                line("To", field.value, then: tag.map { ";tag=" + $0 })
            case "timestamp" where statusCode == 100: line("Timestamp", field.value)
            default: break
            }
        }
    }

    /// Appends a header field (its canonical name).
    public mutating func add(_ name: String, _ value: String) { line(SIPHeaderName.canonical(name), value) }

    /// The message: Content-Length, the empty line and `body`.
    public consuming func finish(body: [UInt8] = []) -> [UInt8] {
        line("Content-Length", String(body.count))
        bytes.append(contentsOf: [0x0D, 0x0A])
        bytes.append(contentsOf: body)
        return bytes
    }

    private mutating func line(_ name: String, _ value: String, then suffix: String? = nil) {
        bytes.append(contentsOf: name.utf8)
        bytes.append(contentsOf: [UInt8(ascii: ":"), 0x20])
        bytes.append(contentsOf: value.utf8)
        if let suffix { bytes.append(contentsOf: suffix.utf8) }
        bytes.append(contentsOf: [0x0D, 0x0A])
    }
}
