import Foundation

/// Runs ffprobe (installed with the test dependencies) on a file and returns its `key=value` lines.
enum FFprobe {
    static func run(_ path: String, _ entries: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error", "-count_frames", "-show_entries", entries, "-of", "default=noprint_wrappers=1", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
