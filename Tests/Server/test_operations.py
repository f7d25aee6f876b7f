"""Operations: SIGTERM drains, and two servers behind Debian's haproxy (Wyoming in mode tcp
with a describe→info check, WebSocket in mode http with /healthz, wss:// with TLS ended at
HAProxy), one killed mid-run, with idle connections held at HAProxy."""
import asyncio
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request
import wave

import pytest
import websockets
from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient

from conftest import Server


def run(coro, timeout=120):
    return asyncio.run(asyncio.wait_for(coro, timeout))


async def paced_transcribe(port, path, pace=0.25):
    """A client streaming a command at `pace` x real time (0.25: four times as fast)."""
    async with AsyncTcpClient("127.0.0.1", port) as c:
        await c.write_event(Transcribe(name="command", language="en").event())
        with wave.open(path) as w:
            await c.write_event(AudioStart(rate=16000, width=2, channels=1).event())
            while data := w.readframes(1600):
                await c.write_event(AudioChunk(rate=16000, width=2, channels=1, audio=data).event())
                await asyncio.sleep(0.1 * pace)
        await c.write_event(AudioStop().event())
        while True:
            e = await c.read_event()
            if e is None:
                raise ConnectionError("the server closed the connection mid-session")
            if e.type == "error":
                raise ConnectionError(e.data["text"])
            if e.type == "transcript":
                return e.data["text"]


def test_sigterm_drains(speech):
    s = Server("--http", "127.0.0.1:0")
    path = speech("find japanese restaurants nearby", pad=1.0)

    async def go():
        task = asyncio.create_task(paced_transcribe(s.wyoming_port, path, pace=1.0))  # real time, 3.6 s
        await asyncio.sleep(1.0)
        s.proc.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.3)
        health = None
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{s.http_port}/healthz", timeout=2)
        except urllib.error.HTTPError as e:
            health = e.code
        except OSError:
            health = "closed"
        # A new WebSocket session while draining: refused with the code "draining".
        try:
            async with websockets.connect(f"ws://127.0.0.1:{s.http_port}/audiograph", open_timeout=3) as ws:
                await ws.send(json.dumps({"type": "start", "graph": "dictation"}))
                refused = json.loads(await asyncio.wait_for(ws.recv(), 3)).get("code")
        except (OSError, websockets.exceptions.WebSocketException, asyncio.TimeoutError):
            refused = "not let in"
        return await task, health, refused
    try:
        text, health, refused = run(go())
        assert text == "find japanese restaurants nearby"  # the session in flight finished
        assert health in (503, "closed")
        assert refused == "draining", refused  # the HTTP side stays up to say why
        assert s.proc.wait(30) == 0
        assert "serve: draining 1 session(s)" in s.text()
    finally:
        s.stop()


def test_a_draining_server_ends_a_streaming_session_between_utterances(speech):
    """A thin device's session (`run --server`: audio for as long as the device runs) on a
    server told to stop: once an utterance has ended and the next has not begun, the server
    delivers what it heard, says `draining`, ends the session and exits, long before its
    30 s wait for sessions in flight (the device connects again, to another server)."""
    s = Server("--http", "127.0.0.1:0", wyoming=None)
    path = speech("find japanese restaurants nearby", pad=0.3)
    with wave.open(path) as w:
        data = w.readframes(w.getnframes())
    said = {}

    async def go():
        async with websockets.connect(f"ws://127.0.0.1:{s.http_port}/audiograph") as ws:
            await ws.send(json.dumps({"type": "start", "graph": "dictation"}))
            assert json.loads(await ws.recv())["type"] == "started"
            got = []

            async def read():
                async for m in ws:
                    if isinstance(m, str):
                        e = json.loads(m)
                        got.append(e)
                        if e["type"] == "final" and "sigterm" not in said:
                            said["sigterm"] = time.monotonic()
                            s.proc.send_signal(signal.SIGTERM)
                        if e["type"] == "end":
                            return
            reader = asyncio.create_task(read())
            try:
                for i in range(0, len(data), 3200):  # the speech, then silence, in real time
                    await ws.send(data[i:i + 3200])
                    await asyncio.sleep(0.1)
                deadline = time.monotonic() + 20
                while not reader.done() and time.monotonic() < deadline:
                    await ws.send(bytes(3200))
                    await asyncio.sleep(0.1)
            except websockets.exceptions.ConnectionClosed:
                pass
            await asyncio.wait_for(reader, 5)
            return got
    try:
        got = run(go())
        types = [e["type"] for e in got]
        assert types.count("final") == 1 and types[-1] == "end", types
        assert [e.get("code") for e in got if e["type"] == "error"] == ["draining"], got
        assert s.proc.wait(15) == 0
        assert time.monotonic() - said["sigterm"] < 10  # not the drain's 30 s
    finally:
        s.stop()


def test_a_draining_server_ends_a_reconnecting_session_that_never_spoke():
    """A session whose client said it `reconnects` (a thin device waiting for its wake word,
    which may not hear a word for hours) is ended at the drain's first pause, spoken or not:
    before, the server waited its 30 s and then cut the connection. One that did not say so
    (a one-shot client that has yet to speak) is still given the wait."""
    s = Server("--http", "127.0.0.1:0", wyoming=None)

    async def session(ws, reconnects):
        await ws.send(json.dumps({"type": "start", "graph": "dictation", **({"reconnects": True} if reconnects else {})}))
        assert json.loads(await ws.recv())["type"] == "started"

    async def go():
        url = f"ws://127.0.0.1:{s.http_port}/audiograph"
        async with websockets.connect(url) as device, websockets.connect(url) as app:
            await session(device, True)
            await session(app, False)
            for _ in range(10):  # a second of room sound on both
                await device.send(bytes(3200))
                await app.send(bytes(3200))
                await asyncio.sleep(0.1)
            s.proc.send_signal(signal.SIGTERM)
            sent = time.monotonic()
            got = []
            while time.monotonic() - sent < 3:
                await device.send(bytes(3200))
                await app.send(bytes(3200))
                await asyncio.sleep(0.1)
                while True:
                    try:
                        got.append(json.loads(await asyncio.wait_for(device.recv(), 0.01)))
                    except (asyncio.TimeoutError, websockets.exceptions.ConnectionClosed):
                        break
                if got and got[-1]["type"] == "end":
                    break
            ended_in = time.monotonic() - sent
            await app.send(bytes(3200))  # the one-shot client's session is still taken
            await app.send(json.dumps({"type": "stop"}))
            app_events = []
            while not app_events or app_events[-1]["type"] != "end":
                app_events.append(json.loads(await asyncio.wait_for(app.recv(), 10)))
            return got, ended_in, app_events
    try:
        got, ended_in, app_events = run(go())
        assert [e["type"] for e in got][-2:] == ["error", "end"] and got[-2]["code"] == "draining", got
        assert ended_in < 2, ended_in
        assert "error" not in [e["type"] for e in app_events] and app_events[-1]["reason"] == "stopped", app_events
        assert s.proc.wait(15) == 0
    finally:
        s.stop()


def haproxy_config(folder, wy_front, ws_front, servers, tls_front=None):
    describe = '{"type": "describe"}\n'.encode().hex()
    lines = [
        "global", f"  stats socket {folder}/stats.sock mode 600 level admin",
        "defaults", "  timeout connect 2s", "  timeout client 60s", "  timeout server 60s", "  timeout check 2s",
        "frontend wyoming", "  mode tcp", f"  bind 127.0.0.1:{wy_front}", "  default_backend wyoming",
        "backend wyoming", "  mode tcp", "  balance leastconn", "  option tcp-check",
        f"  tcp-check send-binary {describe}", '  tcp-check expect string info',
    ]
    lines += [f"  server s{i} 127.0.0.1:{s.wyoming_port} check inter 300 fall 2 rise 1 maxconn 16" for i, s in enumerate(servers)]
    if tls_front:
        # TLS ends at HAProxy: wss:// outside, ws:// to the servers.
        lines += ["frontend wss", "  mode http", f"  bind 127.0.0.1:{tls_front} ssl crt {folder}/speech.pem", "  default_backend ws"]
    lines += ["frontend ws", "  mode http", f"  bind 127.0.0.1:{ws_front}", "  timeout http-request 5s", "  default_backend ws",
              "backend ws", "  mode http", "  balance leastconn", "  option httpchk GET /healthz"]
    lines += [f"  server s{i} 127.0.0.1:{s.http_port} check inter 300 fall 2 rise 1 maxconn 16" for i, s in enumerate(servers)]
    path = os.path.join(folder, "haproxy.cfg")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stats(folder):
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(f"{folder}/stats.sock")
        s.sendall(b"show stat\n")
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    rows = [l.split(",") for l in out.decode().splitlines() if l and not l.startswith("#")]
    return {(r[0], r[1]): r[17] for r in rows if len(r) > 17}  # (backend, server) -> status


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is not installed (Tools/install-deps installs it)")
def test_two_servers_behind_haproxy_one_killed(speech):
    folder = tempfile.mkdtemp(prefix="ag-haproxy-")
    servers = [Server(), Server()]
    wy, ws, wss = free_port(), free_port(), free_port()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "1",
                    "-addext", "subjectAltName=DNS:localhost", "-keyout", f"{folder}/key.pem", "-out", f"{folder}/cert.pem"],
                   check=True, capture_output=True)
    with open(f"{folder}/speech.pem", "w") as pem:
        pem.write(open(f"{folder}/cert.pem").read() + open(f"{folder}/key.pem").read())
    proxy = subprocess.Popen(["haproxy", "-db", "-f", haproxy_config(folder, wy, ws, servers, wss)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    path = speech("find japanese restaurants nearby", pad=0.5)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                st = stats(folder)
                if all(st.get((b, f"s{i}")) == "UP" for b in ("wyoming", "ws") for i in range(2)):
                    break
            except OSError:
                pass
            time.sleep(0.2)
        assert all(stats(folder)[(b, f"s{i}")] == "UP" for b in ("wyoming", "ws") for i in range(2)), stats(folder)

        async def vosk(url, tls=None):
            async with websockets.connect(url, ssl=tls) as c:
                with wave.open(path) as w:
                    while data := w.readframes(4000):
                        await c.send(data)
                        await c.recv()
                await c.send('{"eof" : 1}')
                return [json.loads(m) for m in [m async for m in c]]

        async def spread():
            texts = await asyncio.gather(*[paced_transcribe(wy, path, pace=0.3) for _ in range(4)],
                                         vosk(f"ws://127.0.0.1:{ws}/"))
            return texts
        # 300 connections that never send a request: HAProxy holds them itself (each server
        # gives a connection a thread; 300 straight at a server took its workers, and its
        # health check waited for the request timeout).
        idle = [socket.create_connection(("127.0.0.1", ws)) for _ in range(300)]
        texts = run(spread())
        time.sleep(1.0)  # three health checks
        st = stats(folder)
        assert all(st[("ws", f"s{i}")] == "UP" for i in range(2)), st
        for c in idle:
            c.close()
        assert texts[:4] == ["find japanese restaurants nearby"] * 4
        assert "japanese" in texts[4][-1]["text"]
        # wss:// through HAProxy's TLS, the self-signed certificate trusted as the client's CA.
        tls = ssl.create_default_context(cafile=f"{folder}/cert.pem")
        secure = run(vosk(f"wss://localhost:{wss}/", tls))
        assert "japanese" in secure[-1]["text"]
        per_server = [s.text().count("session wyoming") for s in servers]
        assert all(n >= 1 for n in per_server), per_server  # leastconn spread them

        async def with_reconnect():
            """Clients that retry once on a dropped connection, as SpeechKit's networking does."""
            async def client():
                try:
                    return ("first", await paced_transcribe(wy, path, pace=1.0))
                except (ConnectionError, OSError, asyncio.IncompleteReadError) as e:
                    await asyncio.sleep(0.5)
                    return (f"retried after: {e}", await paced_transcribe(wy, path, pace=0.3))
            tasks = [asyncio.create_task(client()) for _ in range(4)]
            await asyncio.sleep(1.0)
            servers[0].proc.send_signal(signal.SIGKILL)
            return await asyncio.gather(*tasks)
        results = run(with_reconnect())
        assert all(text == "find japanese restaurants nearby" for _, text in results), results
        assert any(how != "first" for how, _ in results), "no session was on the killed server"
        assert any(how == "first" for how, _ in results), "the survivor's sessions were lost"
        deadline = time.time() + 10
        while stats(folder).get(("wyoming", "s0")) != "DOWN" and time.time() < deadline:
            time.sleep(0.2)
        st = stats(folder)
        assert st[("wyoming", "s0")] == "DOWN" and st[("ws", "s0")] == "DOWN" and st[("wyoming", "s1")] == "UP", st
    finally:
        proxy.terminate()
        proxy.wait(10)
        for s in servers:
            s.stop()
        shutil.rmtree(folder, ignore_errors=True)
