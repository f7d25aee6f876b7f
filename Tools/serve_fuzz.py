#!/usr/bin/env python3
"""Fuzzes a running server's Wyoming event handlers with many clients at once.

`Tools/fuzz`'s wyoming target covers the framing; this covers what comes after it, with the
server's threads, sessions and flite all live: 8 Wyoming clients, each connection either a
plausible exchange bent at random (transcribe or detect with audio in odd formats,
synthesize with odd voices and texts, the streaming synthesize events in odd orders, events
dropped) or events of any type with fields of any type; and, where the `websockets` package
is (Tests/Server's virtualenv, .build/serve-venv), 4 WebSocket clients doing the same with
audiograph's protocol and vosk's. Starts `audiograph serve` itself (an AddressSanitizer
build with --asan, built in .build/asan), and fails if it dies or reports, or stops
answering `/healthz`.

  .build/serve-venv/bin/python Tools/serve_fuzz.py [SECONDS] [--seed N] [--asan] [-- SERVE-OPTION...]

It found flite keeping a freed feature name (a crash after some hundreds of synthesize
requests, at once under AddressSanitizer): docs/reliability.md.
"""
import asyncio
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPES = ["describe", "ping", "transcribe", "audio-start", "audio-chunk", "audio-stop", "detect", "synthesize",
         "synthesize-start", "synthesize-chunk", "synthesize-stop", "synthesize-stopped", "run-pipeline", "bogus", ""]
KEYS = ["name", "language", "rate", "width", "channels", "text", "voice", "names", "timestamp", "context", "speaker"]


def value(r):
    """A field of any JSON type, plausible or not."""
    return r.choice([
        lambda: r.choice(["", "command", "dictation", "transcribe", "wakeword", "en", "de", "rms", "slt",
                          "hello computer", "x" * r.randrange(1, 3000)]),
        lambda: r.randrange(-5, 100000),
        lambda: r.choice([0, 1, 2, 3, 4, 8, 16000, 44100, -1, 2**31, 2**63 - 1, 1e308]),
        lambda: r.random() * 1e6 - 5e5,
        lambda: None,
        lambda: r.choice([True, False]),
        lambda: [value(r) for _ in range(r.randrange(4))],
        lambda: {"name": value(r)},
        lambda: {"name": r.choice(["rms", "slt", "kal16", "nobody", 5, None])},
        lambda: "\u00e9\u0000\ud7ff",
        lambda: float("nan"),
        lambda: nested(r),
    ])()


def nested(r):
    """Objects or arrays nested as deep as Foundation's parser takes (512), or a little less."""
    out = r.choice([1, "x", None])
    for _ in range(r.choice([10, 65, 400, 511])):
        out = [out] if r.random() < 0.5 else {"a": out}
    return out


def frame(kind, data, payload=b""):
    body = json.dumps(data).encode()
    header = {"type": kind, "data_length": len(body)}
    if payload:
        header["payload_length"] = len(payload)
    return json.dumps(header).encode() + b"\n" + body + payload


def any_event(r):
    data = {r.choice(KEYS): value(r) for _ in range(r.randrange(5))}
    payload = bytes(r.getrandbits(8) for _ in range(r.choice([0, 0, 1, 3, 320, 3200])))
    if r.random() < 0.1:  # data inline in the header, the older form
        return json.dumps({"type": r.choice(TYPES), "data": data}).encode() + b"\n"
    return frame(r.choice(TYPES), data, payload)


def exchange(r):
    """A plausible exchange, bent: odd formats, odd voices and texts, events dropped or added."""
    kind = r.choice(["transcribe", "transcribe", "detect", "synthesize", "streaming"])
    fmt = dict(rate=r.choice([16000, 16000, 8000, 44100, 22050, 1, 2**31, 1e300, 16000.5]), width=r.choice([2, 2, 2, 4, 1, -1e300]),
               channels=r.choice([1, 1, 2, 3]))
    seq = []
    if kind == "transcribe":
        seq.append(("transcribe", {"name": r.choice(["command", "dictation", "transcribe", "wakeword", "nope"]),
                                   "language": r.choice(["en", "en-US", "fr"])}))
    if kind == "detect":
        seq.append(("detect", {"names": r.choice([["hello computer"], [], ["x"], "hello computer", [5]])}))
    if kind in ("transcribe", "detect"):
        seq.append(("audio-start", dict(fmt)))
        for _ in range(r.randrange(60)):
            f = fmt if r.random() < 0.95 else dict(rate=8000, width=2, channels=1)
            seq.append(("audio-chunk", f, bytes(r.getrandbits(8) for _ in range(r.choice([0, 1, 640, 3200, 3201])))))
        if r.random() < 0.9:
            seq.append(("audio-stop", {}))
    if kind == "synthesize":
        seq.append(("synthesize", {"text": r.choice(["hello. " * r.randrange(1, 50), "", ".", "\u00e9t\u00e9", "a" * r.randrange(1, 2000)]),
                                   "voice": r.choice([{"name": "rms"}, {"name": "slt"}, {"name": "kal16"}, {"name": "zz"}, {"speaker": "x"}, "rms"])}))
    if kind == "streaming":
        seq.append(("synthesize-start", {"voice": r.choice([{"name": "rms"}, {}, {"name": 5}])}))
        for _ in range(r.randrange(20)):
            seq.append(("synthesize-chunk", {"text": r.choice(["hello ", "world. ", "", "?", 5, "x" * 500])}))
        if r.random() < 0.8:
            seq.append(("synthesize-stop", {}))
    out = []
    for item in seq:
        if r.random() < 0.05:
            continue
        out.append(frame(item[0], item[1], item[2] if len(item) > 2 else b""))
        if r.random() < 0.03:
            out.append(any_event(r))
    return out


async def client(r, port, deadline):
    sent = 0
    while time.time() < deadline:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        except (OSError, asyncio.TimeoutError):
            await asyncio.sleep(0.1)
            continue

        async def drain():
            try:
                while await reader.read(65536):
                    pass
            except (OSError, asyncio.CancelledError):
                pass
        draining = asyncio.create_task(drain())
        try:
            for event in exchange(r) if r.random() < 0.6 else [any_event(r) for _ in range(r.randrange(1, 40))]:
                writer.write(event)
                sent += 1
                if r.random() < 0.3:
                    await writer.drain()
                if r.random() < 0.1:
                    await asyncio.sleep(r.random() * 0.3)
            await asyncio.wait_for(writer.drain(), 5)
            await asyncio.sleep(r.random() * 0.5)
        except (OSError, asyncio.TimeoutError):
            pass
        writer.close()
        draining.cancel()
    return sent


def socket_messages(r):
    """Messages for a WebSocket: audiograph's protocol at /audiograph or vosk's at /, plausible
    and bent, with text and binary of any kind between them."""
    vosk = r.random() < 0.4
    out = []
    if vosk:
        if r.random() < 0.6:
            out.append(json.dumps({"config": {r.choice(["sample_rate", "words", "max_alternatives", "phrase_list"]): value(r)
                                              for _ in range(r.randrange(4))}}))
        for _ in range(r.randrange(40)):
            out.append(bytes(r.getrandbits(8) for _ in range(r.choice([0, 1, 3, 640, 8000]))))
        if r.random() < 0.8:
            out.append(json.dumps({"eof": 1}))
    else:
        start = {"type": "start", "graph": r.choice(["dictation", "command", "transcribe", "wakeword", "nope", 5]),
                 "rate": r.choice([16000, 44100, 8000, 1, -1, "x", 1e308]), "channels": r.choice([1, 2, 0, 9])}
        for key in r.sample(["format", "grammar", "vocabulary", "end-of-speech", "partials", "alternatives",
                             "wake-word", "command-timeout", "session-calibration"], r.randrange(4)):
            start[key] = r.choice([value(r), ["ramen", "shawarma"], "short", "#JSGF V1.0; grammar g; public <a> = go;", 0.1, 3])
        out.append(json.dumps(start))
        for _ in range(r.randrange(40)):
            out.append(bytes(r.getrandbits(8) for _ in range(r.choice([0, 1, 3, 640, 8000]))))
        if r.random() < 0.3:
            out.append(json.dumps({"type": "speak", "text": r.choice(["hello there.", "", "a" * 500, 5]),
                                   "voice": r.choice(["rms", "kal16", "zz", 5]), "rate": r.choice([1, 0.25, 4, 100, "fast"])}))
        out.append(json.dumps({"type": r.choice(["stop", "cancel", "cancel-speech", "start", "bogus"])}))
    for _ in range(r.randrange(3)):
        out.insert(r.randrange(len(out) + 1), r.choice([json.dumps({r.choice(KEYS + ["type"]): value(r)}), "not json", "[1, 2]", "{}"]))
    return "/" if vosk else "/audiograph", out


async def socket_client(r, port, deadline):
    import websockets
    sent = 0
    while time.time() < deadline:
        path, messages = socket_messages(r)
        try:
            async with websockets.connect(f"ws://127.0.0.1:{port}{path}", open_timeout=5, close_timeout=1,
                                          max_size=None) as ws:
                async def drain():
                    try:
                        async for _ in ws:
                            pass
                    except websockets.exceptions.WebSocketException:
                        pass
                draining = asyncio.create_task(drain())
                for m in messages:
                    await ws.send(m)
                    sent += 1
                    if r.random() < 0.1:
                        await asyncio.sleep(r.random() * 0.3)
                await asyncio.sleep(r.random() * 0.5)
                draining.cancel()
        except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException):
            pass
    return sent


def main():
    args = sys.argv[1:]
    extra = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    seconds = float(args[0]) if args and not args[0].startswith("--") else 120
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    binary = os.path.join(ROOT, ".build/debug/audiograph")
    if "--asan" in args:
        subprocess.run(["swift", "build", "--scratch-path", ".build/asan", "--product", "audiograph",
                        "-Xswiftc", "-sanitize=address"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        binary = os.path.join(ROOT, ".build/asan/debug/audiograph")
    log = tempfile.NamedTemporaryFile(mode="w+", suffix=".log", delete=False)
    server = subprocess.Popen([binary, "serve", "--wyoming", "tcp://127.0.0.1:0", "--http", "127.0.0.1:0",
                               "--graphs", os.path.join(ROOT, "Graphs")] + extra, stdout=subprocess.DEVNULL, stderr=log,
                              env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
    text = ""
    for _ in range(1200):
        text = open(log.name).read()
        if "serve: ready" in text or server.poll() is not None:
            break
        time.sleep(0.1)
    wyoming = int(re.search(r"wyoming on tcp://[\d.]+:(\d+)", text).group(1))
    http = int(re.search(r"http and websocket on [\d.]+:(\d+)", text).group(1))

    async def go():
        r = random.Random(seed)
        deadline = time.time() + seconds
        clients = [client(random.Random(r.random()), wyoming, deadline) for _ in range(8)]
        if importlib.util.find_spec("websockets"):  # Tests/Server's virtualenv has it
            clients += [socket_client(random.Random(r.random()), http, deadline) for _ in range(4)]
        else:
            print("serve fuzz: no websockets package here: Wyoming only (run it with .build/serve-venv/bin/python)")
        return sum(await asyncio.gather(*clients))
    sent = asyncio.run(go())
    time.sleep(1)
    alive = server.poll() is None
    try:
        healthy = alive and urllib.request.urlopen(f"http://127.0.0.1:{http}/healthz", timeout=10).status == 200
    except OSError:
        healthy = False
    server.terminate()
    server.wait(40)
    text = open(log.name).read()
    reports = text.count("ERROR: AddressSanitizer") + text.count("Program crashed")
    print(f"serve fuzz: {sent} events and messages in {seconds:.0f} s (seed {seed}), server "
          f"{'alive' if alive else 'DEAD'}, health {'200' if healthy else 'NO ANSWER'}, {reports} sanitizer/crash reports; log {log.name}")
    sys.exit(0 if alive and healthy and reports == 0 else 1)


if __name__ == "__main__":
    main()
