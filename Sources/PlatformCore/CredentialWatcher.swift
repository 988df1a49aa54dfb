import ParleyCore
import ParleyStore

/// Notices revoked API keys and rotated auth tokens, whether the change came through this server
/// (REST `DELETE Keys/{SK}.json`) or from another process on the same database (`parley keys
/// revoke`). Every `interval` it asks the store for `credentialsVersion()` (for SQLite one
/// `PRAGMA data_version`); only when that changed does it read the keys and accounts again and
/// report what differs from the last reading.
package final class CredentialWatcher: Sendable {
    /// What changed since the last reading.
    package struct Changes: Sendable, Equatable {
        /// Keys revoked since (SIDs).
        package var revokedKeys: [String] = []
        /// Accounts whose auth token changed, with the new token.
        package var rotatedTokens: [String: String] = [:]

        package var isEmpty: Bool { revokedKeys.isEmpty && rotatedTokens.isEmpty }
    }

    /// The credentials as last read: revoked key SIDs and each account's auth token.
    struct Snapshot: Sendable, Equatable {
        var revokedKeys: Set<String>
        var authTokens: [String: String]

        init(store: any AccountStore) throws(StoreError) {
            revokedKeys = Set(try store.apiKeys(accountSid: nil).filter(\.revoked).map(\.sid))
            authTokens = Dictionary(try store.accounts().map { ($0.sid, $0.authToken) }, uniquingKeysWith: { a, _ in a })
        }

        /// What `newer` has that this reading did not.
        func changes(to newer: Snapshot) -> Changes {
            var changes = Changes()
            changes.revokedKeys = newer.revokedKeys.subtracting(revokedKeys).sorted()
            for (sid, token) in newer.authTokens where authTokens[sid].map({ $0 != token }) ?? false {
                changes.rotatedTokens[sid] = token
            }
            return changes
        }
    }

    private let task: Task<Void, Never>

    /// Starts watching at once; `onChange` runs (one at a time, in order) for each change seen.
    package init(store: any AccountStore, interval: Duration = .milliseconds(250), clock: any MonotonicClock = SystemClock(),
         onChange: @escaping @Sendable (Changes) async -> Void) {
        task = Task.detached {
            var version = try? store.credentialsVersion()
            var snapshot = try? Snapshot(store: store)
            while !Task.isCancelled {
                try? await clock.sleep(for: interval)
                guard !Task.isCancelled else { break }
                do throws(StoreError) {
                    let current = try store.credentialsVersion()
                    guard current != version || snapshot == nil else { continue }
                    let reading = try Snapshot(store: store)
                    version = current
                    defer { snapshot = reading }
                    guard let earlier = snapshot else { continue }
                    let changes = earlier.changes(to: reading)
                    if !changes.isEmpty { await onChange(changes) }
                } catch {
                    Log.warning(.platform, "credential watch: cannot read the store: \(error)")
                }
            }
        }
    }

    /// Stops watching (after the change being handled, if any).
    package func stop() async {
        task.cancel()
        await task.value
    }
}
