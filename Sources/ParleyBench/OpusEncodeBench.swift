import Foundation
import ParleyOpus
import ParleyTestSupport

/// `parley-bench opus-encode`: what encoding one call's audio costs. Encodes espeak-ng speech as
/// 20 ms frames at 48 kHz mono, at each complexity, with and without FEC, and prints µs per frame
/// and the share of one core that a real-time channel needs (µs per frame / 20 000 µs).
enum OpusEncodeBench {
    static func run() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-speech-\(getpid()).wav").path
        try SpeechMaterial.speak(to: path)
        let speech = try SpeechMaterial.load(path, rate: 48_000)
        try? FileManager.default.removeItem(atPath: path)
        let frame = 960
        let frames = speech.count / frame
        print("opus-encode: \(OpusLibrary.version), \(frames) frames of 20 ms speech, 48 kHz mono, 40 kbit/s (the default)")
        print("| complexity | FEC | µs per frame | share of one core |")
        print("| ---: | --- | ---: | ---: |")
        var out = [UInt8](repeating: 0, count: 1500)
        for complexity: Int32 in [10, 9, 8, 5] {
            for fec in [false, true] {
                var configuration = OpusEncoderConfiguration(bitrate: 40_000)
                configuration.complexity = complexity
                configuration.inbandFEC = fec
                configuration.expectedPacketLossPercent = fec ? 10 : 0
                let encoder = try OpusEncoder(configuration: configuration)
                var best = Double.infinity
                for _ in 0..<5 {
                    let start = ContinuousClock.now
                    try speech.withUnsafeBufferPointer { pcm in
                        try out.withUnsafeMutableBufferPointer { packet in
                            for f in 0..<frames {
                                _ = try encoder.encode(UnsafeBufferPointer(rebasing: pcm[(f * frame)..<((f + 1) * frame)]), into: packet)
                            }
                        }
                    }
                    let elapsed = ContinuousClock.now - start
                    let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
                    best = min(best, micros / Double(frames))
                }
                print(String(format: "| %d | %@ | %.1f | %.2f %% |", complexity, fec ? "on (10 %)" : "off", best, best / 200))
            }
        }
    }
}
