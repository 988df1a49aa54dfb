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

/// Another participant's video we receive (the seed's `RemoteVideoTrack`): its VP8 packets are
/// reassembled (RFC 7741), decoded with libvpx and handed to each renderer, each frame once and in
/// order. A lost packet drops its frame and the ones after it, and asks the sender for a key frame
/// (PLI, at most every 500 ms), until one decodes.
public final class RemoteVideoTrack: SlotReceiver {
    public let sid: String
    public let name: String

    private struct State {
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
        /// The newest sequence number seen.
        var lastSequence: UInt16?
    }

    private let state = Mutex(State())
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
        enum Outcome { case nothing, askKeyFrame, render(I420Frame, [any VideoRenderer], resized: Bool) }
        let outcome = state.withLock { s -> Outcome in
            // A gap in the sequence numbers between frames (a whole frame lost) breaks the chain too.
            if let last = s.lastSequence {
                let step = Int16(bitPattern: packet.sequenceNumber &- last)
                if step <= 0 { return .nothing }  // late or repeated: its frame is done with
                if step > 1 { s.awaitingKeyFrame = true }
            }
            s.lastSequence = packet.sequenceNumber
            let assembled: VP8AssembledFrame?
            let droppedBefore = s.depacketizer.droppedFrames
            do {
                assembled = try s.depacketizer.push(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                                    marker: packet.marker, payload: packet.payload[...])
            } catch {
                s.framesDropped += 1
                return .nothing
            }
            // A frame lost to a gap breaks the chain of references (RFC 7741 §4.3): what follows
            // would decode onto the wrong picture, so nothing is shown until a key frame.
            if s.depacketizer.droppedFrames > droppedBefore {
                s.framesDropped += s.depacketizer.droppedFrames - droppedBefore
                s.awaitingKeyFrame = true
            }
            guard let frame = assembled else {
                return s.awaitingKeyFrame && Self.keyFrameDue(&s) ? .askKeyFrame : .nothing
            }
            // A frame completed again by a retransmission, or older than one already shown.
            if let last = s.lastTimestamp, Int32(bitPattern: frame.timestamp &- last) <= 0 { return .nothing }
            if s.awaitingKeyFrame && !frame.isKeyFrame {
                s.framesDropped += 1
                return Self.keyFrameDue(&s) ? .askKeyFrame : .nothing
            }
            if s.decoder == nil { s.decoder = try? VP8Decoder() }
            guard let decoder = s.decoder, (try? decoder.decode(frame.data, into: &s.picture, timestamp: frame.timestamp)) == true else {
                s.framesDropped += 1
                s.awaitingKeyFrame = true
                return Self.keyFrameDue(&s) ? .askKeyFrame : .nothing
            }
            s.awaitingKeyFrame = false
            s.lastTimestamp = frame.timestamp
            s.framesDecoded += 1
            let resized = s.size?.width != s.picture.width || s.size?.height != s.picture.height
            s.size = (s.picture.width, s.picture.height)
            return .render(s.picture, s.renderers, resized: resized)
        }
        switch outcome {
        case .nothing:
            break
        case .askKeyFrame:
            askKeyFrame()
        case .render(let picture, let renderers, let resized):
            for renderer in renderers {
                if resized { renderer.updateVideoSize(width: picture.width, height: picture.height) }
                renderer.renderFrame(picture)
            }
        }
    }

    private static func keyFrameDue(_ s: inout State) -> Bool {
        guard ContinuousClock.now - s.lastKeyFrameRequest >= .milliseconds(500) else { return false }
        s.lastKeyFrameRequest = .now
        return true
    }
}
