import Foundation
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyStore
import SIP
import SIPWire
import Synchronization

/// The registrar of `parley-server --sip` (RFC 3261 §10.3): REGISTER with digest authentication
/// (`DigestVerifier`), bindings decided by `Registrar` and served from memory
/// (`WriteBehindSIPRegistrations`), written to the store in batches a few milliseconds behind and
/// when the transport stops (they survive a restart), OPTIONS answered. A WebSocket flow's
/// bindings go when its socket closes (RFC 5626 §5.3). Wrong passwords and unknown users get the same 403 after the same
/// work; a source with 5 failures in 60 s is refused for 5 minutes (`AuthFailureLimiter`).
public final class SIPRegistrarService: Sendable {
    public struct Configuration: Sendable {
        /// The realm of challenges: the one REST-created credentials are hashed for (`SIPDigestSecret.defaultRealm`).
        public var realm: String
        public var algorithms: [DigestAlgorithm] = [.md5]
        public var policy = Registrar.Policy()
        /// How long after a change the batch is written (the changes of that time share one transaction).
        public var flushDelay: Duration = .milliseconds(10)
        public init(realm: String) { self.realm = realm }
    }

    public struct Statistics: Sendable, Hashable {
        public var registered = 0
        public var challenged = 0
        public var rejected = 0
        public var refusedSources = 0
    }

    public let configuration: Configuration
    private let store: WriteBehindSIPRegistrations
    /// Set while a flush is scheduled on the loop.
    private let flushScheduled = Atomic<Bool>(false)
    /// The addresses of record bound through each open WebSocket flow (by source), at most `maxPerFlow` each.
    private let flows = Mutex<[String: Set<AddressOfRecord>]>([:])
    private static let maxPerFlow = 1000
    let authenticator: SIPAuthenticator
    private let counters = Mutex(Statistics())
    private let clock: @Sendable () -> Double
    /// The transport it serves on and its transactions (`attach`).
    private let attachment: Mutex<(transport: SIPTransport, transactions: SIPServerTransactions)?> = Mutex(nil)

    public init(configuration: Configuration, directory: any SIPCredentialDirectory, store: any SIPRegistrationStore,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.configuration = configuration
        self.store = store as? WriteBehindSIPRegistrations ?? WriteBehindSIPRegistrations(backing: store)
        self.clock = clock
        authenticator = SIPAuthenticator(realm: configuration.realm, algorithms: configuration.algorithms, directory: directory)
    }

    public var statistics: Statistics { counters.withLock { $0 } }

    /// Serves on `transport` (call before `transport.start()`'s first message can arrive; the
    /// transport's handler must call `handle`).
    public func attach(_ transport: SIPTransport) {
        attachment.withLock { $0 = (transport, SIPServerTransactions(transport: transport)) }
        // Weak: the transport must not keep its registrar alive (nor the registrar its transport).
        transport.onStop { [weak self] in self?.flush() }
        transport.onWebSocketClosed { [weak self] peer in self?.flowClosed(peer) }
    }

    /// Writes the bindings changed since the last batch to the store now (the transport's `stop()` does).
    public func flush() {
        do {
            try store.flush()
        } catch {
            Log.warning(.core, "SIP: writing \(store.pendingCount) registrations to the store failed: \(error)")
        }
    }

    /// One batch a few milliseconds after the first change since the last.
    private func scheduleFlush() {
        guard let transport = attachment.withLock({ $0?.transport }) else { return flush() }
        guard !flushScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        transport.loop.schedule(after: configuration.flushDelay) { [self] in
            flushScheduled.store(false, ordering: .releasing)
            flush()
        }
    }

    /// A WebSocket closed: the bindings it carried cannot be reached any more.
    private func flowClosed(_ peer: SIPPeer) {
        let source = peer.description
        guard let addresses = flows.withLock({ $0.removeValue(forKey: source) }) else { return }
        for address in addresses {
            guard let records = try? store.sipBindings(accountSid: address.accountSid, aor: address.aor) else { continue }
            let kept = records.filter { $0.source != source }
            guard kept.count != records.count else { continue }
            try? store.replaceSIPBindings(accountSid: address.accountSid, aor: address.aor, with: kept)
        }
        scheduleFlush()
    }

    /// Notes that `peer`'s flow carries a binding of `address` (WebSocket flows only).
    private func noteFlow(_ peer: SIPPeer, _ address: AddressOfRecord) {
        guard peer.transport == .ws || peer.transport == .wss else { return }
        flows.withLock { flows in
            if flows[peer.description, default: []].count < Self.maxPerFlow { flows[peer.description, default: []].insert(address) }
        }
    }

    /// A message from the transport.
    public func handle(_ message: SIPMessage, from peer: SIPPeer) {
        guard let request = message.request, request.method != .ack,
              let (transport, transactions) = attachment.withLock({ $0 }) else { return }
        // A refused address is answered statelessly: it holds no transaction while it floods.
        if authenticator.isBlocked(peer, now: clock()) {
            counters.withLock { $0.refusedSources += 1 }
            transport.send(.response(SIPResponse(replyingTo: request, statusCode: 403, toTag: Self.tag())), to: peer)
            return
        }
        switch transactions.admit(request, from: peer) {
        case .retransmission: return
        case .overloaded:
            transport.send(.response(SIPResponse(replyingTo: request, statusCode: 503, headers: ["Retry-After": "5"])), to: peer)
            return
        case .new: break
        }
        let reply = respond(to: request, from: peer)
        let status = reply.statusCode
        transactions.respond(statusCode: status, bytes: reply.finish(), to: request, peer: peer)
        if request.method == .register, status == 200 { transport.authenticated(peer) }
    }

    /// The answer, written straight to bytes (no `SIPResponse` in between).
    private func respond(to request: SIPRequest, from peer: SIPPeer) -> SIPReplyWriter {
        let toTag = Self.tag()
        switch request.method {
        case .register: return register(request, from: peer, toTag: toTag)
        case .options:
            var reply = SIPReplyWriter(replyingTo: request, statusCode: 200, toTag: toTag)
            reply.add("Allow", "REGISTER, OPTIONS")
            reply.add("Accept", "application/sdp")
            reply.add("Supported", "path, outbound")
            return reply
        default:
            var reply = SIPReplyWriter(replyingTo: request, statusCode: 405, toTag: toTag)
            reply.add("Allow", "REGISTER, OPTIONS")
            return reply
        }
    }

    private func register(_ request: SIPRequest, from peer: SIPPeer, toTag: String) -> SIPReplyWriter {
        let now = clock()
        guard let to = request.to, case .sip(let aorURI) = to.uri, let user = aorURI.user, !user.isEmpty else {
            return SIPReplyWriter(replyingTo: request, statusCode: 400, reasonPhrase: "Bad Request (To is not a SIP address of record)", toTag: toTag)
        }
        let domain = aorURI.host.description.lowercased()
        let credential: SIPCredential
        switch authenticator.authenticate(request, user: user, domain: domain, role: .registrar, peer: peer, now: now) {
        case .challenge(let stale):
            counters.withLock { $0.challenged += 1 }
            return authenticator.challengeReply(request, role: .registrar, toTag: toTag, stale: stale, now: now)
        case .refused:
            counters.withLock { $0.rejected += 1 }
            return SIPReplyWriter(replyingTo: request, statusCode: 403, toTag: toTag)
        case .authenticated(let found):
            credential = found
        }
        return bind(request, aor: Self.addressOfRecord(user: user, domain: domain), accountSid: credential.accountSid, peer: peer, toTag: toTag, now: now)
    }

    private func bind(_ request: SIPRequest, aor: String, accountSid: String, peer: SIPPeer, toTag: String, now: Double) -> SIPReplyWriter {
        func reply(_ status: Int, _ reason: String? = nil) -> SIPReplyWriter {
            SIPReplyWriter(replyingTo: request, statusCode: status, reasonPhrase: reason, toTag: toTag)
        }
        let contacts: Registrar.Request.Contacts
        let parsed = request.contacts
        if parsed.isEmpty {
            contacts = .query
        } else if parsed.contains(where: { if case .wildcard = $0 { true } else { false } }) {
            guard parsed.count == 1 else { return reply(400) }
            contacts = .wildcard
        } else {
            contacts = .list(parsed.compactMap(\.address).map { address in
                RequestedContact(uri: address.uri.description, expires: address.expires.map { Int($0) }, q: address.q,
                                 instance: address.instanceID, regID: address.regID.map { Int($0) })
            })
        }
        let decision = Registrar.Request(contacts: contacts, expires: request.expires.map { Int($0) }, callID: request.callID ?? "",
                                         cseq: request.cseq?.number ?? 0, source: peer.description)
        let existing: [ContactBinding]
        do {
            existing = try store.sipBindings(accountSid: accountSid, aor: aor).map(Self.binding)
        } catch {
            return reply(500)
        }
        switch Registrar.decide(decision, existing: existing, policy: configuration.policy, now: now) {
        case .ok(let bindings):
            do {
                if case .query = contacts {} else {
                    try store.replaceSIPBindings(accountSid: accountSid, aor: aor, with: bindings.map(Self.record))
                    scheduleFlush()
                    if !bindings.isEmpty { noteFlow(peer, AddressOfRecord(accountSid: accountSid, aor: aor)) }
                }
            } catch {
                return reply(500)
            }
            counters.withLock { $0.registered += 1 }
            var ok = reply(200)
            for binding in bindings {
                ok.add("Contact", "<\(binding.contact)>;expires=\(max(0, Int((binding.expiresAt - now).rounded())))")
            }
            ok.add("Date", SIPDate(secondsSince1970: Int64(now)).headerValue)
            return ok
        case .intervalTooBrief(let minExpires):
            var brief = reply(423)
            brief.add("Min-Expires", String(minExpires))
            return brief
        case .badRequest(let reason):
            return reply(400, "Bad Request (\(reason))")
        case .outOfOrder:
            return reply(500, "Server Internal Error (out of order)")
        case .tooManyContacts(let max):
            return reply(403, "Forbidden (at most \(max) contacts)")
        }
    }

    /// The live bindings of `user` at `domain` (for routing calls to it).
    public func bindings(accountSid: String, user: String, domain: String) -> [ContactBinding] {
        let now = clock()
        return ((try? store.sipBindings(accountSid: accountSid, aor: Self.addressOfRecord(user: user, domain: domain))) ?? [])
            .map(Self.binding).filter { $0.expiresAt > now }
    }

    /// Removes expired bindings from the store (the server calls it periodically).
    public func expire() -> Int { (try? store.deleteExpiredSIPBindings(now: Int64(clock() * 1000))) ?? 0 }

    static func binding(_ record: SIPBindingRecord) -> ContactBinding {
        ContactBinding(contact: record.contact, expiresAt: Double(record.expiresAt) / 1000, q: record.qMillis.map { Double($0) / 1000 },
                       callID: record.callID, cseq: UInt32(clamping: record.cseq), instance: record.instance, regID: record.regID,
                       source: record.source)
    }

    static func record(_ binding: ContactBinding) -> SIPBindingRecord {
        SIPBindingRecord(contact: binding.contact, expiresAt: Int64(binding.expiresAt * 1000), qMillis: binding.q.map { Int($0 * 1000) },
                         callID: binding.callID, cseq: Int64(binding.cseq), instance: binding.instance, regID: binding.regID,
                         source: binding.source)
    }

    /// An account's address of record.
    struct AddressOfRecord: Hashable {
        var accountSid: String
        var aor: String
    }

    /// `sip:user@domain` (the domain lowercased): how bindings are keyed.
    static func addressOfRecord(user: String, domain: String) -> String { "sip:\(user)@\(domain.lowercased())" }

    static func tag() -> String { String(UInt64.random(in: 1...UInt64.max), radix: 36) }
}
