// CParleyLinux: layout-safe wrappers over the Linux calls that Swift's Glibc module does not
// import (epoll, eventfd, recvmmsg/sendmmsg, UDP GSO). Only ParleyNet imports this target.
// Every function returns what the underlying call returns (-1 with errno set on failure).
#ifndef CPARLEY_LINUX_H
#define CPARLEY_LINUX_H

#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/// epoll event bits (linux.c asserts they equal <sys/epoll.h>'s).
enum : uint32_t {
    PARLEY_EPOLLIN = 0x001,
    PARLEY_EPOLLOUT = 0x004,
    PARLEY_EPOLLERR = 0x008,
    PARLEY_EPOLLHUP = 0x010,
    PARLEY_EPOLLRDHUP = 0x2000,
};

/// epoll_ctl operations (linux.c asserts they equal <sys/epoll.h>'s).
enum : int32_t {
    PARLEY_EPOLL_CTL_ADD = 1,
    PARLEY_EPOLL_CTL_DEL = 2,
    PARLEY_EPOLL_CTL_MOD = 3,
};

/// Largest `max` parley_epoll_wait honours, and largest `count` parley_recvmmsg/sendmmsg honour
/// (larger requests are clamped; the return value says how many were done).
enum : int32_t {
    PARLEY_EPOLL_MAX_EVENTS = 1024,
    PARLEY_MMSG_MAX = 256,
};

/// One ready descriptor from parley_epoll_wait.
typedef struct {
    int32_t fd;
    uint32_t events;
} parley_epoll_ready;

/// epoll_create1(EPOLL_CLOEXEC).
int parley_epoll_create(void);

/// epoll_ctl(epfd, op, fd, {events, data.fd = fd}).
int parley_epoll_ctl(int epfd, int op, int fd, uint32_t events);

/// epoll_wait into `out` (up to min(max, PARLEY_EPOLL_MAX_EVENTS) entries); returns the count.
int parley_epoll_wait(int epfd, parley_epoll_ready *out, int max, int timeout_ms);

/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC).
int parley_eventfd(void);

/// recvmmsg over `count` (clamped to PARLEY_MMSG_MAX) headers, no timeout. On return, each
/// received header is copied back (msg_namelen, msg_controllen, msg_flags updated) and
/// `lengths[i]` holds its byte count. Returns the number of datagrams received.
int parley_recvmmsg(int fd, struct msghdr *headers, unsigned int *lengths, unsigned int count, int flags);

/// sendmmsg over `count` (clamped to PARLEY_MMSG_MAX) headers. If `sent_lengths_or_null` is not
/// NULL, its first n entries receive the bytes sent per datagram. Returns n, the number sent.
int parley_sendmmsg(int fd, struct msghdr *headers, unsigned int *sent_lengths_or_null, unsigned int count,
                    int flags);

/// 1 if the kernel accepts setsockopt(SOL_UDP, UDP_SEGMENT) on `fd` (UDP GSO), else 0.
/// Leaves the socket's segment size at 0 (GSO off unless a cmsg asks for it).
int parley_udp_gso_supported(int fd);

#ifdef __cplusplus
}
#endif

#endif
