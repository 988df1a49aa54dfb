import ParleyCore
import Synchronization
import WebRTC

/// The room's media session: one client peer connection (BUNDLE, unified plan), offered by us
/// and answered by the server (ICE-lite), as every room participant's is (docs/signaling.md §12):
/// a sendonly transceiver per local audio or video track, recvonly transceivers as receive slots
/// (more added when the server asks with `room.renegotiate`), and a data channel section.
final class RoomMediaConnection: Sendable {
    /// Receive slots of each kind offered at first with automatic subscription, so the first
    /// participants' tracks need no renegotiation.
    static let initialSlots = 2

    let peer: PeerConnection

    private struct State {
        var audioSenders: [(track: LocalAudioTrack, transceiver: RTPTransceiver)] = []
        var videoSenders: [(track: LocalVideoTrack, transceiver: RTPTransceiver)] = []
        var slots: [String: SlotPump] = [:]
    }

    private let state = Mutex(State())
    /// Whether ICE and DTLS came up (nil: not yet), and who waits to know.
    private let outcome = Mutex<(connected: Bool?, waiters: [CheckedContinuation<Bool, Never>])>((nil, []))
    /// Who hears the connection's state changes after it first connected (the room, for media
    /// reconnection).
    private let observer = Mutex<(@Sendable (PeerConnection.State) -> Void)?>(nil)

    /// - Parameters:
    ///   - audioCodecs: what every audio section offers, most preferred first.
    ///   - ice: the app's STUN/TURN servers and transport policy.
    init(audioCodecs: [AudioCodec], ice: ICEOptions) throws(ParleyError) {
        var configuration = PeerConnection.Configuration(iceServers: try ice.peerServers(), transportPolicy: ice.transportPolicy)
        configuration.audioCodecs = audioCodecs.map(\.wire)
        configuration.offerTelephoneEvent = false
        // Data tracks, ours and the others': one data channel section (RFC 8841) always.
        configuration.offerDataChannels = true
        peer = try PeerConnection(configuration: configuration)
        // The connection's one reader of `states`: the first outcome, then every change.
        Task { [weak self, peer] in
            var settled = false
            for await state in peer.states {
                guard let self else { return }
                if !settled, state == .connected || state.isTerminal {
                    settled = true
                    self.settle(state == .connected)
                    continue
                }
                if settled { self.observer.withLock { $0 }?(state) }
            }
            self?.settle(false)
        }
    }

    /// From now on `handler` hears every state change after the first connection.
    func observe(_ handler: @escaping @Sendable (PeerConnection.State) -> Void) { observer.withLock { $0 = handler } }

    private func settle(_ connected: Bool) {
        let waiters = outcome.withLock { o -> [CheckedContinuation<Bool, Never>] in
            if o.connected == nil { o.connected = connected }
            defer { o.waiters = [] }
            return o.waiters
        }
        for waiter in waiters { waiter.resume(returning: connected) }
    }

    /// Adds a sending transceiver per local track and the first receive slots; returns the tracks
    /// as `room.join` describes them (each naming its section's mid; data tracks none).
    func prepare(_ options: ConnectOptions) async throws(ParleyError) -> [RoomTrackDescription] {
        var described: [RoomTrackDescription] = []
        for track in options.audioTracks { described.append(try await addSender(track)) }
        let simulcast = options.preferredVideoCodecs.first?.isSimulcast == true
        for track in options.videoTracks { described.append(try await addSender(track, simulcast: simulcast)) }
        for track in options.dataTracks { described.append(RoomTrackDescription(name: track.name, kind: .data, mid: nil, enabled: true)) }
        let slots = options.isAutomaticSubscriptionEnabled ? Self.initialSlots : 0
        try await addSlots(audio: slots, video: slots)
        return described
    }

    /// A sendonly transceiver for a local audio track, in the next offer.
    func addSender(_ track: LocalAudioTrack) async throws(ParleyError) -> RoomTrackDescription {
        let transceiver = try await peer.addTransceiver(kind: .audio, direction: .sendonly, trackID: track.name)
        state.withLock { $0.audioSenders.append((track, transceiver)) }
        return RoomTrackDescription(name: track.name, kind: .audio, mid: transceiver.mid, enabled: track.isEnabled)
    }

    /// A sendonly transceiver for a local video track (three rids with simulcast), in the next offer.
    func addSender(_ track: LocalVideoTrack, simulcast: Bool) async throws(ParleyError) -> RoomTrackDescription {
        let transceiver = try await peer.addTransceiver(kind: .video, direction: .sendonly,
                                                        sendEncodings: simulcast ? ["q", "h", "f"] : [], trackID: track.name)
        state.withLock { $0.videoSenders.append((track, transceiver)) }
        return RoomTrackDescription(name: track.name, kind: .video, mid: transceiver.mid, enabled: track.isEnabled)
    }

    /// Stops sending `track` (unpublishing): its transceiver is stopped, so the next offer
    /// carries its section with port 0 and the server unpublishes the track (docs/signaling.md
    /// §12). The transceiver it was sent on, nil when this connection does not send it.
    @discardableResult
    func removeSender(_ track: any LocalTrack) async -> RTPTransceiver? {
        let transceiver = state.withLock { s -> RTPTransceiver? in
            if let index = s.audioSenders.firstIndex(where: { $0.track === track }) { return s.audioSenders.remove(at: index).transceiver }
            if let index = s.videoSenders.firstIndex(where: { $0.track === track }) { return s.videoSenders.remove(at: index).transceiver }
            return nil
        }
        if let transceiver { await peer.stop(transceiver) }
        return transceiver
    }

    /// Adds receive slots (recvonly transceivers) for the next offer.
    func addSlots(audio: Int, video: Int) async throws(ParleyError) {
        for kind in [RTPTransceiver.Kind.audio, .video] {
            for _ in 0..<(kind == .audio ? audio : video) {
                let transceiver = try await peer.addTransceiver(kind: kind, direction: .recvonly)
                let pump = SlotPump(transceiver)
                state.withLock { $0.slots[transceiver.mid] = pump }
            }
        }
    }

    /// The receive slot whose section is `mid`.
    func slot(_ mid: String) -> SlotPump? { state.withLock { $0.slots[mid] } }

    var audioSenders: [(track: LocalAudioTrack, transceiver: RTPTransceiver)] { state.withLock { $0.audioSenders } }
    var videoSenders: [(track: LocalVideoTrack, transceiver: RTPTransceiver)] { state.withLock { $0.videoSenders } }

    func offer() async throws(ParleyError) -> String {
        try await peer.createOffer()
    }

    func apply(answer: String) async throws(ParleyError) {
        try await peer.setRemoteAnswer(answer)
    }

    /// Waits until ICE and DTLS are up (media and data channels can flow from then); false when
    /// the connection failed or closed first.
    func connected() async -> Bool {
        await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
            let known = outcome.withLock { o -> Bool? in
                if o.connected == nil { o.waiters.append(waiter) }
                return o.connected
            }
            if let known { waiter.resume(returning: known) }
        }
    }

    func close() async {
        let slots = state.withLock { $0.slots.values }
        for slot in slots { slot.attach(nil) }
        await peer.close()
        settle(false)
    }
}

/// A local track as `room.join` / `room.offer` describe it.
struct RoomTrackDescription: Sendable, Equatable {
    var name: String
    var kind: TrackKind
    var mid: String?
    var enabled: Bool
}

/// What a receive slot's packets go to: the remote track it carries now.
protocol SlotReceiver: AnyObject, Sendable {
    func receive(_ packet: PeerConnection.ReceivedRTP)
}

/// One receive slot: the only reader of its transceiver's packets, handing each to the remote
/// track the slot carries now (the server moves tracks between slots as subscriptions change).
final class SlotPump: Sendable {
    let transceiver: RTPTransceiver
    private let receiver = Mutex<(any SlotReceiver)?>(nil)

    init(_ transceiver: RTPTransceiver) {
        self.transceiver = transceiver
        Task { [weak self] in
            for await packet in transceiver.received {
                guard let self else { return }
                self.receiver.withLock { $0 }?.receive(packet)
            }
        }
    }

    /// From now on the slot's packets go to `receiver` (nil: dropped).
    func attach(_ receiver: (any SlotReceiver)?) { self.receiver.withLock { $0 = receiver } }
}
