/// What one negotiated RTP payload type carries: the SDP `rtpmap` binding (RFC 8866 §6.6) of a
/// payload type (RFC 3550 §5.1) in one m-section.
public struct RTPPayloadFormat: Sendable, Hashable {
    /// What the payload is, as far as an RTP session and a forwarder care.
    public enum Kind: Sendable, Hashable {
        case audio
        case video
        /// RFC 4733 telephone events (DTMF), beside an audio codec at its clock rate.
        case telephoneEvent
        /// RFC 2198 redundant audio (`red/48000/2`): blocks of the section's audio codec.
        case redundantAudio
    }

    public var payloadType: UInt8
    public var kind: Kind
    /// The RTP clock rate in Hz (48,000 for Opus, 8,000 for G.711, 90,000 for video).
    public var clockRate: UInt32
    /// The m-section the payload type belongs to (its index in the SDP). With BUNDLE, one payload
    /// type names one section (RFC 8843 §9.1.2), so the payload type routes a packet.
    public var section: Int

    public init(payloadType: UInt8, kind: Kind, clockRate: UInt32, section: Int) {
        self.payloadType = payloadType & 0x7F
        self.kind = kind
        self.clockRate = clockRate
        self.section = section
    }
}

/// Payload types 0–127 to their format: a fixed table, so a packet's lookup neither hashes nor
/// allocates.
public struct RTPPayloadFormats: Sendable {
    private var table: [RTPPayloadFormat?]

    /// The formats given; a later format with the same payload type replaces an earlier one.
    public init(_ formats: [RTPPayloadFormat] = []) {
        table = Array(repeating: nil, count: 128)
        for format in formats { table[Int(format.payloadType)] = format }
    }

    /// The format of a payload type (its low 7 bits), if negotiated.
    public subscript(payloadType: UInt8) -> RTPPayloadFormat? {
        table[Int(payloadType & 0x7F)]
    }

    /// Every negotiated format, by payload type.
    public var all: [RTPPayloadFormat] { table.compactMap { $0 } }
}
