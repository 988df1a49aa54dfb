import Foundation

/// Standard error output for the CLI (results go to standard output with `print`).
enum Output {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

func fileExists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: path)
}
