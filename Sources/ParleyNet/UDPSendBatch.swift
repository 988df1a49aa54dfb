import CParleyLinux
import Glibc
import ParleyCore

/// A preallocated ring of outgoing datagrams for one `UDPSocket`, sent with `sendmmsg`.
///
/// Every buffer — `capacity` payload slots of `maxDatagramBytes`, one `msghdr`, `iovec` and
/// `sockaddr_storage` per slot — is allocated once, with the socket. Queuing a datagram writes its
/// bytes into the next slot (`append(bytes:to:)`, one copy) or lets the caller build it there
/// (`withUnsafeSlot(to:_:)`, no copy); `flush()` hands everything queued to the kernel in as few
/// `sendmmsg` calls as the ring's wrap-around allows (usually one). Nothing allocates per datagram.
///
/// **Loop-confined**: use it only on the socket's event-loop thread (for example inside the
/// socket's receive handler, flushing once per receive batch). It is reached through
/// `UDPSocket.sendBatch`.
///
/// **Back-pressure** (`EAGAIN`): datagrams the kernel did not take stay queued, in order, and the
/// socket asks the loop for writability; when the socket becomes writable the rest is flushed and
/// the interest dropped. While blocked, new datagrams queue behind them; when the ring is full a
/// datagram is dropped (`statistics.droppedFull`), as a router would. Other send errors (an
/// unreachable destination, `EMSGSIZE`) drop the one datagram the kernel rejected
/// (`statistics.sendErrors`) and carry on with the rest.
public final class UDPSendBatch {
    /// Counters for this socket's batch (loop thread).
    public struct Statistics: Sendable, Hashable {
        /// Datagrams the kernel accepted.
        public var sent = 0
        /// `sendmmsg` calls made.
        public var syscalls = 0
        /// Datagrams dropped because the ring was full (kernel back-pressure or no flush).
        public var droppedFull = 0
        /// Datagrams dropped because they did not fit a slot.
        public var droppedOversize = 0
        /// Datagrams the kernel rejected with an error other than `EAGAIN`.
        public var sendErrors = 0
        /// Flushes that stopped on `EAGAIN` and left datagrams queued.
        public var wouldBlock = 0

        public init() {}
    }

    /// How many datagrams can be queued.
    public let capacity: Int
    /// The largest datagram a slot holds.
    public let maxDatagramBytes: Int
    public private(set) var statistics = Statistics()

    private let headers: UnsafeMutablePointer<msghdr>
    private let iovecs: UnsafeMutablePointer<iovec>
    private let addresses: UnsafeMutablePointer<sockaddr_storage>
    private let payloads: UnsafeMutableRawPointer
    /// First queued slot, and how many are queued.
    private var head = 0
    private var queued = 0
    /// The owning socket, which keeps this batch alive (so the batch must not outlive it: reach it
    /// through `UDPSocket.sendBatch` and keep the socket, not the batch).
    private unowned(unsafe) let socket: UDPSocket
    private let loop: EventLoop

    init(socket: UDPSocket, loop: EventLoop, capacity: Int, maxDatagramBytes: Int) {
        self.socket = socket
        self.loop = loop
        self.capacity = max(1, capacity)
        self.maxDatagramBytes = max(1, maxDatagramBytes)
        headers = .allocate(capacity: self.capacity)
        headers.initialize(repeating: msghdr(), count: self.capacity)
        iovecs = .allocate(capacity: self.capacity)
        addresses = .allocate(capacity: self.capacity)
        addresses.initialize(repeating: sockaddr_storage(), count: self.capacity)
        payloads = .allocate(byteCount: self.capacity * self.maxDatagramBytes, alignment: 16)
        for i in 0..<self.capacity {
            iovecs[i] = iovec(iov_base: payloads + i * self.maxDatagramBytes, iov_len: 0)
            headers[i].msg_name = UnsafeMutableRawPointer(addresses + i)
            headers[i].msg_iov = iovecs + i
            headers[i].msg_iovlen = 1
        }
    }

    deinit {
        headers.deallocate()
        iovecs.deallocate()
        addresses.deallocate()
        payloads.deallocate()
    }

    /// Datagrams queued and not yet accepted by the kernel.
    public var count: Int { queued }

    /// True when no more datagrams fit until a flush (or writability) drains some.
    public var isFull: Bool { queued == capacity }

    /// Queues a copy of `bytes` for `address`. Returns false (and counts it) if it was dropped:
    /// larger than a slot, or the ring is full even after an attempt to flush.
    @discardableResult
    public func append(bytes: UnsafeRawBufferPointer, to address: SocketAddress) -> Bool {
        guard bytes.count <= maxDatagramBytes else {
            statistics.droppedOversize += 1
            return false
        }
        return withUnsafeSlot(to: address) { slot in
            if let base = bytes.baseAddress, !bytes.isEmpty { slot.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
            return bytes.count
        }
    }

    /// `append(bytes:to:)` for an array.
    @discardableResult
    public func append(_ bytes: [UInt8], to address: SocketAddress) -> Bool {
        bytes.withUnsafeBytes { append(bytes: $0, to: address) }
    }

    /// Lets `body` write one datagram for `address` straight into the next free slot
    /// (`maxDatagramBytes` long) and return its length; the datagram is queued if the length is in
    /// `0...maxDatagramBytes`. Return a negative length to queue nothing (the slot is reused).
    /// `body` is not called — and false is returned — when the ring is full even after an attempt
    /// to flush. Returns whether a datagram was queued.
    @discardableResult
    public func withUnsafeSlot(to address: SocketAddress, _ body: (UnsafeMutableRawBufferPointer) -> Int) -> Bool {
        loop.assertInLoop()
        if queued == capacity {
            flush()
            if queued == capacity {
                statistics.droppedFull += 1
                return false
            }
        }
        let index = (head + queued) % capacity
        let slot = UnsafeMutableRawBufferPointer(start: payloads + index * maxDatagramBytes, count: maxDatagramBytes)
        let length = body(slot)
        guard length >= 0 else { return false }
        guard length <= maxDatagramBytes else {
            statistics.droppedOversize += 1
            return false
        }
        addresses[index] = address.storage
        headers[index].msg_namelen = address.length
        iovecs[index].iov_len = length
        queued += 1
        return true
    }

    /// Sends everything queued with `sendmmsg` (one call unless the ring wraps or the kernel takes
    /// fewer). On `EAGAIN` the rest stays queued and the socket waits for writability.
    public func flush() {
        loop.assertInLoop()
        guard queued > 0 else { return }
        guard !socket.isClosed else {
            head = 0
            queued = 0
            return
        }
        while queued > 0 {
            let run = min(queued, capacity - head)
            let n = Int(LinuxSyscalls.sendmmsg(socket.fd, headers + head, count: run, flags: Int32(MSG_NOSIGNAL)))
            statistics.syscalls += 1
            if n > 0 {
                statistics.sent += n
                consume(n)
                continue
            }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                statistics.wouldBlock += 1
                socket.setWritableInterest(true)
                return
            }
            // sendmmsg failed on the first datagram of the run: drop it, keep going.
            statistics.sendErrors += 1
            Log.debug(.core, "sendmmsg: errno \(error), dropping one datagram")
            consume(1)
        }
        head = 0
        socket.setWritableInterest(false)
    }

    private func consume(_ n: Int) {
        head = (head + n) % capacity
        queued -= n
    }
}
