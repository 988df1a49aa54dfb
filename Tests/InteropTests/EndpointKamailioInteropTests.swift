import AudioDevices
import Foundation
import ParleyCore
import ParleyEndpoint
import ParleyTestSupport
import Synchronization
import Testing

/// The endpoint SDK against another SIP server: Kamailio 5.6 as registrar (digest, contacts in
/// memory) and record-routing proxy (INVITEs challenged 407, sent to the callee's registered
/// contact). Two endpoints register; alice calls bob, who answers; media goes directly between
/// the two audio engines: each hears the other's tone, alice's keys reach bob (RFC 4733); alice
/// hangs up (BYE through the proxy) and both log out. Kamailio is stopped by its PID, failure or not.
@Suite(.serialized, .tags(.interop)) struct EndpointKamailioInteropTests {
    static let password = "kam-s3cret"

    /// Answers every call and keeps the keys it hears.
    final class Callee: EndpointDelegate {
        let digits = Mutex("")
        func onIncomingCall(_ incoming: Incoming) { incoming.answer() }
        func onIncomingDigit(_ digit: String) { digits.withLock { $0 += digit } }
    }

    @Test(.timeLimit(.minutes(2))) func twoEndpointsCallEachOtherThroughKamailio() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-endpoint-kamailio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try FreePort.udp()
        let kamailio = try await KamailioConfiguration.registrarProxy(port: port, password: Self.password, debug: 2).start(in: dir)
        defer { kamailio.kill() }
        try #require(kamailio.isRunning, "\(kamailio.stderr.suffix(2000))")

        func device(_ frequency: Double, record: String) throws -> FileAudioDevice {
            let source = dir.appendingPathComponent("tone-\(Int(frequency)).wav")
            try Data(SIPCallInteropTests.toneWAV(frequency, seconds: 20)).write(to: source)
            return try FileAudioDevice(inputPath: source.path, outputPath: dir.appendingPathComponent(record).path, looping: true)
        }
        let callee = Callee()
        let bob = try Endpoint(options: EndpointOptions(registrar: "sip:127.0.0.1:\(port)", audioDevice: try device(600, record: "bob.wav")),
                               delegate: callee)
        let alice = try Endpoint(options: EndpointOptions(registrar: "sip:127.0.0.1:\(port)", audioDevice: try device(1_000, record: "alice.wav")))
        try await bob.login(username: "bob", password: Self.password)
        try await alice.login(username: "alice", password: Self.password)

        let call = try alice.createOutgoingCall()
        let start = ContinuousClock.now
        try await call.call("bob", headers: ["X-PH-Via": "kamailio"])
        let setup = (ContinuousClock.now - start).milliseconds
        // Audio for 4 s of the far end's tone, keys after the first second.
        try await call.waitFor(seconds: 1)
        try call.sendDigits("19#")
        try await call.waitFor(seconds: 3)
        call.hangup()
        #expect(await call.waitForEnd() == .hungUp(byUs: true))
        await alice.logout()
        await bob.logout()
        bob.delegateQueue.sync {}
        let atAlice = SIPCallInteropTests.dominantFrequency(ofWAV: dir.appendingPathComponent("alice.wav"))
        let atBob = SIPCallInteropTests.dominantFrequency(ofWAV: dir.appendingPathComponent("bob.wav"))
        let digits = callee.digits.withLock { $0 }
        print("endpoint → Kamailio → endpoint: INVITE→200 \(Int(setup)) ms; alice heard \(atAlice) Hz, bob heard \(atBob) Hz, bob got keys \(digits)")
        #expect(abs(atAlice - 600) < 20, "bob's tone at alice: \(atAlice) Hz\n\(kamailio.stderr.suffix(2000))")
        #expect(abs(atBob - 1_000) < 20, "alice's tone at bob: \(atBob) Hz")
        #expect(digits == "19#")
        kamailio.kill()
    }
}

extension EndpointCall {
    /// Keeps the call up for `seconds` of real time (audio flows meanwhile); throws if it ends first.
    func waitFor(seconds: Double) async throws {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            if let outcome { throw EndpointError(code: EndpointError.invalidState, reason: "the call ended: \(outcome)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
