import Foundation
import ParleyCore
import ParleyVoice
import Synchronization

/// One side of a call-quality call: its delegate callbacks, waited on by the bench.
final class CallQualityParty: CallDelegate, Sendable {
    let name: String
    let queue: DispatchQueue
    private let state = Mutex<(connectedAt: ContinuousClock.Instant?, failure: String?, ended: Bool, call: Call?)>((nil, nil, false, nil))

    init(name: String) {
        self.name = name
        queue = DispatchQueue(label: "parley-bench-\(name)")
    }

    /// The call (bob's, from his accept).
    var call: Call? {
        get { state.withLock { $0.call } }
        set { state.withLock { $0.call = newValue } }
    }

    var connectedAt: ContinuousClock.Instant? { state.withLock { $0.connectedAt } }

    func callDidConnect(_ call: Call) { state.withLock { $0.connectedAt = .now } }
    func callDidFailToConnect(_ call: Call, error: ParleyError) {
        state.withLock { $0.failure = "failed to connect: \(error.code.rawValue) \(error.failureReason ?? error.code.text)" }
    }
    func callDidDisconnect(_ call: Call, error: ParleyError?) {
        state.withLock { state in
            state.ended = true
            if let error, state.failure == nil { state.failure = "disconnected: \(error.code.rawValue) \(error.failureReason ?? error.code.text)" }
        }
    }

    /// Returns once connected; throws if the call failed or ended first, or `timeout` passed.
    func waitForConnect(timeout: Duration) async throws {
        try await wait(for: "connect", timeout: timeout) { state in
            if let failure = state.failure { throw BenchFailure("\(self.name): \(failure)") }
            if state.ended { throw BenchFailure("\(self.name): the call ended before it connected") }
            return state.connectedAt != nil
        }
    }

    /// Throws if the call has failed or ended (while it should be up).
    func checkUp() throws {
        let (failure, ended) = state.withLock { ($0.failure, $0.ended) }
        if let failure { throw BenchFailure("\(name): \(failure)") }
        if ended { throw BenchFailure("\(name): the call ended early") }
    }

    /// Returns once the call has ended (or `timeout` passed).
    func waitForEnd(timeout: Duration) async throws {
        try await wait(for: "the end of the call", timeout: timeout) { $0.ended }
    }

    private func wait(for what: String, timeout: Duration,
                      _ done: ((connectedAt: ContinuousClock.Instant?, failure: String?, ended: Bool, call: Call?)) throws -> Bool)
        async throws {
        let deadline = ContinuousClock.now + timeout
        while try !done(state.withLock { $0 }) {
            guard ContinuousClock.now < deadline else { throw BenchFailure("\(name): no \(what) within \(timeout)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Why a bench run failed: printed, exit status 1.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
