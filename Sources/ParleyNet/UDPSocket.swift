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

/// A nonblocking UDP socket on an event loop. Reads drain the socket in batches with `recvmmsg`
/// and sends go out in batches with `sendmmsg`; the batch buffers are allocated once.
///
/// `@unchecked Sendable`: the batch buffers are loop-confined; `send` and `close` hop to the loop.
public final class UDPSocket: EventHandler, @unchecked Sendable {
    public let loop: EventLoop
    let fd: Int32
    /// The bound port.
    public let localPort: Int
    private let onReceive: @Sendable ([Datagram]) -> Void
    private let batch: RecvBatch
    private var closed = false

    /// Binds `host:port` (port 0 is ephemeral) and delivers received datagrams, a batch at a time, to
    /// `onReceive` on the loop thread (keep it short; hand work to a task if it is not).
    public init(host: String = "127.0.0.1", port: Int = 0, loop: EventLoop, batchSize: Int = 32,
                maxDatagramBytes: Int = 2048, onReceive: @escaping @Sendable ([Datagram]) -> Void) throws {
        let address = try SocketAddress.resolve(host: host, port: port)
        let fd = try Socket.make(family: address.family, type: Int32(SOCK_DGRAM.rawValue))
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw NetError.system("bind \(address)", e)
        }
        self.fd = fd
        self.loop = loop
        self.onReceive = onReceive
        localPort = SocketAddress.local(of: fd)?.port ?? 0
        batch = RecvBatch(count: batchSize, size: maxDatagramBytes)
        loop.execute { [self] in
            do { try loop.register(fd, handler: self) } catch { Log.error(.core, "udp register: \(error)") }
        }
    }

    /// Queues datagrams; they are sent on the loop with `sendmmsg`.
    public func send(_ datagrams: [Datagram]) {
        loop.execute { [self] in sendNow(datagrams) }
    }

    /// Closes the socket.
    public func close() {
        loop.execute { [self] in closeNow() }
    }

    func handleEvent(readable: Bool, writable: Bool, hangup: Bool) {
        guard readable, !closed else { return }
        for _ in 0..<8 {
            let n = batch.receive(fd)
            guard n > 0 else { return }
            onReceive(batch.datagrams(n))
            if n < batch.count { return }
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
        var addresses = datagrams.map(\.address.storage)
        let count = datagrams.count
        let total = datagrams.reduce(0) { $0 + $1.bytes.count }
        let headers = UnsafeMutablePointer<msghdr>.allocate(capacity: count)
        let iovecs = UnsafeMutablePointer<iovec>.allocate(capacity: count)
        let payloads = UnsafeMutableRawPointer.allocate(byteCount: max(total, 1), alignment: 8)
        defer { headers.deallocate(); iovecs.deallocate(); payloads.deallocate() }
        var offset = 0
        headers.initialize(repeating: msghdr(), count: count)
        addresses.withUnsafeMutableBufferPointer { addressBuffer in
            for i in 0..<count {
                let bytes = datagrams[i].bytes
                bytes.withUnsafeBytes { if let base = $0.baseAddress { (payloads + offset).copyMemory(from: base, byteCount: $0.count) } }
                iovecs[i] = iovec(iov_base: payloads + offset, iov_len: bytes.count)
                offset += bytes.count
                var header = msghdr()
                header.msg_name = UnsafeMutableRawPointer(addressBuffer.baseAddress! + i)
                header.msg_namelen = datagrams[i].address.length
                header.msg_iov = iovecs + i
                header.msg_iovlen = 1
                headers[i] = header
            }
            var sent = 0
            while sent < count {
                let n = LinuxSyscalls.sendmmsg(fd, headers + sent, count: count - sent, flags: Int32(MSG_NOSIGNAL))
                if n <= 0 { Log.debug(.core, "sendmmsg: errno \(errno)"); break }
                sent += Int(n)
            }
        }
    }
}

/// Preallocated `recvmmsg` buffers: one `msghdr`, length, `iovec`, address and payload slot per datagram.
private final class RecvBatch {
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

    func datagrams(_ n: Int) -> [Datagram] {
        (0..<n).map { i in
            let length = lengths[i]
            let header = headers[i]
            let bytes = Array(UnsafeRawBufferPointer(start: payloads + i * size, count: min(Int(length), size)))
            return Datagram(address: SocketAddress(storage: addresses[i], length: header.msg_namelen), bytes: bytes)
        }
    }
}
