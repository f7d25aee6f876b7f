// libwebsockets (Debian's libwebsockets-dev 4.1): the WebSocket client of AudioGraphClient,
// TLS through OpenSSL with the server's certificate and name verified.
#include <libwebsockets.h>
#include <openssl/x509.h>

/// The headroom lws_write needs before a frame's payload (LWS_PRE, a macro Swift cannot read).
static inline size_t ag_lws_pre(void) { return LWS_PRE; }
