import CParleyLinux
import Glibc
import ParleyCore

/// epoll(7), eventfd(2) and recvmmsg/sendmmsg(2), which Swift's Glibc module does not import.
/// They come from the `CParleyLinux` C target, whose functions take and return plain values
/// (no `struct epoll_event` or `struct mmsghdr` crosses into Swift), so nothing here depends on
/// kernel struct layouts.
enum LinuxSyscalls {
    static let EPOLLIN = UInt32(PARLEY_EPOLLIN)
    static let EPOLLOUT = UInt32(PARLEY_EPOLLOUT)
    static let EPOLLERR = UInt32(PARLEY_EPOLLERR)
    static let EPOLLHUP = UInt32(PARLEY_EPOLLHUP)
    static let EPOLLRDHUP = UInt32(PARLEY_EPOLLRDHUP)
    static let EPOLL_CTL_ADD = Int32(PARLEY_EPOLL_CTL_ADD)
    static let EPOLL_CTL_DEL = Int32(PARLEY_EPOLL_CTL_DEL)
    static let EPOLL_CTL_MOD = Int32(PARLEY_EPOLL_CTL_MOD)
    /// The most events one `epollWait` returns, and the most datagrams one `recvmmsg`/`sendmmsg` moves.
    static let epollMaxEvents = Int(PARLEY_EPOLL_MAX_EVENTS)
    static let mmsgMax = Int(PARLEY_MMSG_MAX)

    /// epoll_create1(EPOLL_CLOEXEC).
    static func epollCreate() -> Int32 { parley_epoll_create() }

    /// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC).
    static func eventFD() -> Int32 { parley_eventfd() }

    /// epoll_ctl with `data.fd = fd`; allocation-free.
    static func epollControl(_ epfd: Int32, _ op: Int32, _ fd: Int32, events: UInt32) -> Int32 {
        parley_epoll_ctl(epfd, op, fd, events)
    }

    /// epoll_wait into `events` (up to its count, capped at `epollMaxEvents`); returns the number ready.
    static func epollWait(_ epfd: Int32, into events: UnsafeMutableBufferPointer<parley_epoll_ready>,
                          timeoutMillis: Int32) -> Int32 {
        guard let base = events.baseAddress, !events.isEmpty else { return 0 }
        return parley_epoll_wait(epfd, base, Int32(min(events.count, epollMaxEvents)), timeoutMillis)
    }

    /// recvmmsg(2) over `count` headers; `lengths[i]` receives each datagram's size and received
    /// headers are updated in place (`msg_namelen`, `msg_flags`). Returns the number received.
    static func recvmmsg(_ fd: Int32, _ headers: UnsafeMutablePointer<msghdr>, lengths: UnsafeMutablePointer<UInt32>,
                         count: Int, flags: Int32) -> Int32 {
        parley_recvmmsg(fd, headers, lengths, UInt32(min(count, mmsgMax)), flags)
    }

    /// sendmmsg(2) over `count` headers (at most `mmsgMax` per call); returns the number sent.
    static func sendmmsg(_ fd: Int32, _ headers: UnsafeMutablePointer<msghdr>, count: Int, flags: Int32) -> Int32 {
        parley_sendmmsg(fd, headers, nil, UInt32(min(count, mmsgMax)), flags)
    }
}

/// `SystemClock` in nanoseconds, as the timer queue and idle checks count.
func monotonicNanos() -> UInt64 { UInt64(SystemClock.now.nanoseconds) }

extension Duration {
    /// Whole nanoseconds, negative durations as zero (timer deadlines).
    var nanoseconds: UInt64 { UInt64(max(0, wholeNanoseconds)) }
}
