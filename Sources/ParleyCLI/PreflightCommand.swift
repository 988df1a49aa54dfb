import CallQuality
import Foundation
import ParleyCore
import ParleyVoice

/// `parley preflight`: the SDK's preflight test against the server's echo endpoint, its report
/// printed as it would reach an app.
enum PreflightCommand {
    static func run(_ args: [String], environment: [String: String]) throws -> Int32 {
        let parsed = try Arguments(args, options: CallCommand.common)
        _ = try parsed.positionals(0, "no positional arguments")
        guard parsed.value("identity") != nil || parsed.value("token") != nil else {
            throw UsageError("preflight needs --identity NAME or --token JWT")
        }
        let token = try CallCommand.accessToken(parsed, environment: environment)
        try CallCommand.configure(parsed, environment: environment)
        let seconds = try parsed.integer("duration") ?? 10
        let options = PreflightOptions(accessToken: token) { $0.duration = .seconds(seconds) }
        return CallCommand.blocking {
            say("preflight: \(seconds) s against the echo endpoint")
            let report: PreflightReport
            do throws(ParleyError) { report = try await Voice.runPreflightTest(options: options) } catch {
                say("preflight failed: \(error.code.rawValue) \(error.name): \(error.failureReason ?? error.code.text)")
                return 1
            }
            print(report)
            return 0
        }
    }

    static func print(_ report: PreflightReport) {
        func ms(_ duration: Duration?) -> String { duration.map { String(format: "%.1f ms", $0.milliseconds) } ?? "n/a" }
        func stats(_ name: String, _ value: PreflightStats?, _ unit: String) -> String {
            guard let value else { return "\(name) n/a" }
            return String(format: "%@ min %.2f / avg %.2f / max %.2f%@", name, value.min, value.average, value.max, unit)
        }
        say("call SID \(report.callSid), edge \(report.edge)")
        say("timings: signaling \(ms(report.networkTiming.signaling)), ICE \(ms(report.networkTiming.ice)), "
            + "DTLS \(ms(report.networkTiming.dtls)), peer connection \(ms(report.networkTiming.peerConnection))")
        say(stats("MOS", report.mos, ""))
        say(stats("jitter", report.jitter, " ms"))
        say(stats("RTT", report.rtt, " ms"))
        say(stats("packet loss", report.packetLoss, " %"))
        if let pair = report.selectedIceCandidatePair {
            say("selected pair \(pair.localCandidate.ip):\(pair.localCandidate.port) (\(pair.localCandidate.candidateType)) ↔ "
                + "\(pair.remoteCandidate.ip):\(pair.remoteCandidate.port) (\(pair.remoteCandidate.candidateType)); "
                + "TURN required: \(report.isTurnRequired)")
        }
        say("call quality: \(report.callQuality?.rawValue ?? "n/a"); \(report.statsSamples.count) samples; "
            + "warnings: \(report.qualityWarnings.isEmpty ? "none" : report.qualityWarnings.map { $0.warning.rawValue }.joined(separator: ", "))")
    }
}
