import Foundation
import ParleyStore
import ParleyTestSupport
import Testing

/// What `parley call` / `parley listen` / `parley demo` print: the call's figures however the call
/// ends (the far end, the REST API or the application's TwiML ending it, not only a local hangup),
/// an invite's custom parameters, and the demo's PESQ-WB score.
@Suite(.serialized, .tags(.process)) struct CallOutputTests {
    /// The figure lines `CallConsole.printStats` prints, after the call's `disconnected`.
    static func expectFigures(after disconnect: String = "disconnected", in output: String, _ who: String) {
        guard let end = output.range(of: disconnect) else {
            Issue.record("\(who) never printed \(disconnect): \(output)")
            return
        }
        let after = output[end.upperBound...]
        for line in ["sent ", "received ", " packets", "selected pair "] {
            #expect(after.contains(line), "\(who)'s figures lack \(line) after \(disconnect): \(output)")
        }
    }

    @Test(.timeLimit(.minutes(1))) func figuresPrintWhenTheFarEndHangsUp() async throws {
        let bed = try CLITestBed()
        let bob = try await bed.listen("bob", ["--duration", "4"])
        let alice = try bed.call("bob", ["--duration", "30"])
        #expect(await bob.exitStatus() == 0)
        #expect(await alice.exitStatus() == 0)
        Self.expectFigures(in: alice.output, "alice")
        Self.expectFigures(in: bob.output, "bob")
    }

    @Test(.timeLimit(.minutes(1))) func figuresPrintWhenTheRESTAPIEndsTheCall() async throws {
        let bed = try CLITestBed()
        let pair = try await bed.connectedPair(aliceFlags: ["--duration", "30"])
        let (alice, bob) = (pair.alice, pair.bob)
        let ended = try await bed.server.rest("POST", "/Calls/\(pair.aliceSid).json", form: [("Status", "completed")])
        #expect(ended.status == 200, "\(ended.body)")
        #expect(await alice.exitStatus() == 0)
        #expect(await bob.exitStatus() == 0)
        Self.expectFigures(in: alice.output, "alice")
        Self.expectFigures(in: bob.output, "bob")
    }

    @Test(.timeLimit(.minutes(1))) func figuresPrintWhenTheApplicationsTwiMLEnds() async throws {
        let bed = try CLITestBed()
        let app = try TwiMLTestApp(authToken: bed.server.credentials.account.authToken)
        defer { Task { await app.shutdown() } }
        app.set("/voice", #"<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hello from the app.</Say></Response>"#)
        let application = try await bed.application(voiceURL: app.baseURL + "/voice")
        let alice = try bed.call("+15550100", ["--app", application, "--duration", "30"])
        #expect(await alice.exitStatus() == 0)
        #expect(alice.output.contains("connected CA"), "\(alice.output)")
        #expect(!alice.output.contains("hanging up"), "the CLI, not the TwiML, ended the call: \(alice.output)")
        Self.expectFigures(in: alice.output, "alice")
    }

    @Test(.timeLimit(.minutes(1))) func listenPrintsTheInvitesCustomParameters() async throws {
        let bed = try CLITestBed()
        let bob = try await bed.listen("bob", ["--duration", "3"])
        let alice = try bed.call("bob", ["--duration", "2", "--param", "Topic=billing question", "--param", "Order=42"])
        #expect(await alice.exitStatus() == 0)
        #expect(await bob.exitStatus() == 0)
        let lines = bob.output.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1).last.map(String.init) ?? "" }
        #expect(lines.contains("listen: param Order=42"), "\(bob.output)")
        #expect(lines.contains("listen: param Topic=billing question"), "\(bob.output)")
        #expect(bob.output.contains("from client:alice to client:bob"), "\(bob.output)")
    }

    @Test(.timeLimit(.minutes(2))) func demoPrintsItsPESQScore() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("parley-demo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let demo = try CLIProcess.start(try CLITestBed.parley, ["demo", "--out", out, "--setup-calls", "2"])
        #expect(await demo.exitStatus(timeout: .seconds(90)) == 0, "\(demo.output)")
        let match = try #require(demo.output.firstMatch(of: /PESQ-WB (\d\.\d{3}) \(bob's recording aligned by \d+ samples/),
                                 "no PESQ-WB score in: \(demo.output)")
        let score = try #require(Double(match.1))
        print("parley demo: PESQ-WB \(score)")
        #expect((1.0...4.65).contains(score))
        #expect(demo.output.contains("Call setup, connect → connected, 2 calls"), "\(demo.output)")
    }
}
