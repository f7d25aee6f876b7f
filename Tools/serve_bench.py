#!/usr/bin/env python3
"""Tools/bench serve: audiograph serve under load, on this machine, one run each.

1. Live dictation streams paced in real time (the corpus's speech, else flite's), N at once
   on audiograph's WebSocket protocol: the largest N whose finals arrive p95 <= 0.3 s after
   the end of speech was decided (stream start + the utterance-end's `decided`), with no
   overrun or warning; first-partial p50 at that load. Beside: CPU per second of audio of the
   same speech in pocketsphinx_continuous processes (streams per core, as a ratio). Run for
   the served graphs as they are and with `--set asr.second-pass=false` (the cheaper search),
   each with the word error rate of its streams' finals at that load, so the capacity comes
   with the accuracy it was measured at.
2. Wyoming `transcribe` of short flite commands (command grammar) through the `wyoming`
   client: round trips per second and audio-stop -> transcript p50/p95; `synthesize` time to
   the first audio chunk.
3. Memory: the server's resident set idle, with 1 and with N sessions (per extra session),
   beside one pocketsphinx_continuous process.

  serve_bench.py AUDIOGRAPH [CORPUS-DIR]
"""
import asyncio
import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import wave

import websockets

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transcripts import errors, normalize  # noqa: E402
from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.tts import Synthesize

BIN = sys.argv[1]
CORPUS = sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="ag-serve-bench-")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def cpu_s(pid):
    """User + system CPU seconds of the process, its ended threads included."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def speech_file():
    """About 30 s of speech with pauses (whole recordings, each followed by 1.2 s of silence),
    16 kHz mono s16, and its reference words."""
    out = os.path.join(TMP, "speech.wav")
    refs = {}
    try:
        refs = {e["file"]: e["transcript"] for e in json.load(open(os.path.join(CORPUS, "manifest.json"))) if e.get("transcript")}
    except OSError:
        pass
    parts = [(p, refs[os.path.basename(p)]) for p in sorted(
        glob.glob(os.path.join(CORPUS, "arctic_*.wav")) + glob.glob(os.path.join(CORPUS, "ps_cards_*.wav"))
        + glob.glob(os.path.join(CORPUS, "ljspeech_*.wav"))) if os.path.basename(p) in refs]
    src = "corpus"
    if not parts:
        src = "flite"
        for i, t in enumerate(["go forward ten meters", "find japanese restaurants nearby", "what is the weather like tomorrow in boston",
                               "turn left at the next corner", "play some music in the kitchen", "set a timer for ten minutes"] * 2):
            p = os.path.join(TMP, f"f{i}.wav")
            subprocess.run(["flite", "-voice", "rms", "-t", t, "-o", p], check=True)
            parts.append((p, t))
    conv, words, total = [], [], 0.0
    for i, (p, text) in enumerate(parts):
        c = os.path.join(TMP, f"c{i}.wav")
        subprocess.run(["sox", p, "-r", "16000", "-c", "1", "-b", "16", c, "pad", "0", "1.2"], check=True)
        with wave.open(c) as w:
            seconds = w.getnframes() / 16000
        if conv and total + seconds > 30:
            break
        conv.append(c)
        words += normalize(text)
        total += seconds
    subprocess.run(["sox"] + conv + [out], check=True)
    return out, src, words


def start_server(*args):
    log = open(os.path.join(TMP, "serve.log"), "w+")
    p = subprocess.Popen([BIN, "serve", "--graphs", os.path.join(ROOT, "Graphs"), "--wyoming", "tcp://127.0.0.1:0",
                          "--http", "127.0.0.1:0", *args], stderr=log, stdout=subprocess.DEVNULL)
    while True:
        text = open(log.name).read()
        if "serve: ready" in text:
            wy = int(re.search(r"wyoming on tcp://[\d.]+:(\d+)", text).group(1))
            http = int(re.search(r"websocket on [\d.]+:(\d+)", text).group(1))
            return p, wy, http
        if p.poll() is not None:
            sys.exit("serve exited: " + text)
        time.sleep(0.05)


async def live_stream(port, pcm, results, start_after=0.0):
    """One client streaming `pcm` in 0.1 s frames at real time, `start_after` seconds from now."""
    await asyncio.sleep(start_after)
    async with websockets.connect(f"ws://127.0.0.1:{port}/audiograph", max_size=None) as ws:
        await ws.send(json.dumps({"type": "start", "graph": "dictation", "partials": 0.25}))
        assert json.loads(await ws.recv())["type"] == "started"
        t0 = time.monotonic()
        latencies, first_partials, problems, text = [], [], [], []
        decided = {}
        speech_start = None

        async def reader():
            nonlocal speech_start
            async for m in ws:
                e = json.loads(m)
                now = time.monotonic() - t0
                if e["type"] == "speech-start":
                    speech_start = e["decided"]
                elif e["type"] == "partial" and speech_start is not None:
                    first_partials.append(now - speech_start)
                    speech_start = None
                elif e["type"] == "utterance-end":
                    decided[e["utterance"]] = e["decided"]
                elif e["type"] == "final":
                    text.extend(normalize(e.get("text", "")))
                    if e["utterance"] in decided:
                        latencies.append(now - decided[e["utterance"]])
                elif e["type"] in ("overrun", "warning", "error"):
                    problems.append(e)
                elif e["type"] == "end":
                    return
        task = asyncio.create_task(reader())
        step = 3200
        for k, i in enumerate(range(0, len(pcm), step)):
            await ws.send(pcm[i:i + step])
            delay = t0 + (k + 1) * 0.1 - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        await ws.send(json.dumps({"type": "stop"}))
        await task
        results.append((latencies, first_partials, problems, text))


async def load(port, pcm, n, stagger):
    """`n` streams at once: in lockstep (every stream's utterances end at the same instant, the
    worst burst), or staggered (stream i starts i/n of the speech's length later, so utterance
    ends spread over the whole file, as independent users' do)."""
    results = []
    length = len(pcm) / 32000
    await asyncio.gather(*[live_stream(port, pcm, results, i * length / n if stagger else 0.0) for i in range(n)])
    lat = [x for r in results for x in r[0]]
    fp = [x for r in results for x in r[1]]
    problems = sum(len(r[2]) for r in results)
    return lat, fp, problems, [r[3] for r in results]


async def wyoming_round_trips(port, path, n=30):
    with wave.open(path) as w:
        pcm = w.readframes(w.getnframes())
    times = []
    t_all = time.monotonic()
    for _ in range(n):
        async with AsyncTcpClient("127.0.0.1", port) as c:
            await c.write_event(Transcribe(name="command", language="en").event())
            await c.write_event(AudioStart(rate=16000, width=2, channels=1).event())
            for i in range(0, len(pcm), 2048):
                await c.write_event(AudioChunk(rate=16000, width=2, channels=1, audio=pcm[i:i + 2048]).event())
            t0 = time.monotonic()
            await c.write_event(AudioStop().event())
            while (e := await c.read_event()).type != "transcript":
                pass
            times.append(time.monotonic() - t0)
            text = e.data["text"]
    rate = n / (time.monotonic() - t_all)
    first_audio = []
    for _ in range(10):
        async with AsyncTcpClient("127.0.0.1", port) as c:
            t0 = time.monotonic()
            await c.write_event(Synthesize(text="The kitchen light is now on.").event())
            while (e := await c.read_event()).type != "audio-chunk":
                pass
            first_audio.append(time.monotonic() - t0)
    return times, rate, text, first_audio


def ladder(pcm, seconds, reference, settings, stagger=False):
    """The streams ladder on a server started with `settings`: the largest load in real time."""
    server, wy, http = start_server("--max-sessions", "64", *settings)
    idle_rss = rss_kb(server.pid)
    best = None
    print(f"\nserved graphs {'with ' + ' '.join(settings) if settings else 'as they are'}, streams {'staggered' if stagger else 'in lockstep'}:")
    print(f"{'streams':>8} {'final p50':>10} {'final p95':>10} {'1st partial p50':>16} {'problems':>9} {'server CPU/s audio':>19} {'WER':>6}")
    for n in [1, 2, 4, 6, 8, 10, 12, 14, 16, 20]:
        c0 = cpu_s(server.pid)
        rss = []

        async def run_and_sample():
            task = asyncio.create_task(load(http, pcm, n, stagger))
            while not task.done():
                rss.append(rss_kb(server.pid))
                await asyncio.sleep(0.5)
            return await task
        lat, fp, problems, texts = asyncio.run(run_and_sample())
        cpu = (cpu_s(server.pid) - c0) / (seconds * n)
        wer = sum(errors(t, reference) for t in texts) / max(1, len(reference) * len(texts))
        ok = lat and pct(lat, 95) <= 0.3 and problems == 0
        print(f"{n:>8} {pct(lat, 50):>9.3f}s {pct(lat, 95):>9.3f}s {pct(fp, 50):>15.3f}s {problems:>9} {cpu:>18.3f}s {100 * wer:>5.1f}%"
              f"   rss {max(rss) / 1024:.0f} MiB{'' if ok else '   (over the bound)'}")
        if n == 1:
            one_rss = max(rss)
        if ok:
            best = (n, pct(fp, 50), cpu, max(rss), wer)
        else:
            break
    if best:
        n, fp50, cpu, rss_n, wer = best
        print(f"largest load in real time (final p95 <= 0.3 s, no overrun): {n} streams at WER {100 * wer:.1f}%; first partial p50 {fp50:.3f} s; "
              f"server CPU {cpu:.3f} s per second of audio -> {1 / cpu:.1f} streams per core")
        extra = (rss_n - one_rss) / max(1, n - 1) / 1024
        print(f"memory: idle {idle_rss / 1024:.0f} MiB, 1 session {one_rss / 1024:.0f} MiB, {n} sessions {rss_n / 1024:.0f} MiB "
              f"({extra:.1f} MiB per extra session)")
    server.send_signal(signal.SIGTERM)
    server.wait(40)
    return best


def main():
    speech, src, reference = speech_file()
    with wave.open(speech) as w:
        pcm = w.readframes(w.getnframes())
        seconds = w.getnframes() / 16000
    print(f"serve bench: {os.cpu_count()} cores; live streams of {seconds:.0f} s of {src} speech ({len(reference)} words), paced in real time")
    # LADDERS (environment): which ladders run, of lockstep, staggered, cheap-lockstep,
    # cheap-staggered (default: all four); CHEAP: the cheaper search's settings (default
    # asr.second-pass=false; space-separated NODE.PARAM=VALUE).
    which = os.environ.get("LADDERS", "lockstep,staggered,cheap-lockstep,cheap-staggered").split(",")
    cheap_set = [a for v in os.environ.get("CHEAP", "asr.second-pass=false").split() for a in ("--set", v)]
    runs = {name: ladder(pcm, seconds, reference, cheap_set if name.startswith("cheap") else [], name.endswith("staggered"))
            for name in ["lockstep", "staggered", "cheap-lockstep", "cheap-staggered"] if name in which}
    best, cheap = runs.get("lockstep") or runs.get("staggered"), runs.get("cheap-lockstep") or runs.get("cheap-staggered")
    ps = shutil.which("pocketsphinx_continuous")
    if ps:
        t0 = time.monotonic()
        hyp_file = open(os.path.join(TMP, "peer.txt"), "w+")
        p = subprocess.Popen([ps, "-infile", speech, "-logfn", "/dev/null"], stdout=hyp_file)
        peak = 0
        while p.poll() is None:
            try:
                peak = max(peak, rss_kb(p.pid))
                c = cpu_s(p.pid)
            except (OSError, AttributeError):
                pass
            time.sleep(0.05)
        wall = time.monotonic() - t0
        hyp_file.seek(0)
        peer_wer = errors(normalize(hyp_file.read()), reference) / max(1, len(reference))
        print(f"peer pocketsphinx_continuous -infile: WER {100 * peer_wer:.1f}%, {c / seconds:.3f} s CPU per second of audio -> {seconds / c:.1f} streams per core "
              f"(one process a stream); resident {peak / 1024:.0f} MiB a process; wall {wall:.1f} s")
        for name, b in (("as they are", best), ("second-pass=false", cheap)):
            if b:
                print(f"ratio ({name}): audiograph serve streams per core / pocketsphinx_continuous streams per core = {(1 / b[2]) / (seconds / c):.2f}")
    else:
        print("peer: pocketsphinx_continuous not installed (apt-get install pocketsphinx)")
    server, wy, http = start_server("--max-sessions", "64")
    cmd = os.path.join(TMP, "cmd.wav")
    subprocess.run(["flite", "-voice", "rms", "-t", "find japanese restaurants nearby", "-o", os.path.join(TMP, "cmdraw.wav")], check=True)
    subprocess.run(["sox", os.path.join(TMP, "cmdraw.wav"), "-r", "16000", "-b", "16", cmd, "pad", "0.2", "0.5"], check=True)
    times, rate, text, first_audio = asyncio.run(wyoming_round_trips(wy, cmd))
    print(f"wyoming transcribe (command grammar, flite command, sequential): {rate:.1f} round trips/s; audio-stop -> transcript "
          f"p50 {pct(times, 50) * 1000:.0f} ms, p95 {pct(times, 95) * 1000:.0f} ms; text \"{text}\"")
    print(f"wyoming synthesize: first audio chunk p50 {pct(first_audio, 50) * 1000:.0f} ms, p95 {pct(first_audio, 95) * 1000:.0f} ms")
    server.send_signal(signal.SIGTERM)
    server.wait(40)
    shutil.rmtree(TMP, ignore_errors=True)


main()
