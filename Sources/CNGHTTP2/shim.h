#ifndef PARLEY_CNGHTTP2_SHIM_H
#define PARLEY_CNGHTTP2_SHIM_H
/* libnghttp2 (HTTP/2 framing, HPACK, session state; no I/O), under ParleyNet's HTTP2Client. Chosen by
   measurement; see docs/ARCHITECTURE.md "Own code or a library". */
#include <nghttp2/nghttp2.h>
#endif
