"""`audiograph serve`'s own faults: each bad flag, graphs folder, keys file or socket path is one line on
stderr naming it, and the process exits without listening."""
import json
import os
import socket
import subprocess
import tempfile

import pytest
import websockets

from conftest import BINARY, ROOT, Server, run


def serve(*args):
    return subprocess.run([BINARY, "serve", "--graphs", os.path.join(ROOT, "Graphs"), *args],
                          capture_output=True, text=True, timeout=30)


def keys_file(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False)
    f.write(text)
    f.close()
    return f.name


@pytest.mark.parametrize("args,names", [
    (["--graphs", "/nonexistent"], "--graphs /nonexistent"),
    (["--wyoming", "udp://127.0.0.1:1"], "--wyoming udp://127.0.0.1:1"),
    (["--wyoming", "tcp://nohost:1"], "--wyoming tcp://nohost:1"),
    (["--http", "nonsense"], "--http nonsense"),
    # Debian's civetweb has no IPv6: before, "cannot listen (port in use, or not an address of this machine)"
    (["--http", "[::1]:2700"], "--http [::1]:2700: this civetweb has no IPv6"),
    (["--wyoming", "tcp://[::1]:10300"], "is not an IPv4 address"),
    (["--max-sessions", "0"], "--max-sessions 0"),
    # counts are whole: before, 2.5 was taken as 2
    (["--max-sessions", "2.5"], "--max-sessions 2.5: expected a whole number from 1 to 10000"),
    (["--max-message", "2048.5"], "--max-message 2048.5: expected a whole number"),
    (["--idle-timeout", "0"], "--idle-timeout 0: expected a number from 1 to 86400"),
    (["--decoders", "-1"], "--decoders -1"),
    (["--decoders", "two"], "--decoders two"),
    (["--spare-decoders", "-1"], "--spare-decoders -1: expected a whole number from 0 to 1024"),
    (["--wyoming", "none", "--http", "none"], "nothing to listen on"),
    (["--keys", "/nonexistent.keys"], "--keys /nonexistent.keys"),
    (["--keys", "/dev/zero"], "--keys /dev/zero: is a character device, not a file"),  # before: "cannot read"
    # a graph that does not load: before, the server said ready and failed every session of it
    (["--set", "asr.vocabulary=/dev/zero"], "/command.json: node \"asr\": parameter \"vocabulary\": "
                                            "/dev/zero: is a character device, not a file (nor do dictation, transcribe, wakeword)"),
    (["--set", "asr.second-pas=false"], "has no parameter \"second-pas\" (did you mean \"second-pass\"?)"),
    (["--set", "asr.second-pass=maybe"], "--set asr.second-pass=maybe"),
    (["--set", "asr.top-gaussians=0"], "--set asr.top-gaussians=0"),
    (["--set", "asr.warp=1.5"], "parameter \"warp\": expected a number in 0.8...1.2, got 1.5"),
    (["--set", "nope.max-hmms=10"], "no graph served from"),
    (["--set", "asr"], "expected NODE.PARAM=VALUE"),
])
def test_a_bad_flag_is_one_line(args, names):
    r = serve(*args)
    assert r.returncode == 2, r.stderr
    lines = [l for l in r.stderr.splitlines() if not l.startswith("serve: ")]  # its progress
    assert len(lines) == 1 and names in lines[0], r.stderr


@pytest.mark.parametrize("text,where", [
    ("kiosk\n", ":1: expected ID KEY"),
    ("# apps\nkiosk k 0\n", ":2: MAX-SESSIONS"),
    ("a k\na j\n", ":2: app \"a\" is listed twice"),
    ("# nothing\n", "no app listed"),
])
def test_a_bad_keys_file_names_its_line(text, where):
    path = keys_file(text)
    try:
        r = serve("--keys", path)
        assert r.returncode == 2 and where in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    finally:
        os.unlink(path)


def test_a_port_in_use_is_one_line():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = serve("--http", "none", "--wyoming", f"tcp://127.0.0.1:{port}")
    assert r.returncode != 0 and "cannot bind" in r.stderr, r.stderr


def test_a_unix_socket_path_replaces_only_a_stale_socket(tmp_path):
    """`--wyoming unix://PATH` deleted whatever was at PATH (a file given by mistake), and
    took a live server's socket from it. Only a socket nobody answers on is replaced."""
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me\n")
    live = str(tmp_path / "live.sock")
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(live)
        listening.listen()
        for path, words in [(str(notes), "a file is there, not a socket"), (str(tmp_path), "is a folder, not a socket"),
                            (live, "a server is listening there already")]:
            r = serve("--http", "none", "--wyoming", f"unix://{path}")
            lines = [l for l in r.stderr.splitlines() if not l.startswith("serve: ")]  # its progress
            assert r.returncode == 2 and len(lines) == 1 and words in lines[0], r.stderr
    assert notes.read_text() == "keep me\n"
    # A socket left by a server that was killed is taken over.
    stale = str(tmp_path / "stale.sock")
    with socket.socket(socket.AF_UNIX) as gone:
        gone.bind(stale)
    s = Server("--http", "none", wyoming=f"unix://{stale}")
    try:
        with socket.socket(socket.AF_UNIX) as c:
            c.connect(stale)
            c.sendall(b'{"type": "describe"}\n')
            assert b'"info"' in c.recv(65536)
    finally:
        s.stop()


def test_a_keys_file_from_a_windows_editor(tmp_path):
    """A UTF-8 byte order mark had joined the first app's id (its clients were refused as
    having a wrong key); UTF-16 was read as garbage ids. The mark is read past, UTF-16 named."""
    utf16 = tmp_path / "utf16.keys"
    utf16.write_bytes("kiosk s3cret\n".encode("utf-16"))
    r = serve("--keys", str(utf16))
    assert r.returncode == 2 and "not UTF-8 text (UTF-16: save it as UTF-8)" in r.stderr, r.stderr
    marked = tmp_path / "marked.keys"
    marked.write_bytes(b"\xef\xbb\xbfkiosk s3cret\n")
    s = Server("--keys", str(marked), "--wyoming", "none")
    try:
        async def go():
            async with websockets.connect(f"ws://127.0.0.1:{s.http_port}/audiograph?app=kiosk&key=s3cret") as ws:
                await ws.send(json.dumps({"type": "start", "graph": "command"}))
                return json.loads(await ws.recv())
        assert run(go())["type"] == "started"
    finally:
        s.stop()


def test_a_log_that_cannot_be_written_does_not_stop_the_server(speech):
    """The server's log (stderr) on a full disk: it serves on, and drains at SIGTERM. Before,
    its first log line ended it (Foundation's FileHandle.write traps on a failed write)."""
    import signal
    import time
    import urllib.request
    from test_websocket import vosk_client
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with open("/dev/full", "w") as full:
        proc = subprocess.Popen([BINARY, "serve", "--graphs", os.path.join(ROOT, "Graphs"), "--wyoming", "none",
                                 "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=full, cwd=ROOT)
    try:
        deadline = time.time() + 60
        while True:
            assert proc.poll() is None, f"the server ended ({proc.returncode})"
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).status == 200:
                    break
            except OSError:
                pass
            assert time.time() < deadline, "not ready in 60 s"
            time.sleep(0.1)
        replies = run(vosk_client(f"ws://127.0.0.1:{port}/", speech("go forward ten meters"), {"sample_rate": 16000}))
        assert "forward ten meters" in " ".join(r.get("text", "") for r in replies), replies
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(40) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
