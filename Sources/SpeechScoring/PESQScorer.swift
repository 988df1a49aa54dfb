import Foundation
import ParleyCore

/// PESQ-WB (ITU-T P.862.2) through the project's scorer: `scripts/pesq-score` run by the venv's
/// `.venv/bin/python3` (the `pesq` package; `scripts/install-deps` makes the venv). One lookup for
/// every program that scores speech (`parley demo`, `parley-bench`, the tests): a checkout holding
/// both is looked for in the working directory and the directories above it, then in the running
/// executable's directory and those above it (`.build/release/parley-bench` in a checkout).
public struct PESQScorer: Sendable {
    /// Why speech cannot be scored, said so that a person can fix it.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// The checkout holding `scripts/pesq-score` and `.venv/bin/python3`.
    public let packageRoot: URL

    public var script: URL { packageRoot.appendingPathComponent("scripts/pesq-score") }
    public var python: URL { packageRoot.appendingPathComponent(".venv/bin/python3") }

    /// The scorer of the checkout at `packageRoot`; throws if its script or interpreter is missing.
    public init(packageRoot: URL) throws(Unavailable) {
        self.packageRoot = packageRoot
        if let missing = missingPiece { throw Unavailable("\(missing)\n\(Self.howToScore)") }
    }

    /// The first of `searchedDirectories()` that holds both pieces.
    public static func locate(workingDirectory: String = FileManager.default.currentDirectoryPath,
                              executable: URL = PESQScorer.runningExecutable) throws(Unavailable) -> PESQScorer {
        let directories = searchedDirectories(workingDirectory: workingDirectory, executable: executable)
        for directory in directories {
            if let scorer = try? PESQScorer(packageRoot: directory) { return scorer }
        }
        throw Unavailable("""
            PESQ-WB needs scripts/pesq-score and the project's .venv/bin/python3 (scripts/install-deps makes the venv); \
            none of \(directories.count) places has both: the working directory \(workingDirectory) and those above it, \
            and above this program (\(executable.deletingLastPathComponent().path)).
            \(howToScore)
            """)
    }

    /// Where `locate` looks, in order: the working directory and its ancestors, then the
    /// executable's directory and its ancestors.
    public static func searchedDirectories(workingDirectory: String, executable: URL) -> [URL] {
        var directories: [URL] = []
        for start in [URL(fileURLWithPath: workingDirectory).standardizedFileURL, executable.deletingLastPathComponent()] {
            var directory = start
            while true {
                if !directories.contains(directory) { directories.append(directory) }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path || directory.path == "/" { break }
                directory = parent
            }
        }
        return directories
    }

    /// This program's file, symlinks resolved (Linux's `/proc/self/exe`; the first argument elsewhere).
    public static var runningExecutable: URL {
        let link = URL(fileURLWithPath: "/proc/self/exe")
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link.path) {
            return URL(fileURLWithPath: target)
        }
        return URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
    }

    static let howToScore = """
        Run it from the checkout (after scripts/install-deps), or score a pair of 16 kHz mono WAV files yourself: \
        .venv/bin/python3 scripts/pesq-score REF.wav DEG.wav
        """

    /// Scores each (reference, degraded) pair of 16 kHz mono WAV files: the score and the lag (in
    /// samples) by which the degraded file was aligned.
    public func score(_ pairs: [(reference: String, degraded: String)]) throws(Unavailable) -> [(score: Double, lag: Int)] {
        // Checked again here: Foundation's `run()` of a missing file is an error far from its cause.
        if let missing = missingPiece { throw Unavailable("\(missing)\n\(Self.howToScore)") }
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path] + pairs.flatMap { [$0.reference, $0.degraded] }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do { try process.runWithDefaultSignals() } catch {
            throw Unavailable("cannot run \(python.path): \(error)\n\(Self.howToScore)")
        }
        // The scorer prints one short line per pair, and to stderr only when it fails.
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: printed, as: UTF8.self).split(separator: "\n")
        let results = lines.compactMap { line -> (score: Double, lag: Int)? in
            let words = line.split(separator: " ")
            guard words.count >= 2, let score = Double(words[0]), let lag = Int(words[1]) else { return nil }
            return (score, lag)
        }
        guard process.terminationStatus == 0, results.count == pairs.count else {
            let why = String(decoding: complaint, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            throw Unavailable("scripts/pesq-score exited \(process.terminationStatus) with \(results.count) of \(pairs.count) "
                              + "scores: \(why)")
        }
        return results
    }

    /// What is missing from `packageRoot`, if anything.
    private var missingPiece: String? {
        if !FileManager.default.isReadableFile(atPath: script.path) { return "no \(script.path)" }
        if !FileManager.default.isExecutableFile(atPath: python.path) { return "no Python interpreter at \(python.path)" }
        return nil
    }
}
