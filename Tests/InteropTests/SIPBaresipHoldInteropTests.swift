import AccessToken
import Foundation
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Synchronization
import Testing
import WebRTC

/// baresip 1.0 holds and resumes a call to a WebRTC client with its own `/hold` and `/resume`
/// (typed on its standard input): bob hears baresip's 1 kHz tone, then the server's hold music
/// while baresip holds (its re-INVITE `a=sendonly` answered `recvonly`, the engine's hold as for
/// a client), then the tone again after `/resume` (`a=sendrecv`).
@Suite(.serialized, .tags(.interop)) struct SIPBaresipHoldInteropTests {
    @Test(.timeLimit(.minutes(2))) func baresipHoldsAndResumesAndBobHearsHoldMusicInBetween() async throws {
        let (server, dir, bob, user, sipPort) = try await SIPDialogInteropTests.setUp("siphold-baresip")
        defer { try? FileManager.default.removeItem(at: dir) }

        let source = dir.appendingPathComponent("tone.wav")
        try Data(SIPCallInteropTests.toneWAV(1_000, seconds: 40)).write(to: source)
        try SIPCallInteropTests.configure(dir, user: user, password: "s3cret-pw", server: "127.0.0.1:\(sipPort)",
                                          source: source, dumps: dir.appendingPathComponent("dumps"), encryption: nil)
        let commands = Pipe()
        let phone = try ChildProcess(executable: SIPCallInteropTests.baresip,
                                     arguments: ["-f", dir.path, "-e", "/dial sip:bob@127.0.0.1:\(sipPort)", "-t", "45"],
                                     input: commands.fileHandleForReading)
        defer {
            try? commands.fileHandleForWriting.close()
            phone.kill()
        }
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()

        let frames = HeardPayloads()
        let peer = bob.peer
        let listener = Task { for await packet in peer.audio where packet.payload.count > 2 { frames.append(packet.payload) } }
        defer { listener.cancel() }
        /// The dominant frequency of the last 1.5 s bob heard, once that much came after `mark` frames.
        func recent(after mark: Int) -> Double? {
            let heard = frames.all
            guard heard.count >= mark + 75 else { return nil }
            return try? ToneAudio.dominantFrequency(ofOpus: Array(heard.suffix(75)), analysisSeconds: 1.4)
        }
        func until(_ timeout: Duration, after mark: Int, _ test: (Double) -> Bool) async -> Double? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let frequency = recent(after: mark), test(frequency) { return frequency }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return nil
        }
        func send(_ command: String) { commands.fileHandleForWriting.write(Data((command + "\n").utf8)) }

        let tone = await until(.seconds(10), after: 25) { abs($0 - 1_000) < 20 }
        var mark = frames.all.count
        send("/hold")
        let music = await until(.seconds(8), after: mark) { abs($0 - 1_000) > 50 }
        mark = frames.all.count
        send("/resume")
        let back = await until(.seconds(8), after: mark) { abs($0 - 1_000) < 20 }
        try await bob.signaling.send(.hangup(Hangup(callSid: incoming.callSid)))
        let byeReached = await phone.waitForOutput("terminated", timeout: .seconds(10))
        print("baresip /hold and /resume: bob heard \(tone.map { "\($0)" } ?? "no") Hz, then \(music.map { "\($0)" } ?? "no change") Hz on hold, "
              + "then \(back.map { "\($0)" } ?? "no") Hz after resume; BYE reached baresip \(byeReached); "
              + "\(phone.stdout.split(separator: "\n").filter { ($0.lowercased().contains("hold") || $0.lowercased().contains("resum")) && !$0.contains("/tmp") }.prefix(4))")
        await bob.close()
        await server.shutdown()
        #expect(tone != nil, "\(phone.stdout.suffix(2000))")
        #expect(music != nil, "\(phone.stdout.suffix(2000))")
        #expect(back != nil, "\(phone.stdout.suffix(2000))")
        #expect(byeReached)
    }
}

/// The audio payloads a WebRTC party heard, in order.
final class HeardPayloads: Sendable {
    private let payloads = Mutex<[[UInt8]]>([])
    func append(_ payload: [UInt8]) { payloads.withLock { $0.append(payload) } }
    var all: [[UInt8]] { payloads.withLock { $0 } }
}
