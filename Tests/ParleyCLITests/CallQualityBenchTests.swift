import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// `parley-bench call-quality` refuses what it cannot run with a message and exit status 1,
/// before it starts a call (the calls themselves are what docs/quality.md measures).
@Suite(.tags(.process)) struct CallQualityBenchTests {
    @Test(arguments: [
        (["--condition", "loss99"], "unknown condition loss99"),
        (["--seeds", "0"], "--seeds wants 1…100"),
        (["--parallel"], "--parallel needs a value"),
        (["--loss", "5"], "unknown option --loss"),
    ])
    func badOptionsAreRefusedWithAMessage(arguments: [String], message: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProducts.path("parley-bench"))
        process.arguments = ["call-quality"] + arguments
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.runWithDefaultSignals()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 1, "\(stderr)")
        #expect(stderr.contains(message), "\(stderr)")
    }
}
