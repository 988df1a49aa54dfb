import ICE
import ParleyCore
import ParleyCrypto
import ParleyRTP
import SDP

/// What a session takes from a remote description (an offer, or the answer to ours): the
/// parameters of its one transport and, for every m-section in order, what we accept from it
/// (RFC 8829 §5.3.1, §5.8). One audio section is required; given `videoCodecs`, one video section
/// bundled with it, offering one of them, is accepted too (RFC 8843: one transport, demultiplexed
/// by payload type). Every other section is answered rejected (port 0), in place.
///
/// `init(offer:)` checks everything a WebRTC endpoint needs and throws a `ParleyError` with a
/// media code (534xx) otherwise.
public struct MediaOffer: Sendable {
    public let description: SessionDescription
    /// One entry per m-section, in the description's order.
    public let sections: [OfferedMediaSection]
    /// Index of the accepted audio section in `sections` (and `description.media`).
    public let audioIndex: Int
    public let remoteCredentials: ICECredentials
    public let remoteFingerprints: [DTLSFingerprint]
    public let setup: SDPSetupRole
    /// The answer's BUNDLE group: the accepted sections of the offered group holding the audio
    /// section, in the group's order (RFC 8843 §7.3.3: a rejected section leaves the group).
    /// Empty when the audio section was not bundled.
    public let bundleMids: [String]
    /// Room offers: the data channel section accepted (RFC 8841), bundled with the first section;
    /// nil for call offers and offers without one. Its entry in `sections` has no codec.
    public let application: OfferedApplication?

    /// Parses and checks an SDP offer (or answer).
    /// - Throws: 53403 when the text is not SDP or misses transport parameters (ICE credentials,
    ///   fingerprint, setup, rtcp-mux); 53404 when there is no audio section with Opus, PCMU or PCMA.
    public init(offer text: String, videoCodecs: [VideoCodec] = [], preferredAudio: AudioCodec? = nil) throws(ParleyError) {
        try self.init(offer: Self.parse(text), videoCodecs: videoCodecs, preferredAudio: preferredAudio)
    }

    /// The SDP text parsed, or 53403.
    public static func parse(_ text: String) throws(ParleyError) -> SessionDescription {
        do {
            return try SessionDescription(parsing: text)
        } catch {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "offer is not valid SDP: \(error)")
        }
    }

    /// - Parameters: `videoCodecs`: the video codecs we take; empty rejects every video section.
    ///   `preferredAudio`: taken before Opus when offered (the codec of the leg a call session
    ///   will be bridged to, so the two forward without transcoding).
    public init(offer: SessionDescription, videoCodecs: [VideoCodec] = [], preferredAudio: AudioCodec? = nil) throws(ParleyError) {
        description = offer
        let candidates = offer.media.indices.filter { offer.media[$0].mediaType == "audio" && !offer.media[$0].isRejected }
        guard let (audioIndex, audioCodec) = candidates.lazy.compactMap({ i in Self.pickAudio(offer.media[i], preferring: preferredAudio).map { (i, $0) } }).first
        else {
            let why = candidates.isEmpty ? "offer has no audio section" : "audio offers none of opus, PCMU, PCMA"
            throw ParleyError(.mediaNoSupportedCodec, reason: why)
        }
        let media = offer.media[audioIndex]
        guard Self.isSRTP(media) else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "audio proto \(media.proto) is not DTLS-SRTP")
        }
        let group = media.mid.flatMap { offer.bundleGroup(containing: $0) } ?? []
        let transport = try Self.transport(of: offer, section: media, group: group)
        self.audioIndex = audioIndex
        remoteCredentials = transport.credentials
        remoteFingerprints = transport.fingerprints
        setup = transport.setup

        let audio = OfferedMediaSection(offer: offer, index: audioIndex, codec: audioCodec)
        var sections: [OfferedMediaSection] = []
        var usedPayloadTypes = Set([audio.payloadType] + (audio.telephoneEventPayloadType.map { [$0] } ?? []))
        var videoAccepted = false
        for (index, section) in offer.media.enumerated() {
            if index == audioIndex {
                sections.append(audio)
                continue
            }
            // One video section, on the audio's transport (bundled), with payload types of its own.
            if !videoCodecs.isEmpty, !videoAccepted, section.mediaType == "video", Self.isBundled(section, in: group),
               let codec = Self.pickVideo(section, among: videoCodecs, excluding: usedPayloadTypes) {
                sections.append(OfferedMediaSection(offer: offer, index: index, codec: codec))
                usedPayloadTypes.insert(codec.payloadType)
                videoAccepted = true
            } else {
                sections.append(OfferedMediaSection(rejected: section, index: index, offer: offer))
            }
        }
        self.sections = sections
        let accepted = Set(sections.filter(\.isAccepted).compactMap(\.mid))
        bundleMids = group.filter { accepted.contains($0) }
        application = nil
    }

    /// Reads a room participant's offer (an SFU session): every audio and video section bundled
    /// with the first one is accepted with its own codec (Opus, else G.711; the first of
    /// `videoCodecs` it offers), however many there are; sections of one kind may repeat payload
    /// types (RFC 8843 §9.1.2 lets a receiver tell them apart by SSRC), but a payload type may not
    /// name two codecs. RED (RFC 2198) around Opus is taken, kept or reduced to its primary per
    /// receive slot; no telephone events, or NACK on audio: the forwarder passes media as it comes.
    /// One data channel section (`OfferedApplication`) bundled with the first is accepted too; an
    /// offer may have nothing else (a data-only participant).
    /// `audioIndex` is the first accepted section (the data channel section's when it is the only one).
    /// - Throws: 53403 (no transport parameters, a section that is not DTLS-SRTP), 53404 (no
    ///   section with a codec we take, and no data channel section).
    public init(roomOffer offer: SessionDescription, videoCodecs: [VideoCodec]) throws(ParleyError) {
        description = offer
        let firstRTP = offer.media.first(where: { !$0.isRejected && ["audio", "video"].contains($0.mediaType) })
        guard let first = firstRTP ?? offer.media.first(where: OfferedApplication.isDataChannelSection) else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "offer has no audio, video or data channel section")
        }
        guard firstRTP == nil || Self.isSRTP(first) else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "proto \(first.proto) is not DTLS-SRTP")
        }
        let group = first.mid.flatMap { offer.bundleGroup(containing: $0) } ?? []
        // RFC 8841 has no rtcp-mux in the data channel section: a data-only offer needs none.
        let transport = try Self.transport(of: offer, section: first, group: group, requireRTCPMux: firstRTP != nil)
        remoteCredentials = transport.credentials
        remoteFingerprints = transport.fingerprints
        setup = transport.setup
        var codecs: [UInt8: MediaCodec] = [:]
        var sections: [OfferedMediaSection] = []
        var application: OfferedApplication?
        for (index, section) in offer.media.enumerated() {
            if application == nil, section.mid == first.mid || section.mid.map(group.contains) == true,
               let data = OfferedApplication(section, index: index) {
                application = data
                sections.append(OfferedMediaSection(rejected: section, index: index, offer: offer))
                continue
            }
            let bundled = section.mid == first.mid || Self.isBundled(section, in: group)
            let choice: OfferedMediaSection.Choice? = switch section.mediaType {
            case "audio" where bundled: Self.pickAudio(section)
            case "video" where bundled: Self.pickVideo(section, among: videoCodecs, excluding: [])
            default: nil
            }
            if let choice, codecs[choice.payloadType].map({ $0 == choice.codec }) ?? true {
                codecs[choice.payloadType] = choice.codec
                sections.append(OfferedMediaSection(offer: offer, index: index, codec: choice, forwarded: true))
            } else {
                sections.append(OfferedMediaSection(rejected: section, index: index, offer: offer))
            }
        }
        guard let audioIndex = sections.firstIndex(where: \.isAccepted) ?? application?.index else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "no section offers a codec this server forwards")
        }
        // RED's payload type may name no codec of another section (packets are classed by type).
        for index in sections.indices where sections[index].redPayloadType.map({ codecs[$0] != nil }) == true {
            sections[index].redPayloadType = nil
        }
        self.audioIndex = audioIndex
        self.sections = sections
        self.application = application
        let accepted = Set(sections.filter(\.isAccepted).compactMap(\.mid) + (application?.mid.map { [$0] } ?? []))
        bundleMids = group.filter { accepted.contains($0) }
    }

    /// A section on the group's transport: in the BUNDLE group, DTLS-SRTP and rtcp-mux.
    static func isBundled(_ section: MediaDescription, in group: [String]) -> Bool {
        guard !section.isRejected, isSRTP(section), section.rtcpMux, let mid = section.mid else { return false }
        return group.contains(mid)
    }

    /// The transport parameters of the BUNDLE group holding `media` (or of `media` alone).
    static func transport(of offer: SessionDescription, section media: MediaDescription, group: [String],
                          requireRTCPMux: Bool = true) throws(ParleyError) -> (credentials: ICECredentials, fingerprints: [DTLSFingerprint], setup: SDPSetupRole) {
        // RFC 8843 §7.2.1: the transport is the tagged (first) section's; browsers repeat it in each.
        let tagged = group.first.flatMap { offer.media(withMid: $0) }.flatMap { $0.isRejected ? nil : $0 } ?? media
        guard let ufrag = offer.iceUfrag(for: tagged), let pwd = offer.icePwd(for: tagged) else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "offer lacks a=ice-ufrag / a=ice-pwd")
        }
        let fingerprints = offer.fingerprints(for: tagged).compactMap { fp -> DTLSFingerprint? in
            guard let algorithm = DTLSFingerprint.Algorithm(rawValue: fp.hashFunction.lowercased()) else { return nil }
            return DTLSFingerprint(algorithm: algorithm, digest: fp.bytes)
        }
        guard !fingerprints.isEmpty else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "offer has no usable a=fingerprint (sha-1/256/384/512)")
        }
        let setup = offer.setup(for: tagged) ?? .actpass  // RFC 8842 §5.2: absent means actpass in offers
        guard setup != .holdconn else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "a=setup:holdconn is not supported")
        }
        guard media.rtcpMux || !requireRTCPMux else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "offer lacks a=rtcp-mux (RFC 8843 needs it)")
        }
        return (ICECredentials(ufrag: ufrag, pwd: pwd), fingerprints, setup)
    }

    /// Our DTLS role: the offerer's `actpass` or `active` makes us the server (`a=setup:passive`,
    /// RFC 8842 §5.2/5.3); `passive` makes us the client.
    public var localDTLSRole: DTLSRole { setup == .passive ? .client : .server }

    public var audio: OfferedMediaSection { sections[audioIndex] }
    /// The accepted video section, if any.
    public var video: OfferedMediaSection? { sections.first { $0.codec?.audio == nil && $0.isAccepted } }
    /// The accepted sections, in order.
    public var accepted: [OfferedMediaSection] { sections.filter(\.isAccepted) }
    public var bundled: Bool { !bundleMids.isEmpty }

    // The audio section's parameters, by the names the single-section code used.
    public var mid: String? { audio.mid }
    public var codec: AudioCodec { audio.codec?.audio ?? .opus }
    public var payloadType: UInt8 { audio.payloadType }
    public var formatParameters: String? { audio.formatParameters }
    public var remoteSSRCs: [UInt32] { audio.remoteSSRCs }
    public var telephoneEventPayloadType: UInt8? { audio.telephoneEventPayloadType }
    public var telephoneEventFormatParameters: String? { audio.telephoneEventFormatParameters }

    /// The payload formats of every accepted section, for the RTP session; telephone events only
    /// when the answer accepts them.
    public func payloadFormats(telephoneEvent: Bool) -> [RTPPayloadFormat] {
        accepted.flatMap { $0.payloadFormats(telephoneEvent: telephoneEvent) }
    }

    static func isSRTP(_ media: MediaDescription) -> Bool {
        media.proto.uppercased().contains("SAVP")
    }

    /// The first supported audio codec: `preferred` when it appears, else Opus before G.711
    /// whatever the order.
    static func pickAudio(_ media: MediaDescription, preferring preferred: AudioCodec? = nil) -> OfferedMediaSection.Choice? {
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
        if let preferred, let pt = found[preferred] { return .init(codec: .audio(preferred), payloadType: pt) }
        for codec in AudioCodec.allCases { if let pt = found[codec] { return .init(codec: .audio(codec), payloadType: pt) } }
        return nil
    }

    /// The offer's most preferred video codec among `codecs` (RFC 3264 §6.1: the offerer's
    /// order), on a payload type no other accepted section uses.
    static func pickVideo(_ media: MediaDescription, among codecs: [VideoCodec],
                          excluding used: Set<UInt8>) -> OfferedMediaSection.Choice? {
        for pt in media.payloadTypes where !used.contains(pt) {
            guard let map = media.rtpMap(for: pt), map.clockRate == 90_000,
                  let codec = VideoCodec(encodingName: map.encodingName), codecs.contains(codec) else { continue }
            // RFC 6184 §8.1: H.264 without packetization-mode=1 cannot carry browser frames.
            if codec == .h264, media.formatParameters(for: pt)?.parameter("packetization-mode") != "1" { continue }
            return .init(codec: .video(codec), payloadType: pt)
        }
        return nil
    }
}
