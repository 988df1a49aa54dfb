import Foundation
import ParleyClientCore
import ParleyCore
import ParleyNet
import SIPWire
import Synchronization

/// A SIP endpoint: registers a username with a registrar (any SIP server: parley-server, Kamailio,
/// Asterisk) and makes and takes calls with audio; the seed's `PlivoEndpoint`. Delegate and
/// async/await forms of each operation use the same machinery.
///
/// ```swift
/// let endpoint = try Endpoint(options: EndpointOptions(registrar: "sip:pbx.example.com"), delegate: self)
/// try await endpoint.login(username: "alice", password: "…")
/// let call = try endpoint.createOutgoingCall()
/// try await call.call("sip:bob@pbx.example.com", headers: ["X-PH-Ref": "42"])
/// ```
///
/// Threads: the SIP user agent runs on one event loop thread of its own; public methods may be
/// called from any thread. Delegate callbacks run on `delegateQueue` (`DelegateQueue.default`
/// unless given: an SDK serial queue on Linux, main on Apple platforms), in the order things happened.
public final class Endpoint: Sendable {
    public let options: EndpointOptions
    /// Where delegate callbacks run.
    public let delegateQueue: DispatchQueue
    let loop: EventLoop
    /// The way to the user agent on its loop.
    let gate: UserAgentGate
    let state = Mutex(State())
    /// Calls that ring here, as they arrive (the async form of `onIncomingCall`); the newest 8 wait.
    public let incomingCalls: AsyncStream<Incoming>
    private let incomingContinuation: AsyncStream<Incoming>.Continuation

    struct State {
        weak var delegate: (any EndpointDelegate)?
        var loggedIn = false
        var loginWaiters: [CheckedContinuation<EndpointError?, Never>] = []
        var logoutWaiters: [CheckedContinuation<Void, Never>] = []
        var calls: [String: EndpointCall] = [:]
        var currentCallID: String?
        var lastCallID: String?
        var closed = false
    }

    /// - Parameters:
    ///   - options: the registrar, transport, audio device, bitrate and debug switch.
    ///   - delegate: told of logins, calls and digits; held weakly (the seed's `delegate`).
    ///   - delegateQueue: where callbacks run; `DelegateQueue.default` when nil.
    /// - Throws: ``EndpointError`` (``EndpointError/invalidArgument``) for options it cannot use.
    public init(options: EndpointOptions, delegate: (any EndpointDelegate)? = nil, delegateQueue: DispatchQueue? = nil,
                clock: any MonotonicClock = SystemClock()) throws(EndpointError) {
        let settings = try UserAgentSettings(options)
        self.options = options
        self.delegateQueue = delegateQueue ?? DelegateQueue.default
        do { loop = try EventLoop(name: "parley-endpoint") } catch {
            throw EndpointError(code: 503, reason: "event loop: \(error)")
        }
        let relay = EventRelay()
        let agent = UserAgent(loop: loop, clock: clock, settings: settings) { relay.send($0) }
        gate = agent.gate
        (incomingCalls, incomingContinuation) = AsyncStream.makeStream(of: Incoming.self, bufferingPolicy: .bufferingNewest(8))
        state.withLock { $0.delegate = delegate }
        relay.target.withLock { $0 = { [weak self] event in self?.handle(event) } }
    }

    deinit {
        let loop = self.loop
        gate.close { ua in
            ua.stop()
            loop.stop()
        }
        incomingContinuation.finish()
    }

    /// The seed's `delegate`; held weakly.
    public var delegate: (any EndpointDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// Whether the registrar holds our binding.
    public var isLoggedIn: Bool { state.withLock { $0.loggedIn } }

    /// Runs `body` on the user agent's loop.
    func run(_ body: @escaping @Sendable (UserAgent) -> Void) {
        gate.execute(body)
    }

    // MARK: - Login (the seed's `login:AndPassword:RegTimeout:`, `logout`)

    /// Registers `username` (the seed's `login:AndPassword:` and `login:AndPassword:RegTimeout:`):
    /// REGISTER with digest authentication (MD5 or SHA-256), refreshed at half the granted
    /// expiry. The outcome reaches ``EndpointDelegate/onLogin()`` or
    /// ``EndpointDelegate/onLoginFailed(error:)``.
    /// - Parameter regTimeout: the binding's expiry in seconds, 120 s to 30 days (600 by default).
    /// - Throws: ``EndpointError`` (``EndpointError/invalidArgument``) for an empty username or
    ///   password, a username with characters a SIP URI cannot hold unescaped, or a `regTimeout` out of range.
    public func login(username: String, password: String, regTimeout: Int = 600) throws(EndpointError) {
        let expires = try Self.checkLogin(username: username, password: password, regTimeout: regTimeout)
        run { ua in
            do throws(EndpointError) { try ua.start() } catch {
                ua.report(.loginFailed(error))
                return
            }
            ua.login(username: username, password: password, expires: expires)
        }
    }

    /// ``login(username:password:regTimeout:)`` that returns once the registrar accepted us.
    /// - Throws: the same ``EndpointError`` as ``EndpointDelegate/onLoginFailed(error:)`` gets.
    public func login(username: String, password: String, regTimeout: Int = 600) async throws(EndpointError) {
        _ = try Self.checkLogin(username: username, password: password, regTimeout: regTimeout)
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<EndpointError?, Never>) in
            state.withLock { $0.loginWaiters.append(continuation) }
            do throws(EndpointError) { try login(username: username, password: password, regTimeout: regTimeout) } catch {
                resumeLoginWaiters(error)
            }
        }
        if let failure { throw failure }
    }

    static func checkLogin(username: String, password: String, regTimeout: Int) throws(EndpointError) -> UInt32 {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!~*'()&=+$,;?/".utf8)
        guard !username.isEmpty, username.utf8.count <= 128, username.utf8.allSatisfy(allowed.contains) else {
            throw .invalid("username must be 1–128 characters a SIP URI's user part holds unescaped")
        }
        guard !password.isEmpty, password.utf8.count <= 256 else { throw .invalid("password must have 1–256 characters") }
        let range = Int(RegistrationConfiguration.minimumExpires)...Int(RegistrationConfiguration.maximumExpires)
        guard range.contains(regTimeout) else {
            throw .invalid("regTimeout \(regTimeout): expected \(range.lowerBound)–\(range.upperBound) seconds (120 s to 30 days)")
        }
        return UInt32(regTimeout)
    }

    /// Removes our binding (`Expires: 0`) (the seed's `logout`); ``EndpointDelegate/onLogout()`` follows.
    public func logout() {
        run { $0.logout() }
    }

    /// ``logout()`` that returns once the binding is removed (or the registrar failed to answer).
    public func logout() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { $0.logoutWaiters.append(continuation) }
            logout()
        }
    }

    // MARK: - Calls

    /// A new outgoing call object (the seed's `createOutgoingCall`); ``Outgoing/call(_:headers:)`` places it.
    /// - Throws: ``EndpointError/notLoggedIn`` before a successful login (the seed returns an empty object).
    public func createOutgoingCall() throws(EndpointError) -> Outgoing {
        guard isLoggedIn else { throw EndpointError(code: EndpointError.notLoggedIn, reason: "log in before calling") }
        return Outgoing(endpoint: self)
    }

    /// The Call-ID of the call in progress, if any (the seed's `getCallUUID`).
    public func getCallUUID() -> String? { state.withLock { $0.currentCallID } }

    /// The Call-ID of the latest answered call (the seed's `getLastCallUUID`).
    public func getLastCallUUID() -> String? { state.withLock { $0.lastCallID } }

    func register(_ call: EndpointCall, id: String) {
        state.withLock {
            $0.calls[id] = call
            $0.currentCallID = id
        }
    }

    // MARK: - Events from the user agent (loop thread)

    private func handle(_ event: UserAgentEvent) {
        switch event {
        case .loggedIn:
            // The callback is queued before waiters resume, so it is seen first by both.
            state.withLock { $0.loggedIn = true }
            notify { $0.onLogin() }
            resumeLoginWaiters(nil)
        case .loginFailed(let error):
            state.withLock { $0.loggedIn = false }
            notify { $0.onLoginFailed(error: error) }
            resumeLoginWaiters(error)
        case .loggedOut:
            let waiters = state.withLock { s in
                s.loggedIn = false
                defer { s.logoutWaiters = [] }
                return s.logoutWaiters
            }
            notify { $0.onLogout() }
            for waiter in waiters { waiter.resume() }
        case .call(let id, let callEvent):
            handle(callEvent, id: id)
        }
    }

    private func handle(_ event: CallEvent, id: String) {
        if case .incoming(let from, let headers) = event {
            let incoming = Incoming(endpoint: self, id: id, from: from, headers: headers)
            register(incoming, id: id)
            incomingContinuation.yield(incoming)
            notify { $0.onIncomingCall(incoming) }
            return
        }
        guard let call = state.withLock({ $0.calls[id] }) else { return }
        let ends: Bool
        switch event {
        case .answered:
            state.withLock { $0.lastCallID = id }
            ends = false
        case .rejected, .invalid, .hungUp:
            ends = true
        default:
            ends = false
        }
        let resume = call.update(event)
        if ends {
            state.withLock { s in
                s.calls[id] = nil
                if s.currentCallID == id { s.currentCallID = nil }
            }
        }
        notify { delegate in call.notify(delegate, of: event) }
        resume()
    }

    private func resumeLoginWaiters(_ error: EndpointError?) {
        let waiters = state.withLock { s in
            defer { s.loginWaiters = [] }
            return s.loginWaiters
        }
        for waiter in waiters { waiter.resume(returning: error) }
    }

    func notify(_ body: @escaping @Sendable (any EndpointDelegate) -> Void) {
        guard let delegate = state.withLock({ $0.delegate }) else { return }
        delegateQueue.async { body(delegate) }
    }
}

/// Hands the user agent's events to the endpoint once it exists (the agent is made first).
private final class EventRelay: Sendable {
    let target = Mutex<(@Sendable (UserAgentEvent) -> Void)?>(nil)

    func send(_ event: UserAgentEvent) {
        target.withLock { $0 }?(event)
    }
}
