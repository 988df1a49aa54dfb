import MediaContainers
import ParleyOpus
import VP8

/// Places one track's RTP timestamps on its recording's timeline, in clock units from the first
/// packet: 32-bit timestamps unwrapped by signed differences (RFC 3550 §5.1), and a timestamp
/// that disagrees with the arrival clock by more than `tolerance` seconds (a new SSRC, a sender
/// restart, a clock jump) re-anchored by the time that passed since the packet before.
package struct RTPTimeline {
    let clockRate: Int
    let tolerance: Double
    private var last: (timestamp: UInt32, position: Int64, arrival: Double)?

    package init(clockRate: Int, tolerance: Double = 2) {
        self.clockRate = clockRate
        self.tolerance = tolerance
    }

    /// Where `timestamp`, which arrived at `arrival` (seconds), lies; never before the packet before.
    package mutating func position(of timestamp: UInt32, arrival: Double) -> Int64 {
        guard let last else {
            self.last = (timestamp, 0, arrival)
            return 0
        }
        let predicted = last.position + Int64(Int32(bitPattern: timestamp &- last.timestamp))
        let elapsed = max(0, arrival - last.arrival)
        let byArrival = last.position + Int64(elapsed * Double(clockRate))
        var position = predicted
        if abs(Double(predicted - byArrival)) > tolerance * Double(clockRate) || predicted < last.position {
            position = max(byArrival, last.position)
        }
        self.last = (timestamp, position, arrival)
        return position
    }
}

/// A recorded Opus track as an Ogg Opus file (RFC 7845), built from RTP payloads in sequence
/// order (RFC 7587: one Opus packet per payload, 48 kHz timestamps). Time is kept: a gap in the
/// timestamps (lost packets, DTX pauses, a muted sender) is filled with 20 ms packets of one TOC
/// byte and no frame (RFC 6716 §3.2.1: decoded as loss, concealed or silent), so the file lasts
/// as long as the track did. Pure: packets in, file bytes out.
package struct OpusTrackWriter {
    /// Gaps longer than this are cut to it (and logged by the owner): a paused track of hours
    /// would otherwise cost 1.4 kB of filler a second.
    static let maximumGapSeconds = 3_600
    private var ogg: OpusOggWriter
    private let serialNumber: UInt32
    private var timeline = RTPTimeline(clockRate: 48_000)
    private var started = false
    /// Samples written (48 kHz), the granule position before pre-skip.
    package private(set) var samples: Int64 = 0
    package private(set) var packets = 0
    package private(set) var fillerPackets = 0
    private var filler: [UInt8] = [0xF8]

    package init(serialNumber: UInt32) {
        ogg = OpusOggWriter(serialNumber: serialNumber)
        self.serialNumber = serialNumber
    }

    /// Seconds of audio written.
    package var duration: Double { Double(max(0, samples - Int64(ogg.preSkip))) / 48_000 }

    /// The bytes to append for one payload (nothing for an empty or malformed one).
    package mutating func write(_ payload: [UInt8], timestamp: UInt32, arrival: Double) -> [UInt8] {
        guard let count = payload.withUnsafeBufferPointer({ OpusPacket.samplesPerChannel(in: $0) }), count > 0 else { return [] }
        var out: [UInt8] = []
        if !started {
            started = true
            let channels = UInt8(payload.withUnsafeBufferPointer { OpusPacket.channels(in: $0) } ?? 1)
            ogg = OpusOggWriter(serialNumber: serialNumber, channels: channels)
            out += ogg.header()
            // CELT-only, fullband, 20 ms, one frame (config 31, code 0), of the stream's channels.
            filler = [0xF8 | (channels == 2 ? 0x04 : 0)]
        }
        let position = timeline.position(of: timestamp, arrival: arrival)
        let gap = min(position - samples, Int64(Self.maximumGapSeconds * 48_000))
        if gap >= 480 {
            for _ in 0..<Int((gap + 480) / 960) {
                out += ogg.packet(filler, samples: 960)
                samples += 960
                fillerPackets += 1
            }
        }
        out += ogg.packet(payload, samples: count)
        samples += Int64(count)
        packets += 1
        return out
    }
}

/// A recorded VP8 track as an IVF file (90 kHz timestamps kept), built from RTP packets in
/// sequence order: frames reassembled (RFC 7741 §4, `VP8Depacketizer`), written from the first
/// key frame on; after a loss nothing more is written until the next key frame (frames that
/// refer to what was lost would not decode), and the owner is told to ask for one. A gap in
/// time is a gap in the timestamps. Pure: packets in, file bytes out.
package struct VP8TrackWriter {
    private var depacketizer = VP8Depacketizer()
    private var ivf: IVFWriter?
    private var timeline = RTPTimeline(clockRate: 90_000)
    private var awaitingKeyFrame = true
    private var dropped = 0
    package private(set) var frames = 0
    package private(set) var keyFrames = 0
    /// The first key frame's size (the file's header).
    package private(set) var width: UInt16 = 0
    package private(set) var height: UInt16 = 0
    private var first: Int64?
    private var last: Int64 = 0

    package init() {}

    /// Seconds between the first and the last frame written, plus one frame interval.
    package var duration: Double {
        guard let first, frames > 0 else { return 0 }
        let span = Double(last - first) / 90_000
        return span + (frames > 1 ? span / Double(frames - 1) : 1.0 / 30)
    }

    /// What one packet adds to the file, and whether a key frame is needed (the writer waits
    /// for one: at the start, or after a loss).
    package mutating func write(_ payload: [UInt8], sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, lostBefore: Int,
                        arrival: Double) -> (bytes: [UInt8], needsKeyFrame: Bool) {
        if lostBefore > 0 { awaitingKeyFrame = true }
        guard !payload.isEmpty,  // padding (a bandwidth probe) has a sequence number and no frame
              let frame = try? depacketizer.push(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker,
                                                 payload: payload[...]) else {
            if depacketizer.droppedFrames != dropped {
                dropped = depacketizer.droppedFrames
                awaitingKeyFrame = true
            }
            return ([], awaitingKeyFrame)
        }
        if depacketizer.droppedFrames != dropped {
            dropped = depacketizer.droppedFrames
            awaitingKeyFrame = !frame.isKeyFrame
        }
        let position = timeline.position(of: frame.timestamp, arrival: arrival)
        if awaitingKeyFrame {
            guard frame.isKeyFrame else { return ([], true) }
            awaitingKeyFrame = false
        }
        var out: [UInt8] = []
        if ivf == nil {
            let header = try? VP8FrameHeader(parsing: frame.data[...])
            width = header?.width ?? 0
            height = header?.height ?? 0
            let writer = IVFWriter(width: width, height: height)
            out += writer.header()
            ivf = writer
            first = position
        }
        guard let ivf, let first else { return (out, false) }
        last = max(position, first)
        out += ivf.frame(frame.data, timestamp: UInt64(last - first))
        frames += 1
        if frame.isKeyFrame { keyFrames += 1 }
        return (out, false)
    }
}
