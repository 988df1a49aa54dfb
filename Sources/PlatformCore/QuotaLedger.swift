import AccessToken
import ParleyCore
import Synchronization

/// What a quota counts.
public enum QuotaResource: String, Sendable, CaseIterable {
    /// WebRTC sessions on the media server: echo sessions and call legs' media.
    case mediaSession = "media sessions"
    /// Signaling sessions (a session outlives its socket for the resume window).
    case connection = "signaling connections"
    /// Live calls an identity placed (`invite`).
    case call = "calls"

    /// The `parley-server` flag that sets the limit, per identity or per API key.
    package func flag(perKey: Bool) -> String {
        let noun = switch self {
        case .mediaSession: "sessions"
        case .connection: "connections"
        case .call: "calls"
        }
        return "--max-\(noun)-per-\(perKey ? "key" : "identity")"
    }
}

/// A limit for each `QuotaResource`.
public struct QuotaCounts: Sendable, Equatable {
    public var mediaSessions: Int
    public var connections: Int
    public var calls: Int

    public init(mediaSessions: Int, connections: Int, calls: Int) {
        self.mediaSessions = mediaSessions
        self.connections = connections
        self.calls = calls
    }

    public subscript(resource: QuotaResource) -> Int {
        get {
            switch resource {
            case .mediaSession: mediaSessions
            case .connection: connections
            case .call: calls
            }
        }
        set {
            switch resource {
            case .mediaSession: mediaSessions = newValue
            case .connection: connections = newValue
            case .call: calls = newValue
            }
        }
    }

    static let zero = QuotaCounts(mediaSessions: 0, connections: 0, calls: 0)
    var isZero: Bool { self == .zero }
}

/// How much one identity (account SID + identity) and one API key (the tokens' `iss`) may hold at
/// once. The defaults (docs/voice.md, "Quotas"): an identity gets what a person's few devices need;
/// a key, which usually signs the tokens of a whole application, gets the server's capacity
/// targets, but never the whole media server.
public struct QuotaLimits: Sendable, Equatable {
    public var perIdentity = QuotaCounts(mediaSessions: 10, connections: 10, calls: 10)
    public var perKey = QuotaCounts(mediaSessions: 1_000, connections: 50_000, calls: 500)

    public init() {}

    /// The largest value a limit flag takes.
    public static let maxLimit = 1_000_000
}

/// Whom a quota charges: an identity within an account, and the API key that signed its token.
package struct QuotaOwner: Hashable, Sendable {
    package var accountSid: String
    package var identity: String
    package var apiKeySid: String

    package init(accountSid: String, identity: String, apiKeySid: String) {
        self.accountSid = accountSid
        self.identity = identity
        self.apiKeySid = apiKeySid
    }

    package init(_ token: VerifiedToken) {
        self.init(accountSid: token.accountSid, identity: token.identity, apiKeySid: token.apiKeySid)
    }

    var identityKey: IdentityKey { IdentityKey(accountSid: accountSid, identity: identity) }

    struct IdentityKey: Hashable, Sendable {
        var accountSid: String
        var identity: String
    }
}

/// Counts what each identity and API key holds against `QuotaLimits`. `acquire` returns a
/// `QuotaLease`, the only way to give the unit back: releasing it twice counts once, and a lease
/// nobody released is released when it is freed. Thread-safe (one lock; no I/O under it).
package final class QuotaLedger: Sendable {
    package let limits: QuotaLimits

    private struct State {
        var identities: [QuotaOwner.IdentityKey: QuotaCounts] = [:]
        var keys: [String: QuotaCounts] = [:]
    }

    private let state = Mutex(State())

    package init(limits: QuotaLimits) {
        self.limits = limits
    }

    /// One unit of `resource` for `owner`, or 31429 naming the limit that is reached.
    package func acquire(_ resource: QuotaResource, for owner: QuotaOwner) throws(ParleyError) -> QuotaLease {
        let refusal = state.withLock { s -> String? in
            let byIdentity = s.identities[owner.identityKey, default: .zero][resource]
            if byIdentity >= limits.perIdentity[resource] {
                return "\(owner.identity) already holds \(byIdentity) \(resource.rawValue), the limit per identity "
                    + "(\(resource.flag(perKey: false)))"
            }
            let byKey = s.keys[owner.apiKeySid, default: .zero][resource]
            if byKey >= limits.perKey[resource] {
                return "API key \(owner.apiKeySid) already holds \(byKey) \(resource.rawValue), the limit per key "
                    + "(\(resource.flag(perKey: true)))"
            }
            s.identities[owner.identityKey, default: .zero][resource] += 1
            s.keys[owner.apiKeySid, default: .zero][resource] += 1
            return nil
        }
        if let refusal { throw ParleyError(.tooManyRequests, reason: refusal) }
        return QuotaLease(resource: resource, owner: owner, ledger: self)
    }

    /// What `owner`'s identity and key hold now.
    package func usage(of owner: QuotaOwner) -> (identity: QuotaCounts, key: QuotaCounts) {
        state.withLock { s in (s.identities[owner.identityKey] ?? .zero, s.keys[owner.apiKeySid] ?? .zero) }
    }

    /// Identities and keys holding anything (entries are dropped when they reach zero).
    package var ownerCount: (identities: Int, keys: Int) {
        state.withLock { ($0.identities.count, $0.keys.count) }
    }

    fileprivate func giveBack(_ resource: QuotaResource, of owner: QuotaOwner) {
        state.withLock { s in
            Self.decrement(&s.identities, owner.identityKey, resource)
            Self.decrement(&s.keys, owner.apiKeySid, resource)
        }
    }

    private static func decrement<Key: Hashable>(_ table: inout [Key: QuotaCounts], _ key: Key, _ resource: QuotaResource) {
        guard var counts = table[key] else { return }
        counts[resource] = max(0, counts[resource] - 1)
        table[key] = counts.isZero ? nil : counts
    }
}

/// One acquired unit of a quota. `release()` gives it back once, however often it is called; a
/// lease that is freed without `release()` gives it back then.
package final class QuotaLease: Sendable {
    package let resource: QuotaResource
    package let owner: QuotaOwner
    private let ledger: QuotaLedger
    private let released = Atomic<Bool>(false)

    fileprivate init(resource: QuotaResource, owner: QuotaOwner, ledger: QuotaLedger) {
        self.resource = resource
        self.owner = owner
        self.ledger = ledger
    }

    package func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        ledger.giveBack(resource, of: owner)
    }

    package var isReleased: Bool { released.load(ordering: .acquiring) }

    deinit { release() }
}
