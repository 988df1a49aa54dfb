import DataChannel
import Foundation
import Synchronization
import WebRTC

/// One message of a data track, text or binary.
struct DataTrackMessage: Sendable {
    var bytes: [UInt8]
    var isBinary: Bool
}

/// A local data track's channel once open: messages go out in the order they were sent, through
/// one task; at most 4,096 wait (the oldest are dropped past that).
final class DataTrackOutbox: Sendable {
    /// The channel's SCTP stream.
    let stream: UInt16
    private let continuation: AsyncStream<DataTrackMessage>.Continuation

    init(peer: PeerConnection, stream: UInt16) {
        self.stream = stream
        let (messages, continuation) = AsyncStream<DataTrackMessage>.makeStream(bufferingPolicy: .bufferingNewest(4_096))
        self.continuation = continuation
        Task {
            for await message in messages { _ = await peer.sendData(message.bytes, isBinary: message.isBinary, on: stream) }
            // Closed (unpublished): after what was sent before, the channel goes (stream reset,
            // RFC 8831 §6.7), which unpublishes the track.
            peer.closeDataChannel(stream)
        }
    }

    func send(_ message: DataTrackMessage) { continuation.yield(message) }
    /// Sends what waits, then closes the channel.
    func close() { continuation.finish() }
}

/// What a remote data track delivers (the seed's `RemoteDataTrackDelegate`), on the room's
/// delegate queue, in the order the publisher sent (for an ordered track).
public protocol RemoteDataTrackDelegate: AnyObject, Sendable {
    func remoteDataTrack(_ track: RemoteDataTrack, didReceiveString message: String)
    func remoteDataTrack(_ track: RemoteDataTrack, didReceiveData message: Data)
}

extension RemoteDataTrackDelegate {
    public func remoteDataTrack(_ track: RemoteDataTrack, didReceiveString message: String) {}
    public func remoteDataTrack(_ track: RemoteDataTrack, didReceiveData message: Data) {}
}

/// Another participant's data track we receive (the seed's `RemoteDataTrack`): set `delegate`
/// (held weakly) to get its messages.
public final class RemoteDataTrack: Sendable {
    public let sid: String
    public let name: String
    private let queue: DispatchQueue

    private struct State {
        weak var delegate: (any RemoteDataTrackDelegate)?
        var received = 0
        /// Messages that came while no delegate was set, for the first one set (up to 256).
        var held: [DataTrackMessage] = []
    }

    private let state = Mutex(State())

    init(sid: String, name: String, queue: DispatchQueue) {
        self.sid = sid
        self.name = name
        self.queue = queue
    }

    public var delegate: (any RemoteDataTrackDelegate)? {
        get { state.withLock { $0.delegate } }
        set {
            state.withLock { $0.delegate = newValue }
            queue.async { [self] in
                let held = state.withLock { s -> [DataTrackMessage] in
                    guard s.delegate != nil else { return [] }
                    defer { s.held = [] }
                    return s.held
                }
                for message in held { hand(message) }
            }
        }
    }

    /// Messages received so far.
    public var messagesReceived: Int { state.withLock { $0.received } }

    func deliver(_ message: DataTrackMessage) {
        state.withLock { $0.received += 1 }
        queue.async { [self] in hand(message) }
    }

    /// On the delegate queue: to the delegate, or held for the first one set (after what is held).
    private func hand(_ message: DataTrackMessage) {
        let delegate = state.withLock { s -> (any RemoteDataTrackDelegate)? in
            guard let delegate = s.delegate, s.held.isEmpty else {
                if s.held.count < 256 { s.held.append(message) }
                return nil
            }
            return delegate
        }
        guard let delegate else { return }
        if message.isBinary {
            delegate.remoteDataTrack(self, didReceiveData: Data(message.bytes))
        } else {
            delegate.remoteDataTrack(self, didReceiveString: String(decoding: message.bytes, as: UTF8.self))
        }
    }
}
