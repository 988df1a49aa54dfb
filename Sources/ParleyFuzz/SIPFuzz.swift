import SDP
import SIPWire

/// Feeds bytes to the SIP datagram parser and, split at a point taken from the input, to the
/// stream framer as server and as client. What parses must serialize and parse back to the same
/// message, and every typed header value that parses must write text that parses back equal.
enum SIPFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        if let message = try? SIPMessage.parse(datagram: bytes) { check(message) }
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        for role in [SIPStreamFramer.Role.server, .client] {
            var framer = SIPStreamFramer(role: role)
            for part in [bytes[..<split], bytes[split...]] {
                framer.append(part)
                do {
                    while let event = try framer.next() {
                        if case .message(let message) = event { check(message) }
                    }
                } catch {
                    framer = SIPStreamFramer(role: role)
                }
            }
        }
    }

    static func check(_ message: SIPMessage) {
        do {
            try message.validate()
        } catch {
            if case .request(let request) = message { _ = SIPResponse(replyingTo: request, error: error, toTag: "fuzz").serialized() }
        }
        // As received: the same fields and body come back, and the text is then a fixed point.
        let text = message.serialized(.asReceived)
        guard let again = try? SIPMessage.parse(datagram: text) else { fatalError("SIP serialized message does not parse") }
        guard again.startLine == message.startLine, again.body == message.body,
              withoutLength(again.headers) == withoutLength(message.headers),
              again.serialized(.asReceived) == text else { fatalError("SIP parse -> serialize -> parse is unstable") }
        if case .request(let request) = message, case .request(let reparsed) = again, reparsed.uri != request.uri {
            fatalError("SIP Request-URI round trip is unstable")
        }
        let canonical = message.serialized()
        guard let fromCanonical = try? SIPMessage.parse(datagram: canonical), fromCanonical.body == message.body else {
            fatalError("SIP canonical serialization does not parse")
        }
        roundTrips(message.vias)
        roundTrips([message.from, message.to].compactMap { $0 } + message.routes + message.recordRoutes)
        roundTrips(message.contacts)
        roundTrips([message.cseq].compactMap { $0 })
        roundTrips([message.contentType].compactMap { $0 })
        roundTrips([message.sessionExpires].compactMap { $0 })
        roundTrips([message.event].compactMap { $0 })
        roundTrips([message.rack].compactMap { $0 })
        roundTrips(message.reasons)
        roundTrips(message.wwwAuthenticate + message.proxyAuthenticate)
        roundTrips(message.authorization + message.proxyAuthorization)
        _ = (message.callID, message.maxForwards, message.expires, message.contentLength, message.require, message.supported)
        _ = (message.allow, message.rseq, message.minSE, message.subscriptionState, message.customHeaders)
        if case .request(let request) = message {
            _ = SIPResponse(replyingTo: request, statusCode: 200, toTag: "fuzz", recordRoute: true).serialized()
        }
    }

    static func roundTrips<T: SIPHeaderValue>(_ values: [T]) {
        for value in values {
            guard let again = try? T(parsing: value.headerValue, header: "X-Fuzz"), again == value else {
                fatalError("SIP \(T.self) round trip is unstable: \(value.headerValue)")
            }
        }
    }

    private static func withoutLength(_ headers: SIPHeaders) -> [SIPHeaderField] {
        headers.fields.filter { $0.key != "content-length" }
    }
}

/// Feeds text to the Digest challenge and credentials parsers (WWW-Authenticate, Authorization
/// values); what parses must serialize and parse back equal.
enum SIPDigestFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        if let auth = try? SIPAuthHeader(parsing: text, header: "Authorization") { SIPFuzz.roundTrips([auth]) }
        if let challenge = try? SIPDigestChallenge(parsing: text, header: "WWW-Authenticate") { SIPFuzz.roundTrips([challenge]) }
        if let credentials = try? SIPDigestCredentials(parsing: text, header: "Authorization") {
            SIPFuzz.roundTrips([credentials])
            _ = credentials.nonceCountValue
        }
    }
}

/// Feeds text to the SDES `a=crypto` parser (RFC 4568 §9.1); what parses must serialize and parse
/// back equal.
enum SDESFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        guard let crypto = try? SDPCrypto(parsing: text) else { return }
        guard let again = try? SDPCrypto(parsing: crypto.description), again == crypto else {
            fatalError("SDES crypto round trip is unstable: \(crypto)")
        }
        for key in crypto.keys { _ = (key.split(keyLength: 16), key.lifetime?.packets, key.mki) }
    }
}
