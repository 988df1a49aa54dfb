import Synchronization

/// Who owns each live session of an HTTP-created media resource (`/v1/echo`, WHIP and WHEP): for
/// DELETE's account check and for ending what a revoked key created. An entry lives from the 201
/// until the session ends; an end reported before `started` recorded it wins the race.
final class SessionOwners<Owner: Sendable>: Sendable {
    private struct State {
        var owners: [String: Owner] = [:]
        /// Sessions that ended before `started` recorded them (their terminal event won the race).
        var endedEarly: Set<String> = []
    }

    private let state = Mutex(State())

    init() {}

    func started(_ id: String, owner: Owner) {
        state.withLock { s in
            if s.endedEarly.remove(id) == nil { s.owners[id] = owner }
        }
    }

    func ended(_ id: String) {
        state.withLock { s in
            if s.owners.removeValue(forKey: id) == nil { s.endedEarly.insert(id) }
        }
    }

    /// Forgets `id` without remembering an early end (it was known to have ended).
    func forget(_ id: String) { _ = state.withLock { $0.owners.removeValue(forKey: id) } }

    func owner(of id: String) -> Owner? { state.withLock { $0.owners[id] } }

    /// The live sessions whose owner satisfies `predicate`.
    func sessions(where predicate: (Owner) -> Bool) -> [String] {
        state.withLock { s in s.owners.filter { predicate($0.value) }.map(\.key) }
    }

    var all: [String: Owner] { state.withLock { $0.owners } }

    var count: Int { state.withLock { $0.owners.count } }
}
