import SIP

/// Runs a transaction's timers in virtual time: the actions it returns are collected, its
/// `startTimer`s queued, and `run(until:)` fires them earliest first, as a transport layer would.
struct TransactionSchedule {
    private(set) var now = 0.0
    private(set) var log: [(at: Double, action: TransactionAction)] = []
    private var pending: [(at: Double, timer: TransactionTimer)] = []

    mutating func record(_ actions: [TransactionAction]) {
        for action in actions {
            log.append((now, action))
            if case .startTimer(let timer, let seconds) = action { pending.append((now + seconds, timer)) }
        }
    }

    /// Fires every timer due by `end` through `fire`, in order; stops early once terminated.
    mutating func run(until end: Double, _ fire: (TransactionTimer) -> [TransactionAction]) {
        while let next = pending.enumerated().min(by: { $0.element.at < $1.element.at }), next.element.at <= end,
              !log.contains(where: { $0.action == .terminated }) {
            pending.remove(at: next.offset)
            now = next.element.at
            record(fire(next.element.timer))
        }
        if end > now { now = end }
    }

    func times(of action: TransactionAction) -> [Double] { log.filter { $0.action == action }.map(\.at) }
    var terminated: Bool { log.contains { $0.action == .terminated } }
}
