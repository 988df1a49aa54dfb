#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The built-in hold music, for a held call when no hold-music URL is configured: an 8-second loop
/// of soft bell-like arpeggios over C, A minor, F and G, peaking near −20 dBFS. Synthesized once
/// per process and shared by every held call (768 kB).
public enum HoldMusic {
    /// The loop, decoded and ready to play.
    public static let loop: PCMAudio = synthesize()

    /// A source that plays the loop until stopped.
    public static func source() -> PCMSource { PCMSource(loop, loop: 0) }

    /// MIDI note numbers of the arpeggios, four per chord, each note half a second.
    static let notes: [Int] = [60, 64, 67, 72, 57, 60, 64, 69, 53, 57, 60, 65, 55, 59, 62, 67]
    static let noteSeconds = 0.5

    private static func synthesize() -> PCMAudio {
        let rate = Double(MediaAudio.sampleRate)
        let noteLength = Int(noteSeconds * rate)
        let peak = 32_767 * pow(10, -20.0 / 20)
        var samples = [Int16](repeating: 0, count: noteLength * notes.count)
        for (i, note) in notes.enumerated() {
            let frequency = 440 * pow(2, Double(note - 69) / 12)
            for n in 0..<noteLength {
                let t = Double(n) / rate
                let attack = min(1, t / 0.01)
                let release = min(1, Double(noteLength - n) / (0.02 * rate))
                let envelope = attack * release * exp(-4 * t)
                let phase = 2 * Double.pi * frequency * t
                let value = sin(phase) + 0.25 * sin(2 * phase) + 0.1 * sin(3 * phase)
                samples[i * noteLength + n] = Int16(clamping: Int((peak / 1.35 * envelope * value).rounded()))
            }
        }
        return PCMAudio(samples: samples)
    }
}
