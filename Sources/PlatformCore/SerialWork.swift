/// Runs posted work one item at a time, in posting order, on its own task: an actor posts
/// without waiting, and what it posted (a participant's messages, the media plane's routes)
/// still happens in the order it decided it.
package final class SerialWork: Sendable {
    package typealias Work = @Sendable () async -> Void
    private let continuation: AsyncStream<Work>.Continuation

    package init() {
        let (stream, continuation) = AsyncStream<Work>.makeStream()
        self.continuation = continuation
        Task {
            for await work in stream { await work() }
        }
    }

    package func post(_ work: @escaping Work) {
        continuation.yield(work)
    }

    /// Nothing more is posted; what was posted still runs.
    package func finish() {
        continuation.finish()
    }

    /// Returns once everything posted before it has run (at once when finished).
    package func drain() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            if case .terminated = continuation.yield({ done.resume() }) { done.resume() }
        }
    }
}
