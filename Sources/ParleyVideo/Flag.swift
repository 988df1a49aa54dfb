import Synchronization

/// A Boolean shared across threads, telling one observer of each change.
final class Flag: Sendable {
    private let state: Mutex<(value: Bool, observer: (@Sendable (Bool) -> Void)?)>

    init(_ value: Bool) { state = Mutex((value, nil)) }

    var value: Bool {
        get { state.withLock { $0.value } }
        set {
            let observer = state.withLock { s -> (@Sendable (Bool) -> Void)? in
                guard s.value != newValue else { return nil }
                s.value = newValue
                return s.observer
            }
            observer?(newValue)
        }
    }

    /// From now on `observer` hears each change.
    func onChange(_ observer: @escaping @Sendable (Bool) -> Void) { state.withLock { $0.observer = observer } }
}
