import ParleyCore
import ParleyServer
@testable import PlatformCore
import Testing

/// The quota model on its own: limits per identity and per API key, leases that give back exactly
/// once, and the `--max-…` flags.
@Suite struct QuotaLedgerTests {
    static let account = "AC" + String(repeating: "a", count: 32)
    static let keyA = "SK" + String(repeating: "a", count: 32)
    static let keyB = "SK" + String(repeating: "b", count: 32)

    static func owner(_ identity: String, key: String = keyA) -> QuotaOwner {
        QuotaOwner(accountSid: account, identity: identity, apiKeySid: key)
    }

    static func limits(identity: Int, key: Int) -> QuotaLimits {
        var limits = QuotaLimits()
        limits.perIdentity = QuotaCounts(mediaSessions: identity, connections: identity, calls: identity)
        limits.perKey = QuotaCounts(mediaSessions: key, connections: key, calls: key)
        return limits
    }

    @Test func anIdentityGetsItsLimitThen31429NamingTheFlag() throws {
        let ledger = QuotaLedger(limits: Self.limits(identity: 3, key: 100))
        let leases = try (0..<3).map { _ in try ledger.acquire(.mediaSession, for: Self.owner("alice")) }
        do {
            _ = try ledger.acquire(.mediaSession, for: Self.owner("alice"))
            Issue.record("the fourth media session was granted")
        } catch {
            #expect(error.code == .tooManyRequests)
            #expect(error.failureReason?.contains("alice already holds 3 media sessions") == true)
            #expect(error.failureReason?.contains("--max-sessions-per-identity") == true)
        }
        // Other resources and other identities are counted apart.
        _ = try ledger.acquire(.call, for: Self.owner("alice"))
        _ = try ledger.acquire(.mediaSession, for: Self.owner("bob"))
        // The same identity name in another account is another identity.
        _ = try ledger.acquire(.mediaSession, for: QuotaOwner(accountSid: "AC" + String(repeating: "c", count: 32),
                                                              identity: "alice", apiKeySid: Self.keyA))
        #expect(ledger.usage(of: Self.owner("alice")).identity.mediaSessions == 3)
        leases[0].release()
        _ = try ledger.acquire(.mediaSession, for: Self.owner("alice"))
    }

    @Test func aKeyIsSharedByItsIdentities() throws {
        let ledger = QuotaLedger(limits: Self.limits(identity: 10, key: 4))
        var held: [QuotaLease] = []
        for i in 0..<4 { held.append(try ledger.acquire(.connection, for: Self.owner("user\(i)"))) }
        #expect(throws: ParleyError.self) { try ledger.acquire(.connection, for: Self.owner("user9")) }
        do {
            _ = try ledger.acquire(.connection, for: Self.owner("user9"))
        } catch {
            #expect(error.code == .tooManyRequests)
            #expect(error.failureReason?.contains("API key \(Self.keyA) already holds 4 signaling connections") == true)
            #expect(error.failureReason?.contains("--max-connections-per-key") == true)
        }
        // Another key has its own pool.
        held.append(try ledger.acquire(.connection, for: Self.owner("user9", key: Self.keyB)))
        #expect(ledger.usage(of: Self.owner("user0")).key.connections == 4)
        #expect(ledger.usage(of: Self.owner("x", key: Self.keyB)).key.connections == 1)
    }

    @Test func releasingTwiceCountsOnceAndAFreedLeaseGivesBack() throws {
        let ledger = QuotaLedger(limits: Self.limits(identity: 2, key: 2))
        let lease = try ledger.acquire(.call, for: Self.owner("alice"))
        lease.release()
        lease.release()
        #expect(lease.isReleased)
        #expect(ledger.usage(of: Self.owner("alice")).identity.calls == 0)
        // A double release must not let a third unit in beside two held ones.
        let a = try ledger.acquire(.call, for: Self.owner("alice"))
        let b = try ledger.acquire(.call, for: Self.owner("alice"))
        lease.release()
        #expect(throws: ParleyError.self) { try ledger.acquire(.call, for: Self.owner("alice")) }
        #expect(ledger.usage(of: Self.owner("alice")).identity.calls == 2)
        _ = (a, b)

        // Dropped without release: given back.
        do { _ = try ledger.acquire(.mediaSession, for: Self.owner("carol")) }
        #expect(ledger.usage(of: Self.owner("carol")).identity.mediaSessions == 0)
        a.release()
        b.release()
        #expect(ledger.ownerCount.identities == 0 && ledger.ownerCount.keys == 0, "empty entries are dropped")
    }

    @Test func concurrentAcquiresNeverExceedTheLimit() async throws {
        let ledger = QuotaLedger(limits: Self.limits(identity: 25, key: 1000))
        let granted = await withTaskGroup(of: QuotaLease?.self) { group in
            for _ in 0..<200 { group.addTask { try? ledger.acquire(.mediaSession, for: Self.owner("alice")) } }
            var leases: [QuotaLease] = []
            for await lease in group { if let lease { leases.append(lease) } }
            return leases
        }
        #expect(granted.count == 25)
        await withTaskGroup(of: Void.self) { group in
            for lease in granted { group.addTask { lease.release(); lease.release() } }
        }
        #expect(ledger.usage(of: Self.owner("alice")).identity.mediaSessions == 0)
        #expect(ledger.ownerCount.identities == 0 && ledger.ownerCount.keys == 0)
    }

    @Test func flagsSetEachLimitAndRejectNonsense() throws {
        let config = try ServerConfiguration.parse(["--max-sessions-per-identity", "3", "--max-connections-per-identity", "4",
                                                    "--max-calls-per-identity", "5", "--max-sessions-per-key", "30",
                                                    "--max-connections-per-key", "40", "--max-calls-per-key", "50"])
        #expect(config.quotas.perIdentity == QuotaCounts(mediaSessions: 3, connections: 4, calls: 5))
        #expect(config.quotas.perKey == QuotaCounts(mediaSessions: 30, connections: 40, calls: 50))
        let defaults = try ServerConfiguration.parse([])
        #expect(defaults.quotas.perIdentity == QuotaCounts(mediaSessions: 10, connections: 10, calls: 10))
        #expect(defaults.quotas.perKey == QuotaCounts(mediaSessions: 1_000, connections: 50_000, calls: 500))
        for bad in ["0", "-1", "x", "1000001"] {
            #expect(throws: ConfigurationError.self) { try ServerConfiguration.parse(["--max-calls-per-key", bad]) }
        }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.parse(["--max-calls-per-nobody", "3"]) }
        #expect(ServerConfiguration.usage.contains("--max-sessions-per-identity N"))
        #expect(ServerConfiguration.usage.contains("--max-connections-per-key N"))
    }
}
