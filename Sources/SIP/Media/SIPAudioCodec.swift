import SDP

/// An RTP audio format as SDP names it (`a=rtpmap`, RFC 8866 §6.6; static payload types of
/// RFC 3551 §6). In an offer it is what we propose; in ``SIPAudioParameters`` it is what was
/// agreed: the payload type in use and the peer's `a=fmtp` parameters.
public struct SIPAudioCodec: Sendable, Hashable {
    /// The encoding name as written in rtpmap (`opus`, `G722`, `PCMU`, `PCMA`); compared
    /// case-insensitively.
    public var name: String
    /// The RTP clock rate (8000 for G.722, RFC 3551 §4.5.2).
    public var clockRate: UInt32
    public var channels: UInt16
    /// A static type (0…95) or the dynamic one we offer.
    public var payloadType: UInt8
    /// The `a=fmtp` text, if any.
    public var formatParameters: String?

    public init(name: String, clockRate: UInt32, channels: UInt16 = 1, payloadType: UInt8, formatParameters: String? = nil) {
        self.name = name
        self.clockRate = clockRate
        self.channels = channels
        self.payloadType = payloadType
        self.formatParameters = formatParameters
    }

    /// The codec an rtpmap names.
    init(_ map: SDPRTPMap) {
        self.init(name: map.encodingName, clockRate: map.clockRate, channels: map.channels ?? 1, payloadType: map.payloadType)
    }

    /// Opus (RFC 7587 §7: always `opus/48000/2`), with in-band FEC.
    public static let opus = SIPAudioCodec(name: "opus", clockRate: 48_000, channels: 2, payloadType: 111,
                                           formatParameters: "useinbandfec=1")
    /// G.722, static type 9 (RFC 3551 §4.5.2).
    public static let g722 = SIPAudioCodec(name: "G722", clockRate: 8_000, payloadType: 9)
    /// G.711 µ-law, static type 0.
    public static let pcmu = SIPAudioCodec(name: "PCMU", clockRate: 8_000, payloadType: 0)
    /// G.711 A-law, static type 8.
    public static let pcma = SIPAudioCodec(name: "PCMA", clockRate: 8_000, payloadType: 8)
    /// Our preference: Opus, G.722, PCMU, PCMA.
    public static let defaultPreference: [SIPAudioCodec] = [.opus, .g722, .pcmu, .pcma]

    /// Whether the payload type is one of RFC 3551's static ones, valid without an rtpmap.
    public var isStatic: Bool { payloadType < 96 }

    /// Whether `map` names this codec: name (case-insensitive), clock rate and channels.
    func matches(_ map: SDPRTPMap) -> Bool {
        map.encodingName.lowercased() == name.lowercased() && map.clockRate == clockRate && (map.channels ?? 1) == channels
    }

    var rtpMap: SDPRTPMap {
        SDPRTPMap(payloadType: payloadType, encodingName: name, clockRate: clockRate, channels: channels == 1 ? nil : channels)
    }

    /// The rtpmap of RFC 3551's static audio types that we know, for sections that omit it.
    static func staticMap(_ payloadType: UInt8) -> SDPRTPMap? {
        let codec: SIPAudioCodec? = switch payloadType {
        case 0: .pcmu
        case 8: .pcma
        case 9: .g722
        default: nil
        }
        return codec?.rtpMap
    }
}

/// RFC 4733 telephone events (DTMF) at one clock rate.
public struct SIPTelephoneEvent: Sendable, Hashable {
    public var payloadType: UInt8
    public var clockRate: UInt32

    public init(payloadType: UInt8, clockRate: UInt32) {
        self.payloadType = payloadType
        self.clockRate = clockRate
    }

    /// What we offer: 8 kHz (G.711, G.722) and 48 kHz (Opus), RFC 4733 §2.5.1.2's events 0–16.
    public static let defaultOffer = [SIPTelephoneEvent(payloadType: 101, clockRate: 8_000),
                                      SIPTelephoneEvent(payloadType: 110, clockRate: 48_000)]

    static let formatParameters = "0-16"
}
