import Synchronization
import Testing
@testable import ParleyCore

private final class CapturingLogger: Logger {
    let records = Mutex<[LogRecord]>([])
    func log(_ record: LogRecord) { records.withLock { $0.append(record) } }
}

@Suite(.serialized) struct LogTests {
    @Test func levelsFilterPerModuleAndDefaultIsError() {
        let capture = CapturingLogger()
        Log.setLogger(capture)
        defer { Log.setLogger(StandardErrorLogger()); Log.setLevel(.error) }
        Log.setLevel(.error)
        #expect(Log.level(for: .core) == .error)
        Log.setLevel(.debug, for: .signaling)
        Log.info(.core, "hidden")
        Log.error(.core, "shown")
        Log.debug(.signaling, "shown too")
        Log.trace(.signaling, "hidden")
        Log.setLevel(.off, for: .webrtc)
        Log.fatal(.webrtc, "hidden")
        let messages = capture.records.withLock { $0.map(\.message) }
        #expect(messages == ["shown", "shown too"])
    }

    @Test func levelNamesParse() {
        #expect(LogLevel(name: "WARN") == .warning)
        #expect(LogLevel(name: "all") == .all)
        #expect(LogLevel(name: "loud") == nil)
        #expect(LogLevel.off < LogLevel.fatal && LogLevel.trace < LogLevel.all)
        #expect("\(LogLevel.warning)" == "WARNING")
    }
}
