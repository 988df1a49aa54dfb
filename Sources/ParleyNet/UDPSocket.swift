import CParleyLinux
import Glibc
import ParleyCore

/// One UDP datagram and its peer.
public struct Datagram: Sendable {
    public var address: SocketAddress
    public var bytes: [UInt8]

    public init(address: SocketAddress, bytes: [UInt8]) {
        self.address = address
        self.bytes = bytes
    }
}

/// One received datagram, in place in the socket's receive buffer (see `UDPReceivedBatch`).
public struct UDPReceivedDatagram {
    public let address: SocketAddress
    /// The datagram's bytes, in the receive slot.
    public let bytes: UnsafeMutableRawBufferPointer
    /// The whole receive slot (`maxDatagramBytes`), starting at `bytes`: room to grow the datagram in
    /// place (an SRTP trailer, say).
    public let slot: UnsafeMutableRawBufferPointer
}

/// A `recvmmsg` batch still in the socket's preallocated buffers: valid only inside the receive
/// handler, on the loop thread (the next receive reuses the buffers). The handler may modify the
/// bytes in place. Nothing about it allocates.
public struct UDPReceivedBatch {
    fileprivate let buffers: RecvBatch
    /// How many datagrams were received.
    public let count: Int

    public subscript(index: Int) -> UDPReceivedDatagram {
        precondition(index >= 0 && index < count)
        return buffers.datagram(index)
    }
}

/// A nonblocking UDP socket on an event loop. Reads drain the socket in batches with `recvmmsg`
/// and sends go out in batches with `sendmmsg`; all batch buffers are allocated once, here.
///
/// Two ways to receive: `onReceive` gets each batch as `[Datagram]` (one array per datagram, easy
/// to keep); `onReceiveInPlace` gets a `UDPReceivedBatch` over the receive buffers (no allocation).
/// Two ways to send: `send(_:)` from any thread (hops to the loop; copies), or, on the loop
/// thread, `sendBatch` (`UDPSendBatch`: caller-written slots, one `sendmmsg` per `flush()`).
///
/// `@unchecked Sendable`: the batch buffers are loop-confined; `send` and `close` hop to the loop.
public final class UDPSocket: EventHandler, @unchecked Sendable {
    private enum Receiver {
        case copying(@Sendable ([Datagram]) -> Void)
        case inPlace(@Sendable (UDPReceivedBatch) -> Void)
    }

    public let loop: EventLoop
    let fd: Int32
    /// The bound port.
    public let localPort: Int
    private let receiver: Receiver
    private let batch: RecvBatch
    private var outgoing: UDPSendBatch!
    private var closed = false
    private var writableInterest = false

    /// Binds `host:port` (port 0 is ephemeral) and delivers received datagrams, a batch at a time, to
    /// `onReceive` on the loop thread (keep it short; hand work to a task if it is not).
    /// `sendBatchSize` slots of `maxDatagramBytes` are preallocated for `sendBatch`.
    public convenience init(host: String = "127.0.0.1", port: Int = 0, loop: EventLoop, batchSize: Int = 32,
                            maxDatagramBytes: Int = 2048, sendBatchSize: Int = 64,
                            onReceive: @escaping @Sendable ([Datagram]) -> Void) throws {
        try self.init(host: host, port: port, loop: loop, batchSize: batchSize, maxDatagramBytes: maxDatagramBytes,
                      sendBatchSize: sendBatchSize, receiver: .copying(onReceive))
    }

    /// Like `init(host:port:loop:batchSize:maxDatagramBytes:sendBatchSize:onReceive:)`, but each
    /// batch is delivered in place, in the receive buffers (valid only during the call, which is on
    /// the loop thread; the handler may rewrite the bytes). The zero-allocation receive path.
    /// (A factory rather than an init so that `UDPSocket(loop:) { _ in }` stays unambiguous.)
    public static func inPlace(host: String = "127.0.0.1", port: Int = 0, loop: EventLoop, batchSize: Int = 32,
                               maxDatagramBytes: Int = 2048, sendBatchSize: Int = 64,
                               onReceive: @escaping @Sendable (UDPReceivedBatch) -> Void) throws -> UDPSocket {
        try UDPSocket(host: host, port: port, loop: loop, batchSize: batchSize, maxDatagramBytes: maxDatagramBytes,
                      sendBatchSize: sendBatchSize, receiver: .inPlace(onReceive))
    }

    private init(host: String, port: Int, loop: EventLoop, batchSize: Int, maxDatagramBytes: Int, sendBatchSize: Int,
                 receiver: Receiver) throws {
        let address = try SocketAddress.resolve(host: host, port: port)
        let fd = try Socket.make(family: address.family, type: Int32(SOCK_DGRAM.rawValue))
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw NetError.system("bind \(address)", e)
        }
        self.fd = fd
        self.loop = loop
        self.receiver = receiver
        Self.setBufferSizes(fd, bytes: 4 << 20)
        localPort = SocketAddress.local(of: fd)?.port ?? 0
        batch = RecvBatch(count: batchSize, size: maxDatagramBytes)
        outgoing = UDPSendBatch(socket: self, loop: loop, capacity: sendBatchSize, maxDatagramBytes: maxDatagramBytes)
        loop.execute { [self] in
            do { try loop.register(fd, handler: self) } catch { Log.error(.core, "udp register: \(error)") }
        }
    }

    /// The socket's preallocated send batch. Loop thread only: append datagrams, then `flush()`.
    public var sendBatch: UDPSendBatch {
        loop.assertInLoop()
        return outgoing
    }

    /// Queues datagrams; they are sent on the loop with `sendmmsg` (through `sendBatch`, so they go
    /// out after anything already queued there).
    public func send(_ datagrams: [Datagram]) {
        loop.execute { [self] in sendNow(datagrams) }
    }

    /// Closes the socket.
    public func close() {
        loop.execute { [self] in closeNow() }
    }

    var isClosed: Bool { closed }

    /// Loop thread: watch for writability while the send batch is blocked on `EAGAIN`.
    func setWritableInterest(_ writable: Bool) {
        guard writable != writableInterest, !closed else { return }
        writableInterest = writable
        loop.setWritableInterest(fd, writable)
    }

    func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        guard !closed else { return }
        if writable { outgoing.flush() }
        guard readable else { return }
        for _ in 0..<8 {
            let n = batch.receive(fd)
            guard n > 0 else { return }
            switch receiver {
            case .copying(let onReceive): onReceive(batch.datagrams(n))
            case .inPlace(let onReceive): onReceive(UDPReceivedBatch(buffers: batch, count: n))
            }
            if closed || n < batch.count { return }
        }
    }

    func loopStopping() { closeNow() }

    private func closeNow() {
        guard !closed else { return }
        closed = true
        loop.deregister(fd)
        Glibc.close(fd)
    }

    private func sendNow(_ datagrams: [Datagram]) {
        guard !closed, !datagrams.isEmpty else { return }
        for datagram in datagrams { outgoing.append(datagram.bytes, to: datagram.address) }
        outgoing.flush()
    }
}

/// Preallocated `recvmmsg` buffers: one `msghdr`, length, `iovec`, address and payload slot per datagram.
final class RecvBatch {
    let count: Int
    let size: Int
    private let headers: UnsafeMutablePointer<msghdr>
    private let lengths: UnsafeMutablePointer<UInt32>
    private let iovecs: UnsafeMutablePointer<iovec>
    private let addresses: UnsafeMutablePointer<sockaddr_storage>
    private let payloads: UnsafeMutableRawPointer

    init(count: Int, size: Int) {
        self.count = min(count, LinuxSyscalls.mmsgMax)
        self.size = size
        headers = .allocate(capacity: self.count)
        headers.initialize(repeating: msghdr(), count: self.count)
        lengths = .allocate(capacity: self.count)
        lengths.initialize(repeating: 0, count: self.count)
        iovecs = .allocate(capacity: self.count)
        addresses = .allocate(capacity: self.count)
        payloads = .allocate(byteCount: self.count * size, alignment: 8)
    }

    deinit {
        headers.deallocate()
        lengths.deallocate()
        iovecs.deallocate()
        addresses.deallocate()
        payloads.deallocate()
    }

    /// Receives up to `count` datagrams without blocking; returns how many.
    func receive(_ fd: Int32) -> Int {
        for i in 0..<count {
            iovecs[i] = iovec(iov_base: payloads + i * size, iov_len: size)
            var header = msghdr()
            header.msg_name = UnsafeMutableRawPointer(addresses + i)
            header.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            header.msg_iov = iovecs + i
            header.msg_iovlen = 1
            headers[i] = header
            lengths[i] = 0
        }
        let n = LinuxSyscalls.recvmmsg(fd, headers, lengths: lengths, count: count, flags: Int32(MSG_DONTWAIT))
        return Int(max(n, 0))
    }

    func datagram(_ i: Int) -> UDPReceivedDatagram {
        let length = min(Int(lengths[i]), size)
        let base = payloads + i * size
        return UDPReceivedDatagram(address: SocketAddress(storage: addresses[i], length: headers[i].msg_namelen),
                                   bytes: UnsafeMutableRawBufferPointer(start: base, count: length),
                                   slot: UnsafeMutableRawBufferPointer(start: base, count: size))
    }

    func datagrams(_ n: Int) -> [Datagram] {
        (0..<n).map { i in
            let length = lengths[i]
            let header = headers[i]
            let bytes = Array(UnsafeRawBufferPointer(start: payloads + i * size, count: min(Int(length), size)))
            return Datagram(address: SocketAddress(storage: addresses[i], length: header.msg_namelen), bytes: bytes)
        }
    }
}

extension UDPSocket {
    /// Asks for `bytes` of kernel receive and send buffer (the 208 KB default holds ~4 ms of a
    /// busy media socket); as root the `…FORCE` options pass `rmem_max`, otherwise the kernel caps it.
    static func setBufferSizes(_ fd: Int32, bytes: Int) {
        var size = Int32(clamping: bytes)
        let length = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, length) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, length)
        }
        if setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, length) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, length)
        }
    }
}
