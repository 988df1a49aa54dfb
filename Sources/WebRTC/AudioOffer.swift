import ICE
import ParleyCore
import ParleyCrypto
import SDP

/// The audio codecs a `PeerSession` can echo, in preference order.
public enum AudioCodec: String, Sendable, Hashable, CaseIterable {
    case opus
    case pcmu = "PCMU"
    case pcma = "PCMA"

    /// RTP clock rate (RFC 7587 §4.1: Opus is always 48 kHz; RFC 3551 §4.5.14: G.711 8 kHz).
    public var clockRate: UInt32 { self == .opus ? 48_000 : 8_000 }
    /// Channels written in the rtpmap (RFC 7587 §7: `opus/48000/2`).
    public var channels: UInt16? { self == .opus ? 2 : nil }
    /// The static payload type, if any (RFC 3551 §6).
    public var staticPayloadType: UInt8? {
        switch self {
        case .opus: nil
        case .pcmu: 0
        case .pcma: 8
        }
    }
}

/// What a `PeerSession` takes from a remote offer: one audio m-section and its transport
/// parameters. `init(offer:)` checks everything a WebRTC answerer needs and throws a
/// `ParleyError` with a media code (534xx) otherwise.
public struct AudioOffer: Sendable {
    public let description: SessionDescription
    /// Index of the accepted audio section in `description.media`.
    public let audioIndex: Int
    public let mid: String?
    public let remoteCredentials: ICECredentials
    public let remoteFingerprints: [DTLSFingerprint]
    public let setup: SDPSetupRole
    public let codec: AudioCodec
    public let payloadType: UInt8
    /// The offer's fmtp for `payloadType`, echoed in the answer.
    public let formatParameters: String?
    /// True when the audio mid is in an offered BUNDLE group.
    public let bundled: Bool
    /// The SSRCs the offerer announced for its audio.
    public let remoteSSRCs: [UInt32]
    /// The offered RFC 4733 `telephone-event` payload type at the codec's clock rate
    /// (`telephone-event/48000` beside Opus, `/8000` beside G.711; RFC 4733 §2.1), if any.
    public let telephoneEventPayloadType: UInt8?
    /// The offer's fmtp for `telephoneEventPayloadType` (the events it supports, e.g. `0-16`).
    public let telephoneEventFormatParameters: String?

    /// Parses and checks an SDP offer.
    /// - Throws: 53403 when the text is not SDP or misses transport parameters (ICE credentials,
    ///   fingerprint, setup, rtcp-mux); 53404 when there is no audio section with Opus, PCMU or PCMA.
    public init(offer text: String) throws(ParleyError) {
        let parsed: SessionDescription
        do {
            parsed = try SessionDescription(parsing: text)
        } catch {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "offer is not valid SDP: \(error)")
        }
        try self.init(offer: parsed)
    }

    public init(offer: SessionDescription) throws(ParleyError) {
        description = offer
        let candidates = offer.media.indices.filter { offer.media[$0].mediaType == "audio" && !offer.media[$0].isRejected }
        var chosen: (index: Int, codec: AudioCodec, pt: UInt8)?
        for index in candidates {
            if let (codec, pt) = Self.pickCodec(offer.media[index]) {
                chosen = (index, codec, pt)
                break
            }
        }
        guard let chosen else {
            let why = candidates.isEmpty ? "offer has no audio section" : "audio offers none of opus, PCMU, PCMA"
            throw ParleyError(.mediaNoSupportedCodec, reason: why)
        }
        let media = offer.media[chosen.index]
        guard media.proto.uppercased().contains("SAVPF") || media.proto.uppercased().contains("SAVP") else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "audio proto \(media.proto) is not DTLS-SRTP")
        }
        guard let ufrag = offer.iceUfrag(for: media), let pwd = offer.icePwd(for: media) else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "offer lacks a=ice-ufrag / a=ice-pwd")
        }
        let fingerprints = offer.fingerprints(for: media).compactMap { fp -> DTLSFingerprint? in
            guard let algorithm = DTLSFingerprint.Algorithm(rawValue: fp.hashFunction.lowercased()) else { return nil }
            return DTLSFingerprint(algorithm: algorithm, digest: fp.bytes)
        }
        guard !fingerprints.isEmpty else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "offer has no usable a=fingerprint (sha-1/256/384/512)")
        }
        let setup = offer.setup(for: media) ?? .actpass  // RFC 8842 §5.2: absent means actpass in offers
        guard setup != .holdconn else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "a=setup:holdconn is not supported")
        }
        guard media.rtcpMux else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "offer lacks a=rtcp-mux (RFC 8843 needs it)")
        }
        audioIndex = chosen.index
        mid = media.mid
        remoteCredentials = ICECredentials(ufrag: ufrag, pwd: pwd)
        remoteFingerprints = fingerprints
        self.setup = setup
        codec = chosen.codec
        payloadType = chosen.pt
        formatParameters = media.formatParameters(for: chosen.pt)?.parameterString
        bundled = media.mid.map { mid in offer.bundleGroups.contains { $0.contains(mid) } } ?? false
        remoteSSRCs = media.ssrcs
        telephoneEventPayloadType = Self.pickTelephoneEvent(media, clockRate: chosen.codec.clockRate)
        telephoneEventFormatParameters = telephoneEventPayloadType.flatMap { media.formatParameters(for: $0)?.parameterString }
    }

    /// Our DTLS role: the offerer's `actpass` or `active` makes us the server (`a=setup:passive`,
    /// RFC 8842 §5.2/5.3); `passive` makes us the client.
    public var localDTLSRole: DTLSRole { setup == .passive ? .client : .server }

    /// The first `telephone-event` payload type at `clockRate`.
    static func pickTelephoneEvent(_ media: MediaDescription, clockRate: UInt32) -> UInt8? {
        media.payloadTypes.first { pt in
            guard let map = media.rtpMap(for: pt) else { return false }
            return map.encodingName.lowercased() == "telephone-event" && map.clockRate == clockRate
        }
    }

    /// The first supported codec in the offer's preference order, Opus before G.711 when both appear.
    static func pickCodec(_ media: MediaDescription) -> (AudioCodec, UInt8)? {
        var found: [AudioCodec: UInt8] = [:]
        for pt in media.payloadTypes {
            if let map = media.rtpMap(for: pt) {
                let name = map.encodingName.lowercased()
                if name == "opus", map.clockRate == 48_000, found[.opus] == nil { found[.opus] = pt }
                if name == "pcmu", map.clockRate == 8_000, found[.pcmu] == nil { found[.pcmu] = pt }
                if name == "pcma", map.clockRate == 8_000, found[.pcma] == nil { found[.pcma] = pt }
            } else if pt == 0, found[.pcmu] == nil {
                found[.pcmu] = 0
            } else if pt == 8, found[.pcma] == nil {
                found[.pcma] = 8
            }
        }
        for codec in AudioCodec.allCases { if let pt = found[codec] { return (codec, pt) } }
        return nil
    }
}
