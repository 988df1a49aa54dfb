import ParleyCore
import ParleyStore
import RoomService
import SFU
import ServerMedia
import WebRTC

/// The room service's media plane on the server's WebRTC socket: each participant's session is a
/// room session of the `MediaTransportServer`, and routes are its section-to-slot forwarding.
struct WebRTCRoomMedia: RoomMediaPlane {
    let transport: MediaTransportServer

    func open(offer: String, events: @escaping @Sendable (RoomMediaEvent) -> Void)
        async throws(ParleyError) -> RoomMediaDescription {
        try await open(offer: offer, videoCodecs: MediaTransportServer.roomVideoCodecs.map(\.rawValue), events: events)
    }

    func renegotiate(session: String, offer: String) async throws(ParleyError) -> RoomMediaDescription {
        try await renegotiate(session: session, offer: offer, videoCodecs: MediaTransportServer.roomVideoCodecs.map(\.rawValue))
    }

    func open(offer: String, videoCodecs: [String], events: @escaping @Sendable (RoomMediaEvent) -> Void)
        async throws(ParleyError) -> RoomMediaDescription {
        let answer = try await transport.createRoomSession(offer: offer, videoCodecs: Self.codecs(videoCodecs)) { event in
            if let mapped = Self.roomEvent(event) { events(mapped) }
        }
        return Self.description(answer)
    }

    func renegotiate(session: String, offer: String, videoCodecs: [String]) async throws(ParleyError) -> RoomMediaDescription {
        Self.description(try await transport.renegotiateRoomSession(id: session, offer: offer, videoCodecs: Self.codecs(videoCodecs)))
    }

    /// A room's `VideoCodecs` (`VP8`, `H264`; case ignored) as WebRTC's codecs.
    static func codecs(_ names: [String]) -> [VideoCodec] {
        names.compactMap { name in VideoCodec.allCases.first { $0.rawValue.lowercased() == name.lowercased() } }
    }

    func route(_ source: RoomTrackAddress?, to slot: RoomTrackAddress, priority: TrackPriority) async -> Bool {
        await transport.route(source.map { MediaSectionAddress(session: $0.session, mid: $0.mid) },
                              to: MediaSectionAddress(session: slot.session, mid: slot.mid), priority: priority)
    }

    func setBandwidthProfile(_ profile: BandwidthProfile, session: String) async {
        await transport.setBandwidthProfile(profile, session: session)
    }

    func routeData(_ source: RoomDataChannelAddress?, to sink: RoomDataChannelAddress) async -> Bool {
        await transport.routeData(source.map { DataChannelAddress(session: $0.session, label: $0.label) },
                                  to: DataChannelAddress(session: sink.session, label: sink.label))
    }

    func close(session: String) async {
        _ = await transport.closeSession(id: session)
    }

    func tap(_ section: RoomTrackAddress, _ tap: (@Sendable (TappedRTPPacket) -> Void)?) async -> String? {
        let address = MediaSectionAddress(session: section.session, mid: section.mid)
        guard let tap else { return await transport.setTap(section: address, nil)?.encodingName }
        return await transport.setTap(section: address) { packet in
            tap(TappedRTPPacket(payload: packet.payload, ssrc: packet.ssrc, sequenceNumber: packet.sequenceNumber,
                                timestamp: packet.timestamp, marker: packet.marker, arrival: packet.arrival))
        }?.encodingName
    }

    func play(_ payload: [UInt8], samples: Int, to slot: RoomTrackAddress) {
        transport.play(EncodedAudioFrame(payload: payload, samples: samples), to: MediaSectionAddress(session: slot.session, mid: slot.mid))
    }

    func requestKeyframe(_ section: RoomTrackAddress, ssrc: UInt32?) async {
        await transport.requestKeyframe(section: MediaSectionAddress(session: section.session, mid: section.mid), ssrc: ssrc)
    }

    static func description(_ answer: RoomSessionAnswer) -> RoomMediaDescription {
        func sections(_ list: [RoomSessionAnswer.Section]) -> [RoomMediaDescription.Section] {
            list.map { .init(mid: $0.mid, kind: $0.codec.audio == nil ? .video : .audio, codec: $0.codec.encodingName) }
        }
        return RoomMediaDescription(session: answer.id, answer: answer.sdp, sending: sections(answer.sending),
                                    receiving: sections(answer.receiving), application: answer.application)
    }

    /// A session event as the room service sees it (keys and restarts are no room events).
    static func roomEvent(_ event: PeerSessionEvent) -> RoomMediaEvent? {
        switch event {
        case .stateChanged(let id, .connected, _): .connected(session: id)
        case .stateChanged(let id, let state, let error) where state.isTerminal: .closed(session: id, error: error)
        case .connectivityLost(let id): .disconnected(session: id)
        case .connectivityRestored(let id): .reconnected(session: id)
        case .audioLevel(let id, let mid, let level): .audioLevel(session: id, mid: mid, level: level)
        case .quality(let id, let q):
            .quality(session: id, RoomMediaQuality(uplinkLoss: q.uplinkLoss, downlinkLoss: q.downlinkLoss,
                                                   roundTripTime: q.roundTripTime, jitter: q.jitter,
                                                   downlinkBitrateEstimate: q.downlinkBudget,
                                                   downlinkBitrateWanted: q.downlinkWanted))
        case .dataChannelOpened(let id, let label): .dataChannelOpened(session: id, label: label)
        case .dataChannelClosed(let id, let label): .dataChannelClosed(session: id, label: label)
        case .trackSwitched(let id, let mid, let off): .trackSwitched(session: id, mid: mid, off: off)
        case .stateChanged, .digit, .consentLost, .iceRestarted: nil
        }
    }
}
