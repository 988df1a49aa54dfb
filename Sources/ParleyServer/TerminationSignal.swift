import Dispatch
import Foundation

/// Catches SIGTERM and SIGINT without killing the process, so the caller can shut down gracefully.
///
/// Create it before the server announces itself: the dispositions are taken over synchronously
/// in `init`, so a signal that arrives before anyone awaits ``next()`` is kept, not fatal.
// Immutable after init; dispatch sources are thread-safe.
public final class TerminationSignal: @unchecked Sendable {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    /// Ignores the default action of `signals` and starts collecting them.
    public init(_ signals: [Int32] = [SIGTERM, SIGINT]) {
        let queue = DispatchQueue(label: "parley.signals")
        let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingOldest(4))
        self.stream = stream
        sources = signals.map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { @Sendable in continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }

    /// The first signal caught since `init` (waits for it if none came yet).
    public func next() async -> Int32 {
        for await number in stream { return number }
        return SIGTERM
    }
}
