import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM as a request to finish: once `catchSignals()` ran, the first signal is
/// recorded instead of killing the process, so a command can end its calls (cancel, hang up,
/// unlisten) before it exits; a second signal exits at once.
final class Interruption: Sendable {
    static let shared = Interruption()

    private let received = Mutex<Int32?>(nil)
    private let sources = Mutex<[any DispatchSourceSignal]>([])
    private let arrived = DispatchSemaphore(value: 0)
    private let queue = DispatchQueue(label: "parley.cli.signals")

    /// Takes over SIGINT and SIGTERM (idempotent). Call it before the work it protects starts.
    func catchSignals() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            sources = [SIGINT, SIGTERM].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [self] in self.receive(number) }
                source.resume()
                return source
            }
        }
    }

    private func receive(_ number: Int32) {
        let first = received.withLock { received -> Bool in
            guard received == nil else { return false }
            received = number
            return true
        }
        guard first else { exit(Self.status(for: number)) }
        arrived.signal()
    }

    /// The signal received, if any.
    var caughtSignal: Int32? { received.withLock { $0 } }

    var isRequested: Bool { caughtSignal != nil }

    /// The shell's convention for a command ended by a signal: 128 + its number (130 for SIGINT).
    static func status(for signal: Int32) -> Int32 { 128 + signal }

    /// `SIGINT` or `SIGTERM`, for messages.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }

    /// Blocks the calling thread until a signal arrives; returns it.
    func waitSynchronously() -> Int32 {
        arrived.wait()
        arrived.signal()
        return caughtSignal ?? SIGTERM
    }
}
