import Foundation
import ParleyCore
import Synchronization
import VP8

/// One RTP packet of a recorded room track as the media plane's tap hands it over: SRTP
/// removed, header fields read, the payload copied (padding-only packets have an empty one).
public struct TappedRTPPacket: Sendable {
    public var payload: [UInt8]
    public var ssrc: UInt32
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var marker: Bool
    /// When it arrived, seconds on the media loop's monotonic clock.
    public var arrival: Double

    public init(payload: [UInt8], ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, arrival: Double) {
        self.payload = payload
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.marker = marker
        self.arrival = arrival
    }
}

/// Records one published track of a room into its file as the packets come, off the media
/// loop: Opus into Ogg Opus (`OpusTrackWriter`), VP8 into IVF (`VP8TrackWriter`), both kept
/// in sequence order by a `SequenceReorderWindow` (audio 10 packets, video 64) and written
/// through a 64 KiB buffer, so a crash loses at most that much and what was written still plays.
/// `finish()` closes the file; the owner remuxes it into Matroska (`MediaRemux`).
///
/// One SSRC is recorded: the first; another is taken when the first has been silent for
/// 2 s (a sender restart), or, for VP8 in the first 2 s, when it starts a larger key frame (a
/// simulcast publisher's higher layer: the file starts over with it). `receive` may be called
/// from any thread, one packet at a time.
public final class TrackRecorder: Sendable {
    public enum Codec: String, Sendable {
        case opus, vp8
    }

    public struct Recording: Sendable, Equatable {
        public var path: String
        /// Seconds of media written.
        public var duration: Double
        /// Bytes of the file.
        public var bytes: Int64
        public var packets: Int
        public var lostPackets: Int
        /// Opus packets, or VP8 frames, written.
        public var frames: Int
        /// Milliseconds since the epoch when the first packet was recorded (nil: none came).
        public var firstPacketMilliseconds: Int64?
    }

    public let path: String
    public let codec: Codec
    private let state: Mutex<State>
    private let keyFrameNeeded: @Sendable () -> Void

    /// At most one key frame request a second.
    static let keyFrameRequestInterval = 1.0
    /// A silent SSRC gives way to another after this; a larger VP8 layer is taken within it.
    static let switchSeconds = 2.0
    static let bufferBytes = 65_536

    private struct State {
        var file: FileHandle?
        var buffer: [UInt8] = []
        var written: Int64 = 0
        var reorder: SequenceReorderWindow<TappedRTPPacket>
        var opus: OpusTrackWriter
        var vp8 = VP8TrackWriter()
        var ssrc: UInt32?
        var lastArrival = 0.0
        var firstArrival: Double?
        var firstWallClock: Int64?
        var lastKeyFrameRequest = -Double.infinity
        var packets = 0
        /// Lost in the reorder windows of SSRCs given up.
        var lostEarlier = 0
        var failure: MediaError?
        var result: Recording?
    }

    /// Creates (or truncates) the file at `path`, mode 0600. `keyFrameNeeded` is called (at most
    /// once a second) while a VP8 recording waits for a key frame.
    public init(path: String, codec: Codec, keyFrameNeeded: @escaping @Sendable () -> Void = {}) throws(MediaError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw MediaError(.internalFailure, "cannot create the recording \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.codec = codec
        self.keyFrameNeeded = keyFrameNeeded
        var initial = State(reorder: SequenceReorderWindow(window: codec == .opus ? 10 : 64),
                            opus: OpusTrackWriter(serialNumber: UInt32.random(in: 1...UInt32.max)))
        initial.file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        initial.buffer.reserveCapacity(Self.bufferBytes)
        state = Mutex(initial)
    }

    /// Takes one tapped packet. Ignored after `finish()` or a write failure.
    public func receive(_ packet: TappedRTPPacket) {
        let askForKeyFrame = state.withLock { s -> Bool in
            guard s.result == nil, s.failure == nil else { return false }
            s.packets += 1
            guard admit(packet, &s) else { return false }
            s.lastArrival = packet.arrival
            if s.firstArrival == nil {
                s.firstArrival = packet.arrival
                s.firstWallClock = Int64(Date().timeIntervalSince1970 * 1000)
            }
            var released: [(TappedRTPPacket, Int)] = []
            s.reorder.insert(packet.sequenceNumber, packet) { released.append(($0, $1)) }
            let needsKeyFrame = write(released, &s)
            flush(&s, force: false)
            guard needsKeyFrame, packet.arrival - s.lastKeyFrameRequest >= Self.keyFrameRequestInterval else { return false }
            s.lastKeyFrameRequest = packet.arrival
            return true
        }
        if askForKeyFrame { keyFrameNeeded() }
    }

    /// Writes what the reorder window holds, closes the file and says what was recorded. Returns
    /// the same recording when called again.
    public func finish() throws(MediaError) -> Recording {
        let outcome: Result<Recording, MediaError> = state.withLock { s in
            if let result = s.result { return .success(result) }
            if s.failure == nil {
                drain(&s)
                flush(&s, force: true)
            }
            try? s.file?.close()
            s.file = nil
            if let failure = s.failure { return .failure(failure) }
            let result = Recording(path: path, duration: codec == .opus ? s.opus.duration : s.vp8.duration, bytes: s.written,
                                   packets: s.packets, lostPackets: s.lostEarlier + s.reorder.lost,
                                   frames: codec == .opus ? s.opus.packets : s.vp8.frames, firstPacketMilliseconds: s.firstWallClock)
            s.result = result
            return .success(result)
        }
        return try outcome.get()
    }

    /// Whether the packet's SSRC is the one recorded, switching to it when it should be.
    private func admit(_ packet: TappedRTPPacket, _ s: inout State) -> Bool {
        guard let current = s.ssrc else {
            s.ssrc = packet.ssrc
            return true
        }
        if packet.ssrc == current { return true }
        if packet.arrival - s.lastArrival > Self.switchSeconds {
            // The recorded SSRC went quiet: the sender restarted. The new stream is placed by time.
            drain(&s)
            s.lostEarlier += s.reorder.lost
            s.reorder = SequenceReorderWindow(window: s.reorder.window)
            s.ssrc = packet.ssrc
            return true
        }
        guard codec == .vp8, let first = s.firstArrival, packet.arrival - first < Self.switchSeconds,
              let descriptor = try? VP8PayloadDescriptor(parsing: packet.payload[...]), descriptor.startsFrame,
              let header = try? VP8FrameHeader(parsing: packet.payload.dropFirst(descriptor.serializedSize)),
              header.isKeyFrame, let width = header.width, let height = header.height,
              Int(width) * Int(height) > Int(s.vp8.width) * Int(s.vp8.height) else { return false }
        // A larger simulcast layer: the file starts over with it.
        s.buffer.removeAll(keepingCapacity: true)
        do {
            try s.file?.truncate(atOffset: 0)
            try s.file?.seek(toOffset: 0)
        } catch {
            s.failure = MediaError(.internalFailure, "cannot restart the recording \(path): \(error)")
            return false
        }
        s.written = 0
        s.vp8 = VP8TrackWriter()
        s.lostEarlier += s.reorder.lost
        s.reorder = SequenceReorderWindow(window: s.reorder.window)
        s.ssrc = packet.ssrc
        return true
    }

    /// Writes what the reorder window holds.
    private func drain(_ s: inout State) {
        var released: [(TappedRTPPacket, Int)] = []
        s.reorder.flush { released.append(($0, $1)) }
        _ = write(released, &s)
    }

    /// Writes packets released in order (with the count lost before each); whether the writer
    /// waits for a key frame.
    private func write(_ released: [(TappedRTPPacket, Int)], _ s: inout State) -> Bool {
        var needsKeyFrame = false
        for (packet, lost) in released { needsKeyFrame = write(packet, lostBefore: lost, &s) || needsKeyFrame }
        return needsKeyFrame
    }

    /// Writes one packet in order; whether the writer waits for a key frame.
    private func write(_ packet: TappedRTPPacket, lostBefore: Int, _ s: inout State) -> Bool {
        switch codec {
        case .opus:
            s.buffer += s.opus.write(packet.payload, timestamp: packet.timestamp, arrival: packet.arrival)
            return false
        case .vp8:
            let (bytes, needsKeyFrame) = s.vp8.write(packet.payload, sequenceNumber: packet.sequenceNumber,
                                                      timestamp: packet.timestamp, marker: packet.marker,
                                                      lostBefore: lostBefore, arrival: packet.arrival)
            s.buffer += bytes
            return needsKeyFrame
        }
    }

    private func flush(_ s: inout State, force: Bool) {
        guard !s.buffer.isEmpty, force || s.buffer.count >= Self.bufferBytes, let file = s.file else { return }
        do {
            try file.write(contentsOf: s.buffer)
            s.written += Int64(s.buffer.count)
        } catch {
            s.failure = MediaError(.internalFailure, "cannot write the recording \(path): \(error)")
            Log.error(.platform, "recording \(path): \(error)")
        }
        s.buffer.removeAll(keepingCapacity: true)
    }
}
