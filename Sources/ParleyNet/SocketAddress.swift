import Glibc
import Synchronization

/// An IPv4 or IPv6 socket address.
///
/// `Hashable` by value: family, port and address bytes (plus the scope id for IPv6; the flow label
/// and padding are ignored), so it can key dictionaries on the packet path. Nothing here allocates
/// except `description` and `resolve`.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// Resolves `host` (a name or literal) with getaddrinfo; prefers the first result. This may block
    /// on DNS, so call it from a task, never on an event loop.
    public static func resolve(host: String, port: Int) throws(NetError) -> SocketAddress {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result,
              let addr = first.pointee.ai_addr else {
            throw .resolve(host)
        }
        defer { freeaddrinfo(result) }
        var storage = sockaddr_storage()
        let length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: addr, count: Int(length)))
        }
        return SocketAddress(storage: storage, length: length)
    }

    /// `AF_INET` or `AF_INET6`.
    public var family: Int32 { Int32(storage.ss_family) }

    /// True for an IPv6 address.
    public var isIPv6: Bool { family == AF_INET6 }

    /// The size of the `sockaddr_in`/`sockaddr_in6` at the start of `rawStorage`.
    public var rawLength: Int { Int(length) }

    /// The underlying `sockaddr_storage` (a copy; `sockaddr_in` or `sockaddr_in6` at its start).
    public var rawStorage: sockaddr_storage { storage }

    /// The `sockaddr` as `rawLength` bytes, without copying or allocating.
    public func withUnsafeSockaddrBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes(of: storage) { raw throws(E) -> R in
            try body(UnsafeRawBufferPointer(rebasing: raw[0..<min(Int(length), raw.count)]))
        }
    }

    /// The IP address in network byte order: 4 bytes for IPv4, 16 for IPv6 (empty for any other
    /// family), without copying or allocating.
    public func withUnsafeIPBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes(of: storage) { raw throws(E) -> R in
            try body(UnsafeRawBufferPointer(rebasing: raw[Self.ipRange(family)]))
        }
    }

    /// From 4 (IPv4) or 16 (IPv6) address bytes in network order and a port; nil for any other
    /// count. Builds the `sockaddr` directly (no getaddrinfo, no allocation).
    public init?(ipBytes: UnsafeRawBufferPointer, port: Int) {
        guard ipBytes.count == 4 || ipBytes.count == 16, (0...65535).contains(port) else { return nil }
        var storage = sockaddr_storage()
        let family = ipBytes.count == 4 ? AF_INET : AF_INET6
        let length = ipBytes.count == 4 ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.storeBytes(of: sa_family_t(family), toByteOffset: 0, as: sa_family_t.self)
            raw[2] = UInt8(truncatingIfNeeded: port >> 8)
            raw[3] = UInt8(truncatingIfNeeded: port)
            UnsafeMutableRawBufferPointer(rebasing: raw[Self.ipRange(family)]).copyMemory(from: ipBytes)
        }
        self.init(storage: storage, length: socklen_t(length))
    }

    /// Where the address bytes sit in `sockaddr_in` (`sin_addr`, offset 4) or `sockaddr_in6`
    /// (`sin6_addr`, offset 8).
    private static func ipRange(_ family: Int32) -> Range<Int> {
        switch family {
        case AF_INET: 4..<8
        case AF_INET6: 8..<24
        default: 0..<0
        }
    }

    /// `sin6_scope_id` (offset 24), or 0 for IPv4.
    private var scopeID: UInt32 {
        guard family == AF_INET6 else { return 0 }
        return withUnsafeBytes(of: storage) { $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self) }
    }

    public static func == (a: SocketAddress, b: SocketAddress) -> Bool {
        guard a.family == b.family, a.port == b.port, a.scopeID == b.scopeID else { return false }
        return withUnsafeBytes(of: a.storage) { x in
            withUnsafeBytes(of: b.storage) { y in
                let range = ipRange(a.family)
                return range.isEmpty
                    ? x[0..<min(Int(a.length), x.count)].elementsEqual(y[0..<min(Int(b.length), y.count)])
                    : x[range].elementsEqual(y[range])
            }
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(family)
        hasher.combine(port)
        hasher.combine(scopeID)
        withUnsafeIPBytes { hasher.combine(bytes: $0) }
    }

    /// The port in host byte order.
    public var port: Int {
        withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port share offset 2 in network order.
            Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
        }
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        withUnsafeBytes(of: storage) { raw in
            let offset = family == AF_INET6 ? 8 : 4
            _ = inet_ntop(family, raw.baseAddress! + offset, &buffer, socklen_t(buffer.count))
        }
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }

    /// The remote address of a connected socket.
    static func peer(of fd: Int32) -> SocketAddress? { query(fd, getpeername) }

    /// The IP address bytes alone (no port), e.g. to count connections per source address.
    public var ipBytes: [UInt8] { withUnsafeIPBytes { Array($0) } }

    /// The local address of a bound socket.
    static func local(of fd: Int32) -> SocketAddress? { query(fd, getsockname) }

    private static func query(_ fd: Int32, _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32)
        -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutableBytes(of: &storage) { call(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length) }
        return rc == 0 ? SocketAddress(storage: storage, length: length) : nil
    }
}

/// Thin POSIX socket helpers; every socket is nonblocking and close-on-exec.
enum Socket {
    static func make(family: Int32, type: Int32) throws(NetError) -> Int32 {
        let fd = socket(family, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        return fd
    }

    /// A listening TCP socket bound to `host:port` (port 0 picks an ephemeral port).
    static func listen(host: String, port: Int, backlog: Int32 = 511) throws(NetError) -> Int32 {
        let address = try SocketAddress.resolve(host: host, port: port)
        let fd = try make(family: address.family, type: Int32(SOCK_STREAM.rawValue))
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockaddr { bind(fd, $0, $1) }
        guard bound == 0 else { let e = errno; close(fd); throw .system("bind \(address)", e) }
        guard Glibc.listen(fd, backlog) == 0 else { let e = errno; close(fd); throw .system("listen", e) }
        return fd
    }

    /// Starts a nonblocking connect; completion is signalled by writability.
    static func connect(to address: SocketAddress) throws(NetError) -> Int32 {
        let fd = try make(family: address.family, type: Int32(SOCK_STREAM.rawValue))
        let rc = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if rc != 0 && errno != EINPROGRESS { let e = errno; close(fd); throw .system("connect \(address)", e) }
        setNoDelay(fd)
        return fd
    }

    /// Descriptors kept free for everything but accepted connections (files, UDP, pipes, the
    /// runtime's own): a server that used its last descriptor on a client could not open a
    /// database or a recording, and libdispatch traps when it cannot read /proc.
    static let acceptCeiling: Int32 = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 - 128 }
        let soft = limit.rlim_cur == rlim_t.max ? 1 << 20 : Int(limit.rlim_cur)
        return Int32(clamping: max(64, soft - max(128, soft / 20)))
    }()

    /// Accepts one pending connection as a nonblocking socket; nil when none is pending. A
    /// connection that would take one of the reserved descriptors is closed at once (the client
    /// sees a reset) and counted as refused.
    static func accept(_ listener: Int32) throws(NetError) -> Int32? {
        let fd = Glibc.accept(listener, nil, nil)
        if fd < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED { return nil }
            if errno == EMFILE || errno == ENFILE { return nil }
            throw .system("accept", errno)
        }
        if fd >= acceptCeiling {
            Glibc.close(fd)
            refusedForDescriptors.add(1, ordering: .relaxed)
            return nil
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        setNoDelay(fd)
        return fd
    }

    /// Connections closed at accept because the descriptor reserve was reached.
    static let refusedForDescriptors = Atomic<Int>(0)

    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The pending error of a socket (after a nonblocking connect).
    static func pendingError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        return error
    }
}

/// Process-wide limits a server adjusts at start.
public enum ProcessLimits {
    /// Raises the soft descriptor limit to the hard one (done once by servers at start); returns
    /// the soft limit in force.
    @discardableResult
    public static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(limit.rlim_cur)
    }
}
