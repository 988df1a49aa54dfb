import SIP

/// Feeds bytes to the SIP INFO DTMF body parser (RFC 6086 bodies `application/dtmf-relay` and
/// `application/dtmf`; the first byte picks which). A key that parses is one of `0-9*#A-D`, a
/// duration is not negative, and the key written as a `dtmf-relay` body parses back equal.
enum SIPInfoFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        let subtype = (bytes.first ?? 0) % 2 == 0 ? "dtmf-relay" : "dtmf"
        guard let info = try? SIPDTMFInfo(type: "application", subtype: subtype, body: Array(bytes.dropFirst())) else { return }
        precondition("0123456789*#ABCD".contains(info.key), "INFO key \(info.key) is not a DTMF key")
        precondition((info.duration ?? 0) >= 0, "negative INFO duration")
        let again = try? SIPDTMFInfo(type: "application", subtype: "dtmf-relay", body: info.relayBody)
        precondition(again == info, "dtmf-relay body round trip changed the key or duration")
    }
}
