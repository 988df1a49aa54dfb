import Foundation

/// PESQ-WB (ITU-T P.862.2) of the demo's recording, scored by `scripts/pesq-score` with the
/// project's `.venv` (the `pesq` package; `scripts/install-deps` makes it). Both are looked for in
/// the working directory and above the `parley` executable (`.build/release/parley` in a checkout).
enum SpeechScore {
    /// One line: `PESQ-WB 3.912 (…)`, or why there is no score.
    static func describe(reference: String, degraded: String) -> String {
        guard let root = packageRoot() else {
            return "PESQ-WB skipped: no scripts/pesq-score with a .venv beside it (run scripts/install-deps in the checkout)"
        }
        switch score(reference: reference, degraded: degraded, root: root) {
        case .success(let (score, lag)):
            return String(format: "PESQ-WB %.3f (bob's recording aligned by %d samples at 16 kHz)", score, lag)
        case .failure(let why):
            return "PESQ-WB skipped: \(why)"
        }
    }

    /// The checkout holding `scripts/pesq-score` and `.venv/bin/python3`.
    static func packageRoot() -> URL? {
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            candidates.append(directory)
            directory.deleteLastPathComponent()
        }
        return candidates.first { root in
            FileManager.default.fileExists(atPath: root.appendingPathComponent("scripts/pesq-score").path)
                && FileManager.default.isExecutableFile(atPath: root.appendingPathComponent(".venv/bin/python3").path)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the scorer on one pair of 16 kHz mono WAV files: the score and the alignment lag.
    static func score(reference: String, degraded: String, root: URL) -> Result<(Double, Int), Failure> {
        let process = Process()
        process.executableURL = root.appendingPathComponent(".venv/bin/python3")
        process.arguments = [root.appendingPathComponent("scripts/pesq-score").path, reference, degraded]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { return .failure(Failure(description: "cannot run the venv's python3: \(error)")) }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let words = String(decoding: printed, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard process.terminationStatus == 0, words.count >= 2, let score = Double(words[0]), let lag = Int(words[1]) else {
            let why = String(decoding: complaint, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            return .failure(Failure(description: "pesq-score exited \(process.terminationStatus): \(why)"))
        }
        return .success((score, lag))
    }
}
