import ParleyCore
import ParleyNet
import ParleySRTP
import SDP
import ServerMedia
import SIP
import SIPMedia
import Synchronization
import VoiceEngine

/// SIP legs' media as the call engine sees it (`CallMediaBridge`) over `SIPMediaServer`: a
/// phone's SDP offer is answered by RFC 3264 (`SIPAudioNegotiation`) with a leg of its own, our
/// offers are made and their answers applied. Legs' ids start with `sip-`, which is how the
/// engine's composite bridge knows them.
package final class SIPMediaBridge: CallMediaBridge {
    package struct Configuration: Sendable {
        /// Codecs offered and accepted, most preferred first: those the server can also play,
        /// record and transcode (Opus, G.711).
        package var codecs: [SIPAudioCodec] = [.opus, .pcmu, .pcma]
        /// SDES-SRTP (RFC 4568): `.optional` offers keys on RTP/AVP and accepts either; `.required` only SRTP.
        package var encryption: SIPMediaEncryption = .optional
        package init() {}
    }

    package static let idPrefix = "sip-"
    package let server: SIPMediaServer
    private let configuration: Configuration
    let legs = Mutex<[String: Leg]>([:])

    /// What offer/answer settled for a leg (nil while our offer awaits its answer), our offer,
    /// and our side of the stream (its `o=` version and direction move on with each re-INVITE).
    struct Leg {
        var parameters: SIPAudioParameters?
        var offer: SessionDescription?
        var local: SIPLocalAudio?
        /// The profile in use (`RTP/AVP`, `RTP/SAVP`), kept by re-offers.
        var proto = "RTP/AVP"
    }

    package init(server: SIPMediaServer, configuration: Configuration = Configuration()) {
        self.server = server
        self.configuration = configuration
    }

    /// Answers a phone's offer (the body of its INVITE) with a new leg.
    /// - Throws: the refusal's SIP status in `ParleyError` 53404 (488 Not Acceptable Here, 400 for garbage).
    package func createLegMedia(offer: String, events: @escaping @Sendable (CallMediaEvent) -> Void)
        async throws(ParleyError) -> CallMediaAnswer {
        let address = try await server.openLeg { event in if let mapped = CallMediaEvent(event) { events(mapped) } }
        let answer: SIPAudioAnswer
        let local = local(address)
        do throws(SIPAudioRefusal) {
            answer = try SIPAudioNegotiation.answer(toOfferBody: Array(offer.utf8), local: local)
        } catch {
            await server.close(address.id)
            throw ParleyError(.mediaNoSupportedCodec, reason: "\(error.statusCode) \(error)")
        }
        do {
            try await apply(answer.parameters, to: address.id)
        } catch {
            await server.close(address.id)
            throw error
        }
        let proto: String = answer.sdp.media.first { $0.port != 0 }.map(\.proto) ?? "RTP/AVP"
        legs.withLock {
            $0[address.id]?.local = local
            $0[address.id]?.proto = proto
        }
        events(.connected(MediaLegID(address.id)))
        return CallMediaAnswer(id: MediaLegID(address.id), sdp: answer.sdp.serialized(), codec: Self.codec(answer.parameters.codec))
    }

    /// A leg for a call we place: its offer, to send in an INVITE. `preferred` (the codec of the
    /// leg it will be bridged to) is offered first, so a phone that has it can be forwarded to.
    package func createOffer(preferring preferred: CallAudioCodec? = nil,
                             events: @escaping @Sendable (CallMediaEvent) -> Void) async throws(ParleyError) -> (id: MediaLegID, sdp: String) {
        let address = try await server.openLeg { event in if let mapped = CallMediaEvent(event) { events(mapped) } }
        var local = local(address)
        if let preferred, let first = local.codecs.firstIndex(where: { $0.name.lowercased() == preferred.rawValue }) {
            local.codecs.insert(local.codecs.remove(at: first), at: 0)
        }
        let offer = SIPAudioOffer.make(local)
        legs.withLock { $0[address.id] = Leg(parameters: nil, offer: offer, local: local, proto: offer.media.first?.proto ?? "RTP/AVP") }
        return (MediaLegID(address.id), offer.serialized())
    }

    /// Applies the answer to our offer; the leg's media flows from now on.
    package func acceptAnswer(_ id: MediaLegID, sdp: String, events: @escaping @Sendable (CallMediaEvent) -> Void) async throws(ParleyError) {
        guard let offer = legs.withLock({ $0[id.rawValue]?.offer }) else {
            throw ParleyError(.notFound, reason: "no SIP leg \(id) awaiting an answer")
        }
        let parameters: SIPAudioParameters
        do throws(SIPAudioRefusal) {
            parameters = try SIPAudioNegotiation.accept(answerBody: Array(sdp.utf8), toOffer: offer)
        } catch {
            throw ParleyError(.mediaNoSupportedCodec, reason: "the answer is unusable: \(error.statusCode) \(error)")
        }
        try await apply(parameters, to: id.rawValue)
        events(.connected(id))
    }

    private func local(_ address: SIPMediaLegAddress) -> SIPLocalAudio {
        SIPLocalAudio(address: address.host, port: UInt16(clamping: address.port), codecs: configuration.codecs,
                      encryption: configuration.encryption, srtpSuites: [.aesCM128HMACSHA1_80])
    }

    func apply(_ parameters: SIPAudioParameters, to id: String) async throws(ParleyError) {
        try await server.configure(id, Self.mediaParameters(parameters))
        legs.withLock { $0[id, default: Leg()].parameters = parameters }
    }

    static func codec(_ codec: SIPAudioCodec) -> CallAudioCodec {
        switch codec.name.lowercased() {
        case "pcmu": .pcmu
        case "pcma": .pcma
        default: .opus
        }
    }

    /// What the media server needs of what offer/answer settled.
    static func mediaParameters(_ p: SIPAudioParameters) throws(ParleyError) -> SIPMediaParameters {
        let remote = try? SocketAddress.resolve(host: p.remoteAddress, port: Int(p.remotePort))
        let rtcp = p.rtcpMux ? remote : try? SocketAddress.resolve(host: p.remoteRTCPAddress, port: Int(p.remoteRTCPPort))
        var keys: SRTPKeyingMaterial?
        if let srtp = p.srtp {
            guard srtp.suite == .aesCM128HMACSHA1_80 else {
                throw ParleyError(.mediaNoSupportedCodec, reason: "SRTP suite \(srtp.suite.rawValue) is not supported")
            }
            keys = SRTPKeyingMaterial(profile: .aes128CMHMACSHA1_80, localKey: srtp.localKey.masterKey, localSalt: srtp.localKey.masterSalt,
                                      remoteKey: srtp.remoteKey.masterKey, remoteSalt: srtp.remoteKey.masterSalt)
        }
        let holdAddress = p.remoteAddress == "0.0.0.0" || p.remoteAddress == "::"
        return SIPMediaParameters(remote: holdAddress ? nil : remote, remoteRTCP: rtcp, payloadType: p.codec.payloadType,
                                  clockRate: p.codec.clockRate, telephoneEventPayloadType: p.telephoneEvent?.payloadType,
                                  srtp: keys, sends: p.direction.sends && !holdAddress, receives: p.remoteDirection.sends)
    }

    // MARK: - CallMediaBridge

    package func forward(from source: MediaLegID, to sink: MediaLegID) async -> Bool {
        guard let a = await audioCodec(of: source), let b = await audioCodec(of: sink), a == b else { return false }
        return await server.forward(from: source.rawValue, to: sink.rawValue)
    }

    package func stopForwarding(to sink: MediaLegID) async {
        await server.stopForwarding(to: sink.rawValue)
    }

    package func setAudioTap(_ id: MediaLegID, _ tap: (@Sendable (TappedAudioPacket) -> Void)?) async -> Bool {
        guard let codec = await audioCodec(of: id) else { return false }
        guard let tap else { return await server.setAudioTap(id.rawValue, nil) }
        return await server.setAudioTap(id.rawValue) { packet in
            tap(TappedAudioPacket(payload: packet.payload, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                  codec: codec))
        }
    }

    package func audioCodec(of id: MediaLegID) async -> CallAudioCodec? {
        legs.withLock { $0[id.rawValue]?.parameters.map { Self.codec($0.codec) } }
    }

    package func restart(_ id: MediaLegID, offer: String) async throws(ParleyError) -> String {
        throw ParleyError(.mediaServerRemoteDescFailed, reason: "SIP legs renegotiate by re-INVITE")
    }

    package func close(_ id: MediaLegID) async {
        legs.withLock { _ = $0.removeValue(forKey: id.rawValue) }
        await server.close(id.rawValue)
    }

    package func play(_ payload: [UInt8], samples: Int, to session: String) {
        server.play(payload, samples: samples, to: session)
    }
}

extension CallMediaEvent {
    /// What the engine needs of a SIP leg's media event.
    init?(_ event: SIPMediaEvent) {
        switch event {
        case .receiving: return nil
        case .digit(let id, let key): self = .digit(MediaLegID(id), key)
        case .silent(let id): self = .ended(MediaLegID(id), failure: ParleyError(.mediaConnection, reason: "no RTP from the SIP peer"))
        case .closed(let id): self = .ended(MediaLegID(id), failure: nil)
        }
    }
}
