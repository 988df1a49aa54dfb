import ParleyCore
import ServerMedia
import WebRTC

/// Client legs' media: `CallMediaBridge` over the shared WebRTC media socket (call sessions),
/// through `MediaTransportServer`'s public API only. A leg's `MediaLegID` is its session id.
package struct WebRTCMediaBridge: CallMediaBridge {
    let media: MediaTransportServer

    package init(media: MediaTransportServer) {
        self.media = media
    }

    package func createLegMedia(offer: String, events: @escaping @Sendable (CallMediaEvent) -> Void)
        async throws(ParleyError) -> CallMediaAnswer {
        try await createLegMedia(offer: offer, preferring: nil, events: events)
    }

    package func createLegMedia(offer: String, preferring preferred: CallAudioCodec?,
                                events: @escaping @Sendable (CallMediaEvent) -> Void) async throws(ParleyError) -> CallMediaAnswer {
        let answer = try await media.createCallSession(offer: offer, preferredAudio: preferred.map(AudioCodec.init)) { event in
            if let event = CallMediaEvent(event) { events(event) }
        }
        let codec = await media.session(id: answer.id).map { CallAudioCodec($0.codec) } ?? .opus
        return CallMediaAnswer(id: MediaLegID(answer.id), sdp: answer.sdp, codec: codec)
    }

    package func forward(from source: MediaLegID, to sink: MediaLegID) async -> Bool {
        await media.forward(from: source.rawValue, to: sink.rawValue)
    }

    package func stopForwarding(to sink: MediaLegID) async {
        await media.stopForwarding(to: sink.rawValue)
    }

    package func setAudioTap(_ id: MediaLegID, _ tap: (@Sendable (TappedAudioPacket) -> Void)?) async -> Bool {
        guard let tap else { return await media.setAudioTap(session: id.rawValue, nil) }
        let audioPayloadType = await media.session(id: id.rawValue)?.payloadType
        return await media.setAudioTap(session: id.rawValue) { packet in
            // Keys (RFC 4733 telephone-event) are not audio: a recorder would count them as losses.
            guard audioPayloadType == nil || packet.payloadType == audioPayloadType, let codec = packet.codec.audio else { return }
            tap(TappedAudioPacket(payload: packet.payload, sequenceNumber: packet.sequenceNumber,
                                  timestamp: packet.timestamp, codec: CallAudioCodec(codec)))
        }
    }

    package func audioCodec(of id: MediaLegID) async -> CallAudioCodec? {
        await media.session(id: id.rawValue).map { CallAudioCodec($0.codec) }
    }

    package func restart(_ id: MediaLegID, offer: String) async throws(ParleyError) -> String {
        try await media.restartSession(id: id.rawValue, offer: offer)
    }

    package func close(_ id: MediaLegID) async {
        _ = await media.closeSession(id: id.rawValue)
    }

    /// The player's frames go out on the session's own stream.
    package func play(_ payload: [UInt8], samples: Int, to session: String) {
        media.play(EncodedAudioFrame(payload: payload, samples: samples), to: session)
    }
}

extension CallMediaEvent {
    /// What the engine needs of a call session's event; nil for what it does not act on
    /// (`new`, `checking`, connectivity and consent changes, finished ICE restarts).
    init?(_ event: PeerSessionEvent) {
        let id = MediaLegID(event.sessionID)
        switch event {
        case .stateChanged(_, .connected, _):
            self = .connected(id)
        case .stateChanged(_, .failed, let error):
            self = .ended(id, failure: error ?? ParleyError(.mediaConnection, reason: "the media session failed"))
        case .stateChanged(_, .closed, _):
            self = .ended(id, failure: nil)
        case .digit(_, let digit):
            self = .digit(id, digit)
        case .stateChanged, .connectivityLost, .connectivityRestored, .consentLost, .iceRestarted, .audioLevel, .quality,
             .trackSwitched, .dataChannelOpened, .dataChannelClosed:
            return nil
        }
    }
}

extension AudioCodec {
    /// The WebRTC codec of a call codec.
    init(_ codec: CallAudioCodec) {
        switch codec {
        case .opus: self = .opus
        case .pcmu: self = .pcmu
        case .pcma: self = .pcma
        }
    }
}

extension CallAudioCodec {
    /// The codec a media session negotiated, as the player and recorder know it.
    init(_ codec: AudioCodec) {
        switch codec {
        case .opus: self = .opus
        case .pcmu: self = .pcmu
        case .pcma: self = .pcma
        }
    }
}
