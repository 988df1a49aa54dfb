import AudioCore
import Foundation
import ParleyAudio
import ParleyCore
import SpeechScoring

/// Speech for quality measurements: WAV files in and out, whole-signal resampling, espeak-ng
/// sentences, and PESQ scoring through the project venv (`scripts/pesq-score`, via `PESQScorer`).
public enum SpeechMaterial {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Harvard sentences (IEEE 1969), the usual material of speech-quality tests.
    public static let sentences = """
        The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. \
        It is easy to tell the depth of a well. These days a chicken leg is a rare dish. \
        Rice is often served in round bowls. The juice of lemons makes fine punch. \
        The box was thrown beside the parked truck. The hogs were fed chopped corn and garbage.
        """

    /// Harvard list 2 (IEEE 1969): held out for `parley-bench call-quality`, the real call path.
    /// No test speaks them, so nothing is tuned to them.
    public static let heldOutSentences = """
        The boy was there when the sun rose. A rod is used to catch pink salmon. \
        The source of the huge river is the clear spring. Kick the ball straight and follow through. \
        Help the woman get back to her feet. A pot of tea helps to pass the evening. \
        Smoky fires lack flame and heat. The soft cushion broke the man's fall. \
        The salt breeze came across from the sea. The girl at the booth sold fifty bonds.
        """

    /// Reads a WAV file and returns it as mono samples at `rate` (channels averaged, resampled).
    public static func load(_ path: String, rate: Int) throws -> [Int16] {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure("cannot read \(path)") }
        let wav = try WAVFile(parsing: [UInt8](data))
        var mono = wav.samples
        if wav.channels > 1 {
            mono = (0..<wav.frameCount).map { f in
                var sum = 0
                for c in 0..<wav.channels { sum += Int(wav.samples[f * wav.channels + c]) }
                return Int16(sum / wav.channels)
            }
        }
        return try resample(mono, from: wav.sampleRate, to: rate)
    }

    /// Writes mono samples as a 16-bit PCM WAV file.
    public static func save(_ samples: [Int16], rate: Int, to path: String) throws {
        let bytes = WAVFile(sampleRate: rate, channels: 1, samples: samples).serialized
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw Failure("cannot write \(path)") }
    }

    /// Resamples a whole mono signal, time-aligned (`Resampler.resample`, quality 8).
    public static func resample(_ samples: [Int16], from inputRate: Int, to outputRate: Int) throws(ParleyError) -> [Int16] {
        try Resampler.resample(samples, from: inputRate, to: outputRate, quality: 8)
    }

    /// Speaks `text` with espeak-ng into a WAV file at `path`, once by a male and once by a female
    /// voice (ITU-T P.862 asks for talkers of both sexes), with half a second of silence between.
    /// Throws when espeak-ng is missing.
    public static func speak(_ text: String = sentences, to path: String) throws {
        var samples: [Int16] = []
        var rate = 22_050
        for voice in ["en-us", "en-us+f3"] {
            let part = path + ".\(voice).wav"
            try espeak(text, voice: voice, to: part)
            defer { try? FileManager.default.removeItem(atPath: part) }
            guard let data = FileManager.default.contents(atPath: part) else { throw Failure("espeak-ng wrote nothing") }
            let wav = try WAVFile(parsing: [UInt8](data))
            rate = wav.sampleRate
            samples += wav.samples + [Int16](repeating: 0, count: rate / 2)
        }
        try save(samples, rate: rate, to: path)
    }

    private static func espeak(_ text: String, voice: String, to path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["espeak-ng", "-v", voice, "-s", "150", "-w", path, text]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure("espeak-ng failed (status \(process.terminationStatus)); is it installed?") }
    }

    /// PESQ-WB of each (reference, degraded) pair of 16 kHz mono samples, scored by `scorer`
    /// (`scripts/pesq-score` in the venv; `PESQScorer.locate()` finds it) after alignment by
    /// cross-correlation.
    public static func pesq(_ pairs: [(reference: [Int16], degraded: [Int16])], scorer: PESQScorer) throws -> [Double] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-pesq-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var files: [(reference: String, degraded: String)] = []
        for (i, pair) in pairs.enumerated() {
            let ref = dir.appendingPathComponent("ref\(i).wav").path, deg = dir.appendingPathComponent("deg\(i).wav").path
            try save(pair.reference, rate: 16_000, to: ref)
            try save(pair.degraded, rate: 16_000, to: deg)
            files.append((ref, deg))
        }
        return try scorer.score(files).map(\.score)
    }

    /// `pesq(_:scorer:)` with the scorer of the checkout at `packageRoot` (tests know theirs).
    public static func pesq(_ pairs: [(reference: [Int16], degraded: [Int16])], packageRoot: URL) throws -> [Double] {
        try pesq(pairs, scorer: PESQScorer(packageRoot: packageRoot))
    }
}
