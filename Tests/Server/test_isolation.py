"""`audiograph serve --isolate`: each recognition session in a process of its own, so a crash
of one session's graph ends that session only. The test sends SIGSEGV to one session's
process while two sessions stream. Swift's crash backtracer is off for it: a real fault
re-faults after the backtrace and ends the process, a signal sent from outside would not."""
import asyncio
import json
import os
import signal
import time
import wave

import websockets

from conftest import Server, raw_connection


def session_processes(server_pid, warm=b""):
    """The server's session processes (with `warm`: those started ahead for that graph)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if ppid == server_pid and b"--session-worker" in cmd and warm in cmd:
            pids.append(int(d))
    return pids


async def stream(port, pcm, started, events):
    async with websockets.connect(f"ws://127.0.0.1:{port}/audiograph") as ws:
        await ws.send(json.dumps({"type": "start", "graph": "dictation"}))
        events.append(json.loads(await ws.recv()))
        started.set()

        async def reader():
            async for m in ws:
                e = json.loads(m)
                events.append(e)
                if e["type"] == "end":
                    return
        task = asyncio.create_task(reader())
        # As a client does: no more audio once the session has ended.
        for i in range(0, len(pcm), 3200):
            if task.done():
                break
            await ws.send(pcm[i:i + 3200])
            await asyncio.sleep(0.05)
        if not task.done():
            await ws.send(json.dumps({"type": "stop"}))
        await asyncio.wait_for(task, 30)


def test_a_crashed_session_ends_alone_and_the_server_goes_on(speech):
    s = Server("--isolate", wyoming="none", env={"SWIFT_BACKTRACE": "enable=no"})
    try:
        with wave.open(speech("go forward ten meters. find japanese restaurants nearby", pad=1.0)) as w:
            pcm = w.readframes(w.getnframes())

        async def scene():
            # The server keeps a worker started ahead for each graph (loading its model): the
            # first dictation session takes dictation's, so the oldest of those is in a session.
            while not session_processes(s.proc.pid, b"--warm\0dictation"):
                await asyncio.sleep(0.05)
            a, b = asyncio.Event(), asyncio.Event()
            ea, eb = [], []
            ta = asyncio.create_task(stream(s.http_port, pcm, a, ea))
            await a.wait()
            tb = asyncio.create_task(stream(s.http_port, pcm, b, eb))
            await b.wait()
            workers = sorted(session_processes(s.proc.pid, b"--warm\0dictation"))
            assert len(workers) >= 1, workers
            await asyncio.sleep(0.5)
            os.kill(workers[0], signal.SIGSEGV)
            await asyncio.wait_for(asyncio.gather(ta, tb), 60)
            return ea, eb

        ea, eb = asyncio.run(scene())
        ends = sorted([[e for e in x if e["type"] == "end"][0]["reason"] for x in (ea, eb)])
        assert ends == ["error", "stopped"], (ea, eb)
        lost, kept = (ea, eb) if [e for e in ea if e["type"] == "end"][0]["reason"] == "error" else (eb, ea)
        errors = [e for e in lost if e["type"] == "error"]
        assert errors and "killed by signal 11" in errors[0]["message"], lost
        text = " ".join(e["text"] for e in kept if e["type"] == "final")
        assert "forward ten meters" in text and "japanese" in text, kept
        # The server goes on: a new session is heard whole, and the lost one was logged.
        assert s.proc.poll() is None
        again = []
        asyncio.run(stream(s.http_port, pcm, asyncio.Event(), again))
        assert "japanese" in " ".join(e["text"] for e in again if e["type"] == "final"), again
        assert "end=error" in s.text()
    finally:
        s.stop()


def test_isolated_sessions_speak_every_protocol_and_refuse_unknown_graphs(speech):
    """vosk's protocol (each frame answered after it is decoded, across the process boundary),
    and a client's unknown graph names: refused, with no process left behind for them."""
    from test_websocket import vosk_client
    s = Server("--isolate", wyoming="none")
    try:
        path = speech("go forward ten meters. find japanese restaurants nearby")
        replies = asyncio.run(asyncio.wait_for(vosk_client(f"ws://127.0.0.1:{s.http_port}/", path, {"sample_rate": 16000}), 60))
        text = " ".join(r["text"] for r in replies if "text" in r)
        assert "forward ten meters" in text and "japanese" in text, text

        async def unknown(name):
            async with websockets.connect(f"ws://127.0.0.1:{s.http_port}/audiograph") as ws:
                await ws.send(json.dumps({"type": "start", "graph": name}))
                return json.loads(await ws.recv())
        for k in range(5):
            e = asyncio.run(unknown(f"nope{k}"))
            assert e["type"] == "error" and e["code"] == "bad-request" and "unknown graph" in e["message"], e
        # A graph of the folder that is left out says why (it said "unknown graph").
        e = asyncio.run(unknown("assistant"))
        assert e["code"] == "bad-request" and "\"assistant\" is not served" in e["message"] and "speech-synth" in e["message"], e
        # A grammar that does not compile, in the session's process: one error naming it, and
        # the connection goes on.
        async def bad_grammar():
            async with websockets.connect(f"ws://127.0.0.1:{s.http_port}/audiograph") as ws:
                await ws.send(json.dumps({"type": "start", "graph": "command", "grammar": "this is not jsgf"}))
                first = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "speak", "text": "still here"}))
                return first, json.loads(await ws.recv())
        e, after = asyncio.run(asyncio.wait_for(bad_grammar(), 30))
        assert e["type"] == "error" and e["code"] == "session" and "grammar" in e["message"], e
        assert after["type"] == "speak-start", after
        # One spare a served graph at most (command, dictation, transcribe, wakeword), none for the names.
        assert len(session_processes(s.proc.pid)) <= 4, session_processes(s.proc.pid)
        assert not session_processes(s.proc.pid, b"nope")
    finally:
        s.stop()


def test_session_processes_hold_none_of_the_servers_connections(speech):
    """A session process started while a Wyoming client is connected holds no copy of that
    client's socket, nor of the listening sockets: the server's close (here the idle limit)
    reaches the client, and a restarted server can bind the port. Before, every session
    process held both (they were not close-on-exec), so the client waited on a connection
    the server had closed until that process ended."""
    s = Server("--isolate", "--idle-timeout", "2", http="127.0.0.1:0")
    try:
        idle, _ = raw_connection(s.wyoming_port)
        idle.settimeout(20)
        # A session starts a process ahead for the next one, while `idle` is open.
        before = set(session_processes(s.proc.pid))
        with wave.open(speech("go forward ten meters", pad=0.3)) as w:
            pcm = w.readframes(w.getnframes())
        asyncio.run(asyncio.wait_for(stream(s.http_port, pcm, asyncio.Event(), []), 60))
        deadline = time.time() + 30
        while not set(session_processes(s.proc.pid)) - before and time.time() < deadline:
            time.sleep(0.05)
        started = set(session_processes(s.proc.pid)) - before
        assert started, "no session process started during the session"
        for pid in started:
            held = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
            sockets = [h for h in held if h.startswith("socket:")]
            assert not sockets, f"session process {pid} holds {sockets}"
        said = b""
        while chunk := idle.recv(4096):  # the server's word on why, then its close (or a timeout at 20 s)
            said += chunk
        assert b"idle" in said, said
        idle.close()
    finally:
        s.stop()
