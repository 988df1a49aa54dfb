import ParleyCore
import ParleyVPX
import Synchronization
import VP8
import VideoCore
import WebRTC

/// Where a remote video track's decoded frames go (the seed's `VideoRenderer`), on the track's
/// receive task.
public protocol VideoRenderer: AnyObject, Sendable {
    func renderFrame(_ frame: I420Frame)
    /// The track's picture size changed (its first frame, a simulcast layer switch).
    func updateVideoSize(width: Int, height: Int)
}

extension VideoRenderer {
    public func updateVideoSize(width: Int, height: Int) {}
}

/// Another participant's video we receive (the seed's `RemoteVideoTrack`): its VP8 packets are put
/// back in order (`SequenceReorderBuffer`: a lost packet's NACK retransmission, RFC 4588, still
/// repairs its frame), reassembled (RFC 7741), decoded with libvpx and handed to each renderer,
/// each frame once and in order. A packet that never comes, within `retransmissionWait`, drops its
/// frame and the ones after it, and asks the sender for a key frame (PLI, at most every 500 ms),
/// until one decodes.
public final class RemoteVideoTrack: SlotReceiver {
    public let sid: String
    public let name: String

    /// How long packets after a missing one wait for its retransmission: a NACK's round trip
    /// through a bottleneck's full queue (a few hundred ms), as a browser's jitter buffer waits.
    static let retransmissionWait = 0.5

    private struct State {
        var reorder = SequenceReorderBuffer<PeerConnection.ReceivedRTP>(maxWait: RemoteVideoTrack.retransmissionWait)
        var depacketizer = VP8Depacketizer()
        var decoder: VP8Decoder?
        var picture = I420Frame(width: 2, height: 2)
        var renderers: [any VideoRenderer] = []
        var size: (width: Int, height: Int)?
        var awaitingKeyFrame = true
        var lastKeyFrameRequest = ContinuousClock.now - .seconds(1)
        var framesDecoded = 0
        var framesDropped = 0
        /// The RTP timestamp of the last frame decoded: frames not newer are not shown again.
        var lastTimestamp: UInt32?
        /// Decoded pictures to hand out after the lock, each with whether its size changed.
        var ready: [(picture: I420Frame, resized: Bool)] = []
        var askKeyFrame = false
    }

    private let state = Mutex(State())
    private let origin = ContinuousClock.now
    /// Asks the sender for a key frame (a PLI on the room transceiver).
    private let askKeyFrame: @Sendable () -> Void

    convenience init(sid: String, name: String, peer: PeerConnection, transceiver: RTPTransceiver) {
        self.init(sid: sid, name: name) { peer.requestKeyFrame(transceiver) }
    }

    init(sid: String, name: String, askKeyFrame: @escaping @Sendable () -> Void) {
        self.sid = sid
        self.name = name
        self.askKeyFrame = askKeyFrame
    }

    public func addRenderer(_ renderer: any VideoRenderer) { state.withLock { $0.renderers.append(renderer) } }
    public func removeRenderer(_ renderer: any VideoRenderer) { state.withLock { $0.renderers.removeAll { $0 === renderer } } }
    public var renderers: [any VideoRenderer] { state.withLock { $0.renderers } }

    /// Frames decoded and dropped (incomplete, or before a key frame) so far.
    public var framesDecoded: Int { state.withLock { $0.framesDecoded } }
    public var framesDropped: Int { state.withLock { $0.framesDropped } }
    /// The size of the last decoded frame.
    public var videoSize: (width: Int, height: Int)? { state.withLock { $0.size } }

    func receive(_ packet: PeerConnection.ReceivedRTP) {
        let now = (ContinuousClock.now - origin).seconds
        let (pictures, renderers, ask) = state.withLock { s in
            s.reorder.insert(packet, sequence: packet.sequenceNumber, now: now)
            while let next = s.reorder.next(now: now) {
                switch next {
                case .element(let packet):
                    Self.assemble(packet, &s)
                case .gap:
                    // A packet (or a whole frame) lost for good breaks the chain of references
                    // (RFC 7741 §4.3): what follows would decode onto the wrong picture, so
                    // nothing is shown until a key frame.
                    s.awaitingKeyFrame = true
                    if Self.keyFrameDue(&s) { s.askKeyFrame = true }
                }
            }
            defer {
                s.ready.removeAll()
                s.askKeyFrame = false
            }
            return (s.ready, s.renderers, s.askKeyFrame)
        }
        if ask { askKeyFrame() }
        for (picture, resized) in pictures {
            for renderer in renderers {
                if resized { renderer.updateVideoSize(width: picture.width, height: picture.height) }
                renderer.renderFrame(picture)
            }
        }
    }

    /// One packet, in sequence order, to the depacketizer; a frame it completes to the decoder.
    private static func assemble(_ packet: PeerConnection.ReceivedRTP, _ s: inout State) {
        let assembled: VP8AssembledFrame?
        let droppedBefore = s.depacketizer.droppedFrames
        do {
            assembled = try s.depacketizer.push(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                                marker: packet.marker, payload: packet.payload[...])
        } catch {
            s.framesDropped += 1
            return
        }
        if s.depacketizer.droppedFrames > droppedBefore {
            s.framesDropped += s.depacketizer.droppedFrames - droppedBefore
            s.awaitingKeyFrame = true
        }
        guard let frame = assembled else {
            if s.awaitingKeyFrame && keyFrameDue(&s) { s.askKeyFrame = true }
            return
        }
        // Not newer than a frame already shown.
        if let last = s.lastTimestamp, Int32(bitPattern: frame.timestamp &- last) <= 0 { return }
        if s.awaitingKeyFrame && !frame.isKeyFrame {
            s.framesDropped += 1
            if keyFrameDue(&s) { s.askKeyFrame = true }
            return
        }
        if s.decoder == nil { s.decoder = try? VP8Decoder() }
        guard let decoder = s.decoder, (try? decoder.decode(frame.data, into: &s.picture, timestamp: frame.timestamp)) == true else {
            s.framesDropped += 1
            s.awaitingKeyFrame = true
            if keyFrameDue(&s) { s.askKeyFrame = true }
            return
        }
        s.awaitingKeyFrame = false
        s.lastTimestamp = frame.timestamp
        s.framesDecoded += 1
        let resized = s.size?.width != s.picture.width || s.size?.height != s.picture.height
        s.size = (s.picture.width, s.picture.height)
        s.ready.append((s.picture, resized))
    }

    private static func keyFrameDue(_ s: inout State) -> Bool {
        guard ContinuousClock.now - s.lastKeyFrameRequest >= .milliseconds(500) else { return false }
        s.lastKeyFrameRequest = .now
        return true
    }
}
