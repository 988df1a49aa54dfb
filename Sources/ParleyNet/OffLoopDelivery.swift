/// Carries values from the loop thread to a handler running on its own task, in order
/// (an `AsyncStream` drained by one task). `send` never blocks the loop; past `limit` unconsumed
/// values the oldest are dropped.
public final class OffLoopDelivery<Value: Sendable>: Sendable {
    private let continuation: AsyncStream<Value>.Continuation

    public init(limit: Int, handler: @escaping @Sendable (Value) -> Void) {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        self.continuation = continuation
        Task.detached {
            for await value in stream { handler(value) }
        }
    }

    public func send(_ value: Value) { continuation.yield(value) }

    /// Delivers what is queued, then ends the task.
    public func finish() { continuation.finish() }
}
