"""audiograph serve's own WebSocket protocol at `/audiograph`, with the `websockets` client:
sessions and speech, commands, the assistant mode, session calibration, app keys, bad input,
--set. (vosk-server's protocol: test_vosk.py; limits: test_limits.py; /healthz, /metrics and
the page: test_http.py.)"""
import asyncio
import json
import os
import tempfile
import urllib.error
import urllib.request

import pytest
import websockets

from conftest import Server, app_session, frames, run, vosk_client


def test_audiograph_protocol_session_and_speech(server, speech):
    path = speech("find japanese restaurants nearby", rate=44100)

    async def go():
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") as ws:
            events = await app_session(ws, {"graph": "dictation", "rate": 44100, "partials": 0.1, "vocabulary": ["shawarma"]},
                                       path, 8820)
            # A second session on the same connection, cancelled.
            await ws.send(json.dumps({"type": "start", "graph": "dictation"}))
            started = json.loads(await ws.recv())
            await ws.send(bytes(6400))
            await ws.send(json.dumps({"type": "cancel"}))
            cancelled = []
            while not cancelled or cancelled[-1]["type"] != "end":
                cancelled.append(json.loads(await ws.recv()))
            # Speech out: speak-start, PCM frames, speak-end.
            await ws.send(json.dumps({"type": "speak", "text": "The kitchen light is on."}))
            spoken = []
            while True:
                m = await ws.recv()
                spoken.append(m if isinstance(m, bytes) else json.loads(m))
                if isinstance(spoken[-1], dict) and spoken[-1]["type"] == "speak-end":
                    break
            return events, started, cancelled, spoken
    events, started, cancelled, spoken = run(go())
    types = [e["type"] for e in events]
    assert types[0] == "started" and types[-1] == "end" and events[-1]["reason"] == "stopped"
    assert "speech-start" in types and "partial" in types
    final = next(e for e in events if e["type"] == "final")
    assert "japanese" in final["text"] and final["words"] and 0 < final["confidence"] <= 1
    assert started["session"] == 2
    assert cancelled[-1]["reason"] == "cancelled" and not any(e["type"] == "final" for e in cancelled)
    assert spoken[0]["type"] == "speak-start" and spoken[0]["rate"] == 16000
    assert sum(len(b) for b in spoken if isinstance(b, bytes)) > 16000
    assert spoken[-1]["cancelled"] is False


def test_session_calibration_moves_a_sessions_later_finals(speech):
    """`session-calibration` in `start`: the first final keeps the model's confidences, later
    ones move with what the session's earlier words say; without it they are the model's.
    (A value that is not a boolean: test_bad_requests_are_errors_and_the_connection_stays.)"""
    joined = speech(["go forward ten meters", "find japanese restaurants nearby", "turn left at the corner"], pad=1.2)

    async def go(port, extra):
        async with websockets.connect(f"ws://127.0.0.1:{port}/audiograph") as ws:
            await ws.send(json.dumps({"type": "start", "graph": "dictation", **extra}))
            events = [json.loads(await ws.recv())]
            assert events[0]["type"] == "started", events
            for data in frames(joined, 6400):
                await ws.send(data)
            await ws.send(json.dumps({"type": "stop"}))
            while events[-1]["type"] != "end":
                events.append(json.loads(await ws.recv()))
            return events

    def alone(extra):
        # A server of its own: a kept decoder started over scores a stream's first utterance
        # a little differently from a fresh one (PocketSphinxDecoder.startOver says where).
        s = Server(wyoming="none")
        try:
            return run(go(s.http_port, extra))
        finally:
            s.stop()
    on, off = alone({"session-calibration": True}), alone({})
    finals = lambda events: [[w["confidence"] for w in e["words"]] for e in events if e["type"] == "final"]  # noqa: E731
    texts = lambda events: [e["text"] for e in events if e["type"] == "final"]  # noqa: E731
    assert len(texts(on)) == 3 and texts(on) == texts(off), (texts(on), texts(off))
    a, b = finals(on), finals(off)
    assert a[0] == b[0]
    assert a[1] != b[1] and a[2] != b[2]


@pytest.mark.parametrize("said, vocabulary", [("find japanese restaurants nearby", []), ("order shawarma", ["shawarma"])])
def test_command_grammar_and_end_of_speech(server, speech, said, vocabulary):
    """A client's grammar; with a vocabulary, its words are the grammar's too (read before the
    grammar is built: before, "shawarma" ended the session, missing in the dictionary)."""
    path = speech(said, pad=1.5)
    grammar = "#JSGF V1.0;\ngrammar c;\npublic <c> = (find | show) japanese restaurants nearby | go home | order shawarma;\n"
    if not vocabulary:
        grammar = grammar.replace(" | order shawarma", "")

    async def go():
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") as ws:
            await ws.send(json.dumps({"type": "start", "graph": "command", "grammar": grammar, "end-of-speech": "short",
                                      "vocabulary": vocabulary}))
            events = [json.loads(await ws.recv())]
            for data in frames(path, 3200):
                await ws.send(data)
                await asyncio.sleep(0)
            while events[-1]["type"] != "end":
                events.append(json.loads(await ws.recv()))
            return events
    events = run(go())
    assert [e["text"] for e in events if e["type"] == "final"] == [said], events
    assert events[-1]["reason"] == "end-of-speech"


def test_a_grammar_import_is_refused_wherever_it_is_written(server):
    """A client's grammar may not import: PocketSphinx reads <a.b.*> from the file a/b.gram
    beside the server. Before, only an import at a line's start was refused: after the
    header or a comment on the same line it was read (PocketSphinx went looking for the file),
    and the word "import" starting a line of a rule's body was refused."""
    refused = ["#JSGF V1.0;\ngrammar g; import <command.*>;\npublic <a> = go | <command.command>;\n",
               "#JSGF V1.0;\ngrammar g;\n/* x */ import <command.*>;\npublic <a> = go | <command.command>;\n",
               "#JSGF V1.0; grammar g; import <command.*>; public <a> = go;\n"]
    taken = "#JSGF V1.0;\ngrammar g;\npublic <a> = go home |\n  import the photos;\n"  # refused before

    async def go():
        answers = []
        for grammar in refused + [taken]:
            async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") as ws:
                await ws.send(json.dumps({"type": "start", "graph": "command", "grammar": grammar}))
                answers.append(json.loads(await ws.recv()))
        return answers
    answers = run(go())
    for answer in answers[:3]:
        assert answer["code"] == "bad-request" and "import is not allowed" in answer["message"], answer
    assert answers[3]["type"] == "started", answers[3]


def test_assistant_mode_wake_word_then_command(server, speech):
    """A thin device's assistant: `wake-word` makes the session the assistant's recognizer:
    wake and assistant events, the command's final, and it goes on until stopped."""
    wake, command = speech("hello computer", pad=1.0), speech("find japanese restaurants nearby", pad=1.5)
    grammar = "#JSGF V1.0;\ngrammar c;\npublic <c> = (find | show) japanese restaurants nearby | go home;\n"

    async def go():
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") as ws:
            await ws.send(json.dumps({"type": "start", "graph": "command", "grammar": grammar,
                                      "wake-word": "hello computer", "command-timeout": 5}))
            events = [json.loads(await ws.recv())]
            for path in [wake, command, command]:  # the second command comes without a wake word
                for data in frames(path, 3200):
                    await ws.send(data)
                    await asyncio.sleep(0)
            await ws.send(json.dumps({"type": "stop"}))
            while events[-1]["type"] != "end":
                events.append(json.loads(await ws.recv()))
            return events
    events = run(go())
    kinds = [e["type"] for e in events]
    assert events[0]["type"] == "started"
    assert [e["phrase"] for e in events if e["type"] == "wake"] == ["hello computer"], kinds
    states = [(e["state"], e.get("reason")) for e in events if e["type"] == "assistant"]
    assert states[:3] == [("waiting-for-wake-word", None), ("listening", None), ("waiting-for-wake-word", "understood")], states
    assert [e["text"] for e in events if e["type"] == "final"] == ["find japanese restaurants nearby"]
    assert events[-1]["reason"] == "stopped"


def test_bad_requests_are_errors_and_the_connection_stays(server):
    async def go():
        out = []
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph", max_size=None) as ws:
            for m in ["not json", '{"no": "type"}', '{"type": "fly"}', '{"type": "stop"}',
                      '{"type": "start", "graph": "nosuch"}', '{"type": "start", "format": "mp3"}',
                      '{"type": "start", "rate": 5}', '{"type": "start", "graph": "command", "grammar": "this is not jsgf"}',
                      '{"type": "start", "vocabulary": "one string"}', '{"type": "speak", "text": "hi", "voice": "nobody"}',
                      '{"type": "start", "wake-word": " "}', '{"type": "start", "wake-word": "hi", "command-timeout": 0}',
                      # JSON's numbers and booleans are not each other's
                      '{"type": "start", "session-calibration": "yes"}', '{"type": "start", "session-calibration": 1}',
                      '{"type": "start", "alternatives": true}',
                      # grammars: a file import, a left recursion, a rule of no words
                      json.dumps({"type": "start", "graph": "command", "grammar": "#JSGF V1.0;\ngrammar g;\nimport <x.y>;\npublic <a> = <x.y>;\n"}),
                      json.dumps({"type": "start", "graph": "command", "grammar": "#JSGF V1.0;\ngrammar g;\npublic <a> = <a> go;\n"}),
                      json.dumps({"type": "start", "graph": "command", "grammar": "#JSGF V1.0;\ngrammar g;\npublic <a> = <VOID>;\n"}),
                      # a short grammar for an automaton of 2^30 states: refused, not built
                      json.dumps({"type": "start", "graph": "command", "grammar": "#JSGF V1.0;\ngrammar g;\npublic <a> = go" + "+" * 30 + ";\n"})]:
                await ws.send(m)
                out.append(json.loads(await ws.recv()))
            await ws.send(b"\0" * 100)  # audio before start
            out.append(json.loads(await ws.recv()))
            await ws.send(b"\0" * (2 << 20))  # larger than --max-message
            out.append(json.loads(await ws.recv()))
            await ws.send('{"type": "speak", "text": "still here"}')
            out.append(json.loads(await ws.recv()))
            # speak's options: before, a wrong type or range was the default without a word
            speak_faults = []
            for m in ['{"type": "speak", "text": "hi", "rate": "fast"}', '{"type": "speak", "text": "hi", "rate": 100}',
                      '{"type": "speak", "text": "hi", "voice": 5}']:
                await ws.send(m)
                while True:  # past "still here"'s frames and its speak-end
                    reply = await ws.recv()
                    if isinstance(reply, str) and json.loads(reply)["type"] != "speak-end":
                        break
                speak_faults.append(json.loads(reply))
        return out, speak_faults
    out, speak_faults = run(go())
    assert [(m["code"], m["message"].split(":")[0]) for m in speak_faults] == [("bad-request", "speak")] * 3, speak_faults
    assert "rate" in speak_faults[0]["message"] and "rate" in speak_faults[1]["message"] and "voice" in speak_faults[2]["message"]
    codes = [m.get("code") for m in out]
    assert codes[:20] == ["bad-json", "bad-message", "bad-message", "state", "bad-request", "bad-request",
                          "bad-request", "session", "bad-request", "voice", "bad-request", "bad-request",
                          "bad-request", "bad-request", "bad-request", "bad-request", "session", "session", "session", "state"], codes
    assert "nosuch" in out[4]["message"]
    assert "wake-word" in out[10]["message"] and "command-timeout" in out[11]["message"]
    assert all("session-calibration" in m["message"] for m in out[12:14]) and "alternatives" in out[14]["message"]
    assert "import" in out[15]["message"] and "right-recursion" in out[16]["message"] and "no sentence" in out[17]["message"], out[15:18]
    assert "expands to" in out[18]["message"], out[18]
    assert codes[20] == "too-large"
    assert out[21]["type"] == "speak-start"


def test_reconnects_is_true_or_false(server):
    """`start`'s `reconnects` (the client starts a new session if the server ends this one):
    a boolean, else a bad-request naming it; true starts the session as any other."""

    async def go():
        out = []
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") as ws:
            for m in ['{"type": "start", "reconnects": "yes"}', '{"type": "start", "reconnects": 1}', '{"type": "start", "reconnects": true}']:
                await ws.send(m)
                out.append(json.loads(await ws.recv()))
            await ws.send('{"type": "cancel"}')
        return out
    out = run(go())
    assert [(m.get("code"), "reconnects" in m.get("message", "")) for m in out[:2]] == [("bad-request", True)] * 2, out
    assert out[2]["type"] == "started", out


def test_start_takes_whole_numbers_only(server):
    """A rate of 16000.5 started a session at 16000 (the fraction cut off), and alternatives 2.7
    gave 2; now each is a bad-request naming the field, and a whole number written as 16000.0
    is taken."""

    async def go():
        out = []
        async with websockets.connect(f"ws://127.0.0.1:{server.http_port}/audiograph") as ws:
            for m in [{"rate": 16000.5}, {"channels": 1.5}, {"alternatives": 2.7}, {"rate": 16000.0}]:
                await ws.send(json.dumps({"type": "start", **m}))
                out.append(json.loads(await ws.recv()))
        return out
    out = run(go())
    assert [m.get("code") for m in out[:3]] == ["bad-request"] * 3, out
    assert "whole numbers" in out[0]["message"] and "whole numbers" in out[1]["message"] and "alternatives" in out[2]["message"]
    assert out[3]["type"] == "started", out[3]


def test_app_keys_and_per_app_limits(speech):
    keys = tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False)
    keys.write("# id key max-sessions\nkiosk s3cret 1\nphone other\n")
    keys.close()
    s = Server("--keys", keys.name, "--wyoming", "none")
    try:
        base = f"ws://127.0.0.1:{s.http_port}/audiograph"

        async def refused(url):
            async with websockets.connect(url) as ws:
                m = json.loads(await ws.recv())
                try:
                    await asyncio.wait_for(ws.recv(), 5)
                except websockets.ConnectionClosed:
                    return m
                raise AssertionError("connection not closed after a refusal")

        async def go():
            missing = await refused(base)
            wrong = await refused(base + "?app=kiosk&key=nope")
            async with websockets.connect(base + "?app=kiosk&key=s3cret") as a:
                await a.send(json.dumps({"type": "start"}))
                first = json.loads(await a.recv())
                await a.send(json.dumps({"type": "start"}))  # same connection: state error
                await a.recv()
                async with websockets.connect(base + "?app=kiosk&key=s3cret") as b:
                    await b.send(json.dumps({"type": "start"}))
                    over = json.loads(await b.recv())
                async with websockets.connect(base, additional_headers={"Authorization": "Bearer phone:other"}) as c:
                    await c.send(json.dumps({"type": "start"}))
                    other = json.loads(await c.recv())
            return missing, wrong, first, over, other
        missing, wrong, first, over, other = run(go())
        assert missing["code"] == "key" and wrong["code"] == "key"
        assert first["type"] == "started"
        assert over["code"] == "app-busy" and "kiosk" in over["message"]
        assert other["type"] == "started"
        metrics = urllib.request.urlopen(f"http://127.0.0.1:{s.http_port}/metrics", timeout=5).read().decode()
        assert 'audiograph_sessions_refused_total{protocol="audiograph",reason="key"} 2' in metrics
        assert 'reason="app-busy"} 1' in metrics
    finally:
        s.stop()
        os.unlink(keys.name)


def test_set_overrides_a_parameter_in_every_graph_with_the_node(speech):
    """`serve --set asr.second-pass=false`: the log names the graphs it changed, and their
    sessions still recognise (the cheaper search the README's capacity figure is measured with)."""
    s = Server("--set", "asr.second-pass=false", wyoming="none")
    try:
        line = next(l for l in s.text().splitlines() if l.startswith("serve: --set"))
        assert "asr.second-pass=false" in line and "dictation" in line and "transcribe" in line, line
        path = speech("go forward ten meters. find japanese restaurants nearby")
        replies = run(vosk_client(f"ws://127.0.0.1:{s.http_port}/", path, {"sample_rate": 16000}))
        text = " ".join(r["text"] for r in replies if "text" in r)
        assert "forward ten meters" in text and "japanese" in text, text
    finally:
        s.stop()

