import Glibc

/// epoll(7) and eventfd(2), which Swift's Glibc module does not import. They are resolved once with
/// `dlsym` and called through C function pointers, so no extra C target is needed.
enum LinuxSyscalls {
    typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    typealias MMsg = @convention(c) (Int32, UnsafeMutableRawPointer?, UInt32, Int32, UnsafeMutableRawPointer?) -> Int32

    nonisolated(unsafe) static let epollCreate1: EpollCreate1 = symbol("epoll_create1")
    nonisolated(unsafe) static let epollCtl: EpollCtl = symbol("epoll_ctl")
    nonisolated(unsafe) static let epollWait: EpollWait = symbol("epoll_wait")
    nonisolated(unsafe) static let eventfd: EventFD = symbol("eventfd")
    /// recvmmsg(2); the last argument is a `struct timespec *`.
    nonisolated(unsafe) static let recvmmsg: MMsg = symbol("recvmmsg")
    /// sendmmsg(2) has no timeout argument; the fifth parameter is ignored by passing nil.
    typealias SendMMsg = @convention(c) (Int32, UnsafeMutableRawPointer?, UInt32, Int32) -> Int32
    nonisolated(unsafe) static let sendmmsg: SendMMsg = symbol("sendmmsg")

    // <sys/epoll.h> and <sys/eventfd.h> constants (identical on all Linux architectures).
    static let EPOLLIN: UInt32 = 0x001
    static let EPOLLOUT: UInt32 = 0x004
    static let EPOLLERR: UInt32 = 0x008
    static let EPOLLHUP: UInt32 = 0x010
    static let EPOLLRDHUP: UInt32 = 0x2000
    static let EPOLL_CTL_ADD: Int32 = 1
    static let EPOLL_CTL_DEL: Int32 = 2
    static let EPOLL_CTL_MOD: Int32 = 3
    static let EPOLL_CLOEXEC = Int32(O_CLOEXEC)
    static let EFD_NONBLOCK = Int32(O_NONBLOCK)
    static let EFD_CLOEXEC = Int32(O_CLOEXEC)

    /// `struct epoll_event`: packed (12 bytes) on x86-64, naturally aligned (16 bytes) elsewhere.
    #if arch(x86_64)
    static let epollEventSize = 12
    static let epollDataOffset = 4
    #else
    static let epollEventSize = 16
    static let epollDataOffset = 8
    #endif

    /// `struct mmsghdr`: a `msghdr` then `unsigned int msg_len`, padded to pointer alignment.
    static let mmsghdrSize = (MemoryLayout<msghdr>.size + 4 + 7) & ~7
    static let mmsgLenOffset = MemoryLayout<msghdr>.size

    private static func symbol<F>(_ name: String) -> F {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else {
            fatalError("libc lacks \(name)")
        }
        return unsafeBitCast(pointer, to: F.self)
    }

    static func epollControl(_ epfd: Int32, _ op: Int32, _ fd: Int32, events: UInt32) -> Int32 {
        var raw = [UInt8](repeating: 0, count: 16)
        return raw.withUnsafeMutableBytes { buffer in
            buffer.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            buffer.storeBytes(of: UInt64(UInt32(bitPattern: fd)), toByteOffset: epollDataOffset, as: UInt64.self)
            return epollCtl(epfd, op, fd, buffer.baseAddress)
        }
    }
}

/// Monotonic nanoseconds (CLOCK_MONOTONIC).
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

extension Duration {
    var nanoseconds: UInt64 {
        let (s, a) = components
        return UInt64(max(0, s)) * 1_000_000_000 + UInt64(max(0, a / 1_000_000_000))
    }
}
