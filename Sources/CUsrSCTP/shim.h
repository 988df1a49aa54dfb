#ifndef PARLEY_CUSRSCTP_SHIM_H
#define PARLEY_CUSRSCTP_SHIM_H
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <usrsctp.h>

/* C helpers for the SCTP target: usrsctp's socket options and notifications are structures with
   flexible arrays and unions, simpler to fill and read here than from Swift. */

/* usrsctp without its own threads: timers run when the owner calls usrsctp_handle_timers. */
static inline void parley_sctp_init(int (*output)(void *, void *, size_t, uint8_t, uint8_t)) {
    usrsctp_init_nothreads(0, output, NULL);
    usrsctp_sysctl_set_sctp_ecn_enable(0);
    usrsctp_sysctl_set_sctp_asconf_enable(0);
    usrsctp_sysctl_set_sctp_auth_enable(0);
}

/* Non-blocking, no linger, stream reset on, no Nagle, receive info, the notifications data
   channels need, WebRTC's retransmission timeouts, 1024 streams each way (RFC 8831 §6.2), 1 MB
   buffers. 0 or the failing errno. */
static inline int parley_sctp_configure(struct socket *s) {
    if (usrsctp_set_non_blocking(s, 1) < 0) return errno;
    struct linger l = { 1, 0 };
    if (usrsctp_setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof l) < 0) return errno;
    struct sctp_assoc_value reset = { SCTP_ALL_ASSOC, SCTP_ENABLE_RESET_STREAM_REQ };
    if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &reset, sizeof reset) < 0) return errno;
    int on = 1;
    if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on) < 0) return errno;
    if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on) < 0) return errno;
    uint16_t events[] = { SCTP_ASSOC_CHANGE, SCTP_STREAM_RESET_EVENT, SCTP_SEND_FAILED_EVENT, SCTP_SHUTDOWN_EVENT };
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        struct sctp_event e = { SCTP_ALL_ASSOC, events[i], 1 };
        if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &e, sizeof e) < 0) return errno;
    }
    /* Retransmission timeouts for interactive paths, as WebRTC stacks use (RFC 9260's 1 s
       minimum would stall a data channel for a second on each tail loss): initial 1 s, min 200 ms,
       max 10 s. */
    struct sctp_rtoinfo rto = { SCTP_FUTURE_ASSOC, 1000, 10000, 200 };
    if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof rto) < 0) return errno;
    struct sctp_initmsg init = { 1024, 1024, 0, 0 };
    if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init) < 0) return errno;
    int size = 1024 * 1024;
    if (usrsctp_setsockopt(s, SOL_SOCKET, SO_RCVBUF, &size, sizeof size) < 0) return errno;
    if (usrsctp_setsockopt(s, SOL_SOCKET, SO_SNDBUF, &size, sizeof size) < 0) return errno;
    return 0;
}

/* Binds to local_port on the conn address `addr` and starts the association to remote_port
   (both ends connect: SCTP resolves the collision). 0, or the failing errno. */
static inline int parley_sctp_connect(struct socket *s, void *addr, uint16_t local_port, uint16_t remote_port) {
    struct sockaddr_conn sconn;
    memset(&sconn, 0, sizeof sconn);
    sconn.sconn_family = AF_CONN;
    sconn.sconn_port = htons(local_port);
    sconn.sconn_addr = addr;
    if (usrsctp_bind(s, (struct sockaddr *)&sconn, sizeof sconn) < 0) return errno;
    sconn.sconn_port = htons(remote_port);
    if (usrsctp_connect(s, (struct sockaddr *)&sconn, sizeof sconn) < 0 && errno != EINPROGRESS) return errno;
    return 0;
}

/* Fixes the path MTU toward the peer (no PMTU discovery over DTLS): `mtu` bytes of SCTP packet,
   so that with DTLS and UDP it fits a 1,280-byte IPv6 path, as browsers do. 0, or the errno. */
static inline int parley_sctp_set_mtu(struct socket *s, void *addr, uint16_t remote_port, uint32_t mtu) {
    struct sctp_paddrparams params;
    memset(&params, 0, sizeof params);
    struct sockaddr_conn *sconn = (struct sockaddr_conn *)&params.spp_address;
    sconn->sconn_family = AF_CONN;
    sconn->sconn_port = htons(remote_port);
    sconn->sconn_addr = addr;
    params.spp_flags = SPP_PMTUD_DISABLE;
    params.spp_pathmtu = mtu;
    if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &params, sizeof params) < 0) return errno;
    return 0;
}

/* Sends one message. policy: 0 reliable, SCTP_PR_SCTP_RTX (value = max retransmits) or
   SCTP_PR_SCTP_TTL (value = lifetime in ms). 0, or the failing errno (EAGAIN: buffer full). */
static inline int parley_sctp_send(struct socket *s, uint16_t sid, uint32_t ppid, const void *data, size_t length,
                                   int unordered, uint16_t policy, uint32_t value) {
    struct sctp_sendv_spa spa;
    memset(&spa, 0, sizeof spa);
    spa.sendv_flags = SCTP_SEND_SNDINFO_VALID;
    spa.sendv_sndinfo.snd_sid = sid;
    spa.sendv_sndinfo.snd_ppid = htonl(ppid);
    spa.sendv_sndinfo.snd_flags = SCTP_EOR | (unordered ? SCTP_UNORDERED : 0);
    if (policy != 0) {
        spa.sendv_flags |= SCTP_SEND_PRINFO_VALID;
        spa.sendv_prinfo.pr_policy = policy;
        spa.sendv_prinfo.pr_value = value;
    }
    if (usrsctp_sendv(s, data, length, NULL, 0, &spa, (socklen_t)sizeof spa, SCTP_SENDV_SPA, 0) < 0) return errno;
    return 0;
}

/* Resets the outgoing side of `count` streams (RFC 6525; closing data channels, RFC 8831 §6.7). */
static inline int parley_sctp_reset_streams(struct socket *s, const uint16_t *streams, uint16_t count) {
    size_t size = sizeof(struct sctp_reset_streams) + count * sizeof(uint16_t);
    struct sctp_reset_streams *srs = calloc(1, size);
    if (srs == NULL) return ENOMEM;
    srs->srs_assoc_id = SCTP_ALL_ASSOC;
    srs->srs_flags = SCTP_STREAM_RESET_OUTGOING;
    srs->srs_number_streams = count;
    memcpy(srs->srs_stream_list, streams, count * sizeof(uint16_t));
    int rc = usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RESET_STREAMS, srs, (socklen_t)size) < 0 ? errno : 0;
    free(srs);
    return rc;
}

/* Notifications, read where usrsctp put them. */
static inline uint16_t parley_sctp_notification_type(const void *data, size_t length) {
    if (length < sizeof(struct sctp_tlv)) return 0;
    return ((const union sctp_notification *)data)->sn_header.sn_type;
}
static inline uint16_t parley_sctp_assoc_state(const void *data, size_t length) {
    if (length < sizeof(struct sctp_assoc_change)) return 0;
    return ((const union sctp_notification *)data)->sn_assoc_change.sac_state;
}
/* The streams of a stream-reset event whose incoming side the peer reset (it closed them). */
static inline size_t parley_sctp_reset_incoming_streams(const void *data, size_t length, uint16_t *out, size_t capacity) {
    if (length < sizeof(struct sctp_stream_reset_event)) return 0;
    const struct sctp_stream_reset_event *e = &((const union sctp_notification *)data)->sn_strreset_event;
    if (!(e->strreset_flags & SCTP_STREAM_RESET_INCOMING_SSN)) return 0;
    if (e->strreset_flags & (SCTP_STREAM_RESET_DENIED | SCTP_STREAM_RESET_FAILED)) return 0;
    size_t n = (e->strreset_length - sizeof(struct sctp_stream_reset_event)) / sizeof(uint16_t);
    if (n > capacity) n = capacity;
    for (size_t i = 0; i < n; i++) out[i] = e->strreset_stream_list[i];
    return n;
}
#endif
