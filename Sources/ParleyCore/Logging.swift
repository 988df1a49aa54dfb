import Foundation
import Synchronization

/// Log levels, in the order of the Voice SDK's `LogLevel` (default `.error`).
public enum LogLevel: Int, Comparable, Sendable, CaseIterable, CustomStringConvertible {
    case off = 0, fatal, error, warning, info, debug, trace, all

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
    public var description: String {
        switch self {
        case .off: "OFF"
        case .fatal: "FATAL"
        case .error: "ERROR"
        case .warning: "WARNING"
        case .info: "INFO"
        case .debug: "DEBUG"
        case .trace: "TRACE"
        case .all: "ALL"
        }
    }

    /// Parses `off`, `fatal`, `error`, `warning`/`warn`, `info`, `debug`, `trace`, `all` (any case).
    public init?(name: String) {
        switch name.lowercased() {
        case "off": self = .off
        case "fatal": self = .fatal
        case "error": self = .error
        case "warning", "warn": self = .warning
        case "info": self = .info
        case "debug": self = .debug
        case "trace": self = .trace
        case "all": self = .all
        default: return nil
        }
    }
}

/// The modules whose levels can be set apart, as in the Voice SDK's `LogModule`.
public enum LogModule: String, Sendable, CaseIterable {
    case core, platform, signaling, webrtc
}

/// One log record.
public struct LogRecord: Sendable {
    public let level: LogLevel
    public let module: LogModule
    public let message: String
    public let file: String
    public let line: Int
    public let date: Date
}

/// Where log records go. Apps plug their own in with `Log.setLogger(_:)`.
public protocol Logger: Sendable {
    func log(_ record: LogRecord)
}

/// Writes `time LEVEL [module] message` lines to standard error.
public struct StandardErrorLogger: Logger {
    public init() {}
    public func log(_ record: LogRecord) {
        let stamp = record.date.formatted(.iso8601.time(includingFractionalSeconds: true))
        let line = "\(stamp) \(record.level) [\(record.module.rawValue)] \(record.message)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// The process-wide log configuration: a level per module and one logger.
///
/// Library code logs through `Log.error(.core, "…")` and friends, never `print`. The message is an
/// autoclosure, so a record below the module's level costs one atomic load.
public enum Log {
    /// One byte per module, packed so the whole configuration is one atomic word.
    private static let levels = Atomic<UInt64>(Log.packed(.error))
    private static let sink = Mutex<any Logger>(StandardErrorLogger())

    /// Sets every module's level.
    public static func setLevel(_ level: LogLevel) {
        for module in LogModule.allCases { setLevel(level, for: module) }
    }

    /// Sets one module's level.
    public static func setLevel(_ level: LogLevel, for module: LogModule) {
        let shift = UInt64(index(module) * 8)
        var current = levels.load(ordering: .relaxed)
        while true {
            let next = (current & ~(0xFF << shift)) | (UInt64(level.rawValue) << shift)
            let (exchanged, original) = levels.compareExchange(expected: current, desired: next, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    public static func level(for module: LogModule) -> LogLevel {
        let byte = (levels.load(ordering: .relaxed) >> UInt64(index(module) * 8)) & 0xFF
        return LogLevel(rawValue: Int(byte)) ?? .error
    }

    /// Replaces the logger that receives records.
    public static func setLogger(_ logger: any Logger) {
        sink.withLock { $0 = logger }
    }

    /// The logger that receives records.
    public static var logger: any Logger { sink.withLock { $0 } }

    public static func isEnabled(_ level: LogLevel, _ module: LogModule) -> Bool {
        level != .off && level <= self.level(for: module)
    }

    public static func log(_ level: LogLevel, _ module: LogModule, _ message: @autoclosure () -> String,
                           file: String = #fileID, line: Int = #line) {
        guard isEnabled(level, module) else { return }
        let record = LogRecord(level: level, module: module, message: message(), file: file, line: line, date: Date())
        let logger = sink.withLock { $0 }
        logger.log(record)
    }

    public static func fatal(_ m: LogModule, _ s: @autoclosure () -> String, file: String = #fileID, line: Int = #line) {
        log(.fatal, m, s(), file: file, line: line)
    }
    public static func error(_ m: LogModule, _ s: @autoclosure () -> String, file: String = #fileID, line: Int = #line) {
        log(.error, m, s(), file: file, line: line)
    }
    public static func warning(_ m: LogModule, _ s: @autoclosure () -> String, file: String = #fileID, line: Int = #line) {
        log(.warning, m, s(), file: file, line: line)
    }
    public static func info(_ m: LogModule, _ s: @autoclosure () -> String, file: String = #fileID, line: Int = #line) {
        log(.info, m, s(), file: file, line: line)
    }
    public static func debug(_ m: LogModule, _ s: @autoclosure () -> String, file: String = #fileID, line: Int = #line) {
        log(.debug, m, s(), file: file, line: line)
    }
    public static func trace(_ m: LogModule, _ s: @autoclosure () -> String, file: String = #fileID, line: Int = #line) {
        log(.trace, m, s(), file: file, line: line)
    }

    private static func packed(_ level: LogLevel) -> UInt64 {
        LogModule.allCases.indices.reduce(0) { $0 | (UInt64(level.rawValue) << UInt64($1 * 8)) }
    }

    private static func index(_ module: LogModule) -> Int { LogModule.allCases.firstIndex(of: module)! }
}
