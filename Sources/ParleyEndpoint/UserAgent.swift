import ParleyCore
import ParleyCrypto
import ParleyNet
import SIP
import SIPWire
import Synchronization

/// What the user agent reports to its ``Endpoint`` (on the loop thread).
enum UserAgentEvent: Sendable {
    case loggedIn(expires: UInt32)
    case loginFailed(EndpointError)
    case loggedOut
    case call(id: String, CallEvent)
}

/// The SIP user agent behind an ``Endpoint``: one ``SIPTransport`` (UDP, and TCP/TLS toward the
/// registrar), the ``Registration``, the calls by Call-ID and the non-INVITE client transactions
/// by branch. Confined to its event loop: every method runs on the loop thread (the endpoint hops
/// there with `execute`, timers through ``schedule(at:_:)``).
final class UserAgent {
    let loop: EventLoop
    let clock: any MonotonicClock
    let settings: UserAgentSettings
    let report: @Sendable (UserAgentEvent) -> Void
    private(set) var transport: SIPTransport?
    /// Where our requests go: the registrar over UDP, or the connection we opened to it.
    private(set) var peer: SIPPeer?
    var registration: Registration?
    var credentials: (username: String, password: String)?
    var calls: [String: CallLeg] = [:]
    /// Ended calls whose INVITE server transaction still waits for the ACK of its final error.
    var finishing: [String: CallLeg] = [:]
    /// Non-INVITE client transactions (BYE, CANCEL, INFO) by branch, each with what to do with its final response.
    private var requests: [String: PendingRequest] = [:]
    /// Calls at most at once (each holds a socket and an audio engine).
    static let maximumCalls = 8
    static let maximumPendingRequests = 64

    private struct PendingRequest {
        var request: SIPRequest
        var transaction: NonInviteClientTransaction
        var completion: (SIPResponse?) -> Void
    }

    init(loop: EventLoop, clock: any MonotonicClock, settings: UserAgentSettings, report: @escaping @Sendable (UserAgentEvent) -> Void) {
        self.loop = loop
        self.clock = clock
        self.settings = settings
        self.report = report
        gate = UserAgentGate(loop: loop)
        gate.agent = LoopBound(self, loop: loop)
    }

    var bound: LoopBound<UserAgent> { LoopBound(self, loop: loop) }
    /// The way in from other threads (timers, the audio thread, transport callbacks): closed when
    /// the endpoint goes away, so nothing reaches a stopped loop.
    let gate: UserAgentGate
    /// Timers not fired yet, cancelled by ``stop()``.
    private var timers: [Int: ScheduledTimer] = [:]
    private var nextTimer = 0

    // MARK: - Transport

    /// Binds our SIP port (UDP, with a TCP listener on the same port) and, for TCP or TLS, opens
    /// the connection to the registrar (RFC 3261 §18.1.1).
    func start() throws(EndpointError) {
        guard transport == nil else { return }
        var configuration = SIPTransport.Configuration(host: settings.localAddress, port: 0)
        var client = TLSConfiguration()
        client.trustRootsPath = settings.tlsTrustRootsPath
        configuration.tlsClient = client
        let bound = self.bound, gate = self.gate
        let transport = SIPTransport(configuration: configuration, loop: loop) { message, from in
            bound.value.receive(message, from: from)
        }
        do { try transport.start() } catch {
            throw EndpointError(code: 503, reason: "cannot bind SIP on \(settings.localAddress): \(error)")
        }
        transport.onOutboundClosed { closed in gate.execute { $0.connectionClosed(closed) } }
        self.transport = transport
        switch settings.transport {
        case .udp:
            peer = SIPPeer(transport: .udp, address: settings.registrarAddress)
        case .tcp, .tls:
            do {
                peer = try transport.connect(settings.transport == .tls ? .tls : .tcp, to: settings.registrarAddress,
                                             serverName: settings.registrarHost)
            } catch {
                throw EndpointError(code: 503, reason: "cannot connect to \(settings.registrarAddress): \(error)")
            }
        }
    }

    /// Our SIP port (UDP, and TCP on the same number).
    var localPort: Int { transport?.udpPort ?? 0 }

    var sentBy: SIPSentBy {
        SIPSentBy(transport: settings.transport.rawValue.uppercased(), host: settings.localHost, port: UInt16(clamping: localPort))
    }

    /// `sip:user@ADDRESS:PORT;transport=…` (RFC 3261 §10.2.1, §19.1.1).
    func contact(user: String) -> SIPNameAddress {
        var uri = SIPURI(user: user, host: settings.localHost, port: UInt16(clamping: localPort))
        if settings.transport != .udp { uri.parameters = [SIPParameter("transport", settings.transport.rawValue)] }
        return SIPNameAddress(uri: uri)
    }

    func send(_ message: SIPMessage) {
        guard let transport, let peer else { return }
        if settings.debug { Log.info(.core, "endpoint SIP → \(peer):\n\(String(decoding: message.serialized(), as: UTF8.self))") }
        transport.send(message, to: peer)
    }

    func stop() {
        for timer in timers.values { timer.cancel() }
        timers = [:]
        for leg in calls.values { leg.terminate() }
        calls = [:]
        finishing = [:]
        requests = [:]
        transport?.stop()
        transport = nil
    }

    private func connectionClosed(_ closed: SIPPeer) {
        guard closed == peer else { return }
        withRegistration { $0.transportFailed(reason: "the connection to the registrar closed") }
        for leg in calls.values { leg.transportFailed() }
    }

    /// Runs `action` on the loop at `deadline` of our clock.
    func schedule(at deadline: MonotonicInstant, _ action: @escaping @Sendable (UserAgent) -> Void) {
        let gate = self.gate, id = nextTimer
        nextTimer += 1
        timers[id] = clock.schedule(at: deadline) {
            gate.execute { ua in
                ua.timers[id] = nil
                action(ua)
            }
        }
    }

    func schedule(after seconds: Double, _ action: @escaping @Sendable (UserAgent) -> Void) {
        schedule(at: clock.now.advanced(by: .seconds(seconds)), action)
    }

    // MARK: - Registration

    func login(username: String, password: String, expires: UInt32) {
        credentials = (username, password)
        let config = RegistrationConfiguration(
            registrar: settings.registrarURI, addressOfRecord: addressOfRecord(username), username: username, password: password,
            expires: expires, contact: contact(user: username), sentBy: sentBy, reliable: settings.transport != .udp,
            timers: settings.timers)
        if case .registered = registration?.state {
            // A new login replaces the old one: the old binding is dropped first.
            withRegistration { $0.logout(now: clock.now) }
        }
        registration = Registration(configuration: config)
        withRegistration { $0.login(now: clock.now) }
    }

    func logout() {
        guard registration != nil else {
            report(.loggedOut)
            return
        }
        withRegistration { $0.logout(now: clock.now) }
    }

    func addressOfRecord(_ username: String) -> SIPURI {
        SIPURI(user: username, host: settings.registrarURI.host)
    }

    private func withRegistration(_ body: (inout Registration) -> [RegistrationAction]) {
        guard var machine = registration else { return }
        let actions = body(&machine)
        registration = machine
        for action in actions {
            switch action {
            case .send(let request): send(.request(request))
            case .startTimer(let timer, let at):
                schedule(at: at) { ua in ua.withRegistration { $0.fired(timer, now: ua.clock.now) } }
            case .loggedIn(let expires): report(.loggedIn(expires: expires))
            case .loginFailed(let error): report(.loginFailed(error))
            case .loggedOut: report(.loggedOut)
            }
        }
    }

    // MARK: - Non-INVITE client transactions

    /// Sends `request` in a non-INVITE client transaction (§17.1.2); `completion` gets its final
    /// response, or nil on timeout or transport failure.
    func sendRequest(_ request: SIPRequest, completion: @escaping (SIPResponse?) -> Void = { _ in }) {
        guard let branch = request.via?.branch, requests.count < Self.maximumPendingRequests else {
            completion(nil)
            return
        }
        let transaction = NonInviteClientTransaction(reliable: settings.transport != .udp, timers: settings.timers)
        requests[branch] = PendingRequest(request: request, transaction: transaction, completion: completion)
        runRequest(branch, transaction.start(), response: nil)
    }

    private func runRequest(_ branch: String, _ steps: [TransactionAction], response: SIPResponse?) {
        guard let pending = requests[branch] else { return }
        for step in steps {
            switch step {
            case .transmitRequest: send(.request(pending.request))
            case .startTimer(let timer, let seconds):
                schedule(after: seconds) { ua in
                    guard var pending = ua.requests[branch] else { return }
                    let steps = pending.transaction.fired(timer)
                    ua.requests[branch] = pending
                    ua.runRequest(branch, steps, response: nil)
                }
            case .deliverResponse:
                if let response, response.statusCode >= 200 { pending.completion(response) }
            case .timedOut, .transportFailed:
                pending.completion(nil)
            case .terminated:
                requests[branch] = nil
            default:
                break
            }
        }
    }

    // MARK: - Incoming messages

    func receive(_ message: SIPMessage, from: SIPPeer) {
        if settings.debug { Log.info(.core, "endpoint SIP ← \(from):\n\(String(decoding: message.serialized(), as: UTF8.self))") }
        switch message {
        case .response(let response): receive(response)
        case .request(let request): receive(request, from: from)
        }
    }

    private func receive(_ response: SIPResponse) {
        guard let method = response.cseq?.method else { return }
        if method == .register {
            withRegistration { $0.received(response, now: clock.now) }
            return
        }
        if let branch = response.via?.branch, var pending = requests[branch], pending.request.method == method {
            let steps = pending.transaction.received(status: response.statusCode)
            requests[branch] = pending
            runRequest(branch, steps, response: response)
            return
        }
        if method == .invite, let callID = response.callID { calls[callID]?.received(response) }
    }

    private func receive(_ request: SIPRequest, from: SIPPeer) {
        let callID = request.callID ?? ""
        if let leg = calls[callID] {
            leg.received(request)
            return
        }
        switch request.method {
        case .ack:
            finishing[callID]?.received(request)
        case .options:
            var headers = SIPHeaders()
            headers.add("Allow", RegistrationConfiguration.allow)
            headers.add("Accept", "application/sdp")
            send(.response(SIPResponse(replyingTo: request, statusCode: 200, headers: headers)))
        case .invite where request.to?.tag == nil:
            guard calls.count < Self.maximumCalls else {
                send(.response(SIPResponse(replyingTo: request, statusCode: 486, toTag: SIPIdentifiers.tag())))
                return
            }
            let leg = CallLeg(incoming: request, ua: self)
            calls[callID] = leg
            leg.ring()
        default:
            // §12.2.2: an in-dialog request for no dialog of ours.
            send(.response(SIPResponse(replyingTo: request, statusCode: 481)))
        }
    }

    func keepFinishing(_ leg: CallLeg) {
        guard finishing.count < Self.maximumPendingRequests else { return }
        finishing[leg.callID] = leg
    }

    func forget(_ leg: CallLeg) {
        if calls[leg.callID] === leg { calls[leg.callID] = nil }
    }
}

/// Hands work to the user agent's loop until ``close(then:)``; after that nothing is queued, so
/// a timer or an audio thread that outlives the endpoint never touches its stopped loop.
final class UserAgentGate: Sendable {
    let loop: EventLoop
    private let state = Mutex<(open: Bool, agent: LoopBound<UserAgent>?)>((true, nil))

    init(loop: EventLoop) { self.loop = loop }

    var agent: LoopBound<UserAgent>? {
        get { state.withLock { $0.agent } }
        set { state.withLock { $0.agent = newValue } }
    }

    func execute(_ body: @escaping @Sendable (UserAgent) -> Void) {
        state.withLock { s in
            guard s.open, let agent = s.agent else { return }
            loop.execute { body(agent.value) }
        }
    }

    /// Closes the gate, then runs `last` on the loop (the endpoint's stop).
    func close(then last: @escaping @Sendable (UserAgent) -> Void) {
        let agent = state.withLock { s -> LoopBound<UserAgent>? in
            defer { s = (false, nil) }
            return s.open ? s.agent : nil
        }
        guard let agent else { return }
        loop.execute { last(agent.value) }
    }
}
