import Foundation
import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization
import WebRTC

/// A video room this client is in (the seed's `Room`): its name and SID, its state, this client
/// (`localParticipant`), the others (`remoteParticipants`), the dominant speaker and whether it
/// records. Made by `Video.connect`; `disconnect()` leaves. The room holds its delegate weakly.
public final class Room: Sendable {
    public enum State: String, Sendable, Hashable {
        case connecting, connected, reconnecting, disconnected
    }

    let options: ConnectOptions
    let delegateQueue: DispatchQueue

    struct Inner {
        var state: State = .connecting
        var model = RoomModel()
        var localParticipant: LocalParticipant?
        var remote: [RemoteParticipant] = []
        var failure: ParleyError?
        var waiters: [CheckedContinuation<Void, Never>] = []
        var channel: SignalingChannel?
        var media: RoomMediaConnection?
        /// Our tracks as `room.join` described them (re-offers describe them again).
        var described: [RoomTrackInfo] = []
        var audioSenders: [LocalAudioSender] = []
        var videoSenders: [LocalVideoSender] = []
        /// The app's limits on what we send (`ConnectOptions.encodingParameters`, then
        /// `LocalParticipant.setEncodingParameters`).
        var encoding: EncodingParameters?
        /// Why the server refused our last `room.offer` publication.
        var publishFailure: ParleyError?
        /// How many `room.answer`s came, and the sections the last one says we publish in
        /// (an unpublication waits for its section to be gone).
        var answers = 0
        /// `room.offer`s sent; while more than `answers`, one may still describe a track we unpublish.
        var offersSent = 0
        var answeredMids: Set<String> = []
        /// Our data channels being closed (unpublished), by stream: true once closed both ways.
        var closingDataStreams: [UInt16: Bool] = [:]
        /// Peer-to-peer and go rooms: a connection per other participant, and our tracks as the
        /// peers see them (call-style mids → SIDs).
        var isPeerToPeer = false
        var links: [String: PeerLink] = [:]
        var peerPublished: [RoomPublishedTrack] = []
        var peerICEServers: [PeerConnection.ICEServer] = []
        var task: Task<Void, Never>?
        /// Data track messages that came before their subscription, by track SID.
        var earlyData: [String: [DataTrackMessage]] = [:]
        /// Data tracks whose channel from the server is open, and subscriptions waiting for it
        /// (a data track counts as subscribed once both are there), by track SID.
        var openDataChannels: Set<String> = []
        var waitingDataSubscriptions: [String: (participantSid: String, mid: String)] = [:]
        weak var delegate: (any RoomDelegate)?
    }

    let inner: Mutex<Inner>

    init(options: ConnectOptions, delegate: (any RoomDelegate)?) {
        self.options = options
        delegateQueue = options.delegateQueue ?? DelegateQueue.default
        var inner = Inner()
        inner.delegate = delegate
        inner.encoding = options.encodingParameters
        inner.model.hearsRemoteNetworkQuality = options.networkQualityConfiguration.remoteVerbosity != .none
        self.inner = Mutex(inner)
    }

    /// The room's unique name (from the server once connected; before, the one asked for).
    public var name: String { inner.withLock { $0.model.room?.name } ?? options.roomName ?? "" }
    /// The room's SID (`RM…`), once connected.
    public var sid: String? { inner.withLock { $0.model.room?.sid } }
    public var state: State { inner.withLock { $0.state } }
    public var isRecording: Bool { inner.withLock { $0.model.isRecording } }
    public var localParticipant: LocalParticipant? { inner.withLock { $0.localParticipant } }
    /// The other participants, in the order they were learnt.
    public var remoteParticipants: [RemoteParticipant] { inner.withLock { $0.remote } }
    /// The loudest participant (with `isDominantSpeakerEnabled`), nil when nobody speaks.
    public var dominantSpeaker: RemoteParticipant? {
        inner.withLock { s in s.model.dominantSpeaker.flatMap { sid in s.remote.first { $0.sid == sid } } }
    }

    /// The participant with SID `sid`.
    public func remoteParticipant(sid: String) -> RemoteParticipant? { inner.withLock { s in s.remote.first { $0.sid == sid } } }

    /// Leaves the room: `room.leave`, the media and signaling closed, then `roomDidDisconnect`
    /// with no error. Nothing happens once disconnected.
    public func disconnect() {
        let (channel, media, wasConnected) = inner.withLock { s -> (SignalingChannel?, RoomMediaConnection?, Bool) in
            guard s.state != .disconnected else { return (nil, nil, false) }
            let was = s.state != .connecting
            s.state = .disconnected
            s.task?.cancel()
            return (s.channel, s.media, was)
        }
        guard let channel else {
            if !wasConnected { finishWaiters(failure: ParleyError(.signalingConnectionDisconnected, reason: "disconnected before it connected")) }
            return
        }
        channel.send(.roomLeave)
        stopMedia()
        Task {
            await media?.close()
            await channel.close()
        }
        if wasConnected {
            publishInsight("disconnected")
            notify { $0.roomDidDisconnect(room: self, error: nil) }
        } else {
            finishWaiters(failure: ParleyError(.signalingConnectionDisconnected, reason: "disconnected before it connected"))
        }
    }

    /// Waits until connected; throws why it could not.
    func connected() async throws(ParleyError) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume = inner.withLock { s -> Bool in
                guard s.state == .connecting else { return true }
                s.waiters.append(continuation)
                return false
            }
            if resume { continuation.resume() }
        }
        if let failure = inner.withLock({ $0.failure }) { throw failure }
    }

    func finishWaiters(failure: ParleyError?) {
        let waiters = inner.withLock { s -> [CheckedContinuation<Void, Never>] in
            if let failure, s.failure == nil { s.failure = failure }
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Runs `body` with the delegate on the delegate queue, if the delegate is still there.
    func notify(_ body: @escaping @Sendable (any RoomDelegate) -> Void) {
        delegateQueue.async { [self] in
            guard let delegate = inner.withLock({ $0.delegate }) else { return }
            body(delegate)
        }
    }
}
