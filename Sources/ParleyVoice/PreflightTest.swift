import Foundation
import ParleyClientCore
import ParleyCore
import Synchronization

/// A running preflight test (the seed's `TVOPreflightTest`): audio to the server's echo service
/// for `PreflightOptions.duration`, measured once a second, ending in a `PreflightReport`.
/// Started by `Voice.runPreflightTest`; events reach the `PreflightDelegate` on the delegate queue.
/// The test holds its delegate weakly (as `Call` does); without it the test still runs to its end.
public final class PreflightTest: Sendable {
    /// The seed's `TVOPreflightTestState`.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Reaching the echo service and connecting media.
        case connecting
        /// Media flows; samples are being taken.
        case connected
        /// The report was delivered.
        case completed
        /// The error was delivered.
        case failed
    }

    /// `PF` and 32 hex digits, made when the test starts (the echo service's own session id stays
    /// internal); the report carries the same value.
    public let callSid: String
    public let startTime: Date

    let options: PreflightOptions
    let edge: String
    weak let delegate: (any PreflightDelegate)?
    let delegateQueue: DispatchQueue
    let snapshot = Mutex(Snapshot())

    struct Snapshot {
        var state: State = .connecting
        var isStopRequested = false
        var driver: Task<Void, Never>?
        var media: CallMedia?
        var echo: (server: String, location: String)?
        var outcome: Result<PreflightReport, ParleyError>?
        var waiters: [CheckedContinuation<Result<PreflightReport, ParleyError>, Never>] = []
    }

    /// A test not yet running (`launch()` starts it). A nil delegate hears nothing (the async form).
    init(options: PreflightOptions, delegate: (any PreflightDelegate)?) {
        self.options = options
        self.delegate = delegate
        delegateQueue = options.delegateQueue ?? DelegateQueue.default
        edge = options.edge ?? Voice.edge
        callSid = "PF" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        startTime = Date()
    }

    public var state: State { snapshot.withLock { $0.state } }

    /// Ends the test early. Once media is connected the test completes with a report of the
    /// samples taken so far; before that it fails with 31008 (cancelled). Does nothing once ended.
    public func stop() {
        let driver = snapshot.withLock { snapshot -> Task<Void, Never>? in
            guard snapshot.outcome == nil else { return nil }
            snapshot.isStopRequested = true
            return snapshot.driver
        }
        driver?.cancel()
    }

    /// Waits until the test ends: its report, or the error `preflight(_:didFailWithError:)`
    /// reports. Cancelling the waiting task stops the test.
    public func report() async throws(ParleyError) -> PreflightReport {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<PreflightReport, ParleyError>, Never>) in
                let ready = snapshot.withLock { snapshot -> Result<PreflightReport, ParleyError>? in
                    if let outcome = snapshot.outcome { return outcome }
                    snapshot.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            stop()
        }
        return try result.get()
    }

    var isStopRequested: Bool { snapshot.withLock { $0.isStopRequested } }

    /// Runs `body` with the delegate on the delegate queue, if the delegate is still there.
    func notify(_ body: @escaping @Sendable (any PreflightDelegate, PreflightTest) -> Void) {
        delegateQueue.async { [self] in
            guard let delegate else { return }
            body(delegate, self)
        }
    }

    /// Records the outcome once, wakes `report()` callers, tells the delegate.
    func finish(_ outcome: Result<PreflightReport, ParleyError>) {
        let waiters = snapshot.withLock { snapshot -> [CheckedContinuation<Result<PreflightReport, ParleyError>, Never>]? in
            guard snapshot.outcome == nil else { return nil }
            snapshot.outcome = outcome
            snapshot.state = (try? outcome.get()) == nil ? .failed : .completed
            snapshot.driver = nil
            defer { snapshot.waiters = [] }
            return snapshot.waiters
        }
        guard let waiters else { return }
        for waiter in waiters { waiter.resume(returning: outcome) }
        switch outcome {
        case .success(let report): notify { $0.preflight($1, didCompleteWith: report) }
        case .failure(let error): notify { $0.preflight($1, didFailWithError: error) }
        }
    }
}
