import Foundation
import ParleyOpus
import WebRTC

/// A sine tone as 20 ms Opus frames, and the dominant frequency of decoded Opus.
public enum ToneAudio {
    public static let rate = 48_000
    public static let frame = 960

    /// Sends `seconds` of a sine tone at `frequency` as 20 ms Opus frames, paced in real time.
    public static func send(_ pc: PeerConnection, frequency: Double, seconds: Double) async throws {
        let samples = (0..<Int(seconds * 50) * frame).map { n in
            Int16(0.5 * 32767 * sin(2 * .pi * frequency * Double(n) / Double(rate)))
        }
        try await send(pc, samples: samples)
    }

    /// Sends 48 kHz mono `samples` as 20 ms Opus frames (the last one padded with silence), paced
    /// in real time.
    public static func send(_ pc: PeerConnection, samples: [Int16]) async throws {
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, bitrate: 32_000)
        let start = ContinuousClock.now
        var pcm = [Int16](repeating: 0, count: frame)
        var out = [UInt8](repeating: 0, count: 1500)
        for i in 0..<(samples.count + frame - 1) / frame {
            for n in 0..<frame { pcm[n] = i * frame + n < samples.count ? samples[i * frame + n] : 0 }
            let count = try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) } }
            pc.sendAudio(payload: Array(out[0..<count]), timestampIncrement: UInt32(frame))
            try await Task.sleep(until: start + .milliseconds(20 * (i + 1)), clock: .continuous)
        }
    }

    /// Opus frames (mono, 48 kHz) decoded into one signal.
    public static func decode(opus frames: [[UInt8]]) throws -> [Int16] {
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        var samples: [Int16] = []
        var pcm = [Int16](repeating: 0, count: 5760)
        for packet in frames {
            let n = try packet.withUnsafeBufferPointer { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            samples += pcm[0..<n]
        }
        return samples
    }

    /// Decodes Opus frames (mono, 48 kHz) and returns the dominant frequency of `analysisSeconds`
    /// of audio after the first 200 ms.
    public static func dominantFrequency(ofOpus frames: [[UInt8]], analysisSeconds: Double = 0.5) throws -> Double {
        let samples = try decode(opus: frames).map(Double.init)
        return dominantFrequency(Array(samples.dropFirst(rate / 5).prefix(Int(Double(rate) * analysisSeconds))))
    }

    /// The strongest of 100…2000 Hz in 2 Hz steps (Goertzel).
    public static func dominantFrequency(_ x: [Double]) -> Double {
        guard x.count > 1000 else { return 0 }
        var best = (frequency: 0.0, power: -1.0)
        for f in stride(from: 100.0, through: 2000.0, by: 2.0) {
            let coefficient = 2 * cos(2 * .pi * f / Double(rate))
            var s1 = 0.0, s2 = 0.0
            for v in x {
                let s = v + coefficient * s1 - s2
                s2 = s1
                s1 = s
            }
            let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
            if power > best.power { best = (f, power) }
        }
        return best.frequency
    }
}
