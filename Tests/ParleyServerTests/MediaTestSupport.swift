import AudioCore
import Foundation
@testable import ServerMedia
import Synchronization

/// Signal measurements and fakes shared by the Media* tests.
enum MediaSignal {
    /// Amplitude of the `frequency` component of `x` (Goertzel): a sine of peak A gives about A.
    static func amplitude(_ x: some Collection<Int16>, frequency: Double, rate: Int) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(rate))
        var s1 = 0.0, s2 = 0.0
        for v in x {
            let s = Double(v) + coefficient * s1 - s2
            s2 = s1
            s1 = s
        }
        let power = max(0, s1 * s1 + s2 * s2 - coefficient * s1 * s2)
        return 2 * power.squareRoot() / Double(max(1, x.count))
    }

    static func rms(_ x: some Collection<Int16>) -> Double {
        guard !x.isEmpty else { return 0 }
        return (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
    }

    /// Reads `frames` 20 ms frames; returns all samples and the audible count of each frame.
    static func read(_ source: inout some AudioSource, frames: Int) -> (samples: [Int16], audible: [Int]) {
        var samples: [Int16] = []
        var audible: [Int] = []
        var frame = [Int16](repeating: 0, count: MediaAudio.frameSamples)
        for _ in 0..<frames {
            let n = frame.withUnsafeMutableBufferPointer { source.readSamples(into: $0) }
            audible.append(n)
            samples += frame
        }
        return (samples, audible)
    }

    /// A sine of `frequency` at `rate` with peak `amplitude`.
    static func sine(_ frequency: Double, rate: Int, seconds: Double, amplitude: Double = 8_000) -> [Int16] {
        (0..<Int(Double(rate) * seconds)).map { Int16(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
    }

    /// The strongest of `candidates` in `x`.
    static func strongest(_ x: some Collection<Int16>, of candidates: [Double], rate: Int) -> Double {
        candidates.max { amplitude(x, frequency: $0, rate: rate) < amplitude(x, frequency: $1, rate: rate) } ?? 0
    }
}

/// A `MediaFrameSink` that keeps every frame.
final class CollectingSink: MediaFrameSink {
    struct Frame: Sendable {
        var payload: [UInt8]
        var samples: Int
        var session: String
    }

    private let frames = Mutex<[Frame]>([])

    func play(_ payload: [UInt8], samples: Int, to session: String) {
        frames.withLock { $0.append(Frame(payload: payload, samples: samples, session: session)) }
    }

    var all: [Frame] { frames.withLock { $0 } }

    func frames(for session: String) -> [Frame] { all.filter { $0.session == session } }
}

/// Encoded frames of `source` made by a `CallMediaPlayer` on a manual clock.
func encodedFrames(of source: some AudioSource, codec: CallAudioCodec, ticks: Int) throws -> [[UInt8]] {
    let sink = CollectingSink()
    let player = CallMediaPlayer(sink: sink)
    try player.start(source, session: "enc", codec: codec)
    for _ in 0..<ticks { player.tick() }
    return sink.all.map(\.payload)
}

/// A fresh path under the temporary directory, removed by the caller.
func mediaTemporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("parley-media-\(UUID().uuidString)-\(name)").path
}
