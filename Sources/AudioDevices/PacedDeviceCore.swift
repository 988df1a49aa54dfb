import AudioCore
import Synchronization

/// The lifecycle, pacing and threading shared by devices without a sound card: a capture source
/// and a render sink, each started and stopped on its own, driven by one device thread
/// (`.realTime`, `.asFastAsPossible`) or by `tick()` (`.manual`).
///
/// All state sits in one mutex. Context callbacks run with it held, which is what makes "no call
/// into the context after stop returns" hold: a stop waits for a callback in flight and clears the
/// context. A context must therefore not call this device's start or stop synchronously from a
/// callback. The end-of-input notification runs after the lock is released.
final class PacedDeviceCore<Source: PacedCaptureSource, Sink: PacedRenderSink>: Sendable {
    let pacing: AudioPacing
    private let name: String
    private let onEndOfInput: (@Sendable () -> Void)?
    private let state: Mutex<State>

    /// Catching up more than this after a stall skips the backlog instead of bursting it.
    static var maximumLagNanoseconds: Int64 { 100_000_000 }

    init(name: String, pacing: AudioPacing, source: sending Source?, sink: sending Sink?, onEndOfInput: (@Sendable () -> Void)?) {
        self.name = name
        self.pacing = pacing
        self.onEndOfInput = onEndOfInput
        self.state = Mutex(State(source: source, sink: sink))
    }

    deinit {
        let thread = state.withLock { s -> DeviceThread? in
            s.sink?.close()
            defer { s.thread = nil }
            return s.thread
        }
        thread?.stop()
    }

    // MARK: Capture

    func captureFormat() -> AudioFormat? { state.withLock { $0.source?.format } }

    func initializeCapturer() throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            guard s.source != nil else { throw AudioDeviceError(.invalidState, "\(name) has no input to capture") }
            guard s.capture.phase != .running else { throw AudioDeviceError(.invalidState, "\(name) is capturing") }
            try s.source?.prepare()
            s.inputEnded = false
            s.capture.phase = .initialized
        }
    }

    func startCapturing(context: any AudioCapturingContext) throws(AudioDeviceError) {
        try start(.capture) { $0.captureContext = context }
    }

    func stopCapturing() {
        let thread = state.withLock { s -> DeviceThread? in
            s.capture.phase = .idle
            s.captureContext = nil
            return s.takeThreadIfIdle()
        }
        thread?.stop()
    }

    var hasReachedEndOfInput: Bool { state.withLock { $0.inputEnded } }

    func waitForEndOfInput() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { s -> Bool in
                if !s.inputEnded { s.endWaiters.append(continuation) }
                return s.inputEnded
            }
            if ended { continuation.resume() }
        }
    }

    // MARK: Render

    func renderFormat() -> AudioFormat? { state.withLock { $0.sink?.format } }

    func initializeRenderer() throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            guard s.sink != nil else { throw AudioDeviceError(.invalidState, "\(name) does not render") }
            guard s.render.phase != .running else { throw AudioDeviceError(.invalidState, "\(name) is rendering") }
            if s.render.phase == .idle { try s.sink?.open() }
            s.render.phase = .initialized
        }
    }

    func startRendering(context: any AudioRenderingContext) throws(AudioDeviceError) {
        try start(.render) { $0.renderContext = context }
    }

    func stopRendering() {
        let thread = state.withLock { s -> DeviceThread? in
            if s.render.phase != .idle { s.sink?.close() }
            s.render.phase = .idle
            s.renderContext = nil
            return s.takeThreadIfIdle()
        }
        thread?.stop()
    }

    // MARK: Access for the owning device

    func withSource<R: Sendable>(_ body: (inout Source) -> R) -> R? {
        state.withLock { s -> R? in
            guard s.source != nil else { return nil }
            return body(&s.source!)
        }
    }

    func withSink<R: Sendable>(_ body: (inout Sink) -> R) -> R? {
        state.withLock { s -> R? in
            guard s.sink != nil else { return nil }
            return body(&s.sink!)
        }
    }

    // MARK: Starting and ticking

    /// Starts one side (the same steps for both): it must have a format and be initialized; its
    /// buffer is sized, `attach` stores its context, and the device thread runs unless paced by hand.
    private func start(_ side: Side, attach: (inout State) -> Void) throws(AudioDeviceError) {
        try state.withLock { s throws(AudioDeviceError) in
            guard let format = s.format(of: side) else { throw AudioDeviceError(.invalidState, "\(name) \(side.missing)") }
            try s[keyPath: side.lifecycle].start(format: format, now: DeviceClock.now(), side: side.activity, device: name)
            attach(&s)
            try startThreadIfNeeded(&s)
        }
    }

    /// `.manual` only: advances each started side by one buffer on the caller's thread.
    func tick() {
        guard pacing == .manual else { return }
        let ended = state.withLock { s -> [CheckedContinuation<Void, Never>]? in
            let ended = s.tickCapture()
            s.tickRender()
            return ended
        }
        if let ended { announceEndOfInput(ended) }
    }

    private func startThreadIfNeeded(_ s: inout State) throws(AudioDeviceError) {
        guard pacing != .manual, s.thread == nil else { return }
        s.thread = try DeviceThread(name: name) { [weak self] thread in
            while !thread.isStopRequested {
                guard let core = self, core.step(thread) else { break }
            }
        }
    }

    /// One iteration of the device thread: wait for the earliest due side, then tick it.
    /// Returns false when the thread should end (it has already cleared itself from the state).
    private func step(_ thread: DeviceThread) -> Bool {
        let realTime = pacing == .realTime
        let step = state.withLock { s -> ThreadStep in
            if !realTime, s.isWaitingForPartner { return .waitForPartner }
            guard let next = s.nextDue(realTime: realTime, now: DeviceClock.now()) else {
                if s.thread === thread { s.thread = nil }
                return .end
            }
            return .tick(next.side, due: next.due)
        }
        let next: (side: Side, due: Int64)
        switch step {
        case .end:
            thread.stop()      // on its own thread: detaches
            return false
        case .waitForPartner:      // the other side was initialized and starts next
            DeviceClock.sleep(until: DeviceClock.now() + 1_000_000)
            return !thread.isStopRequested
        case .tick(let side, let due):
            next = (side, due)
        }
        if realTime { DeviceClock.sleep(until: next.due) }
        guard !thread.isStopRequested else { return false }
        let ended = state.withLock { s -> [CheckedContinuation<Void, Never>]? in
            guard s.thread === thread else { return nil }
            if next.side == .capture { return s.tickCapture() }
            s.tickRender()
            return nil
        }
        if let ended { announceEndOfInput(ended) }
        return true
    }

    private func announceEndOfInput(_ waiters: [CheckedContinuation<Void, Never>]) {
        for waiter in waiters { waiter.resume() }
        onEndOfInput?()
    }

    // MARK: State

    /// What the device thread does next.
    enum ThreadStep { case tick(Side, due: Int64), waitForPartner, end }

    enum Side {
        case capture, render

        /// The side's lifecycle within `State`.
        var lifecycle: WritableKeyPath<State, SideState> {
            switch self {
            case .capture: \.capture
            case .render: \.render
            }
        }

        /// What the side is doing while it runs, for error messages.
        var activity: String {
            switch self {
            case .capture: "capturing"
            case .render: "rendering"
            }
        }

        /// Why a device without this side cannot start it, for error messages.
        var missing: String {
            switch self {
            case .capture: "has no input to capture"
            case .render: "does not render"
            }
        }
    }

    struct State {
        var source: Source?
        var sink: Sink?
        var capture = SideState()
        var render = SideState()
        var captureContext: (any AudioCapturingContext)?
        var renderContext: (any AudioRenderingContext)?
        var inputEnded = false
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        var thread: DeviceThread?

        init(source: Source?, sink: Sink?) {
            self.source = source
            self.sink = sink
        }

        /// The format of a side, nil when the device lacks it.
        func format(of side: Side) -> AudioFormat? {
            switch side {
            case .capture: source?.format
            case .render: sink?.format
            }
        }

        /// Delivers one captured buffer; returns the waiters to wake when this ended the input.
        mutating func tickCapture() -> [CheckedContinuation<Void, Never>]? {
            guard capture.phase == .running, !inputEnded, let context = captureContext, source != nil else { return nil }
            // The buffer is moved out while in use (no copy, no allocation) so the closures
            // below do not overlap the access to `self`.
            var buffer = capture.buffer
            capture.buffer = []
            let fill = buffer.withUnsafeMutableBufferPointer { source!.fill($0) }
            if fill != .exhausted {
                buffer.withUnsafeBufferPointer { context.deliverCapturedSamples($0) }
            }
            capture.buffer = buffer
            capture.buffers += 1
            guard fill != .more else { return nil }
            inputEnded = true
            defer { endWaiters.removeAll() }
            return endWaiters
        }

        mutating func tickRender() {
            guard render.phase == .running, let context = renderContext else { return }
            var buffer = render.buffer
            render.buffer = []
            buffer.withUnsafeMutableBufferPointer { context.readRenderSamples(into: $0) }
            buffer.withUnsafeBufferPointer { sink?.consume($0) }
            render.buffer = buffer
            render.buffers += 1
        }

        /// The side to tick next and when: real time uses each side's wall-clock schedule; as
        /// fast as possible uses media time, so the side that is behind goes first.
        /// As fast as possible, a side started while the other is initialized waits for it:
        /// otherwise a short input could end before the other side ever ran.
        var isWaitingForPartner: Bool {
            (capture.phase == .running && render.phase == .initialized)
                || (render.phase == .running && capture.phase == .initialized)
        }

        mutating func nextDue(realTime: Bool, now: Int64) -> (side: Side, due: Int64)? {
            var best: (side: Side, due: Int64)?
            if capture.phase == .running, !inputEnded, let format = source?.format {
                best = (.capture, capture.nextDue(format: format, realTime: realTime, now: now))
            }
            if !realTime && inputEnded { return nil }
            if render.phase == .running, let format = sink?.format {
                let due = render.nextDue(format: format, realTime: realTime, now: now)
                if best == nil || due < best!.due { best = (.render, due) }
            }
            return best
        }

        /// The thread, taken out when neither side runs any more (the caller stops it).
        mutating func takeThreadIfIdle() -> DeviceThread? {
            guard capture.phase != .running, render.phase != .running else { return nil }
            defer { thread = nil }
            return thread
        }
    }

    struct SideState {
        enum Phase { case idle, initialized, running }
        var phase = Phase.idle
        var buffer: [Int16] = []
        var buffers: Int64 = 0
        var startNanoseconds: Int64 = 0

        mutating func start(format: AudioFormat, now: Int64, side: String, device: String) throws(AudioDeviceError) {
            switch phase {
            case .idle: throw AudioDeviceError(.invalidState, "\(device): start \(side) before initializing")
            case .running: throw AudioDeviceError(.invalidState, "\(device) is already \(side)")
            case .initialized: break
            }
            phase = .running
            buffers = 0
            startNanoseconds = now
            if buffer.count != format.samplesPerBuffer {
                buffer = [Int16](repeating: 0, count: format.samplesPerBuffer)
            }
        }

        mutating func nextDue(format: AudioFormat, realTime: Bool, now: Int64) -> Int64 {
            let elapsed = DeviceClock.nanoseconds(frames: (buffers + 1) * Int64(format.framesPerBuffer),
                                                     sampleRate: format.sampleRate)
            guard realTime else { return elapsed }
            let lag = now - (startNanoseconds + elapsed)
            if lag > PacedDeviceCore.maximumLagNanoseconds { startNanoseconds += lag }
            return startNanoseconds + elapsed
        }
    }
}
