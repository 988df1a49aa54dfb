import ParleyCore
import SIP
import SIPWire

/// A user agent's registration (RFC 3261 §10.2) as a value: `login`, `logout`, the registrar's
/// responses and fired timers go in, ``RegistrationAction``s come out (send a REGISTER, start a
/// timer, report). No clock is read: each input carries `now`, so tests drive it on a virtual
/// clock. The REGISTER runs in a ``NonInviteClientTransaction`` (§17.1.2: Timer E resends it over
/// UDP, Timer F gives up); a 401/407 is answered once with ``DigestAnswer`` (§22.2, RFC 8760:
/// SHA-256 preferred, MD5); a 423 is retried with its `Min-Expires` (§10.2.8); the binding is
/// refreshed at half the expiry the registrar granted (§10.2.4 asks before it ends).
public struct Registration: Sendable {
    public enum State: Sendable, Hashable {
        case idle
        /// A REGISTER for login or refresh is on its way.
        case registering
        /// Bound until `expiresAt`; a refresh is due at `refreshAt`.
        case registered(expiresAt: MonotonicInstant, refreshAt: MonotonicInstant)
        /// The `Expires: 0` REGISTER is on its way (§10.2.2).
        case unregistering
        case loggedOut
        case failed(EndpointError)
    }

    public let configuration: RegistrationConfiguration
    public private(set) var state = State.idle
    /// Whether the registrar accepted us at least once since `login` (refresh failures report
    /// ``RegistrationAction/loginFailed(_:)`` too, since calls can no longer arrive).
    public private(set) var hasLoggedIn = false
    /// The expiry the registrar granted last.
    public private(set) var grantedExpires: UInt32?

    private var transaction: NonInviteClientTransaction?
    private var request: SIPRequest?
    private var sequence: UInt32 = 0
    private let callID: String
    private let fromTag: String
    private var expires: UInt32
    /// The last challenge, answered again on the next REGISTER before it is asked (RFC 7616 §3.6).
    private var challenge: (statusCode: Int, SIPDigestChallenge)?
    /// The current REGISTER answers a challenge received for this attempt: a second one fails it.
    private var answeredFresh = false
    /// Bumped for each new transaction and refresh, so a stale timer is ignored.
    private var generation = 0

    public init(configuration: RegistrationConfiguration, callID: String = SIPIdentifiers.callID(), fromTag: String = SIPIdentifiers.tag()) {
        self.configuration = configuration
        self.callID = callID
        self.fromTag = fromTag
        expires = configuration.expires
    }

    /// Sends the first REGISTER (§10.2). From any state but an ongoing one it starts over.
    public mutating func login(now: MonotonicInstant) -> [RegistrationAction] {
        switch state {
        case .registering, .registered, .unregistering: return []
        case .idle, .loggedOut, .failed: break
        }
        hasLoggedIn = false
        expires = configuration.expires
        state = .registering
        return send(expires: expires, now: now)
    }

    /// Removes the binding (`Expires: 0`, §10.2.2); reports `loggedOut` at once when nothing is bound.
    public mutating func logout(now: MonotonicInstant) -> [RegistrationAction] {
        switch state {
        case .registered, .registering:
            state = .unregistering
            answeredFresh = false
            return send(expires: 0, now: now)
        case .unregistering:
            return []
        case .idle, .loggedOut, .failed:
            state = .loggedOut
            return [.loggedOut]
        }
    }

    /// A response: matched to the REGISTER in flight by Call-ID, CSeq and branch (§17.1.3).
    public mutating func received(_ response: SIPResponse, now: MonotonicInstant) -> [RegistrationAction] {
        guard let request, response.callID == callID, response.cseq?.number == sequence, response.cseq?.method == .register,
              response.via?.branch == request.via?.branch, var transaction else { return [] }
        let steps = transaction.received(status: response.statusCode)
        self.transaction = transaction
        var actions = timers(steps, now: now)
        guard steps.contains(.deliverResponse), response.statusCode >= 200 else { return actions }
        actions += final(response, now: now)
        return actions
    }

    /// A timer the owner scheduled fired.
    public mutating func fired(_ timer: RegistrationTimer, now: MonotonicInstant) -> [RegistrationAction] {
        guard timer.generation == generation else { return [] }
        switch timer.kind {
        case .refresh:
            guard case .registered = state else { return [] }
            state = .registering
            answeredFresh = false
            return send(expires: expires, now: now)
        case .transaction(let which):
            guard var transaction else { return [] }
            let steps = transaction.fired(which)
            self.transaction = transaction
            var actions = timers(steps, now: now)
            if steps.contains(.timedOut) {
                actions += fail(EndpointError(code: 408, reason: "no response from the registrar (RFC 3261 Timer F)"))
            }
            return actions
        }
    }

    /// The transport could not send the REGISTER (§17.1.4) or its connection closed.
    public mutating func transportFailed(reason: String) -> [RegistrationAction] {
        switch state {
        case .registering, .unregistering, .registered:
            transaction = nil
            return fail(EndpointError(code: 503, reason: "transport failed: \(reason)"))
        default:
            return []
        }
    }

    // MARK: - Steps

    private mutating func final(_ response: SIPResponse, now: MonotonicInstant) -> [RegistrationAction] {
        let status = response.statusCode
        if response.isSuccess { return succeeded(response, now: now) }
        if DigestAnswer.headers(for: status) != nil {
            let fresh = DigestAnswer.challenge(in: response)
            guard let fresh, !answeredFresh || fresh.stale else {
                return fail(EndpointError(code: status == 401 || status == 407 ? 403 : status,
                                          reason: fresh == nil ? "no usable digest challenge (\(status))"
                                              : "\(status) \(response.reasonPhrase): credentials refused"))
            }
            challenge = (status, fresh)
            answeredFresh = true
            return send(expires: state == .unregistering ? 0 : expires, now: now)
        }
        if status == 423, state == .registering, let minimum = response.minExpires, minimum > expires,
           minimum <= RegistrationConfiguration.maximumExpires {
            expires = minimum
            return send(expires: expires, now: now)
        }
        if status == 403, answeredFresh || challenge != nil {
            return fail(EndpointError(code: 403, reason: "403 \(response.reasonPhrase): wrong username or password"))
        }
        return fail(EndpointError(code: status, reason: "\(status) \(response.reasonPhrase)"))
    }

    private mutating func succeeded(_ response: SIPResponse, now: MonotonicInstant) -> [RegistrationAction] {
        if state == .unregistering {
            state = .loggedOut
            transaction = nil
            return [.loggedOut]
        }
        // §10.2.4: the expiry is our contact's `expires` in the 200, else its Expires header.
        let ours = response.contacts.compactMap(\.address).first { Self.sameContact($0.uri, configuration.contact.uri) }
        let granted = ours?.parameters.value("expires").flatMap { UInt32($0) } ?? response.expires ?? expires
        guard granted > 0 else {
            return fail(EndpointError(code: response.statusCode, reason: "the registrar kept no binding (expires 0)"))
        }
        grantedExpires = granted
        let refresh = now.advanced(by: .seconds(Double(granted) / 2))
        state = .registered(expiresAt: now.advanced(by: .seconds(Int(granted))), refreshAt: refresh)
        generation += 1
        var actions: [RegistrationAction] = [.startTimer(RegistrationTimer(kind: .refresh, generation: generation), at: refresh)]
        if !hasLoggedIn {
            hasLoggedIn = true
            actions.append(.loggedIn(expires: granted))
        }
        return actions
    }

    /// Contacts compare by user, host and port: registrars may reorder or add URI parameters.
    static func sameContact(_ a: SIPAnyURI, _ b: SIPAnyURI) -> Bool {
        guard case .sip(let x) = a, case .sip(let y) = b else { return a == b }
        return x.user == y.user && x.host.description.lowercased() == y.host.description.lowercased() && (x.port ?? 5060) == (y.port ?? 5060)
    }

    private mutating func fail(_ error: EndpointError) -> [RegistrationAction] {
        let wasUnregistering = state == .unregistering
        transaction = nil
        generation += 1
        if wasUnregistering {
            state = .loggedOut
            return [.loggedOut]
        }
        state = .failed(error)
        return [.loginFailed(error)]
    }

    /// A new REGISTER transaction (§10.2: same Call-ID, CSeq one higher, a new branch).
    private mutating func send(expires: UInt32, now: MonotonicInstant) -> [RegistrationAction] {
        sequence &+= 1
        generation += 1
        let config = configuration
        var headers = SIPHeaders()
        headers.add("Via", config.sentBy.via(branch: SIPIdentifiers.branch()))
        headers.add("Max-Forwards", "70")
        var to = SIPNameAddress(uri: config.addressOfRecord)
        headers.add("To", to)
        to.tag = fromTag
        headers.add("From", to)
        headers.add("Call-ID", callID)
        headers.add("CSeq", SIPCSeq(sequence, .register))
        headers.add("Contact", config.contact)
        headers.add("Expires", String(expires))
        headers.add("Allow", RegistrationConfiguration.allow)
        headers.add("User-Agent", config.userAgent)
        let requestURI = SIPAnyURI.sip(config.registrar)
        if let (status, challenge) = challenge, let names = DigestAnswer.headers(for: status),
           let answer = DigestAnswer.credentials(for: challenge, username: config.username, password: config.password,
                                                 method: "REGISTER", uri: requestURI.description) {
            headers.add(names.answer, answer.headerValue)
        }
        let request = SIPRequest(method: .register, uri: requestURI, headers: headers)
        self.request = request
        let transaction = NonInviteClientTransaction(reliable: config.reliable, timers: config.timers)
        self.transaction = transaction
        return timers(transaction.start(), now: now)
    }

    /// The transaction's actions as ours: transmit → send the REGISTER; timers at `now` + seconds.
    private func timers(_ steps: [TransactionAction], now: MonotonicInstant) -> [RegistrationAction] {
        steps.compactMap { step in
            switch step {
            case .transmitRequest: request.map(RegistrationAction.send)
            case .startTimer(let timer, let seconds):
                .startTimer(RegistrationTimer(kind: .transaction(timer), generation: generation), at: now.advanced(by: .seconds(seconds)))
            default: nil
            }
        }
    }
}

/// What ``Registration`` asks of its owner.
public enum RegistrationAction: Sendable, Equatable {
    /// Send (or resend) this REGISTER to the registrar.
    case send(SIPRequest)
    /// Call ``Registration/fired(_:now:)`` with `timer` at `at` (stale timers are ignored, so
    /// none needs cancelling).
    case startTimer(RegistrationTimer, at: MonotonicInstant)
    /// The first 200 since `login` (the seed's `onLogin`), with the expiry granted.
    case loggedIn(expires: UInt32)
    /// Login or a refresh failed (the seed's `onLoginFailedWithError`).
    case loginFailed(EndpointError)
    /// The binding is removed, or none was (the seed's `onLogout`).
    case loggedOut
}

/// A timer of ``Registration``: the REGISTER transaction's (E, F, K) or the refresh.
public struct RegistrationTimer: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case transaction(TransactionTimer)
        case refresh
    }

    public var kind: Kind
    public var generation: Int
}
