"""audiograph serve against the real Wyoming client (the `wyoming` package), replaying Home
Assistant's sequences: describe, transcribe + audio, synthesize, wake, and bad input."""
import asyncio
import json
import socket
import subprocess
import time
import wave

import pytest
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.event import read_event, write_event
from wyoming.info import Describe, Info
from wyoming.ping import Ping, Pong
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop, SynthesizeVoice
from wyoming.wake import Detect

from conftest import BINARY, ROOT, Server, raw_connection, run


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


def test_describe_lists_models_voices_and_wake_phrases(server):
    async def go():
        async with AsyncTcpClient("127.0.0.1", server.wyoming_port) as c:
            await c.write_event(Describe().event())
            return Info.from_event(await c.read_event())
    info = run(go())
    assert info.asr[0].models[0].name == "transcribe"
    assert {"command", "dictation"} <= {m.name for m in info.asr[0].models}
    assert info.asr[0].supports_transcript_streaming
    assert all(m.installed and m.attribution.name and m.version for m in info.asr[0].models)
    assert "rms" in [v.name for v in info.tts[0].voices]
    assert "hello computer" in [m.phrase for m in info.wake[0].models]


def test_home_assistant_transcribe_with_streaming_events(server, speech):
    events = run(transcribe(server.wyoming_port, speech("find japanese restaurants nearby"), language="en"))
    types = [e.type for e in events]
    final = next(Transcript.from_event(e) for e in events if Transcript.is_type(e.type))
    assert "japanese" in final.text, final.text
    assert types[0] == "transcript-start" and types[-1] == "transcript-stop"
    chunks = "".join(e.data["text"] for e in events if e.type == "transcript-chunk")
    assert chunks == final.text
    assert types.index("transcript") > max(i for i, t in enumerate(types) if t == "transcript-chunk")
    assert "voice-started" in types and "voice-stopped" in types


@pytest.mark.parametrize("rate,channels", [(8000, 1), (44100, 2), (48000, 1)])
def test_any_rate_and_channels(server, speech, rate, channels):
    events = run(transcribe(server.wyoming_port, speech("find japanese restaurants nearby", rate, channels), language="en"))
    text = next(e.data["text"] for e in events if e.type == "transcript")
    assert "japanese" in text, text


def test_command_model_gives_the_grammar_sentence(server, speech):
    events = run(transcribe(server.wyoming_port, speech("find japanese restaurants nearby"), name="command", language="en"))
    assert next(e.data["text"] for e in events if e.type == "transcript") == "find japanese restaurants nearby"


def test_info_is_answered_at_once_while_others_decode(server, speech):
    long = speech("go forward ten meters. find japanese restaurants nearby. turn left at the next corner. " * 3)

    async def go():
        busy = [asyncio.create_task(transcribe(server.wyoming_port, long, language="en")) for _ in range(3)]
        await asyncio.sleep(0.3)
        async with AsyncTcpClient("127.0.0.1", server.wyoming_port) as c:
            t0 = time.monotonic()
            await c.write_event(Describe().event())
            e = await c.read_event()
            took = time.monotonic() - t0
        results = await asyncio.gather(*busy)
        return e, took, results
    e, took, results = run(go())
    assert Info.is_type(e.type)
    assert took < 1.0, took
    for events in results:
        assert "japanese" in next(x.data["text"] for x in events if x.type == "transcript")


def test_many_connections_at_once(server, speech):
    path = speech("find japanese restaurants nearby")

    async def go():
        return await asyncio.gather(*[transcribe(server.wyoming_port, path, name="command") for _ in range(6)])
    for events in run(go()):
        assert next(e.data["text"] for e in events if e.type == "transcript") == "find japanese restaurants nearby"


def test_synthesize_and_its_streaming_form(server):
    async def go():
        async with AsyncTcpClient("127.0.0.1", server.wyoming_port) as c:
            await c.write_event(Synthesize(text="The kitchen light is on.", voice=SynthesizeVoice(name="slt")).event())
            plain = []
            while (e := await c.read_event()).type != "audio-stop":
                plain.append(e)
            await c.write_event(SynthesizeStart().event())
            for piece in ["Turning on ", "the light. ", "It is ", "seven o'clock."]:
                await c.write_event(SynthesizeChunk(text=piece).event())
            await c.write_event(Synthesize(text="Turning on the light. It is seven o'clock.").event())
            await c.write_event(SynthesizeStop().event())
            streamed = []
            while (e := await c.read_event()).type != "synthesize-stopped":
                streamed.append(e)
            return plain, streamed
    plain, streamed = run(go())
    assert plain[0].type == "audio-start" and plain[0].data["rate"] == 16000 and plain[0].data["width"] == 2
    assert sum(len(e.payload) for e in plain if e.type == "audio-chunk") > 16000  # more than half a second
    # Two sentences, each spoken as soon as it was complete; the plain `synthesize` among the
    # streaming events is not spoken a second time.
    assert [e.type for e in streamed].count("audio-start") == 2
    assert [e.type for e in streamed].count("audio-stop") == 2


def test_wake_word_detection_and_not_detected(server, speech):
    async def go(path, detect, stop=True):
        async with AsyncTcpClient("127.0.0.1", server.wyoming_port) as c:
            if detect:
                await c.write_event(Detect(names=["hello_computer"]).event())
            await send_audio(c, path, stop=stop)
            out = []
            if not stop:
                # Home Assistant's older sequence: audio only, then it closes.
                while True:
                    try:
                        e = await asyncio.wait_for(c.read_event(), 10)
                    except asyncio.TimeoutError:
                        break
                    out.append(e)
                    if e.type == "detection":
                        break
                return out
            while True:
                e = await c.read_event()
                out.append(e)
                if e.type == "not-detected" or (e.type == "detection" and detect is not None):
                    if e.type == "detection":
                        # and nothing else after audio-stop but maybe more detections
                        pass
                    return out
    hit = run(go(speech("hello computer. what time is it"), True))
    assert hit[-1].type == "detection" and hit[-1].data["name"] == "hello computer"
    miss = run(go(speech("find japanese restaurants nearby"), True))
    assert [e.type for e in miss] == ["not-detected"]
    old = run(go(speech("hello computer"), None, stop=False))
    assert [e.type for e in old] == ["detection"]


def test_bad_input_is_an_error_and_the_connection_goes_on(server):
    s, r = raw_connection(server.wyoming_port)
    try:
        s.sendall(b"this is not json\n")
        e = read_event(r)
        assert e.type == "error" and e.data["code"] == "bad-header"
        s.sendall(json.dumps({"type": "audio-chunk", "data_length": "ten"}).encode() + b"\n")
        assert read_event(r).data["code"] == "bad-header"
        s.sendall(json.dumps({"type": "audio-chunk", "data_length": True}).encode() + b"\n")  # not the number 1
        assert read_event(r).data["code"] == "bad-header"
        s.sendall(json.dumps({"type": "transcribe", "data_length": 5}).encode() + b"\n" + b"[1,2]")
        assert read_event(r).data["code"] == "bad-data"
        s.sendall(json.dumps({"type": "audio-chunk", "payload_length": 5_000_000}).encode() + b"\n" + bytes(5_000_000))
        assert read_event(r).data["code"] == "too-large"
        s.sendall(json.dumps({"type": "audio-chunk"}).encode() + b"\n")
        assert read_event(r).data["code"] == "no-audio"
        s.sendall(json.dumps({"type": "audio-start", "data": {"rate": 1, "width": 2, "channels": 1}}).encode() + b"\n")
        assert read_event(r).data["code"] == "bad-audio"
        # Numbers past Int's range: before, Swift's conversion stopped the server.
        for fields in [{"rate": 1e300, "width": 2, "channels": 1}, {"rate": 16000, "width": 2, "channels": -1e300},
                       {"rate": 16000.5, "width": 2, "channels": 1}]:
            s.sendall(json.dumps({"type": "audio-start", "data": fields}).encode() + b"\n")
            e = read_event(r)
            assert e.data["code"] == "bad-audio" and "whole numbers" in e.data["text"], (fields, e.data)
        s.sendall(json.dumps({"type": "transcribe"}).encode() + b"\n"
                  + json.dumps({"type": "audio-start", "data": {"rate": 16000, "width": 2, "channels": 1}}).encode() + b"\n")
        assert read_event(r).type == "transcript-start"
        s.sendall(json.dumps({"type": "audio-chunk", "data": {"rate": 1e300, "width": 2, "channels": 1}, "payload_length": 4}).encode()
                  + b"\n" + bytes(4))
        assert read_event(r).data["code"] == "bad-audio"
        s.sendall(json.dumps({"type": "audio-stop"}).encode() + b"\n")
        while read_event(r).type != "transcript-stop":  # the stream goes on to its end
            pass
        s.sendall(json.dumps({"type": "transcribe", "data": {"name": "nosuch"}}).encode() + b"\n")
        e = read_event(r)
        assert e.data["code"] == "model" and "nosuch" in e.data["text"]
        s.sendall(json.dumps({"type": "some-future-event"}).encode() + b"\n")  # ignored
        write_event(Ping(text="still there").event(), s.makefile("wb"))
        e = read_event(r)
        assert Pong.is_type(e.type) and e.data["text"] == "still there"
    finally:
        s.close()


def test_a_client_that_leaves_mid_utterance_leaves_the_server_serving(server, speech):
    path = speech("find japanese restaurants nearby")
    for _ in range(3):
        s, r = raw_connection(server.wyoming_port)
        w = s.makefile("wb")
        write_event(Transcribe(language="en").event(), w)
        with wave.open(path) as wav:
            write_event(AudioStart(rate=16000, width=2, channels=1).event(), w)
            write_event(AudioChunk(rate=16000, width=2, channels=1, audio=wav.readframes(8000)).event(), w)
        w.flush()
        s.close()
    events = run(transcribe(server.wyoming_port, path, name="command"))
    assert next(e.data["text"] for e in events if e.type == "transcript") == "find japanese restaurants nearby"


def test_stdio(speech):
    proc = subprocess.Popen([BINARY, "serve", "--wyoming", "stdio://", "--http", "none", "--graphs", ROOT + "/Graphs"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        write_event(Describe().event(), proc.stdin)
        proc.stdin.flush()
        assert Info.is_type(read_event(proc.stdout).type)
        write_event(Transcribe(name="command", language="en").event(), proc.stdin)
        with wave.open(speech("find japanese restaurants nearby")) as wav:
            write_event(AudioStart(rate=16000, width=2, channels=1).event(), proc.stdin)
            while data := wav.readframes(1024):
                write_event(AudioChunk(rate=16000, width=2, channels=1, audio=data).event(), proc.stdin)
        write_event(AudioStop().event(), proc.stdin)
        proc.stdin.flush()
        while (e := read_event(proc.stdout)).type != "transcript":
            pass
        assert e.data["text"] == "find japanese restaurants nearby"
        proc.stdin.close()
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_busy_is_refused_at_once(speech):
    s = Server("--max-sessions", "1", "--http", "none")
    try:
        async def go():
            async with AsyncTcpClient("127.0.0.1", s.wyoming_port) as held:
                await held.write_event(Transcribe(language="en").event())
                await held.write_event(AudioStart(rate=16000, width=2, channels=1).event())
                await held.write_event(AudioChunk(rate=16000, width=2, channels=1, audio=bytes(3200)).event())
                await asyncio.sleep(0.3)
                async with AsyncTcpClient("127.0.0.1", s.wyoming_port) as second:
                    await second.write_event(Transcribe(language="en").event())
                    t0 = time.monotonic()
                    await second.write_event(AudioStart(rate=16000, width=2, channels=1).event())
                    e = await second.read_event()
                    return e, time.monotonic() - t0
        e, took = run(go())
        assert e.type == "error" and e.data["code"] == "busy", e
        assert took < 1.0
    finally:
        s.stop()


def test_a_client_that_stops_reading_stalls_nobody_else(server):
    """It asks for minutes of speech and never reads: its writes time out and it is dropped,
    while another client is answered at once throughout."""
    s, _ = raw_connection(server.wyoming_port)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    w = s.makefile("wb")
    for _ in range(20):
        write_event(Synthesize(text="This answer goes on and on and nobody is listening to it at all. " * 8).event(), w)
    w.flush()

    async def others():
        took = []
        t_end = time.monotonic() + 14
        while time.monotonic() < t_end:
            async with AsyncTcpClient("127.0.0.1", server.wyoming_port) as c:
                t0 = time.monotonic()
                await c.write_event(Ping().event())
                assert Pong.is_type((await c.read_event()).type)
                took.append(time.monotonic() - t0)
            await asyncio.sleep(0.5)
        return took
    took = run(others())
    assert max(took) < 1.0, took
    deadline = time.time() + 20
    while "stopped reading" not in server.text() and time.time() < deadline:
        time.sleep(0.5)
    s.close()
    assert "stopped reading" in server.text()


def test_unix_socket(speech, tmp_path):
    path = str(tmp_path / "wyoming.sock")
    s = Server("--http", "none", wyoming=f"unix://{path}")
    try:
        async def go():
            from wyoming.client import AsyncUnixClient
            async with AsyncUnixClient(path) as c:
                await c.write_event(Describe().event())
                return await c.read_event()
        assert Info.is_type(run(go()).type)
    finally:
        s.stop()
