import Foundation
@testable import ServerMedia
import Synchronization
import Testing

/// Room track recordings from RTP as a room's tap hands it over, off the media loop: Opus into
/// Ogg Opus with time kept across losses and pauses, VP8 into IVF from the first key frame with
/// a loss waiting for the next key frame, reordering undone, a restarted sender taken, a larger
/// simulcast layer preferred. The files are read back here (Ogg pages, IVF frames); ffprobe reads
/// them after the remux in `RoomRecordingFilesTests` and the interop test.
@Suite struct TrackRecorderTests {
    static func path(_ name: String) -> String { NSTemporaryDirectory() + "parley-track-\(getpid())-\(UUID().uuidString)-\(name)" }

    /// A 20 ms CELT-only fullband Opus packet (TOC config 31, code 0) with `size` bytes of frame.
    static func opus(_ size: Int = 40) -> [UInt8] { [0xF8] + [UInt8](repeating: 0x55, count: size) }

    static func packet(_ payload: [UInt8], seq: UInt16, ts: UInt32, marker: Bool = false, ssrc: UInt32 = 1,
                       at arrival: Double) -> TappedRTPPacket {
        TappedRTPPacket(payload: payload, ssrc: ssrc, sequenceNumber: seq, timestamp: ts, marker: marker, arrival: arrival)
    }

    /// The granule positions of the Ogg pages of a file (RFC 3533 §6), and how many pages.
    static func granules(_ bytes: [UInt8]) -> [UInt64] {
        var out: [UInt64] = []
        var i = 0
        while i + 27 <= bytes.count, bytes[i..<i + 4].elementsEqual("OggS".utf8) {
            var granule: UInt64 = 0
            for k in 0..<8 { granule |= UInt64(bytes[i + 6 + k]) << (8 * UInt64(k)) }
            let segments = Int(bytes[i + 26])
            let body = bytes[(i + 27)..<(i + 27 + segments)].reduce(0) { $0 + Int($1) }
            out.append(granule)
            i += 27 + segments + body
        }
        return out
    }

    /// An IVF file's frames: (size, timestamp), and its header's width and height.
    static func ivf(_ bytes: [UInt8]) -> (width: Int, height: Int, frames: [(Int, UInt64)]) {
        guard bytes.count >= 32, bytes[0..<4].elementsEqual("DKIF".utf8) else { return (0, 0, []) }
        var frames: [(Int, UInt64)] = []
        var i = 32
        while i + 12 <= bytes.count {
            let size = (0..<4).reduce(0) { $0 | Int(bytes[i + $1]) << (8 * $1) }
            let ts = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[i + 4 + $1]) << (8 * UInt64($1)) }
            frames.append((size, ts))
            i += 12 + size
        }
        return (Int(bytes[12]) | Int(bytes[13]) << 8, Int(bytes[14]) | Int(bytes[15]) << 8, frames)
    }

    @Test func opusKeepsTimeAcrossLossReorderingAndAPause() throws {
        let path = Self.path("a.ogg")
        defer { unlink(path) }
        let recorder = try TrackRecorder(path: path, codec: .opus)
        var seq: UInt16 = 65_500  // wraps during the recording
        var ts: UInt32 = 4_294_900_000
        var t = 10.0
        var packets: [TappedRTPPacket] = []
        for _ in 0..<50 {
            packets.append(Self.packet(Self.opus(), seq: seq, ts: ts, at: t))
            seq &+= 1; ts &+= 960; t += 0.02
        }
        seq &+= 3; ts &+= 3 * 960; t += 0.06  // three packets lost
        for _ in 0..<20 {
            packets.append(Self.packet(Self.opus(), seq: seq, ts: ts, at: t))
            seq &+= 1; ts &+= 960; t += 0.02
        }
        ts &+= 48_000; t += 1  // a one-second pause (DTX, mute), then a padding-only packet
        packets.append(Self.packet([], seq: seq, ts: ts, at: t))
        seq &+= 1
        for _ in 0..<30 {
            packets.append(Self.packet(Self.opus(), seq: seq, ts: ts, at: t))
            seq &+= 1; ts &+= 960; t += 0.02
        }
        packets.swapAt(10, 11)  // reordered
        packets.insert(packets[5], at: 7)  // a duplicate
        for packet in packets { recorder.receive(packet) }
        let result = try recorder.finish()
        #expect(try recorder.finish() == result)
        // 100 packets, 3 lost and 50 filled in the pause: 2.06 s less the decoder's pre-skip.
        #expect(result.frames == 100)
        #expect(result.lostPackets == 3)
        #expect(abs(result.duration - (153 * 0.02 - 312.0 / 48_000)) < 0.001, "\(result.duration)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Int64(bytes.count) == result.bytes)
        let granules = Self.granules(bytes)
        #expect(granules.prefix(2) == [0, 0])  // OpusHead, OpusTags
        #expect(granules.last == 153 * 960)
        #expect(granules.count == 2 + 153)
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
    }

    /// VP8 payloads: a one-byte descriptor (S set on a frame's first packet), then the frame.
    static func vp8Frame(key: Bool, width: UInt16 = 320, height: UInt16 = 240, size: Int = 2_500) -> [UInt8] {
        let tag: [UInt8] = key ? [0x50, 0x01, 0x00] : [0x51, 0x01, 0x00]
        var frame = tag
        if key { frame += [0x9D, 0x01, 0x2A, UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8)] }
        return frame + [UInt8](repeating: 0xAB, count: max(0, size - frame.count))
    }

    static func vp8Packets(_ frame: [UInt8], seq: inout UInt16, ts: UInt32, ssrc: UInt32 = 1, at arrival: Double) -> [TappedRTPPacket] {
        var out: [TappedRTPPacket] = []
        var offset = 0
        while offset < frame.count {
            let end = min(frame.count, offset + 1_000)
            let descriptor: UInt8 = offset == 0 ? 0x10 : 0x00
            out.append(packet([descriptor] + frame[offset..<end], seq: seq, ts: ts, marker: end == frame.count, ssrc: ssrc,
                              at: arrival))
            seq &+= 1
            offset = end
        }
        return out
    }

    @Test func vp8StartsAtAKeyFrameAndWaitsForOneAfterALoss() throws {
        let path = Self.path("v.ivf")
        defer { unlink(path) }
        let asked = Atomic<Int>(0)
        let recorder = try TrackRecorder(path: path, codec: .vp8) { asked.add(1, ordering: .relaxed) }
        var seq: UInt16 = 100
        var ts: UInt32 = 1_000
        var t = 0.0
        var packets: [TappedRTPPacket] = []
        func frame(key: Bool) {
            packets += Self.vp8Packets(Self.vp8Frame(key: key), seq: &seq, ts: ts, at: t)
            ts &+= 3_000; t += 1.0 / 30
        }
        frame(key: false)  // before any key frame: not written, a key frame is asked for
        frame(key: true)
        for _ in 0..<9 { frame(key: false) }
        frame(key: false)
        packets.remove(at: packets.count - 2)  // the last frame loses a packet: dropped
        frame(key: false)  // refers to the lost one: not written
        ts &+= 90_000; t += 1  // a one-second pause, kept as a gap in the timestamps
        frame(key: true)
        for _ in 0..<4 { frame(key: false) }
        packets.append(Self.packet([], seq: seq, ts: ts, at: t))  // padding (a probe) after the last frame
        for packet in packets { recorder.receive(packet) }
        let result = try recorder.finish()
        let file = Self.ivf([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(file.width == 320 && file.height == 240)
        #expect(file.frames.count == 15 && result.frames == 15)
        #expect(file.frames.allSatisfy { $0.0 == 2_500 })
        // Timestamps from the first key frame on, in 90 kHz: ten frames, then the pause.
        #expect(file.frames.map(\.1).prefix(10) == ArraySlice((0..<10).map { UInt64($0 * 3_000) }))
        #expect(file.frames[10].1 == 12 * 3_000 + 90_000)
        #expect(result.lostPackets == 1)
        #expect(asked.load(ordering: .relaxed) >= 1)
        #expect(abs(result.duration - Double(file.frames.last!.1) / 90_000 * 15 / 14) < 0.001, "\(result.duration)")
    }

    @Test func aSimulcastPublishersLargerLayerWins() throws {
        let path = Self.path("s.ivf")
        defer { unlink(path) }
        let recorder = try TrackRecorder(path: path, codec: .vp8)
        var (low, high): (UInt16, UInt16) = (10, 5_000)
        var packets: [TappedRTPPacket] = []
        for i in 0..<6 {
            let t = Double(i) / 30, ts = UInt32(i * 3_000)
            packets += Self.vp8Packets(Self.vp8Frame(key: i == 0, width: 320, height: 180), seq: &low, ts: ts, ssrc: 7, at: t)
            packets += Self.vp8Packets(Self.vp8Frame(key: i == 0, width: 1280, height: 720, size: 9_000), seq: &high,
                                       ts: ts + 777, ssrc: 9, at: t + 0.001)
        }
        for packet in packets { recorder.receive(packet) }
        _ = try recorder.finish()
        let file = Self.ivf([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(file.width == 1280 && file.height == 720)
        #expect(file.frames.count == 6 && file.frames.allSatisfy { $0.0 == 9_000 })
    }

    @Test func aRestartedSenderIsPlacedByTime() throws {
        let path = Self.path("r.ogg")
        defer { unlink(path) }
        let recorder = try TrackRecorder(path: path, codec: .opus)
        for i in 0..<10 { recorder.receive(Self.packet(Self.opus(), seq: UInt16(i), ts: UInt32(i * 960), at: Double(i) * 0.02)) }
        // Three seconds later a new SSRC with numbering of its own.
        for i in 0..<10 {
            recorder.receive(Self.packet(Self.opus(), seq: UInt16(40_000 + i), ts: UInt32(7_000_000 + i * 960), ssrc: 2,
                                         at: 3.2 + Double(i) * 0.02))
        }
        let result = try recorder.finish()
        #expect(result.frames == 20)
        // The second stream starts 3.2 s in: the gap between them is silence, not a jump.
        #expect(abs(result.duration - (3.4 - 312.0 / 48_000)) < 0.03, "\(result.duration)")
    }

    @Test func theReorderWindowReleasesInOrder() {
        var window = SequenceReorderWindow<Int>(window: 3)
        var out: [(Int, Int)] = []
        for seq: UInt16 in [65_534, 0, 65_535, 1, 1, 5, 6, 7, 8, 2] { window.insert(seq, Int(seq)) { out.append(($0, $1)) } }
        window.flush { out.append(($0, $1)) }
        #expect(out.map(\.0) == [65_534, 65_535, 0, 1, 5, 6, 7, 8])
        #expect(out.map(\.1) == [0, 0, 0, 0, 3, 0, 0, 0])
        #expect(window.lost == 3)
    }

    @Test func theTimelineUnwrapsAndReanchorsByArrival() {
        var timeline = RTPTimeline(clockRate: 90_000)
        #expect(timeline.position(of: UInt32.max - 100, arrival: 4) == 0)
        #expect(timeline.position(of: 200, arrival: 4.0625) == 301)  // wrapped
        // A jump of an hour in the timestamps one second later: placed by the second.
        #expect(timeline.position(of: 200 &+ 324_000_000, arrival: 5.0625) == 301 + 90_000)
        // Backwards: placed by arrival, never before the packet before.
        #expect(timeline.position(of: 5, arrival: 5.1875) == 301 + 90_000 + 11_250)
    }
}
