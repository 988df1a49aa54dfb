import Synchronization

/// A Boolean shared across threads.
final class Flag: Sendable {
    private let state: Mutex<Bool>

    init(_ value: Bool) { state = Mutex(value) }

    var value: Bool {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
