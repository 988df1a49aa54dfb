import SDP

/// Our side of a SIP audio stream: where we receive, what we support, and what we want.
public struct SIPLocalAudio: Sendable, Hashable {
    /// Our RTP address (IPv4 or IPv6) and port.
    public var address: String
    public var port: UInt16
    /// In preference order; an answer takes the first the peer has.
    public var codecs: [SIPAudioCodec]
    /// RFC 4733 events we offer and accept; empty for none.
    public var telephoneEvents: [SIPTelephoneEvent]
    /// When answering, take the first of `codecs` whose clock rate the peer's telephone-event
    /// matches (RFC 4733 §2.1), so DTMF works, before one without: baresip offers events at
    /// 8 kHz only, which Opus (48 kHz) cannot carry.
    public var preferTelephoneEvents: Bool
    /// The packet duration we want to receive, in ms (`a=ptime`).
    public var ptime: Int
    /// `sendrecv`, or `sendonly`/`inactive` to hold the peer (RFC 3264 §8.4).
    public var direction: SDPDirection
    public var encryption: SIPMediaEncryption
    /// SDES suites we offer, in order, and accept.
    public var srtpSuites: [SIPSRTPSuite]
    /// Our SDES key, in every crypto line we send.
    public var srtpKey: SIPSRTPKey
    /// Offer `a=rtcp-mux`, and accept it when offered (RFC 5761 §5.1.1).
    public var rtcpMux: Bool
    /// `o=`'s session id; the same in every description of a dialog, with `sessionVersion`
    /// increased for each new one (RFC 3264 §8).
    public var sessionID: UInt64
    public var sessionVersion: UInt64

    public init(address: String, port: UInt16, codecs: [SIPAudioCodec] = SIPAudioCodec.defaultPreference,
                telephoneEvents: [SIPTelephoneEvent] = SIPTelephoneEvent.defaultOffer, preferTelephoneEvents: Bool = true, ptime: Int = 20,
                direction: SDPDirection = .sendrecv, encryption: SIPMediaEncryption = .optional,
                srtpSuites: [SIPSRTPSuite] = SIPSRTPSuite.allCases, srtpKey: SIPSRTPKey = .random(), rtcpMux: Bool = true,
                sessionID: UInt64 = UInt64.random(in: 1...(1 << 62)), sessionVersion: UInt64 = 1) {
        self.address = address
        self.port = port
        self.codecs = codecs
        self.telephoneEvents = telephoneEvents
        self.preferTelephoneEvents = preferTelephoneEvents
        self.ptime = ptime
        self.direction = direction
        self.encryption = encryption
        self.srtpSuites = srtpSuites
        self.srtpKey = srtpKey
        self.rtcpMux = rtcpMux
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
    }

    /// A description of our one audio section, after `rejected` sections kept for the answer's
    /// m-line order (RFC 3264 §6).
    func description(audio: MediaDescription, at index: Int = 0, among others: [MediaDescription] = []) -> SessionDescription {
        var media = others
        media.insert(audio, at: min(index, media.count))
        let addressType = address.contains(":") ? "IP6" : "IP4"
        return SessionDescription(origin: SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion, addressType: addressType,
                                                    unicastAddress: address),
                                  connection: SDPConnection(addressType: addressType, address: address), media: media)
    }

    /// Our audio section: `codecs` then `events` (rtpmap for each, fmtp where set), ptime,
    /// rtcp-mux, crypto lines, direction.
    func audioSection(proto: String, codecs: [SIPAudioCodec], events: [SIPTelephoneEvent], rtcpMux: Bool,
                      cryptos: [SDPCrypto], direction: SDPDirection) -> MediaDescription {
        var attributes: [SDPAttribute] = []
        for codec in codecs {
            attributes.append(SDPAttribute(.rtpmap(codec.rtpMap)))
            if let fmtp = codec.formatParameters {
                attributes.append(SDPAttribute(.fmtp(SDPFormatParameters(payloadType: codec.payloadType, parameterString: fmtp))))
            }
        }
        for event in events {
            attributes.append(SDPAttribute(.rtpmap(SDPRTPMap(payloadType: event.payloadType, encodingName: "telephone-event",
                                                              clockRate: event.clockRate))))
            attributes.append(SDPAttribute(.fmtp(SDPFormatParameters(payloadType: event.payloadType,
                                                                    parameterString: SIPTelephoneEvent.formatParameters))))
        }
        attributes.append(SDPAttribute(name: "ptime", value: String(ptime)))
        if rtcpMux { attributes.append(SDPAttribute(.rtcpMux)) }
        attributes += cryptos.map(\.attribute)
        attributes.append(SDPAttribute(.direction(direction)))
        let formats = codecs.map { String($0.payloadType) } + events.map { String($0.payloadType) }
        return MediaDescription(mediaType: "audio", port: port, proto: proto, formats: formats, attributes: attributes)
    }
}

/// Our offer (RFC 3264 §5) for one audio stream to a SIP UA.
public enum SIPAudioOffer {
    /// The offer for `local`: RTP/SAVP with `a=crypto` for each suite when encryption is
    /// required, RTP/AVP with them (best-effort SDES) when optional, RTP/AVP alone for none
    /// (RFC 4568 §6.1 keys); telephone events only at the clock rates of offered codecs.
    public static func make(_ local: SIPLocalAudio) -> SessionDescription {
        let proto = local.encryption == .required ? "RTP/SAVP" : "RTP/AVP"
        let cryptos = local.encryption == .none ? [] : local.srtpSuites.enumerated().map { index, suite in
            suite.crypto(tag: UInt32(index + 1), key: local.srtpKey)
        }
        let rates = Set(local.codecs.map(\.clockRate))
        let section = local.audioSection(proto: proto, codecs: local.codecs,
                                         events: local.telephoneEvents.filter { rates.contains($0.clockRate) },
                                         rtcpMux: local.rtcpMux, cryptos: cryptos, direction: local.direction)
        return local.description(audio: section)
    }
}
