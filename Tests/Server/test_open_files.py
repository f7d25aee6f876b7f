"""Open files (`ulimit -n`): a server started under a soft limit too low for its connections
raises it; one that cannot (the hard limit) says so at start and when it runs out.

Before, under `ulimit -n 48` 100 connections held open made civetweb spin on its listening
socket (5.0 s of CPU in 5 s) and Wyoming clients past the limit waited, unanswered, with
nothing in the log.
"""
import json
import socket
import time
import urllib.request

from conftest import Server, raw_connection


def describe(port):
    """A Wyoming describe on a connection of its own: the info event's type."""
    s, reader = raw_connection(port)
    try:
        s.sendall(b'{"type": "describe"}\n')
        return json.loads(reader.readline())["type"]
    finally:
        s.close()


def soft_limit(pid):
    with open(f"/proc/{pid}/limits") as f:
        return int(next(line for line in f if line.startswith("Max open files")).split()[3])


def test_a_low_soft_limit_is_raised_for_the_connections_allowed():
    # --max-connections 150: 2 x 150 + 16 + 20 + 64 descriptors needed.
    s = Server("--max-sessions", "4", "--max-connections", "150", open_files=(64, 4096))
    held = []
    try:
        assert soft_limit(s.proc.pid) == 400
        assert "open files" not in s.text()
        # Idle connections past the old limit, held open while a client is served on each protocol.
        held = [socket.create_connection(("127.0.0.1", s.wyoming_port), timeout=10) for _ in range(60)]
        held += [socket.create_connection(("127.0.0.1", s.http_port), timeout=10) for _ in range(60)]
        assert describe(s.wyoming_port) == "info"
        assert urllib.request.urlopen(f"http://127.0.0.1:{s.http_port}/healthz", timeout=10).status == 200
    finally:
        for c in held:
            c.close()
        s.stop()


def test_a_hard_limit_too_low_is_said_at_start_and_when_it_runs_out():
    s = Server("--max-sessions", "4", open_files=(48, 48))
    held = []
    try:
        assert "serve: warning: at most 48 open files (ulimit -n; the hard limit is 48)" in s.text()
        held = [socket.create_connection(("127.0.0.1", s.wyoming_port), timeout=10) for _ in range(60)]
        for _ in range(100):
            if "wyoming: out of open files" in s.text():
                break
            time.sleep(0.05)
        assert "wyoming: out of open files (ulimit -n)" in s.text()
        for c in held:
            c.close()
        held = []
        assert describe(s.wyoming_port) == "info"  # served again once connections close
    finally:
        for c in held:
            c.close()
        s.stop()
