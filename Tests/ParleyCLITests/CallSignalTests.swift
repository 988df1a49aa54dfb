import Foundation
import Glibc
import ParleyTestSupport
import Testing

/// Ctrl-C (SIGINT) or SIGTERM on `parley call` / `parley listen` ends the call before the process
/// exits: a connected call is hung up (the far end hears the end at once and the record says
/// `completed`), a ringing one is canceled (the callee's invite is withdrawn, `canceled`), and a
/// listener stops listening. Without that the server waits out its 30 s resume window and the
/// ringing call ends `no-answer`. The far end's wait is bounded well below those 30 s.
@Suite(.serialized, .tags(.process)) struct CallSignalTests {
    /// Well below the server's 30 s resume and ring windows: what "at once" may take on a busy machine.
    static let promptly = Duration.seconds(8)

    @Test(.timeLimit(.minutes(1))) func interruptedConnectedCallHangsUp() async throws {
        let bed = try CLITestBed()
        let pair = try await bed.connectedPair(aliceFlags: ["--duration", "20"])
        let (alice, bob) = (pair.alice, pair.bob)

        alice.signal(SIGINT)
        try await bob.waitForOutput("disconnected", timeout: Self.promptly)
        #expect(await alice.exitStatus(timeout: Self.promptly) == 130)
        #expect(await bob.exitStatus(timeout: Self.promptly) == 0)
        for line in ["SIGINT: hanging up", "disconnected", "received ", "sent "] {
            #expect(alice.output.contains(line), "alice's output lacks \(line): \(alice.output)")
        }
        #expect(try await bed.server.callStatus(pair.aliceSid, becomes: ["completed"]) == "completed")
        #expect(try await bed.server.callStatus(pair.bobSid, becomes: ["completed"]) == "completed")
    }

    @Test(.timeLimit(.minutes(1))) func interruptedRingingCallIsCanceled() async throws {
        let bed = try CLITestBed()
        let bob = try await bed.silentCallee("bob")
        defer { Task { await bob.close() } }
        let alice = try bed.call("bob", ["--duration", "20"])
        let bobSid = try await incomingSid(bob)
        try await alice.waitForOutput("ringing")
        let leg = try await bed.server.rest("GET", "/Calls/\(bobSid).json")
        let aliceSid = try #require(leg.json["parent_call_sid"] as? String, "\(leg.body)")

        alice.signal(SIGINT)
        #expect(try await cancelCode(bob, timeout: Self.promptly) == 31487)
        #expect(await alice.exitStatus(timeout: Self.promptly) == 130)
        #expect(alice.output.contains("SIGINT: canceling"), "\(alice.output)")
        #expect(try await bed.server.callStatus(aliceSid, becomes: ["canceled"]) == "canceled")
        #expect(try await bed.server.callStatus(bobSid, becomes: ["canceled"]) == "canceled")
    }

    @Test(.timeLimit(.minutes(1))) func terminatedListenerHangsUpItsCall() async throws {
        let bed = try CLITestBed()
        let pair = try await bed.connectedPair(aliceFlags: ["--duration", "20"])
        let (alice, bob) = (pair.alice, pair.bob)

        bob.signal(SIGTERM)
        try await alice.waitForOutput("disconnected", timeout: Self.promptly)
        #expect(await bob.exitStatus(timeout: Self.promptly) == 143)
        #expect(await alice.exitStatus(timeout: Self.promptly) == 0)
        #expect(bob.output.contains("SIGTERM: hanging up"), "\(bob.output)")
        #expect(try await bed.server.callStatus(pair.bobSid, becomes: ["completed"]) == "completed")
    }

    @Test(.timeLimit(.minutes(1))) func interruptedIdleListenerStopsListening() async throws {
        let bed = try CLITestBed()
        let bob = try await bed.listen("bob")
        bob.signal(SIGINT)
        #expect(await bob.exitStatus(timeout: Self.promptly) == 130)
        #expect(bob.output.contains("SIGINT: no longer listening"), "\(bob.output)")
        // Nobody listens as bob any more: a call to him fails at once instead of ringing.
        let alice = try bed.call("bob", ["--duration", "5"])
        #expect(await alice.exitStatus(timeout: Self.promptly) == 1)
        #expect(alice.output.contains("failed to connect: 31480"), "\(alice.output)")
    }

    @Test(.timeLimit(.minutes(2))) func interruptedDemoHangsUpAndStops() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("parley-demo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let demo = try CLIProcess.start(try CLITestBed.parley, ["demo", "--out", out, "--setup-calls", "0"])
        try await demo.waitForOutput("alice: connected CA", timeout: .seconds(30))
        demo.signal(SIGINT)
        #expect(await demo.exitStatus(timeout: Self.promptly) == 130)
        for line in ["alice: SIGINT: hanging up", "alice: disconnected", "bob: disconnected"] {
            #expect(demo.output.contains(line), "the demo's output lacks \(line): \(demo.output)")
        }
    }
}
