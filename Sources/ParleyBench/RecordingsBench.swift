import Foundation
import ParleyCore
import ParleyOpus
import ParleyVPX
import ServerMedia
import VP8
import VideoCore

/// `parley-bench recordings`: what room recordings cost. Encodes `--seconds` of a 440 Hz tone
/// (Opus, 20 ms) and of a 640x480 test pattern with grain (VP8, 30 fps, `--video-kbps`), packetized as RTP;
/// then (1) the recorders' CPU: `--tracks` audio and as many video `TrackRecorder`s fed every
/// packet as fast as they take them (process CPU time, so the share of one core a real-time track
/// needs is CPU seconds / media seconds); (2) the tap's cost on the media loop: a payload copied
/// and queued on an `AsyncStream` drained by another task, per packet; (3) file sizes; (4) the
/// ffmpeg remux of one track of each kind; (5) two compositions of two audio and two video
/// tracks (a WebM grid and an MP4 grid, 640x480, one encoder thread), wall time.
enum RecordingsBench {
    static func run(tracks: Int, seconds: Int, videoKbps: Int) async throws {
        let directory = NSTemporaryDirectory() + "parley-bench-recordings-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let audio = try opusPackets(seconds: seconds)
        let video = try vp8Packets(seconds: seconds, kbps: videoKbps)
        print("recordings: \(seconds) s of media per track: \(audio.count) Opus packets, \(video.count) VP8 packets "
              + "(\(video.reduce(0) { $0 + $1.payload.count } * 8 / seconds / 1000) kbit/s)")

        // (1) Recorders.
        var recorders: [(TrackRecorder, [TappedRTPPacket])] = []
        for i in 0..<tracks {
            recorders.append((try TrackRecorder(path: "\(directory)/a\(i).ogg", codec: .opus), audio))
            recorders.append((try TrackRecorder(path: "\(directory)/v\(i).ivf", codec: .vp8), video))
        }
        let cpu0 = cpuSeconds(), wall0 = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for (recorder, packets) in recorders {
                group.addTask { for packet in packets { recorder.receive(packet) } }
            }
        }
        var results: [TrackRecorder.Recording] = []
        for (recorder, _) in recorders { results.append(try recorder.finish()) }
        let cpu = cpuSeconds() - cpu0
        let wall = ContinuousClock.now - wall0
        let audioBytes = results.filter { $0.path.hasSuffix(".ogg") }.map(\.bytes).reduce(0, +) / Int64(tracks)
        let videoBytes = results.filter { $0.path.hasSuffix(".ivf") }.map(\.bytes).reduce(0, +) / Int64(tracks)
        let packets = tracks * (audio.count + video.count)
        print("recordings: \(tracks) audio + \(tracks) video recorders: \(String(format: "%.3f", cpu)) s CPU (\(wall) wall) "
              + "for \(tracks * 2 * seconds) track-seconds: \(String(format: "%.2f", cpu * 1e6 / Double(packets))) µs per packet, "
              + "\(String(format: "%.3f", cpu / Double(tracks * 2 * seconds) * 100)) % of one core per track in real time")
        print("recordings: files per minute: Ogg Opus \(audioBytes * 60 / Int64(seconds) / 1000) kB, "
              + "IVF VP8 \(videoBytes * 60 / Int64(seconds) / 1000) kB")

        // (2) The tap: copy and queue on the loop, drained by a task.
        let payload = video.first?.payload ?? []
        let (stream, continuation) = AsyncStream<TappedRTPPacket>.makeStream(bufferingPolicy: .bufferingNewest(6_000))
        let drained = Task { var n = 0; for await _ in stream { n += 1 }; return n }
        let taps = 200_000
        let tap0 = cpuSeconds()
        let start = ContinuousClock.now
        payload.withUnsafeBytes { raw in
            for i in 0..<taps {
                continuation.yield(TappedRTPPacket(payload: Array(raw), ssrc: 1, sequenceNumber: UInt16(truncatingIfNeeded: i),
                                                   timestamp: UInt32(i), marker: false, arrival: 0))
            }
        }
        let produce = ContinuousClock.now - start
        continuation.finish()
        let delivered = await drained.value
        print("recordings: tap of a \(payload.count)-byte packet: \(String(format: "%.2f", produce.seconds * 1e6 / Double(taps))) µs "
              + "on the producing thread, \(String(format: "%.2f", (cpuSeconds() - tap0) * 1e6 / Double(taps))) µs CPU in all "
              + "(\(delivered) of \(taps) delivered, the rest dropped by the bound)")

        // (3)–(5) ffmpeg.
        guard let ffmpeg = FFmpeg() else { return print("recordings: no ffmpeg; remux and compositions skipped") }
        var mka: [String] = [], mkv: [String] = []
        for i in 0..<min(tracks, 2) {
            let t0 = ContinuousClock.now
            let a = try await ffmpeg.remuxToMatroska("\(directory)/a\(i).ogg", output: "\(directory)/a\(i).mka")
            let t1 = ContinuousClock.now
            let v = try await ffmpeg.remuxToMatroska("\(directory)/v\(i).ivf", output: "\(directory)/v\(i).mkv")
            let t2 = ContinuousClock.now
            if i == 0 {
                print("recordings: remux of \(seconds) s: audio \(t1 - t0) (\(a / 1000) kB mka), video \(t2 - t1) (\(v / 1000) kB mkv)")
            }
            mka.append("\(directory)/a\(i).mka")
            mkv.append("\(directory)/v\(i).mkv")
        }
        for format in [MediaComposition.Format.webm, .mp4] {
            let tiles = mkv.enumerated().map { i, path in
                MediaComposition.VideoTile(path: path, start: Double(i), x: i * 320, y: 120, width: 320, height: 240)
            }
            let plan = MediaComposition(width: 640, height: 480, duration: Double(seconds + 1), format: format, video: tiles,
                                        audio: mka.enumerated().map { .init(path: $1, start: Double($0)) })
            let t0 = ContinuousClock.now
            let size = try await ffmpeg.render(plan, output: "\(directory)/c.\(format.rawValue)", timeout: .seconds(3_600))
            print("recordings: composition of \(seconds + 1) s, \(mkv.count) videos + \(mka.count) mics, \(format.rawValue): "
                  + "\(ContinuousClock.now - t0) (\(size / 1000) kB)")
        }
    }

    static func opusPackets(seconds: Int) throws -> [TappedRTPPacket] {
        let encoder = try OpusEncoder(configuration: OpusEncoderConfiguration(bitrate: 32_000))
        var out = [UInt8](repeating: 0, count: 1500)
        var packets: [TappedRTPPacket] = []
        for frame in 0..<(seconds * 50) {
            let pcm = (0..<960).map { Int16(8000 * sin(2 * Double.pi * 440 * Double(frame * 960 + $0) / 48_000)) }
            let n = try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) } }
            packets.append(TappedRTPPacket(payload: Array(out.prefix(n)), ssrc: 1, sequenceNumber: UInt16(truncatingIfNeeded: frame),
                                           timestamp: UInt32(frame * 960), marker: frame == 0, arrival: Double(frame) / 50))
        }
        return packets
    }

    static func vp8Packets(seconds: Int, kbps: Int) throws -> [TappedRTPPacket] {
        var pattern = TestPattern(width: 640, height: 480)
        let encoder = try VP8Encoder(width: 640, height: 480, bitrate: kbps * 1000)
        var packetizer = VP8Packetizer()
        var packets: [TappedRTPPacket] = []
        var sequence: UInt16 = 0
        var noise = SystemRandomNumberGenerator()
        for frame in 0..<(seconds * 30) {
            // Grain on the pattern, so the encoder spends the bit rate a camera would.
            var picture = pattern.next()
            for i in stride(from: 0, to: picture.y.count, by: 7) { picture.y[i] &+= UInt8.random(in: 0...24, using: &noise) }
            for encoded in try encoder.encode(picture, keyFrame: frame == 0) {
                let payloads = packetizer.packetize(encoded.data)
                for (i, payload) in payloads.enumerated() {
                    packets.append(TappedRTPPacket(payload: payload, ssrc: 2, sequenceNumber: sequence, timestamp: UInt32(frame * 3_000),
                                                   marker: i == payloads.count - 1, arrival: Double(frame) / 30))
                    sequence &+= 1
                }
            }
        }
        return packets
    }

    /// User and system CPU time of this process.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
