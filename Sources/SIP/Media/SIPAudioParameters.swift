import SDP

/// One audio stream as offer/answer settled it (RFC 3264), from our side: where to send RTP and
/// RTCP, with which codec and keys, and in which direction.
public struct SIPAudioParameters: Sendable, Hashable {
    /// The peer's RTP address: its `c=` at media level, else session level (RFC 8866 §5.7).
    /// `0.0.0.0` is RFC 2543-style hold (RFC 3264 §8.4): send nothing.
    public var remoteAddress: String
    public var remotePort: UInt16
    /// Where RTCP goes: `a=rtcp` (RFC 3605), else the RTP port + 1 (RFC 3550 §11), else with
    /// ``rtcpMux`` the RTP address and port.
    public var remoteRTCPAddress: String
    public var remoteRTCPPort: UInt16
    /// RTP and RTCP share one port (RFC 5761 §5.1.1): offered and accepted.
    public var rtcpMux: Bool
    /// The codec: the payload type in use and the peer's `a=fmtp`.
    public var codec: SIPAudioCodec
    /// RFC 4733 events at the codec's clock rate, when both sides have them.
    public var telephoneEvent: SIPTelephoneEvent?
    /// The packet duration the peer wants to receive (`a=ptime`), 20 ms when unsaid.
    public var ptime: Int
    /// Our direction: whether we send to the peer and receive from it.
    public var direction: SDPDirection
    /// The peer's direction as its SDP says, `c=0.0.0.0` counting as not receiving.
    public var remoteDirection: SDPDirection
    /// SDES-SRTP, nil for plain RTP.
    public var srtp: SIPSRTPParameters?

    /// The peer holds the call (RFC 3264 §8.4): it will not receive (`sendonly`, `inactive`, or
    /// `c=0.0.0.0`).
    public var isHeldByRemote: Bool { !remoteDirection.receives }
}

/// Why an offer or answer cannot be used; ``statusCode`` is the SIP answer (488 Not Acceptable
/// Here, RFC 3261 §21.4.26; 400 for an unreadable body).
public enum SIPAudioRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not SDP (the parser's message).
    case malformedSDP(String)
    /// No usable audio section (none, all with port 0, or none over RTP/AVP or RTP/SAVP).
    case noAudio
    case noCommonCodec
    /// Our policy requires SRTP and the offer has no usable `a=crypto`.
    case encryptionRequired
    /// RTP/SAVP offered but we do not do SRTP, or none of its `a=crypto` lines is usable.
    case unusableEncryption
    /// No `c=` for the section, or one we cannot read.
    case noConnectionAddress
    /// The answer rejected our audio (port 0), or does not match the offer (RFC 3264 §6).
    case rejectedByPeer
    case answerMismatch

    public var statusCode: Int {
        if case .malformedSDP = self { 400 } else { 488 }
    }

    public var description: String {
        switch self {
        case .malformedSDP(let detail): "malformed SDP: \(detail)"
        case .noAudio: "no audio stream over RTP/AVP or RTP/SAVP"
        case .noCommonCodec: "no common audio codec"
        case .encryptionRequired: "SRTP required but not offered"
        case .unusableEncryption: "no usable SRTP crypto suite"
        case .noConnectionAddress: "no connection address"
        case .rejectedByPeer: "audio rejected by the peer"
        case .answerMismatch: "answer does not match the offer"
        }
    }
}

/// What one audio section of the peer's SDP says, media level first, then session level.
struct SIPRemoteAudio {
    var address: String
    var port: UInt16
    var rtcp: SDPRTCPAttribute?
    var rtcpMux: Bool
    /// Formats with a known rtpmap (given, or RFC 3551's static ones), in the section's order.
    var formats: [SDPRTPMap]
    var formatParameters: [SDPFormatParameters]
    var direction: SDPDirection
    var ptime: Int?
    var cryptos: [SDPCrypto]
    /// RTP/SAVP or RTP/SAVPF.
    var isSecureProfile: Bool

    /// The RTP profiles a SIP phone uses (RFC 3551, RFC 3711, RFC 4585); not DTLS's UDP/TLS/….
    static let profiles: Set<String> = ["RTP/AVP", "RTP/SAVP", "RTP/AVPF", "RTP/SAVPF"]

    static func isAudio(_ media: MediaDescription) -> Bool {
        media.mediaType == "audio" && media.port != 0 && profiles.contains(media.proto)
    }

    init(_ media: MediaDescription, in session: SessionDescription) throws(SIPAudioRefusal) {
        guard let connection = session.connection(for: media), connection.networkType == "IN",
              let address = connection.address.split(separator: "/").first, !address.isEmpty else { throw .noConnectionAddress }
        self.address = String(address)
        port = media.port
        rtcp = media.rtcp
        rtcpMux = media.rtcpMux
        formats = media.payloadTypes.compactMap { media.rtpMap(for: $0) ?? SIPAudioCodec.staticMap($0) }
        formatParameters = media.formatParameters
        let said = session.direction(for: media)
        let held = self.address == "0.0.0.0" || self.address == "::"
        direction = held ? said.intersection(.sendonly) : said
        ptime = (media.attributeValue("ptime") ?? session.attributeValue("ptime")).flatMap(Self.milliseconds)
        cryptos = media.attributes(named: "crypto").compactMap { try? SDPCrypto(attribute: $0) }
        isSecureProfile = media.proto.contains("SAVP")
    }

    /// The format matching `codec`, as the peer numbers it, with the peer's fmtp.
    func format(matching codec: SIPAudioCodec) -> SIPAudioCodec? {
        guard let map = formats.first(where: codec.matches) else { return nil }
        var agreed = codec
        agreed.payloadType = map.payloadType
        agreed.formatParameters = formatParameters.first { $0.payloadType == map.payloadType }?.parameterString
        return agreed
    }

    /// The peer's telephone-event format at `clockRate`.
    func telephoneEvent(clockRate: UInt32) -> SIPTelephoneEvent? {
        formats.first { $0.encodingName.lowercased() == "telephone-event" && $0.clockRate == clockRate }
            .map { SIPTelephoneEvent(payloadType: $0.payloadType, clockRate: clockRate) }
    }

    /// `a=ptime` in milliseconds; `20.0` reads as 20.
    private static func milliseconds(_ text: String) -> Int? {
        let whole = text.split(separator: ".").first.map { $0.trimmingPrefix(" ") } ?? ""
        return Int(whole).flatMap { (1...1000).contains($0) ? $0 : nil }
    }

    /// The parameters for our side of the stream.
    func parameters(codec: SIPAudioCodec, telephoneEvent: SIPTelephoneEvent?, ourDirection: SDPDirection,
                    rtcpMux agreedMux: Bool, srtp: SIPSRTPParameters?) -> SIPAudioParameters {
        let rtcpAddress = agreedMux ? address : (rtcp?.connection?.address ?? address)
        let rtcpPort = agreedMux ? port : (rtcp?.port ?? port &+ 1)
        return SIPAudioParameters(remoteAddress: address, remotePort: port, remoteRTCPAddress: rtcpAddress,
                                  remoteRTCPPort: rtcpPort, rtcpMux: agreedMux, codec: codec, telephoneEvent: telephoneEvent,
                                  ptime: ptime ?? 20, direction: ourDirection.intersection(direction.reversed),
                                  remoteDirection: direction, srtp: srtp)
    }
}

extension SDPDirection {
    /// Sends only if both send, receives only if both receive.
    func intersection(_ other: SDPDirection) -> SDPDirection {
        switch (sends && other.sends, receives && other.receives) {
        case (true, true): .sendrecv
        case (true, false): .sendonly
        case (false, true): .recvonly
        case (false, false): .inactive
        }
    }
}
