// civetweb (Debian's libcivetweb-dev 1.15): HTTP, WebSocket framing and TLS for audiograph serve.
#include <civetweb.h>
