"""audiograph serve, started for the tests, and speech fixtures made with flite.

The server is the real binary (AUDIOGRAPH, default .build/debug/audiograph) on free ports;
its stderr is kept so a test can read the log lines.
"""
import asyncio
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import wave

import pytest
import websockets
from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("AUDIOGRAPH", os.path.join(ROOT, ".build/debug/audiograph"))


# Exit statuses of a server that crashed (a test's own SIGKILL or SIGTERM is not one).
CRASHES = {-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS, -signal.SIGILL, -signal.SIGFPE, -signal.SIGTRAP}


class Server:
    """One `audiograph serve` process."""

    def __init__(self, *args, wyoming="tcp://127.0.0.1:0", http="127.0.0.1:0", env=None, open_files=None):
        self.log = tempfile.NamedTemporaryFile(mode="w+", suffix=".log", delete=False)
        cmd = [BINARY, "serve", "--graphs", os.path.join(ROOT, "Graphs")]
        if wyoming:
            cmd += ["--wyoming", wyoming]
        if http:
            cmd += ["--http", http]
        # open_files: (soft, hard) limit of open files the server starts with (`ulimit -n`).
        limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, open_files)) if open_files else None
        self.proc = subprocess.Popen(cmd + list(args), stdout=subprocess.DEVNULL, stderr=self.log, cwd=ROOT,
                                     env=dict(os.environ, **(env or {})), preexec_fn=limit)
        self.wyoming_port = self.http_port = None
        deadline = time.time() + 60
        while time.time() < deadline:
            text = self.text()
            if "serve: ready" in text:
                m = re.search(r"wyoming on tcp://[\d.]+:(\d+)", text)
                self.wyoming_port = int(m.group(1)) if m else None
                m = re.search(r"http and websocket on [\d.]+:(\d+)", text)
                self.http_port = int(m.group(1)) if m else None
                return
            if self.proc.poll() is not None:
                raise RuntimeError("audiograph serve exited: " + text)
            time.sleep(0.05)
        raise RuntimeError("audiograph serve not ready in 60 s: " + self.text())

    def text(self):
        with open(self.log.name) as f:
            return f.read()

    def stop(self):
        """Stops the server; fails, with its log, if it had crashed meanwhile."""
        crashed = self.proc.poll() in CRASHES
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(40)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        text = self.text()
        os.unlink(self.log.name)
        assert not crashed and self.proc.returncode not in CRASHES, \
            f"audiograph serve crashed ({signal.Signals(-self.proc.returncode).name}); its log:\n{text[-20000:]}"


def run(coro, timeout=60):
    """Runs a test's client coroutine, failing it past `timeout` seconds (a server that never answers)."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def raw_connection(port):
    """A plain TCP connection to a Wyoming port, and a reader for wyoming's read_event."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s, s.makefile("rb")


def frames(path, size):
    """A WAV file's PCM in messages of `size` bytes, as a client streams it."""
    with wave.open(path) as w:
        while data := w.readframes(size // 2):
            yield data


async def app_session(ws, start, path, chunk):
    """audiograph's protocol on an open WebSocket: `start` (its fields beside the type), a WAV
    file's PCM in messages of `chunk` bytes, stop; every event up to `end` (the first answers
    the start)."""
    await ws.send(json.dumps({"type": "start", **start}))
    events = [json.loads(await ws.recv())]
    for data in frames(path, chunk):
        await ws.send(data)
    await ws.send(json.dumps({"type": "stop"}))
    while events[-1]["type"] != "end":
        events.append(json.loads(await ws.recv()))
    return events


async def vosk_client(url, path, config=None, chunk=8000):
    """What vosk-server's test.py does: config, binary chunks each answered, then eof."""
    replies = []
    async with websockets.connect(url) as ws:
        if config:
            await ws.send(json.dumps({"config": config}))
        for data in frames(path, chunk):
            await ws.send(data)
            replies.append(json.loads(await ws.recv()))
        await ws.send('{"eof" : 1}')
        async for message in ws:  # until the server closes
            replies.append(json.loads(message))
    return replies


@pytest.fixture(scope="session")
def server():
    s = Server()
    yield s
    s.stop()


def have(tool):
    return shutil.which(tool) is not None


@pytest.fixture(scope="session")
def speech():
    """speech(text, rate=16000, channels=1, pad=0.3) -> path of a WAV of flite saying `text`
    with `pad` seconds of silence before and after; `text` a list: each saying so, one after
    the other in one WAV."""
    if not (have("flite") and have("sox")):
        pytest.skip("flite or sox is not installed (Tools/install-deps installs them)")
    folder = tempfile.mkdtemp(prefix="ag-serve-speech-")
    made = {}

    def make(text, rate=16000, channels=1, pad=0.3):
        key = (tuple(text) if isinstance(text, list) else text, rate, channels, pad)
        if key not in made and isinstance(text, list):
            parts = [make(t, rate, channels, pad) for t in text]
            out = os.path.join(folder, f"joined{len(made)}-{rate}-{channels}.wav")
            subprocess.run(["sox"] + parts + [out], check=True)
            made[key] = out
        if key not in made:
            raw = os.path.join(folder, f"raw{len(made)}.wav")
            out = os.path.join(folder, f"s{len(made)}-{rate}-{channels}.wav")
            subprocess.run(["flite", "-voice", "rms", "-t", text, "-o", raw], check=True)
            subprocess.run(["sox", raw, "-r", str(rate), "-c", str(channels), "-b", "16", out, "pad", str(pad), str(pad)], check=True)
            made[key] = out
        return made[key]

    yield make
    shutil.rmtree(folder, ignore_errors=True)


# Home Assistant's Wyoming sequence, with the real `wyoming` client.
async def send_audio(client, path, chunk=1024, stop=True):
    with wave.open(path) as w:
        rate, width, channels = w.getframerate(), w.getsampwidth(), w.getnchannels()
        await client.write_event(AudioStart(rate=rate, width=width, channels=channels).event())
        while data := w.readframes(chunk):
            await client.write_event(AudioChunk(rate=rate, width=width, channels=channels, audio=data).event())
    if stop:
        await client.write_event(AudioStop().event())


async def transcribe(port, path, **kwargs):
    """Home Assistant's sequence; returns every event up to transcript-stop."""
    async with AsyncTcpClient("127.0.0.1", port) as c:
        await c.write_event(Transcribe(**kwargs).event())
        await send_audio(c, path)
        events = []
        while True:
            e = await c.read_event()
            assert e is not None, "connection closed before transcript-stop"
            events.append(e)
            if e.type == "transcript-stop":
                return events
