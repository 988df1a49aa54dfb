import Foundation
import Synchronization
import AudioCore

/// Records every buffer a device delivers, with its arrival time; can flag late deliveries.
final class RecordingCaptureContext: AudioCapturingContext {
    private let state = Mutex<(buffers: [[Int16]], times: [ContinuousClock.Instant], formatChanges: Int)>(([], [], 0))
    /// Set once the test's stop call has returned; any delivery after that is counted.
    let stopReturned = Atomic<Bool>(false)
    let deliveriesAfterStop = Atomic<Int>(0)

    func deliverCapturedSamples(_ samples: UnsafeBufferPointer<Int16>) {
        if stopReturned.load(ordering: .acquiring) { deliveriesAfterStop.add(1, ordering: .relaxed) }
        let now = ContinuousClock.now
        state.withLock {
            $0.buffers.append(Array(samples))
            $0.times.append(now)
        }
    }

    func captureFormatChanged() { state.withLock { $0.formatChanges += 1 } }

    var buffers: [[Int16]] { state.withLock { $0.buffers } }
    var samples: [Int16] { buffers.flatMap { $0 } }
    var count: Int { state.withLock { $0.buffers.count } }
    var times: [ContinuousClock.Instant] { state.withLock { $0.times } }
}

/// Plays a counter (0, 1, 2, … wrapping) or a fixed value; counts pulls; can flag late pulls.
final class CountingRenderContext: AudioRenderingContext {
    private let state = Mutex<(next: Int, pulls: Int)>((0, 0))
    private let constant: Int16?
    let stopReturned = Atomic<Bool>(false)
    let pullsAfterStop = Atomic<Int>(0)

    init(constant: Int16? = nil) { self.constant = constant }

    func readRenderSamples(into buffer: UnsafeMutableBufferPointer<Int16>) {
        if stopReturned.load(ordering: .acquiring) { pullsAfterStop.add(1, ordering: .relaxed) }
        state.withLock { s in
            for i in buffer.indices {
                buffer[i] = constant ?? Int16(truncatingIfNeeded: s.next)
                s.next += 1
            }
            s.pulls += 1
        }
    }

    func renderFormatChanged() {}

    var pulls: Int { state.withLock { $0.pulls } }
}

/// Plays a sine at a given rate and level into every pull.
final class ToneRenderContext: AudioRenderingContext {
    private let generator: Mutex<ToneGenerator>

    init(sampleRate: Int, frequency: Double, levelDBFS: Double) {
        generator = Mutex(ToneGenerator(sampleRate: sampleRate, frequency: frequency, levelDBFS: levelDBFS))
    }

    func readRenderSamples(into buffer: UnsafeMutableBufferPointer<Int16>) {
        generator.withLock { $0.generate(into: buffer) }
    }

    func renderFormatChanged() {}
}

enum AudioTestSupport {
    static func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "parley-dev-\(UUID().uuidString)-\(name)"
    }

    /// A sine as a WAV value.
    static func sine(frequency: Double, levelDBFS: Double, sampleRate: Int, channels: Int = 1, frames: Int) -> WAVFile {
        var generator = ToneGenerator(sampleRate: sampleRate, frequency: frequency, levelDBFS: levelDBFS)
        return WAVFile(sampleRate: sampleRate, channels: channels, samples: generator.samples(frames: frames, channels: channels))
    }

    /// Sign changes per second / 2: the frequency of a clean tone.
    static func zeroCrossingFrequency(_ samples: [Int16], sampleRate: Int, channels: Int = 1) -> Double {
        let mono = stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
        var crossings = 0
        for i in 1..<mono.count where (mono[i - 1] < 0) != (mono[i] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(mono.count) / Double(sampleRate))
    }

    static func rms(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    /// Polls `condition` every millisecond for up to `seconds`.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return condition()
    }
}
