import Foundation
import ParleyCore
import ParleyTestSupport
import SpeechScoring
import Testing

/// The one lookup of the PESQ-WB scorer (`PESQScorer`): from the working directory, from the
/// executable's location, and a clear refusal when neither has it.
@Suite(.tags(.process)) struct SpeechScorerTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-scorer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Looked for in the working directory and above it first, then above the executable.
    @Test func searchOrderIsWorkingDirectoryThenExecutable() {
        let places = PESQScorer.searchedDirectories(workingDirectory: "/a/b", executable: URL(fileURLWithPath: "/c/d/tool"))
        #expect(places.map(\.path) == ["/a/b", "/a", "/", "/c/d", "/c"])
    }

    /// Nowhere to be found: an error that names where it looked and how to score by hand.
    @Test func missingScorerIsAnErrorThatSaysHowToScore() throws {
        let elsewhere = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let error = #expect(throws: PESQScorer.Unavailable.self) {
            try PESQScorer.locate(workingDirectory: elsewhere.path, executable: elsewhere.appendingPathComponent("bin/tool"))
        }
        #expect(error?.description.contains("PESQ-WB needs scripts/pesq-score and the project's .venv/bin/python3") == true)
        #expect(error?.description.contains(".venv/bin/python3 scripts/pesq-score REF.wav DEG.wav") == true)
        #expect(throws: PESQScorer.Unavailable.self) { try PESQScorer(packageRoot: elsewhere) }
    }

    /// From a directory outside the checkout, the executable's location finds it.
    @Test func foundAboveTheExecutable() throws {
        let elsewhere = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let bench = URL(fileURLWithPath: try BuiltProducts.path("parley-bench"))
        let scorer = try PESQScorer.locate(workingDirectory: elsewhere.path, executable: bench)
        #expect(scorer.packageRoot.standardizedFileURL.path == Self.packageRoot.standardizedFileURL.path)
    }

    /// `parley-bench audio-quality --output` run from a temporary directory: it scores (the
    /// executable's location finds the scorer) or exits 1 with the message; never a signal.
    @Test(.timeLimit(.minutes(3))) func audioQualityBenchRunsFromAnyDirectory() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try SpeechMaterial.speak("Glue the sheet to the dark blue background.", to: directory.appendingPathComponent("in.wav").path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProducts.path("parley-bench"))
        process.arguments = ["audio-quality", "--input", "in.wav", "--output", "out.wav", "--loss", "5"]
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.runWithDefaultSignals()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "ended by signal \(process.terminationStatus): \(stderr)")
        if process.terminationStatus == 0 {
            #expect(stdout.contains("| opus loss 5.0%"), "\(stdout)")
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.wav").path))
        } else {
            #expect(process.terminationStatus == 1)
            #expect(stderr.contains("PESQ-WB needs scripts/pesq-score"), "\(stderr)")
        }
    }
}
