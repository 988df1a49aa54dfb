import AccessToken
import Foundation
import ParleyCore
import ParleyCrypto
import ParleyTestSupport
import Signaling
import Synchronization

/// Calls set up the real way for `parley-bench calls`: each caller and callee has a signaling
/// WebSocket to the in-process `PlatformServer` (`/v1/signaling`, `hello` with an access token);
/// the callee listens; the caller sends `invite` (no application in its grant, so `To` names the
/// callee and the server dials it directly, answerOnBridge); the callee accepts the `incoming`;
/// both legs connect their media (ICE + DTLS) to the answers the server sends; the server bridges
/// them and tells the caller `connected`. The other calls of the benchmark skip the signaling and
/// call `createCallSession` and `forward` on the media server directly (what `VoiceService` does
/// for them here).
struct CallsBenchSignalingCall: Sendable {
    let caller: SignalingTestClient
    let callee: SignalingTestClient
    /// invite sent → both legs' DTLS connected and the caller told `connected` (s).
    let setupSeconds: Double
    /// invite → the caller's `answer`; invite → the callee's `incoming`.
    let answerSeconds: Double
    let incomingSeconds: Double

    struct Failed: Error, CustomStringConvertible { let description: String }

    /// Where the server is and the API key that signs the tokens (sent to a client worker process
    /// over its stdin pipe, never logged).
    struct Server: Sendable {
        let baseURL: String
        let accountSid: String
        let apiKeySid: String
        let apiSecret: String
    }

    /// Places call `index` between `callerLeg` and `calleeLeg`.
    static func place(index: Int, server: Server, callerLeg: CallsBenchLeg, calleeLeg: CallsBenchLeg,
                      certificate: CertificateIdentity) async throws -> CallsBenchSignalingCall {
        let base = server.baseURL
        let calleeIdentity = "bench_callee_\(index)"
        let callee = try await SignalingTestClient(baseURL: base, token: token(server, calleeIdentity))
        try await callee.send(.listen, id: "l")
        _ = try await callee.expect("listening") { if case .listening = $0 { true } else { nil } }
        let caller = try await SignalingTestClient(baseURL: base, token: token(server, "bench_caller_\(index)"))

        let clock = ContinuousClock()
        let start = clock.now
        let callerOffer = callerLeg.offer(fingerprint: certificate.fingerprint)
        try await caller.send(.invite(Invite(callId: UUID().uuidString, to: calleeIdentity, sdp: callerOffer)), id: "i")

        let callerAnswered = OneShot()
        async let callerSide: Double = {
            defer { callerAnswered.fire() }   // also on failure, so the callee side never waits forever
            let answer = try await caller.expect("answer") { message -> String? in
                if case .error(let body) = message { return "error \(body.code): \(body.message)" }
                if case .answer(let a) = message { return a.sdp }
                return nil
            }
            guard !answer.hasPrefix("error") else { throw Failed(description: "invite refused: \(answer)") }
            let answered = (clock.now - start).seconds
            callerAnswered.fire()
            try await callerLeg.connect(answer: answer, certificate: certificate)
            let bridged = try await caller.expect("connected", timeout: .seconds(20)) { message -> Bool? in
                if case .hangup = message { return false }
                if case .connected = message { return true }
                return nil
            }
            guard bridged else { throw Failed(description: "call \(index) hung up before it connected") }
            return answered
        }()
        async let calleeSide: Double = {
            let incoming = try await callee.expect("incoming", timeout: .seconds(20)) {
                if case .incoming(let i) = $0 { i } else { nil }
            }
            let rang = (clock.now - start).seconds
            // Accepting before the caller's media session exists hits a race in the server (the
            // callee's media becomes ready first and the bridge is never made: see the report in
            // docs/PERFORMANCE.md), so the callee answers once the caller has its answer.
            await callerAnswered.wait()
            try await callee.send(.accept(Accept(callSid: incoming.callSid,
                                                 sdp: calleeLeg.offer(fingerprint: certificate.fingerprint))), id: "a")
            let answer = try await callee.expect("answer") { if case .answer(let a) = $0 { a.sdp } else { nil } }
            try await calleeLeg.connect(answer: answer, certificate: certificate)
            return rang
        }()
        let (answered, rang) = try await (callerSide, calleeSide)
        return CallsBenchSignalingCall(caller: caller, callee: callee, setupSeconds: (clock.now - start).seconds,
                                       answerSeconds: answered, incomingSeconds: rang)
    }

    /// Keeps both sockets alive: the server closes a signaling socket after 3 heartbeats (60 s)
    /// without a message, so the benchmark sends a protocol `ping` every 20 s.
    func ping() async {
        try? await caller.send(.ping)
        try? await callee.send(.ping)
    }

    func close() async {
        await caller.close()
        await callee.close()
    }

    private static func token(_ server: Server, _ identity: String) throws -> String {
        try AccessTokenBuilder.mint(accountSid: server.accountSid, apiKeySid: server.apiKeySid,
                                    apiSecret: server.apiSecret, identity: identity, ttl: 3600,
                                    grants: [.voice(VoiceGrant(incomingAllow: true))],
                                    now: Int64(Date().timeIntervalSince1970))
    }
}

/// A one-time signal between the two sides of a call setup.
final class OneShot: Sendable {
    private let state = Mutex<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { s in
            s.fired = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let fired = state.withLock { s in
                if !s.fired { s.waiters.append(continuation) }
                return s.fired
            }
            if fired { continuation.resume() }
        }
    }
}
