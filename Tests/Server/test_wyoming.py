"""audiograph serve against the real Wyoming client (the `wyoming` package), replaying Home
Assistant's sequences: describe, transcribe + audio, synthesize, wake, stdio and unix sockets.
(Bad input and clients that misbehave: test_wyoming_faults.py.)"""
import asyncio
import subprocess
import time
import wave

import pytest
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.event import read_event, write_event
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop, SynthesizeVoice
from wyoming.wake import Detect

from conftest import BINARY, ROOT, Server, run, send_audio, transcribe


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



def test_a_wake_stream_outlives_the_session_limit(speech):
    """A satellite streams to the wake-word service for as long as it runs. Past
    `--max-session-seconds` the stream ended with `too-long` and every later chunk was an
    error, so its wake word was gone after five minutes; a wake stream now has no limit (its
    graph's utterances are bounded), and the phrase is spotted after it as before."""
    s = Server("--max-session-seconds", "2", http="none")
    try:
        path = speech(["hello computer", "hello computer"], pad=2.5)

        async def go():
            async with AsyncTcpClient("127.0.0.1", s.wyoming_port) as c:
                await c.write_event(Detect(names=["hello_computer"]).event())
                await send_audio(c, path, stop=False)
                out = []
                while True:
                    try:
                        e = await asyncio.wait_for(c.read_event(), 5)
                    except asyncio.TimeoutError:
                        return out
                    if e is None:
                        return out
                    out.append(e)
        events = run(go())
        assert [e.type for e in events] == ["detection", "detection"], [(e.type, e.data) for e in events]
    finally:
        s.stop()
