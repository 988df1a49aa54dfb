import Glibc
import ParleyCore
import ParleyCrypto

/// Callbacks from a channel to the protocol on top of it; all run on the channel's loop thread.
protocol ChannelDelegate: AnyObject {
    /// Connected, and the TLS handshake (if any) is complete.
    func channelActive(_ channel: TCPChannel)
    /// Plaintext arrived. The slice is only valid during the call.
    func channelRead(_ channel: TCPChannel, _ bytes: ArraySlice<UInt8>)
    /// The peer closed its sending side (or sent close_notify).
    func channelReadEOF(_ channel: TCPChannel)
    /// The channel closed; `error` is nil for an orderly close.
    func channelClosed(_ channel: TCPChannel, error: (any Error)?)
    /// The output queue, once over its high-water mark, drained to the low one: work held back
    /// because of a slow reader may go on.
    func channelDrained(_ channel: TCPChannel)
}

extension ChannelDelegate {
    func channelDrained(_ channel: TCPChannel) {}
}

/// A nonblocking TCP connection, optionally wrapped in TLS, owned by one event loop.
///
/// An idle connection holds no buffer: reads go into the loop's one shared receive buffer, plain
/// writes go straight to the socket (only what the kernel does not take is queued), and the
/// outbound queue and TLS plaintext buffer are released once empty.
///
/// Back-pressure (`OutputLimits`): while more than the high-water mark waits for the peer, the
/// channel stops reading from it; a peer that takes nothing for the stall timeout is closed. The
/// delegate may also hold reads back itself (`pauseReading`), e.g. while it cannot take more input.
/// Loop-confined (not `Sendable`): other threads reach it only through `loop.execute`.
final class TCPChannel: EventHandler {
    enum State { case connecting, handshaking, active, lingering, closed }

    /// Why reading is held back; the channel reads while the set is empty.
    struct ReadPause: OptionSet {
        let rawValue: UInt8
        /// The output queue is over its high-water mark.
        static let output = ReadPause(rawValue: 1)
        /// The delegate asked (`pauseReading`).
        static let consumer = ReadPause(rawValue: 2)
    }

    let loop: EventLoop
    let fd: Int32
    var delegate: (any ChannelDelegate)?
    private(set) var state: State
    private let tls: TLSSession?
    private var plaintext: [UInt8] = []
    private var pendingPlaintext: [UInt8] = []
    private var outbound: [UInt8] = []
    private var outboundStart = 0
    private var closeWhenFlushed = false
    private var lingerWhenFlushed = false
    private var writeInterest: Bool
    private var lingerTimer: TimerQueue.ID?
    private var readPause: ReadPause = []
    private var readInterest = true
    private var gate = OutputGate(limits: OutputLimits())
    private var stallTimer: TimerQueue.ID?

    /// Wraps `fd`; `connecting` for a client socket whose connect is in progress.
    init(loop: EventLoop, fd: Int32, tls: TLSSession?, connecting: Bool) {
        self.loop = loop
        self.fd = fd
        self.tls = tls
        state = connecting ? .connecting : (tls == nil ? .active : .handshaking)
        writeInterest = connecting
    }

    /// Registers with the loop and, for accepted plain sockets, reports the channel active.
    func start() {
        loop.assertInLoop()
        do {
            try loop.register(fd, handler: self, writable: writeInterest)
        } catch {
            Glibc.close(fd)
            state = .closed
            delegate?.channelClosed(self, error: error)
            delegate = nil
            return
        }
        if state == .active { delegate?.channelActive(self) }
    }

    var isOpen: Bool { state != .closed && state != .lingering }

    /// Sets the back-pressure limits (before the first write).
    func setOutputLimits(_ limits: OutputLimits) { gate = OutputGate(limits: limits) }

    /// Whether the output queue is over its high-water mark (the peer is not reading fast enough).
    var isOutputFull: Bool { gate.isFull }

    /// Stops reading from the peer until `resumeReading()`; what it sends waits in the kernel.
    func pauseReading() { setPaused(.consumer, true) }

    /// Reads again after `pauseReading()` (unless the output queue still holds reads back).
    func resumeReading() { setPaused(.consumer, false) }

    private func setPaused(_ reason: ReadPause, _ paused: Bool) {
        if paused { readPause.insert(reason) } else { readPause.remove(reason) }
        updateInterest()
    }

    // MARK: Events

    func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        if state == .connecting {
            guard writable || hangup else { return }
            let error = Socket.pendingError(fd)
            guard error == 0 else { return fail(NetError.system("connect", error)) }
            connected()
        }
        if writable && state != .closed { flush() }
        guard readable && state != .closed else { return }
        if readPause.isEmpty || state == .lingering {
            readAvailable()
        } else if hangup {
            fail(NetError.connectionClosed)  // reset while we held reads back: nothing more to say
        }
    }

    func loopStopping() { close() }

    private func connected() {
        if tls != nil {
            state = .handshaking
            advanceHandshake()
        } else {
            state = .active
            updateInterest()
            delegate?.channelActive(self)
            // What was written while connecting goes out now.
            if !pendingPlaintext.isEmpty {
                let queued = pendingPlaintext
                pendingPlaintext = []
                write(queued)
            }
        }
    }

    private func readAvailable() {
        for _ in 0..<4 {
            let n = loop.tcpReadBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received(n)
                if n < loop.tcpReadBuffer.count || state == .closed { return }
                if !readPause.isEmpty && state != .lingering { return }
            } else if n == 0 {
                return receivedEOF()
            } else {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                return fail(NetError.system("recv", errno))
            }
        }
    }

    private func received(_ count: Int) {
        if state == .lingering { return }  // draining after our close: discard
        guard let tls else {
            delegate?.channelRead(self, loop.tcpReadBuffer[0..<count])
            return
        }
        loop.tcpReadBuffer.withUnsafeBytes { tls.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        if state == .handshaking { advanceHandshake() }
        guard state == .active else { return }
        let status: TLSSession.ReadStatus
        do {
            status = try tls.read(into: &plaintext)
        } catch {
            return fail(NetError.tls(error.message))
        }
        tls.drainCiphertext(into: &outbound)
        if !plaintext.isEmpty { delegate?.channelRead(self, plaintext[...]) }
        plaintext = []
        if status == .closed && state == .active { receivedEOF() }
        if state != .closed { flush() }
    }

    private func receivedEOF() {
        if state == .lingering { return close() }
        if let delegate { delegate.channelReadEOF(self) } else { close() }
    }

    private func advanceHandshake() {
        guard let tls else { return }
        do {
            let done = try tls.handshake()
            tls.drainCiphertext(into: &outbound)
            if done {
                state = .active
                if !pendingPlaintext.isEmpty {
                    let queued = pendingPlaintext
                    pendingPlaintext = []
                    write(queued)
                }
                flush()
                delegate?.channelActive(self)
            } else {
                flush()
            }
        } catch {
            tls.drainCiphertext(into: &outbound)
            flush()
            fail(NetError.tls(error.message))
        }
    }

    // MARK: Writing

    /// Queues plaintext and writes as much as the socket takes now.
    func write(_ bytes: [UInt8]) {
        switch state {
        case .connecting, .handshaking:
            pendingPlaintext.append(contentsOf: bytes)
            return
        case .lingering, .closed:
            return
        case .active:
            break
        }
        if let tls {
            do {
                try bytes.withUnsafeBytes { try tls.write($0) }
            } catch {
                return fail(NetError.tls("\(error)"))
            }
            tls.drainCiphertext(into: &outbound)
        } else if outbound.isEmpty {
            let sent = sendNow(bytes)
            guard sent >= 0 else { return }
            if sent < bytes.count { outbound.append(contentsOf: bytes[sent...]) }
        } else {
            outbound.append(contentsOf: bytes)
        }
        flush()
    }

    /// Writes what the socket takes now, without queueing; -1 if the channel failed.
    private func sendNow(_ bytes: [UInt8]) -> Int {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                break
            } else {
                fail(NetError.system("send", errno))
                return -1
            }
        }
        return sent
    }

    /// Bytes queued but not yet accepted by the kernel.
    var pendingWriteCount: Int { outbound.count - outboundStart }

    private func flush() {
        let before = outboundStart
        while outboundStart < outbound.count {
            let n = outbound.withUnsafeBytes {
                send(fd, $0.baseAddress! + outboundStart, $0.count - outboundStart, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                outboundStart += n
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                break
            } else {
                return fail(NetError.system("send", errno))
            }
        }
        let progressed = outboundStart > before
        if outboundStart == outbound.count {
            outbound = []  // drained: an idle connection keeps no write buffer
            outboundStart = 0
            if closeWhenFlushed && state != .lingering { finishClose() }
        }
        guard state != .closed else { return }
        updateInterest()
        applyBackPressure(progressed: progressed)
    }

    /// Feeds the queue size to the gate and acts on what it says.
    private func applyBackPressure(progressed: Bool) {
        let now = monotonicNanos()
        switch gate.update(pending: pendingWriteCount, progressed: progressed, now: now) {
        case .none:
            break
        case .becameFull:
            setPaused(.output, true)
            armStallTimer(now: now)
        case .drained:
            loop.cancelTimer(stallTimer)
            stallTimer = nil
            setPaused(.output, false)
            delegate?.channelDrained(self)
        case .overflowed:
            fail(NetError.outputOverflow(pendingWriteCount))
        }
    }

    private func armStallTimer(now: UInt64) {
        loop.cancelTimer(stallTimer)
        stallTimer = loop.scheduleTimer(after: .nanoseconds(Int64(gate.stallDeadline(now: now)))) { [weak self] in
            self?.stallTimerFired()
        }
    }

    private func stallTimerFired() {
        stallTimer = nil
        guard state != .closed, gate.isFull else { return }
        let now = monotonicNanos()
        if gate.isStalled(pending: pendingWriteCount, now: now) {
            return fail(NetError.writeStalled)
        }
        armStallTimer(now: now)
    }

    private func updateInterest() {
        guard state != .closed else { return }
        let writable = state == .connecting || outboundStart < outbound.count
        let readable = readPause.isEmpty || state == .lingering
        guard writable != writeInterest || readable != readInterest else { return }
        writeInterest = writable
        readInterest = readable
        loop.setInterest(fd, readable: readable, writable: writable)
    }

    // MARK: Closing

    /// Closes once queued bytes are written. With `linger`, the write side is shut and input is
    /// drained for up to two seconds first, so the peer reads our last response instead of a reset.
    func closeAfterFlush(linger: Bool = false) {
        guard isOpen else { return }
        if let tls, state == .active {
            tls.shutdown()
            tls.drainCiphertext(into: &outbound)
        }
        closeWhenFlushed = true
        lingerWhenFlushed = linger
        flush()
    }

    private func finishClose() {
        guard lingerWhenFlushed else { return close() }
        state = .lingering
        updateInterest()  // drain input even if reads were held back
        shutdown(fd, Int32(SHUT_WR))
        lingerTimer = loop.scheduleTimer(after: .seconds(2)) { [weak self] in self?.close() }
    }

    /// Closes now, dropping unwritten bytes.
    func close() { close(error: nil) }

    private func fail(_ error: any Error) {
        Log.debug(.core, "channel fd \(fd): \(error)")
        close(error: error)
    }

    private func close(error: (any Error)?) {
        guard state != .closed else { return }
        if let tls, state == .active, !closeWhenFlushed {
            tls.shutdown()
            tls.drainCiphertext(into: &outbound)
            if outboundStart < outbound.count {
                _ = outbound.withUnsafeBytes {
                    send(fd, $0.baseAddress! + outboundStart, $0.count - outboundStart, Int32(MSG_NOSIGNAL))
                }
            }
        }
        state = .closed
        loop.cancelTimer(lingerTimer)
        loop.cancelTimer(stallTimer)
        loop.deregister(fd)
        Glibc.close(fd)
        let delegate = self.delegate
        self.delegate = nil
        delegate?.channelClosed(self, error: error)
    }
}
