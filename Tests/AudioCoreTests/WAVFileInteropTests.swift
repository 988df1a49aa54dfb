import AudioCore
import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// Files written by real tools (`sox`, `espeak-ng`) parse, and what Parley writes, sox reads.
/// scripts/install-deps installs both; without them these tests fail, they do not skip.
@Suite(.tags(.interop)) struct WAVFileInteropTests {
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/", "/opt/homebrew/bin/"].map { $0 + name }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a tool to completion; returns its standard output.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(executable) \(arguments) failed")
        return data
    }

    static func temporaryPath(_ suffix: String) -> String {
        NSTemporaryDirectory() + "parley-wav-\(UUID().uuidString)\(suffix)"
    }

    static func parse(_ path: String) throws -> WAVFile {
        let data = try #require(FileManager.default.contents(atPath: path))
        return try WAVFile(parsing: [UInt8](data))
    }

    /// Zero crossings per second / 2 ≈ frequency of a pure tone.
    static func estimatedFrequency(_ samples: ArraySlice<Int16>, sampleRate: Int) -> Double {
        var crossings = 0
        var previous = samples.first ?? 0
        for s in samples.dropFirst() {
            if (previous < 0) != (s < 0) { crossings += 1 }
            previous = s
        }
        return Double(crossings) / 2 / (Double(samples.count) / Double(sampleRate))
    }

    @Test
    func parsesSoxSineInEveryEncoding() throws {
        let sox = try #require(Self.tool("sox"))
        let cases: [([String], WAVFile.SampleEncoding)] = [
            (["-b", "16"], .signedInteger(containerBits: 16, validBits: 16)),
            (["-b", "8", "-e", "unsigned-integer"], .unsignedInteger8),
            (["-b", "24"], .signedInteger(containerBits: 24, validBits: 24)),
            (["-b", "32"], .signedInteger(containerBits: 32, validBits: 32)),
            (["-b", "32", "-e", "floating-point"], .float(bits: 32)),
        ]
        for (options, encoding) in cases {
            let path = Self.temporaryPath(".wav")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Self.run(sox, ["-n", "-r", "16000"] + options + ["-c", "1", path, "synth", "0.5", "sine", "440"])
            let file = try Self.parse(path)
            #expect(file.sampleRate == 16_000 && file.channels == 1, "\(options)")
            #expect(file.frameCount == 8_000, "\(options)")
            #expect(file.sourceEncoding == encoding, "\(options)")
            let peak = file.samples.map { Int(abs(Int32($0))) }.max() ?? 0
            #expect(peak > 20_000 && peak < 25_000, "sox synth peaks near −3 dBFS (\(options)): \(peak)")
            let frequency = Self.estimatedFrequency(file.samples[...], sampleRate: 16_000)
            #expect(abs(frequency - 440) < 5, "\(options): \(frequency) Hz")

            // Wider encodings agree with sox's own undithered conversion to 16 bits within 1 LSB.
            let raw = try Self.run(sox, [path, "-D", "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-"])
            let reference = raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            #expect(reference.count == file.samples.count)
            let worst = zip(reference, file.samples).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(options): differs from sox by \(worst)")
        }
    }

    @Test
    func parsesSoxStereoExtensible() throws {
        let sox = try #require(Self.tool("sox"))
        let path = Self.temporaryPath(".wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.run(sox, ["-n", "-r", "48000", "-b", "24", "-c", "2", path, "synth", "0.1", "sine", "1000", "sine", "500"])
        let file = try Self.parse(path)
        #expect(file.channels == 2 && file.sampleRate == 48_000 && file.frameCount == 4_800)
        let left = file.samples.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let right = file.samples.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        #expect(abs(Self.estimatedFrequency(left[...], sampleRate: 48_000) - 1_000) < 20)
        #expect(abs(Self.estimatedFrequency(right[...], sampleRate: 48_000) - 500) < 20)
    }

    @Test
    func parsesEspeakSpeech() throws {
        let espeak = try #require(Self.tool("espeak-ng"))
        let path = Self.temporaryPath(".wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.run(espeak, ["-w", path, "Parley reads this file."])
        let file = try Self.parse(path)
        #expect(file.sampleRate == 22_050 && file.channels == 1)
        #expect(file.duration > 0.8 && file.duration < 5)
        let peak = file.samples.map { Int(abs(Int32($0))) }.max() ?? 0
        #expect(peak > 3_000, "speech, not silence")
    }

    @Test
    func soxReadsWhatParleyWrites() throws {
        let sox = try #require(Self.tool("sox"))
        let path = Self.temporaryPath(".wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let samples = (0..<1_600).map { Int16(truncatingIfNeeded: $0 * 37) }
        let file = WAVFile(sampleRate: 8_000, channels: 2, samples: samples)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(file.serialized)))
        let raw = try Self.run(sox, [path, "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-"])
        #expect(raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } == samples)
        let info = try Self.run(sox, ["--i", "-r", path]) + Self.run(sox, ["--i", "-c", path])
        #expect(String(decoding: info, as: UTF8.self) == "8000\n2\n")
    }
}
