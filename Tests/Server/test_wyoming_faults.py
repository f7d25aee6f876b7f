"""audiograph serve's Wyoming side under bad input and clients that misbehave: every bad
event is one `error` and the connection goes on; a client that leaves mid-utterance, one past
--max-sessions and one that stops reading leave everyone else served. (The protocol itself,
with the real `wyoming` client: test_wyoming.py.)"""
import asyncio
import json
import socket
import time
import wave

from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.event import read_event, write_event
from wyoming.ping import Ping, Pong
from wyoming.tts import Synthesize

from conftest import Server, raw_connection, run, transcribe


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
        s.sendall(json.dumps({"type": "transcribe", "data": {"name": "assistant"}}).encode() + b"\n")
        e = read_event(r)  # a graph of the folder left out says why
        assert e.data["code"] == "model" and "not served" in e.data["text"] and "speech-synth" in e.data["text"], e.data
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


def test_a_client_that_closes_while_its_answer_is_written_leaves_the_server_up():
    """A client that reads what has come and closes (a FIN, not a reset) while its speech is
    still being written: the server's next write is a broken pipe. Before, with no HTTP side
    (civetweb ignores SIGPIPE, hiding it), that signal ended the server and every session."""
    s = Server("--http", "none", http=None)
    try:
        body = json.dumps({"text": "hello there. " * 100}).encode()
        for attempt in range(40):
            c = socket.create_connection(("127.0.0.1", s.wyoming_port), timeout=10)
            c.sendall(json.dumps({"type": "synthesize", "data_length": len(body)}).encode() + b"\n" + body)
            time.sleep(0.2 + 0.02 * attempt)  # into the speech, somewhere between two writes
            c.setblocking(False)
            try:
                while c.recv(1 << 20):
                    pass
            except BlockingIOError:
                pass
            c.close()  # nothing left unread: a FIN
            time.sleep(0.3)
            assert s.proc.poll() is None, f"the server ended ({s.proc.returncode}) after {attempt + 1} clients"
            if "went away while its answer was written" in s.text():
                break
        assert "went away while its answer was written" in s.text(), s.text()[-2000:]
        c, r = raw_connection(s.wyoming_port)
        c.sendall(b'{"type": "describe"}\n')
        assert read_event(r).type == "info"
        c.close()
    finally:
        s.stop()


def test_audio_cut_anywhere_is_heard_as_a_whole(server, speech):
    """Chunks whose byte counts are no whole number of samples (1,001 bytes of 16-bit audio):
    the audio is a stream of bytes. Before, each chunk's odd byte was dropped, every later
    sample was shifted by a byte, and the phrase was heard as "up"."""
    path = speech("find japanese restaurants nearby")
    with wave.open(path) as w:
        rate, width, channels = w.getframerate(), w.getsampwidth(), w.getnchannels()
        pcm = w.readframes(w.getnframes())

    async def go():
        async with AsyncTcpClient("127.0.0.1", server.wyoming_port) as c:
            await c.write_event(Transcribe(language="en").event())
            await c.write_event(AudioStart(rate=rate, width=width, channels=channels).event())
            for i in range(0, len(pcm), 1001):
                await c.write_event(AudioChunk(rate=rate, width=width, channels=channels, audio=pcm[i:i + 1001]).event())
            await c.write_event(AudioStop().event())
            while True:
                e = await c.read_event()
                assert e is not None, "closed before the transcript"
                if e.type == "transcript":
                    return e.data["text"]
    whole = next(e for e in run(transcribe(server.wyoming_port, path)) if e.type == "transcript").data["text"]
    assert "japanese restaurants" in whole, whole
    assert run(go()) == whole
