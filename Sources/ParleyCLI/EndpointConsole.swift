import Foundation
import ParleyCore
import ParleyEndpoint
import Synchronization

/// `parley endpoint`'s delegate: prints the endpoint's life (`+1.234s endpoint: logged in`) and
/// lets the command wait for milestones, a signal or a deadline.
final class EndpointConsole: EndpointDelegate, Sendable {
    let queue = DispatchQueue(label: "parley-cli-endpoint")
    private let started = ContinuousClock.now
    private let state = Mutex(State())

    struct State {
        var login: Result<Void, EndpointError>?
        var loggedOut = false
        var answered = false
        var ended: EndpointCallOutcome?
        var digits = ""
        /// The first call that rang here.
        var incoming: Incoming?
    }

    func print(_ line: String) {
        let elapsed = (ContinuousClock.now - started).milliseconds / 1000
        FileHandle.standardOutput.write(Data((String(format: "+%.3fs ", elapsed) + "endpoint: \(line)\n").utf8))
    }

    var snapshot: State { state.withLock { $0 } }

    func onLogin() {
        print("logged in")
        state.withLock { $0.login = .success(()) }
    }

    func onLoginFailed(error: EndpointError) {
        print("login failed: \(error.reason) (\(error.code))")
        state.withLock { $0.login = .failure(error) }
    }

    func onLogout() {
        print("logged out")
        state.withLock { $0.loggedOut = true }
    }

    func onIncomingCall(_ incoming: Incoming) {
        print("incoming call \(incoming.callUUID ?? "") from \(incoming.from)")
        state.withLock { if $0.incoming == nil { $0.incoming = incoming } }
        for (name, value) in incoming.extraHeaders.sorted(by: { $0.key < $1.key }) { print("header \(name): \(value)") }
    }

    func onIncomingCallAnswered(_ incoming: Incoming) { answered("answered") }
    func onIncomingCallRejected(_ incoming: Incoming) { ended("rejected before the answer", incoming.outcome) }
    func onIncomingCallHangup(_ incoming: Incoming) { ended("hung up", incoming.outcome) }
    func onIncomingCallInvalid(_ incoming: Incoming) { ended("invalid", incoming.outcome) }

    func onIncomingDigit(_ digit: String) {
        print("received digit \(digit)")
        state.withLock { $0.digits += digit }
    }

    func onOutgoingCall(_ outgoing: Outgoing) { print("calling (Call-ID \(outgoing.callUUID ?? ""))") }
    func onOutgoingCallRinging(_ outgoing: Outgoing) { print("ringing") }
    func onOutgoingCallAnswered(_ outgoing: Outgoing) { answered("answered") }
    func onOutgoingCallRejected(_ outgoing: Outgoing, error: EndpointError) { ended("rejected", outgoing.outcome) }
    func onOutgoingCallHangup(_ outgoing: Outgoing) { ended("hung up", outgoing.outcome) }
    func onOutgoingCallInvalid(_ outgoing: Outgoing, error: EndpointError) { ended("invalid", outgoing.outcome) }

    private func answered(_ what: String) {
        print(what)
        state.withLock { $0.answered = true }
    }

    private func ended(_ what: String, _ outcome: EndpointCallOutcome?) {
        switch outcome {
        case .hungUp(let byUs)?: print("\(what) (\(byUs ? "by us" : "by the far end"))")
        case .rejected(let error)?, .invalid(let error)?: print("\(what): \(error.reason) (\(error.code))")
        case nil: print(what)
        }
        state.withLock { $0.ended = outcome ?? .hungUp(byUs: false) }
    }

    /// Waits until `done` holds (true), a signal arrives (when `interruptible`: the hang-up and
    /// log-out that follow a signal wait on; a second signal exits at once) or `deadline` passes.
    func wait(until deadline: ContinuousClock.Instant?, interruptible: Bool = true, for done: (State) -> Bool) async -> WaitResult {
        while true {
            if done(snapshot) { return .done }
            if interruptible, let signal = Interruption.shared.caughtSignal { return .interrupted(signal) }
            if let deadline, ContinuousClock.now >= deadline { return .timedOut }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    enum WaitResult: Equatable {
        case done, timedOut
        case interrupted(Int32)
    }
}
