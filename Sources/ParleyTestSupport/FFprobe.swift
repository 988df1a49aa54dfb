import Foundation
import ParleyCore

/// What Debian's `ffprobe` reads in a media file, for the tests of recordings and containers.
public enum FFprobe {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Its streams' codecs, the video size, the container's duration and how many frames (or
    /// audio packets) each stream decodes to.
    public struct Reading: Sendable, CustomStringConvertible {
        public var codecs: [String] = []
        public var width = 0, height = 0
        public var duration = 0.0
        public var frames: [Int] = []
        public var description: String { "\(codecs) \(width)x\(height) \(duration) s \(frames) frames" }
    }

    /// `ffprobe -count_frames -show_entries ENTRIES -of default=nw=1 PATH`'s output.
    public static func text(_ path: String, entries: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = ["-v", "error", "-count_frames", "-show_entries", entries, "-of", "default=nw=1", path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "ffprobe \(path) exited \(process.terminationStatus)") }
        return text
    }

    public static func read(_ path: String) throws -> Reading {
        var reading = Reading()
        for line in try text(path, entries: "stream=codec_name,width,height,nb_read_frames:format=duration").split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "codec_name": reading.codecs.append(parts[1])
            case "width": reading.width = Int(parts[1]) ?? 0
            case "height": reading.height = Int(parts[1]) ?? 0
            case "duration": reading.duration = Double(parts[1]) ?? 0
            case "nb_read_frames": reading.frames.append(Int(parts[1]) ?? 0)
            default: break
            }
        }
        return reading
    }
}
