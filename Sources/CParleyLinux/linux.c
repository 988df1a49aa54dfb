#define _GNU_SOURCE
#include "CParleyLinux.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

_Static_assert(PARLEY_EPOLLIN == EPOLLIN, "EPOLLIN");
_Static_assert(PARLEY_EPOLLOUT == EPOLLOUT, "EPOLLOUT");
_Static_assert(PARLEY_EPOLLERR == EPOLLERR, "EPOLLERR");
_Static_assert(PARLEY_EPOLLHUP == EPOLLHUP, "EPOLLHUP");
_Static_assert(PARLEY_EPOLLRDHUP == EPOLLRDHUP, "EPOLLRDHUP");
_Static_assert(PARLEY_EPOLL_CTL_ADD == EPOLL_CTL_ADD, "EPOLL_CTL_ADD");
_Static_assert(PARLEY_EPOLL_CTL_DEL == EPOLL_CTL_DEL, "EPOLL_CTL_DEL");
_Static_assert(PARLEY_EPOLL_CTL_MOD == EPOLL_CTL_MOD, "EPOLL_CTL_MOD");

int parley_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int parley_epoll_ctl(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &event);
}

int parley_epoll_wait(int epfd, parley_epoll_ready *out, int max, int timeout_ms) {
    if (out == NULL || max <= 0) {
        errno = EINVAL;
        return -1;
    }
    if (max > PARLEY_EPOLL_MAX_EVENTS) max = PARLEY_EPOLL_MAX_EVENTS;
    struct epoll_event events[PARLEY_EPOLL_MAX_EVENTS];
    int n = epoll_wait(epfd, events, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        out[i].fd = events[i].data.fd;
        out[i].events = events[i].events;
    }
    return n;
}

int parley_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int parley_recvmmsg(int fd, struct msghdr *headers, unsigned int *lengths, unsigned int count, int flags) {
    if (headers == NULL || lengths == NULL || count == 0) {
        errno = EINVAL;
        return -1;
    }
    if (count > PARLEY_MMSG_MAX) count = PARLEY_MMSG_MAX;
    struct mmsghdr batch[PARLEY_MMSG_MAX];
    for (unsigned int i = 0; i < count; i++) {
        batch[i].msg_hdr = headers[i];
        batch[i].msg_len = 0;
    }
    int n = recvmmsg(fd, batch, count, flags, NULL);
    for (int i = 0; i < n; i++) {
        headers[i] = batch[i].msg_hdr;
        lengths[i] = batch[i].msg_len;
    }
    return n;
}

int parley_sendmmsg(int fd, struct msghdr *headers, unsigned int *sent_lengths_or_null, unsigned int count,
                    int flags) {
    if (headers == NULL || count == 0) {
        errno = EINVAL;
        return -1;
    }
    if (count > PARLEY_MMSG_MAX) count = PARLEY_MMSG_MAX;
    struct mmsghdr batch[PARLEY_MMSG_MAX];
    for (unsigned int i = 0; i < count; i++) {
        batch[i].msg_hdr = headers[i];
        batch[i].msg_len = 0;
    }
    int n = sendmmsg(fd, batch, count, flags);
    if (sent_lengths_or_null != NULL) {
        for (int i = 0; i < n; i++) sent_lengths_or_null[i] = batch[i].msg_len;
    }
    return n;
}

int parley_udp_gso_supported(int fd) {
    int size = 0;
    return setsockopt(fd, SOL_UDP, UDP_SEGMENT, &size, sizeof size) == 0 ? 1 : 0;
}
