import Foundation

/// Timed changes of a running `parley netsim`: each event is performed at its time (seconds after
/// the start), in order, and the line it returns goes to stdout; cancelling the task stops what is still to come.
enum NetsimSchedule {
    static func start<Event: Sendable>(_ events: [(at: Double, event: Event)],
                                       _ perform: @escaping @Sendable (Double, Event) -> String) -> Task<Void, Never> {
        let origin = ContinuousClock.now
        return Task {
            for (at, event) in events {
                do {
                    try await Task.sleep(until: origin + .milliseconds(Int64(at * 1000)), clock: .continuous)
                } catch {
                    return
                }
                FileHandle.standardOutput.write(Data((perform(at, event) + "\n").utf8))
            }
        }
    }

    /// Seconds as the lines print them.
    static func format(_ seconds: Double) -> String { String(format: "%g", seconds) }

    /// A time option's value: seconds, 0 (if `allowsZero`) to 86400.
    static func seconds(_ text: String, _ option: String, allowsZero: Bool) throws(UsageError) -> Double {
        guard let value = Double(text), value.isFinite, allowsZero ? value >= 0 : value > 0, value <= 86_400 else {
            throw UsageError("--\(option) must be a number of seconds, \(allowsZero ? "0" : "more than 0") to 86400, got \(text)")
        }
        return value
    }
}
