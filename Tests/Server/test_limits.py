"""What a client may send that is well formed but large, long or many: a vocabulary of
hundreds of new words, a text of minutes of speech, connections held open, more sessions
than decoders, a connection gone silent. Each must leave the server serving everyone else
(docs/reliability.md)."""
import asyncio
import json
import random
import subprocess
import time
import urllib.request

import pytest
import websockets
from wyoming.client import AsyncTcpClient
from wyoming.event import read_event
from wyoming.ping import Ping, Pong
from wyoming.tts import Synthesize

from conftest import BINARY, Server, app_session, frames, raw_connection, run, vosk_client


def test_a_large_vocabulary_is_heard_and_the_server_stays(server, speech):
    """Two hundred words the dictionary lacks, as an app with a product catalogue sends them
    (before, a hundred ended the server: PocketSphinx added them to its binary language model,
    whose tables it then read past)."""
    rng = random.Random(40)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(5, 9))) for _ in range(200)]
    path = speech("order shawarma")

    async def go():
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") as ws:
            return await app_session(ws, {"graph": "dictation", "vocabulary": words + ["shawarma"]}, path, 6400)
    events = run(go())
    assert events[-1]["reason"] == "stopped", events
    finals = [e["text"] for e in events if e["type"] == "final"]
    assert len(finals) == 1 and finals[0].endswith("shawarma"), finals  # the model alone cannot spell it
    with urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/healthz") as r:
        assert r.status == 200


def test_a_long_speech_stops_at_the_session_limit(server):
    """`speak` with 20,000 sentences: spoken a sentence at a time, stopped at
    --max-session-seconds of audio (300 s) with `too-long`, then `speak-end` (cancelled)."""
    async def go():
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph", max_size=None) as ws:
            await ws.send(json.dumps({"type": "speak", "text": "Hello world. " * 20000}))
            start, samples, texts = json.loads(await ws.recv()), 0, []
            while not texts or texts[-1]["type"] != "speak-end":
                m = await ws.recv()
                if isinstance(m, bytes):
                    samples += len(m) // 2
                else:
                    texts.append(json.loads(m))
            return start, samples, texts
    start, samples, texts = run(go(), 120)
    assert start["type"] == "speak-start"
    assert samples == 300 * start["rate"], samples / start["rate"]
    assert [t["type"] for t in texts] == ["error", "speak-end"] and texts[0]["code"] == "too-long", texts
    assert texts[1]["cancelled"] is True


def test_a_reconnecting_session_is_stopped_at_its_limit_between_utterances(speech):
    """A thin device's endless session (`reconnects`) reached --max-session-seconds in the
    middle of a sentence and was stopped there: the sentence was cut in two, its end heard in
    the next session. Now it is stopped at the first pause past the limit; a session whose
    client does not connect again is stopped at the limit, as before."""
    s = Server("--max-session-seconds", "3", wyoming=None)
    path = speech("find japanese restaurants nearby and book a table for two at eight", pad=2.0)

    async def go(reconnects):
        async with websockets.connect(f"ws://127.0.0.1:{s.http_port}/audiograph") as ws:
            await ws.send(json.dumps({"type": "start", "graph": "dictation", "reconnects": reconnects}))
            got = [json.loads(await ws.recv())]
            chunks = list(frames(path, 3200)) + [bytes(3200)] * 30
            for chunk in chunks:  # in real time, as a device sends
                await ws.send(chunk)
                await asyncio.sleep(0.1)
                while True:
                    try:
                        got.append(json.loads(await asyncio.wait_for(ws.recv(), 0.001)))
                    except asyncio.TimeoutError:
                        break
                if any(e["type"] == "end" or e.get("code") == "too-long" for e in got):
                    break  # stopped: no more audio
            while got[-1]["type"] != "end":
                got.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
            return got
    try:
        whole, cut = run(go(True)), run(go(False))
        finals = [e["text"] for e in whole if e["type"] == "final"]
        assert len(finals) == 1 and "japanese" in finals[0] and "table" in finals[0], finals
        assert [e.get("code") for e in whole if e["type"] == "error"] == ["too-long"], whole
        cut_finals = [e["text"] for e in cut if e["type"] == "final"]
        assert cut_finals and not any("table" in f for f in cut_finals), cut_finals
        assert [e.get("code") for e in cut if e["type"] == "error"] == ["too-long"], cut
    finally:
        s.stop()


def test_a_long_text_is_spoken_a_sentence_at_a_time(server):
    """A text of 20,000 sentences (260 kB, under --max-message): before, flite was given it
    whole, for minutes of one synthesis that held every other client's speech and grew the
    server by gigabytes. Now it is spoken a sentence at a time, stops at --max-session-seconds
    of audio (300 s) with a `too-long` error after its audio-stop, and another client's answer
    comes in between."""
    async def go():
        order = []

        async def long_one():
            async with AsyncTcpClient("127.0.0.1", server.wyoming_port) as c:
                await c.write_event(Synthesize(text="Hello world. " * 20000).event())
                events, samples, rate = [], 0, None
                while True:
                    e = await c.read_event()
                    if e.type == "audio-start":
                        rate = e.data["rate"]
                    elif e.type == "audio-chunk":
                        samples += len(e.payload) // 2
                        if samples == len(e.payload) // 2:
                            order.append("long: first chunk")
                    else:
                        events.append(e)
                    if e.type == "error":
                        order.append("long: done")
                        return events, samples, rate

        task = asyncio.create_task(long_one())
        while "long: first chunk" not in order:
            await asyncio.sleep(0.01)
        async with AsyncTcpClient("127.0.0.1", server.wyoming_port) as c:
            await c.write_event(Synthesize(text="The kitchen light is on.").event())
            while (await c.read_event()).type != "audio-stop":
                pass
            order.append("short: done")
        return await task, order
    (events, samples, rate), order = run(go(), 120)
    assert [e.type for e in events] == ["audio-stop", "error"] and events[1].data["code"] == "too-long", events
    assert samples == 300 * rate, samples / rate
    assert order == ["long: first chunk", "short: done", "long: done"], order


def test_a_long_run_without_spaces_is_spoken_and_the_server_stays(server):
    """400 characters of `-1-1…` in one `speak`: flite recursed once per character of that
    token on civetweb's small handler stack, and the server died. Now flite is given runs of
    at most 64 characters, and the next text on the connection is spoken."""
    async def go():
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") as ws:
            ends, audio = [], 0
            for text in ["-1" * 200, "still here"]:
                await ws.send(json.dumps({"type": "speak", "text": text}))
                while True:
                    m = await ws.recv()
                    if isinstance(m, bytes):
                        audio += len(m)
                    elif json.loads(m)["type"] in ("speak-end", "error"):
                        ends.append((json.loads(m), audio))
                        break
            return ends
    (first, after_first), (second, after_second) = run(go())
    assert first["type"] == "speak-end" and not first["cancelled"] and after_first > 32000 * 10, (first, after_first)
    assert second["type"] == "speak-end" and after_second > after_first, second


def test_idle_connections_leave_health_checks_served(server):
    """Open connections each hold a thread: before, 32 idle WebSockets (32 open pages) took
    every HTTP worker, and /healthz and new clients had no answer with no session running."""

    async def go():
        idle = [await websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") for _ in range(40)]
        try:
            return await asyncio.to_thread(
                lambda: urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/healthz", timeout=10).status)
        finally:
            for ws in idle:
                await ws.close()
    assert run(go()) == 200


def test_deeply_nested_messages_are_refused_and_the_server_stays(server):
    """JSON nested a few hundred levels, in every place a client's JSON is read: before, 400
    levels of {"a": in a WebSocket message overflowed the small stack civetweb runs its
    handlers on, and the server died (Foundation's parser takes up to 512). And a grammar of
    rules nested through each other."""
    deep = '{"a":' * 400 + "1" + "}" * 400
    nested = f'{{"type": "start", "options": {deep}}}'

    async def websocket(path):
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}{path}") as ws:
            await ws.send(nested)
            first = json.loads(await ws.recv())
            await ws.send('{"type": "speak", "text": "still here"}' if path == "/audiograph" else '{"eof": 1}')
            return first, json.loads(await ws.recv())
    for path, key, after in [("/audiograph", "message", "speak-start"), ("/", "error", None)]:
        refused, then = run(websocket(path))
        assert refused["code"] == "bad-json" and "nested deeper than 64 levels" in refused[key], (path, refused)
        assert then.get("type") == after if after else "text" in then, (path, then)

    # A grammar of 3,000 rules, each naming the next: counting its size recursed through all
    # of them and overflowed the 8 MiB stack sessions are built on.
    chain = "".join(f"<r{i}> = <r{i + 1}> go;\n" for i in range(1, 3000))
    grammar = f"#JSGF V1.0;\ngrammar g;\npublic <r0> = <r1>;\n{chain}<r3000> = stop;\n"

    async def start_with_grammar():
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") as ws:
            await ws.send(json.dumps({"type": "start", "graph": "command", "grammar": grammar}))
            return json.loads(await ws.recv())
    refused = run(start_with_grammar())
    assert refused["code"] == "session" and "rule <r0> expands more than 300 levels deep" in refused["message"], refused

    s, r = raw_connection(server.wyoming_port)
    try:
        s.sendall(('{"type": "describe", "data": ' + deep + "}\n").encode())
        e = read_event(r)
        assert e.type == "error" and e.data["code"] == "bad-header" and "nested" in e.data["text"], e
        s.sendall(json.dumps({"type": "describe", "data_length": len(deep)}).encode() + b"\n" + deep.encode())
        e = read_event(r)
        assert e.type == "error" and e.data["code"] == "bad-data" and "nested" in e.data["text"], e
        s.sendall(b'{"type": "describe"}\n')
        assert read_event(r).type == "info"
    finally:
        s.close()
    with urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/healthz") as r:
        assert r.status == 200


def test_connections_past_the_limit_are_refused_at_once(speech):
    """--max-connections 4: three idle WebSockets and one idle Wyoming client take every place;
    a fifth connection, of either kind, is answered busy and closed; health is answered
    throughout; a place given back is taken again."""
    s = Server("--max-sessions", "2", "--max-connections", "4")
    try:
        async def go():
            url = f"ws://127.0.0.1:{s.http_port}/audiograph"
            idle = [await websockets.connect(url) for _ in range(3)]
            held = AsyncTcpClient("127.0.0.1", s.wyoming_port)
            await held.connect()
            await held.write_event(Ping().event())
            assert Pong.is_type((await held.read_event()).type)
            health = await asyncio.to_thread(lambda: urllib.request.urlopen(f"http://127.0.0.1:{s.http_port}/healthz", timeout=10).status)
            async with websockets.connect(url) as fifth:
                refused = json.loads(await fifth.recv())
                with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                    await fifth.recv()
            async with AsyncTcpClient("127.0.0.1", s.wyoming_port) as c:
                wyoming_refused = await c.read_event()
            await idle[0].close()
            await asyncio.sleep(0.5)
            async with websockets.connect(url) as again:
                await again.send(json.dumps({"type": "speak", "text": "ok"}))
                answer = json.loads(await again.recv())
            for ws in idle[1:]:
                await ws.close()
            await held.disconnect()
            return health, refused, closed.value.rcvd.code, wyoming_refused, answer
        health, refused, code, wyoming_refused, answer = run(go())
        assert health == 200
        assert refused["type"] == "error" and refused["code"] == "busy" and "--max-connections" in refused["message"], refused
        assert code == 1013
        assert wyoming_refused.type == "error" and wyoming_refused.data["code"] == "busy", wyoming_refused
        assert answer["type"] == "speak-start", answer
    finally:
        s.stop()
    assert "max-connections 1: below --max-sessions" in subprocess.run(
        [BINARY, "serve", "--max-sessions", "2", "--max-connections", "1"], capture_output=True, text=True).stderr


def test_limits_idle_and_a_session_that_ends_by_itself(speech):
    s = Server("--max-sessions", "1", "--idle-timeout", "2", "--wyoming", "none")
    try:
        path = speech("find japanese restaurants nearby", pad=1.5)
        url = f"ws://127.0.0.1:{s.http_port}/audiograph"

        async def go():
            async with websockets.connect(url) as ws:
                await ws.send(json.dumps({"type": "start", "graph": "command", "end-of-speech": "short"}))
                events = [json.loads(await ws.recv())]
                for data in frames(path, 3200):
                    await ws.send(data)
                while events[-1]["type"] != "end":
                    events.append(json.loads(await ws.recv()))
                await asyncio.sleep(0.5)
                # The session ended by itself and its place is free: another client gets one.
                async with websockets.connect(url) as other:
                    await other.send(json.dumps({"type": "start"}))
                    started = json.loads(await other.recv())
                    await other.send(json.dumps({"type": "cancel"}))
                # Silent past --idle-timeout: the server closes the connection.
                t0 = time.monotonic()
                try:
                    while True:
                        await asyncio.wait_for(ws.recv(), 10)
                except websockets.ConnectionClosed:
                    idle = time.monotonic() - t0
                return events, started, idle
        events, started, idle = run(go())
        assert events[-1]["reason"] == "end-of-speech"
        assert started["type"] == "started"
        assert idle < 8
    finally:
        s.stop()


def test_sessions_beyond_the_decoders_take_turns_and_lose_nothing(speech):
    """`serve --decoders 1`: three vosk sessions streaming at once share one decoder slot in
    turns; each gets its own words, none waits forever, and none reports lost audio."""
    s = Server("--decoders", "1", wyoming="none")
    try:
        texts = ["go forward ten meters", "find japanese restaurants nearby", "turn left at the next corner"]
        paths = [speech(t) for t in texts]

        async def all_at_once():
            return await asyncio.gather(*[vosk_client(f"ws://127.0.0.1:{s.http_port}/", p, {"sample_rate": 16000}, chunk=3200)
                                          for p in paths])
        results = run(all_at_once())
        keys = ["forward", "japanese", "corner"]
        for key, replies in zip(keys, results):
            heard = " ".join(r["text"] for r in replies if "text" in r)
            assert key in heard and not any(k in heard for k in keys if k != key), (key, heard)
        assert "overrun" not in s.text()
    finally:
        s.stop()


def spare_decoders(port):
    metrics = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    return int(next(line.split()[1] for line in metrics.splitlines() if line.startswith("audiograph_spare_decoders ")))


def test_models_kept_between_sessions_are_bounded(speech):
    """Each session's model was kept for the next one of its graph, as many as were ever in
    use at once, and a session's own grammar's for ever (a file removed with the session: no
    later session could ask for it); the server grew by a model per grammar. Now at most
    `--spare-decoders` are kept, a removed grammar's not at all, so the graph's own stay."""
    s = Server("--spare-decoders", "2", wyoming="none")
    try:
        path = speech("find japanese restaurants nearby")
        url = f"ws://127.0.0.1:{s.http_port}/audiograph"
        assert spare_decoders(s.http_port) <= 2

        async def session(start):
            async with websockets.connect(url) as ws:
                return await app_session(ws, start, path, 3200)

        async def three_at_once():
            return await asyncio.gather(*[session({"graph": "dictation"}) for _ in range(3)])
        for events in run(three_at_once()):
            assert events[-1]["reason"] == "stopped", events
        assert spare_decoders(s.http_port) == 2
        for i in range(3):
            grammar = f"#JSGF V1.0;\ngrammar g{i};\npublic <c> = find japanese restaurants nearby | call {'bob' if i else 'alice'} now{' please' * i};"
            events = run(session({"graph": "command", "grammar": grammar}))
            assert [e["text"] for e in events if e["type"] == "final"] == ["find japanese restaurants nearby"], events
        assert spare_decoders(s.http_port) == 2

        async def dictation_takes_a_kept_one():
            async with websockets.connect(url) as ws:
                await ws.send(json.dumps({"type": "start", "graph": "dictation"}))
                assert json.loads(await ws.recv())["type"] == "started"
                await ws.send(next(frames(path, 3200)))
                kept = spare_decoders(s.http_port)
                await ws.send(json.dumps({"type": "cancel"}))
                return kept
        assert run(dictation_takes_a_kept_one()) == 1  # the graph's own were not pushed out
    finally:
        s.stop()
