import Dispatch
import ParleyCore
import Synchronization

/// Another participant of the room (the seed's `RemoteParticipant`): its identity, its state,
/// the tracks it publishes, its network quality level. Set `delegate` (held weakly) to hear about
/// its tracks; calls run on the room's delegate queue.
public final class RemoteParticipant: Sendable {
    public enum State: String, Sendable, Hashable {
        case connected, reconnecting, disconnected
    }

    public let sid: String
    public let identity: String

    private struct Inner {
        var state: State = .connected
        var publications: [RemoteTrackPublication] = []
        var networkQualityLevel: NetworkQualityLevel = .unknown
        weak var delegate: (any RemoteParticipantDelegate)?
    }

    private let inner = Mutex(Inner())

    init(sid: String, identity: String) {
        self.sid = sid
        self.identity = identity
    }

    /// Hears about this participant's tracks; held weakly.
    public var delegate: (any RemoteParticipantDelegate)? {
        get { inner.withLock { $0.delegate } }
        set { inner.withLock { $0.delegate = newValue } }
    }

    public var state: State { inner.withLock { $0.state } }
    public var networkQualityLevel: NetworkQualityLevel { inner.withLock { $0.networkQualityLevel } }
    /// Every track it publishes, in publication order.
    public var trackPublications: [RemoteTrackPublication] { inner.withLock { $0.publications } }
    public var audioTracks: [RemoteTrackPublication] { trackPublications.filter { $0.kind == .audio } }
    public var videoTracks: [RemoteTrackPublication] { trackPublications.filter { $0.kind == .video } }
    public var dataTracks: [RemoteTrackPublication] { trackPublications.filter { $0.kind == .data } }

    /// Its publication of `trackSid`.
    public func publication(_ trackSid: String) -> RemoteTrackPublication? {
        inner.withLock { $0.publications.first { $0.trackSid == trackSid } }
    }

    func setState(_ state: State) { inner.withLock { $0.state = state } }
    func setNetworkQualityLevel(_ level: NetworkQualityLevel) { inner.withLock { $0.networkQualityLevel = level } }

    func add(_ publication: RemoteTrackPublication) {
        inner.withLock { $0.publications.append(publication) }
    }

    @discardableResult
    func remove(_ trackSid: String) -> RemoteTrackPublication? {
        inner.withLock { s in
            guard let index = s.publications.firstIndex(where: { $0.trackSid == trackSid }) else { return nil }
            return s.publications.remove(at: index)
        }
    }
}

/// A participant's network quality (Twilio's `NetworkQualityLevel`): 0 (broken) to 5 (excellent),
/// unknown until the server has measured.
public enum NetworkQualityLevel: Int, Sendable, Hashable, Comparable {
    case unknown = -1, zero = 0, one, two, three, four, five

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
