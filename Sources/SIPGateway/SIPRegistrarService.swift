import Foundation
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyStore
import SIP
import SIPWire
import Synchronization

/// The registrar of `parley-server --sip` (RFC 3261 §10.3): REGISTER with digest authentication
/// (`DigestVerifier`), bindings decided by `Registrar` and kept in the store (they survive a
/// restart), OPTIONS answered. Wrong passwords and unknown users get the same 403 after the same
/// work; a source with 5 failures in 60 s is refused for 5 minutes (`AuthFailureLimiter`).
public final class SIPRegistrarService: Sendable {
    public struct Configuration: Sendable {
        /// The realm of challenges: the one REST-created credentials are hashed for (`SIPDigestSecret.defaultRealm`).
        public var realm: String
        public var algorithms: [DigestAlgorithm] = [.md5]
        public var policy = Registrar.Policy()
        public init(realm: String) { self.realm = realm }
    }

    public struct Statistics: Sendable, Hashable {
        public var registered = 0
        public var challenged = 0
        public var rejected = 0
        public var refusedSources = 0
    }

    public let configuration: Configuration
    private let store: any SIPRegistrationStore
    let authenticator: SIPAuthenticator
    private let counters = Mutex(Statistics())
    private let clock: @Sendable () -> Double
    /// The transport it serves on and its transactions (`attach`).
    private let attachment: Mutex<(transport: SIPTransport, transactions: SIPServerTransactions)?> = Mutex(nil)

    public init(configuration: Configuration, directory: any SIPCredentialDirectory, store: any SIPRegistrationStore,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.configuration = configuration
        self.store = store
        self.clock = clock
        authenticator = SIPAuthenticator(realm: configuration.realm, algorithms: configuration.algorithms, directory: directory)
    }

    public var statistics: Statistics { counters.withLock { $0 } }

    /// Serves on `transport` (call before `transport.start()`'s first message can arrive; the
    /// transport's handler must call `handle`).
    public func attach(_ transport: SIPTransport) {
        attachment.withLock { $0 = (transport, SIPServerTransactions(transport: transport)) }
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
        let response = respond(to: request, from: peer)
        transactions.respond(response, to: request, peer: peer)
        if request.method == .register, response.statusCode == 200 { transport.authenticated(peer) }
    }

    private func respond(to request: SIPRequest, from peer: SIPPeer) -> SIPResponse {
        let toTag = Self.tag()
        switch request.method {
        case .register: return register(request, from: peer, toTag: toTag)
        case .options:
            return SIPResponse(replyingTo: request, statusCode: 200, toTag: toTag,
                               headers: ["Allow": "REGISTER, OPTIONS", "Accept": "application/sdp", "Supported": "path, outbound"])
        default:
            return SIPResponse(replyingTo: request, statusCode: 405, toTag: toTag, headers: ["Allow": "REGISTER, OPTIONS"])
        }
    }

    private func register(_ request: SIPRequest, from peer: SIPPeer, toTag: String) -> SIPResponse {
        let now = clock()
        guard let to = request.to, case .sip(let aorURI) = to.uri, let user = aorURI.user, !user.isEmpty else {
            return SIPResponse(replyingTo: request, statusCode: 400, reasonPhrase: "Bad Request (To is not a SIP address of record)", toTag: toTag)
        }
        let domain = aorURI.host.description.lowercased()
        let credential: SIPCredential
        switch authenticator.authenticate(request, user: user, domain: domain, role: .registrar, peer: peer, now: now) {
        case .challenge(let stale):
            counters.withLock { $0.challenged += 1 }
            return authenticator.challenge(request, role: .registrar, toTag: toTag, stale: stale, now: now)
        case .refused:
            counters.withLock { $0.rejected += 1 }
            return SIPResponse(replyingTo: request, statusCode: 403, toTag: toTag)
        case .authenticated(let found):
            credential = found
        }
        return bind(request, aor: Self.addressOfRecord(user: user, domain: domain), accountSid: credential.accountSid, peer: peer, toTag: toTag, now: now)
    }

    private func bind(_ request: SIPRequest, aor: String, accountSid: String, peer: SIPPeer, toTag: String, now: Double) -> SIPResponse {
        let contacts: Registrar.Request.Contacts
        let parsed = request.contacts
        if parsed.isEmpty {
            contacts = .query
        } else if parsed.contains(where: { if case .wildcard = $0 { true } else { false } }) {
            guard parsed.count == 1 else { return SIPResponse(replyingTo: request, statusCode: 400, toTag: toTag) }
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
            return SIPResponse(replyingTo: request, statusCode: 500, toTag: toTag)
        }
        switch Registrar.decide(decision, existing: existing, policy: configuration.policy, now: now) {
        case .ok(let bindings):
            do {
                if case .query = contacts {} else { try store.replaceSIPBindings(accountSid: accountSid, aor: aor, with: bindings.map(Self.record)) }
            } catch {
                return SIPResponse(replyingTo: request, statusCode: 500, toTag: toTag)
            }
            counters.withLock { $0.registered += 1 }
            var headers = SIPHeaders()
            for binding in bindings {
                headers.add("Contact", "<\(binding.contact)>;expires=\(max(0, Int((binding.expiresAt - now).rounded())))")
            }
            headers.add("Date", SIPDate(secondsSince1970: Int64(now)).headerValue)
            return SIPResponse(replyingTo: request, statusCode: 200, toTag: toTag, headers: headers)
        case .intervalTooBrief(let minExpires):
            return SIPResponse(replyingTo: request, statusCode: 423, toTag: toTag, headers: ["Min-Expires": String(minExpires)])
        case .badRequest(let reason):
            return SIPResponse(replyingTo: request, statusCode: 400, reasonPhrase: "Bad Request (\(reason))", toTag: toTag)
        case .outOfOrder:
            return SIPResponse(replyingTo: request, statusCode: 500, reasonPhrase: "Server Internal Error (out of order)", toTag: toTag)
        case .tooManyContacts(let max):
            return SIPResponse(replyingTo: request, statusCode: 403, reasonPhrase: "Forbidden (at most \(max) contacts)", toTag: toTag)
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

    /// `sip:user@domain` (the domain lowercased): how bindings are keyed.
    static func addressOfRecord(user: String, domain: String) -> String { "sip:\(user)@\(domain.lowercased())" }

    static func tag() -> String { String(UInt64.random(in: 1...UInt64.max), radix: 36) }
}
