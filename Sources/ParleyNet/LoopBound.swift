/// A value that may only be touched on one event loop's thread, carried across isolation
/// boundaries (the NIO `NIOLoopBound` pattern). Closures handed to `EventLoop.execute` capture
/// this box instead of the non-`Sendable` value; every access checks the thread.
///
/// `@unchecked Sendable` is the point of the type: the check in `value` is what makes it sound.
/// A loop-confined class is carried this way rather than marked `@unchecked Sendable` itself
/// (the SIP stack and the SFU's per-loop state follow the rule).
public struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    public let loop: EventLoop
    private let wrapped: Value

    public init(_ value: Value, loop: EventLoop) {
        self.loop = loop
        self.wrapped = value
    }

    /// The value; traps when read off the loop thread.
    public var value: Value {
        precondition(loop.inEventLoop, "loop-bound value used off its event loop")
        return wrapped
    }
}
