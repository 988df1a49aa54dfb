import AudioCore
import CallQuality

/// The level of a stream of PCM as WebRTC's `audioLevel`: the peak amplitude of each 100 ms
/// window, linear 0…1 (1 is full scale). Each finished window is one reading of the current
/// sampling interval (`readings`), which `AudioEngine.qualitySample` takes and restarts.
struct AudioEngineLevelMeter {
    private let windowSamples: Int
    private var peak: Int32 = 0
    private var counted = 0
    /// The level of the last finished window.
    private(set) var level: Double = 0
    /// Readings since `takeReadings()`.
    private var readings = AudioLevelSummary()

    init(format: AudioFormat) {
        windowSamples = max(format.sampleRate / 10, 1) * max(format.channels, 1)
    }

    /// Measures `samples` (interleaved).
    mutating func add(_ samples: UnsafeBufferPointer<Int16>) {
        var bufferPeak: Int32 = 0
        for sample in samples { bufferPeak = max(bufferPeak, abs(Int32(sample))) }
        peak = max(peak, bufferPeak)
        counted += samples.count
        if counted >= windowSamples {
            level = min(Double(peak) / 32_767, 1)
            readings.add(level)
            peak = 0
            counted = 0
        }
    }

    /// The readings of the interval that ends now; the next interval starts empty.
    mutating func takeReadings() -> AudioLevelSummary {
        defer { readings = AudioLevelSummary() }
        return readings
    }
}
