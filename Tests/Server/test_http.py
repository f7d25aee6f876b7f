"""The plain HTTP side of audiograph serve: /healthz, /metrics and the page, HEAD and other
methods, and plain HTTP to the WebSocket path."""
import http.client
import socket
import urllib.request


def test_health_and_metrics(server):
    body = urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/healthz", timeout=5).read().decode()
    assert body.strip() == "ready"
    metrics = urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/metrics", timeout=5).read().decode()
    for name in ["audiograph_sessions_active", "audiograph_sessions_total", "audiograph_sessions_refused_total",
                 "audiograph_audio_seconds_total", "audiograph_session_real_time_factor", "audiograph_errors_total"]:
        assert f"# TYPE {name} " in metrics, name
    page = urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/", timeout=5).read().decode()
    assert "<html" in page
    # HEAD: the head alone (a body after it was read as the next response), then the close.
    # Another method: 405 naming the two. Each request gets one connection, and is told so.
    for path in ["/healthz", "/metrics", "/"]:
        with socket.create_connection(("127.0.0.1", server.http_port), timeout=5) as s:
            s.sendall(f"HEAD {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            raw = b"".join(iter(lambda: s.recv(65536), b""))
        head, _, rest = raw.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 ") and b"Connection: close" in head and rest == b"", (path, raw[:300])
        length = int(next(line for line in head.split(b"\r\n") if line.startswith(b"Content-Length:")).split(b":")[1])
        assert length > 0, path
        for method in ["POST", "PUT", "DELETE"]:
            c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=5)
            c.request(method, path, body=b"x")
            r = c.getresponse()
            assert r.status == 405 and r.getheader("Allow") == "GET, HEAD" and method in r.read().decode(), (method, path)
            c.close()
    # Plain HTTP to the WebSocket path: 426 saying what it is (it was 404 Not Found).
    c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=5)
    c.request("GET", "/audiograph")
    r = c.getresponse()
    assert r.status == 426 and r.getheader("Upgrade") == "websocket" and "ws://HOST:PORT/audiograph" in r.read().decode()
    c.close()
