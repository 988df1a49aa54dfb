import AudioCore
import Foundation
import ParleyAudio
import ParleyCore

/// The demo's material: alice's speech (espeak-ng, resampled to 16 kHz for PESQ-WB), or two tones
/// where espeak-ng is missing.
enum DemoSpeech {
    static let text = """
        Hello Bob, this is Alice calling through a Parley server that we run ourselves. \
        The weather is fine, the coffee is hot, and the quarterly numbers look better than expected. \
        Please call me back after lunch.
        """

    /// Writes 16 kHz mono speech to `path` (the reference) and to `microphonePath` (what alice's
    /// device plays) the same after `leadIn` seconds of silence — alice waits for bob's side of the
    /// call to connect, as a caller waits to hear the callee, so a handshake retransmitted under
    /// loss does not cut her first words — and followed by `padding` seconds of a quiet 330 Hz tone
    /// (so DTMF, mute and hold happen after the speech, where their effect can be heard); returns a
    /// description and the speech's duration in seconds.
    static func make(at path: String, microphonePath: String, leadIn: Double, padding: Double) throws -> (String, Double) {
        let (description, samples) = try speech(scratch: path + ".espeak.wav")
        try write(samples, to: path)
        let tone = (0..<Int(padding * 16_000)).map { Int16(3_000 * sin(2 * Double.pi * 330 * Double($0) / 16_000)) }
        try write([Int16](repeating: 0, count: Int(leadIn * 16_000)) + samples + tone, to: microphonePath)
        return (description, Double(samples.count) / 16_000)
    }

    private static func speech(scratch raw: String) throws -> (String, [Int16]) {
        defer { try? FileManager.default.removeItem(atPath: raw) }
        if speak(to: raw), let wav = try? WAVFile(contentsOfFile: raw), wav.channels == 1 {
            return ("espeak-ng speech", try Resampler.resample(wav.samples, from: wav.sampleRate, to: 16_000))
        }
        // No espeak-ng: 440 Hz then 660 Hz, 3 s each, at -12 dBFS.
        let tone = (0..<96_000).map { i -> Int16 in
            let frequency = i < 48_000 ? 440.0 : 660.0
            return Int16(8_200 * sin(2 * Double.pi * frequency * Double(i) / 16_000))
        }
        return ("a built-in tone (espeak-ng is not installed)", tone)
    }

    private static func speak(to path: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["espeak-ng", "-v", "en-us", "-s", "150", "-w", path, text]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.runWithDefaultSignals() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static func write(_ samples: [Int16], to path: String) throws {
        let data = Data(WAVFile(sampleRate: 16_000, channels: 1, samples: samples).serialized)
        try data.write(to: URL(fileURLWithPath: path))
    }
}
