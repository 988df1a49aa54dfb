import Dispatch
import Foundation

/// Waits for SIGTERM or SIGINT without killing the process, so the caller can shut down gracefully.
public enum TerminationSignal {
    /// Ignores the default action of `signals` and returns the first one that arrives.
    public static func wait(for signals: [Int32] = [SIGTERM, SIGINT]) async -> Int32 {
        let queue = DispatchQueue(label: "parley.signals")
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let sources = signals.map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { @Sendable in continuation.yield(number) }
            source.resume()
            return source
        }
        var received: Int32 = SIGTERM
        for await number in stream {
            received = number
            break
        }
        sources.forEach { $0.cancel() }
        return received
    }
}
