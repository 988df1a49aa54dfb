import AudioDevices
import Foundation
import ParleyTestSupport
import Synchronization
import Testing
@testable import ParleyVoice

/// 500 calls of one second churned through a real `parley-server` process by the SDK, ten at a
/// time (each lane a caller and a listening callee with tone devices): every call connects and
/// ends cleanly, and the server's resident memory and descriptors, sampled after each round of
/// 50 calls, level off once warmed up. The per-call figure is printed for docs/PERFORMANCE.md.
extension VoiceSDKTests {
@Suite(.tags(.process)) struct ServerSoakTests {
    static let lanes = 10
    static let callsPerLane = 50
    static let warmUpRounds = 2

    @Test(.timeLimit(.minutes(3))) func fiveHundredShortCallsLeaveTheServerAsItWas() async throws {
        let server = try ServerProcess()
        defer { server.stop() }
        Voice.servers = ["soak": server.baseURL]
        Voice.edge = "soak"
        let queue = DispatchQueue(label: "soak-delegates")
        var listeners: [Listener] = []
        var inboxes: [InviteInbox] = []  // listeners hold their delegates weakly
        for lane in 0..<Self.lanes {
            let inbox = InviteInbox { invite in
                let options = AcceptOptions(callInvite: invite) {
                    $0.audioDevice = try? ToneAudioDevice(frequency: 400)
                    $0.delegateQueue = queue
                }
                Task { _ = try? await invite.accept(options: options) }
            }
            inboxes.append(inbox)
            listeners.append(try await Voice.listen(accessToken: try server.token(identity: "callee\(lane)"),
                                                    delegate: inbox, delegateQueue: queue))
        }
        let tokens = try (0..<Self.lanes).map { try server.token(identity: "caller\($0)") }
        var samples: [(calls: Int, kilobytes: Int, descriptors: Int)] = []
        var failures: [String] = []
        let started = ContinuousClock.now
        for round in 0..<Self.callsPerLane {
            let results = await withTaskGroup(of: String?.self) { group in
                for lane in 0..<Self.lanes {
                    group.addTask { await Self.oneCall(token: tokens[lane], to: "callee\(lane)", queue: queue) }
                }
                var errors: [String] = []
                for await result in group { if let result { errors.append(result) } }
                return errors
            }
            failures += results
            if (round + 1) % 5 == 0 {
                samples.append(((round + 1) * Self.lanes, server.residentKilobytes(), server.openDescriptors()))
            }
        }
        let elapsed = ContinuousClock.now - started
        for listener in listeners { await listener.stop() }
        withExtendedLifetime(inboxes) {}

        let warm = samples[Self.warmUpRounds - 1], last = samples[samples.count - 1]
        let perCall = Double(last.kilobytes - warm.kilobytes) / Double(last.calls - warm.calls)
        print("soak: \(last.calls) calls of 1 s in \(elapsed), \(failures.count) failed; server RSS (kB) / descriptors after "
              + samples.map { "\($0.calls): \($0.kilobytes)/\($0.descriptors)" }.joined(separator: ", ")
              + String(format: "; %.2f kB per call after %d warm-up calls", perCall, warm.calls))
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(perCall < 50, "the server keeps \(perCall) kB per finished call")
        #expect(last.descriptors <= warm.descriptors + 4, "descriptors grew from \(warm.descriptors) to \(last.descriptors)")
    }

    /// One call: connect, talk for a second, hang up; nil when it went as it should.
    static func oneCall(token: String, to callee: String, queue: DispatchQueue) async -> String? {
        let events = CallEvents()
        let call = Voice.connect(options: ConnectOptions(accessToken: token) {
            $0.params = ["To": callee]
            $0.audioDevice = try? ToneAudioDevice(frequency: 700)
            $0.delegateQueue = queue
        }, delegate: events)
        do {
            try await events.wait(for: "connected", timeout: .seconds(15)) { $0.contains(.connected) }
            try await Task.sleep(for: .seconds(1))
            call.disconnect()
            try await events.wait(for: "disconnected", timeout: .seconds(15)) { $0.contains(.disconnected(nil)) }
            return nil
        } catch {
            call.disconnect()
            return "\(callee): \(error)"
        }
    }
}
}
