#!/usr/bin/env python3
"""The assistant's exchanges in a reverberant room, offline (Tools/bench echo-reverb [ROTATIONS]).

What makes a reverberant room's answers interrupt themselves is their late echo, past the
echo canceller's 0.25 s filter. Here the room is an impulse response, so each exchange is the
same audio in every run:
- the test daemon's room (Tools/pulse-daemon reverb-room: swh-plugins' gverb, 6 m, 0.4 s),
  its impulse response measured through the daemon at the start (a click played into the
  reverb sink, recorded from the room's monitor);
- a second room nothing was tuned on: a seeded synthetic response (the direct sound, two
  reflections, a noise tail decaying 60 dB in 0.7 s).
Each exchange: a command (flite, rms voice, 0 dB: no echo), its answer 0.8 s later
("hello computer, you asked: ..."); every second answer is interrupted 2.6 s in by the next
command at 0 or -10 dB speech-to-echo and stops 0.3 s after it (the room's measured barge-in
latency), and that command's answer follows. The microphone: the answers through the room,
0.06 s late, plus the user, plus a -80 dBFS hiss. Through the canceller, a vad with
`background` 15, end of speech and the command grammar, as graphs/assistant-barge-in.json wires
them (aec.playing -> vad.gate, asr.gate; aec.echo -> vad.echo): commands recognised exactly (in
order, each final used once) and own-voice starts (the vad starting speech where the user says
nothing), with the late-echo stage off and at its default, over ROTATIONS rotations of the
commands (4 by default). Needs numpy.

Usage: Tools/echo_reverb_offline.py BIN_DIR [ROTATIONS]
"""
import json, os, subprocess, sys, tempfile, time, wave

try:
    import numpy as np
except ImportError:
    print("echo-reverb: skipped: needs numpy (apt install python3-numpy)")
    sys.exit(0)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pulse_room import PulseRoom
from echo_scoring import in_order

ag = os.path.join(sys.argv[1], "audiograph")
rotations = int(sys.argv[2]) if len(sys.argv) > 2 else 4
work = tempfile.mkdtemp(prefix="ag-echo-reverb-")
gram = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "graphs", "command.gram")
sr = 16000


def read(path):
    with wave.open(path) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(float)


def write(path, x):
    with wave.open(path, "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(sr)
        w.writeframes(np.clip(x, -32768, 32767).astype("<i2").tobytes())


def flite(text):
    raw, out = os.path.join(work, "f.wav"), os.path.join(work, f"{len(os.listdir(work))}.wav")
    subprocess.run(["flite", "-voice", "rms", "-t", text, "-o", raw], check=True)
    subprocess.run(["sox", raw, "-r", str(sr), "-c", "1", "-b", "16", out], check=True)
    return read(out)


def measured_room():
    """gverb's impulse response in the test daemon's reverberant room, one second of it."""
    with PulseRoom(work, kind="reverb-room") as room:
        click = np.zeros(sr * 2, dtype="<i2"); click[sr // 2] = 16000
        rec = os.path.join(work, "ir.raw")
        p = subprocess.Popen(["parec", "-d", "agtest_room.monitor", "--rate=16000", "--channels=1", "--format=s16le", rec], env=room.env)
        time.sleep(1)
        subprocess.run(["pacat", "-d", "agtest_reverb", "--rate=16000", "--channels=1", "--format=s16le"],
                       input=click.tobytes() + bytes(sr * 2), env=room.env, check=True)
        time.sleep(1.5)
        p.terminate(); p.wait()
    x = np.fromfile(rec, dtype="<i2").astype(float)
    onset = int(np.argmax(np.abs(x) > 100))
    return x[onset:onset + sr] / 16000


def synthetic_room():
    rng = np.random.default_rng(7)
    t = np.arange(sr) / sr
    tail = rng.normal(0, 1, sr) * 10 ** (-3 * t / 0.7)
    tail[:int(0.005 * sr)] = 0
    smooth = np.zeros(sr)
    for i in range(1, sr):
        smooth[i] = 0.5 * smooth[i - 1] + 0.5 * tail[i]
    h = 0.06 * smooth
    h[0] += 0.5; h[int(0.011 * sr)] += 0.25; h[int(0.023 * sr)] -= 0.2
    return h


commands = ["go back two meters", "move right five steps", "find some indian restaurants",
            "go forward seven meters", "status of flight a b twenty", "find japanese restaurants nearby"]
said = {c: flite(c) for c in commands}
answers = [flite(f"hello computer, you asked: {c}") for c in
           ["find japanese restaurants nearby", "status of flight a b twenty", "move left three steps", "go forward seven meters"]]


def exchanges(ir, db, rotation, n=12):
    """Writes the microphone and the reference; returns the commands said, in order, the spans
    where the user speaks, and each interrupting command with its onset."""
    ref, user, expected, spans, interrupting = np.zeros(sr * 200), np.zeros(sr * 200), [], [], []
    t = 0.5
    def say(c, at, gain=1.0):
        a = int(at * sr); user[a:a + len(said[c])] += said[c] * gain
        expected.append(c); spans.append((at - 0.3, at + len(said[c]) / sr + 0.5))
    for i in range(n):
        c = commands[(i + rotation) % len(commands)]
        say(c, t)
        t += len(said[c]) / sr + 0.8
        a = answers[(i + rotation) % len(answers)]
        if i % 2 == 1:
            a = a[:int(2.9 * sr)]
            ref[int(t * sr):int(t * sr) + len(a)] += a
            c2 = commands[(i // 2 + 3 + rotation) % len(commands)]
            say(c2, t + 2.6, 10 ** (db / 20))
            interrupting.append((t + 2.6, c2))
            t += 2.6 + len(said[c2]) / sr + 0.8
            b = answers[(i + rotation + 1) % len(answers)]
            ref[int(t * sr):int(t * sr) + len(b)] += b
            t += len(b) / sr + 1.5
        else:
            ref[int(t * sr):int(t * sr) + len(a)] += a
            t += len(a) / sr + 1.5
    end = int((t + 2) * sr)
    ref, user = ref[:end], user[:end]
    echo = np.concatenate([np.zeros(int(0.06 * sr)), np.convolve(ref, ir)[:end]])[:end]
    noise = np.random.default_rng(rotation).normal(0, 3, end)
    write(os.path.join(work, "mic.wav"), echo + user + noise)
    write(os.path.join(work, "ref.wav"), ref)
    return expected, spans, interrupting


def run(late):
    graph = {"graph": "reverb-offline", "nodes": [
        {"id": "mic", "type": "file-source", "params": {"path": os.path.join(work, "mic.wav")}},
        {"id": "ref", "type": "file-source", "params": {"path": os.path.join(work, "ref.wav")}},
        {"id": "aec", "type": "echo-canceller", "params": {} if late is None else {"late-echo": late}},
        {"id": "vad", "type": "vad", "params": {"background": 15}},
        {"id": "eos", "type": "end-of-speech", "params": {"mode": "short", "complete": 0.25, "incomplete": 1.2, "no-speech-timeout": 0}},
        {"id": "asr", "type": "recognizer", "params": {"grammar": os.path.abspath(gram)}}],
        "connections": [{"from": "mic", "to": "aec:0"}, {"from": "ref", "to": "aec:1"}, {"from": "aec", "to": "vad"},
                        {"from": "vad", "to": "eos"}, {"from": "eos", "to": "asr"}],
        "controls": [{"from": "aec.playing", "to": "vad.gate"}, {"from": "aec.playing", "to": "asr.gate"},
                     {"from": "aec.echo", "to": "vad.echo"}, {"from": "asr.verdict", "to": "eos.verdict"}]}
    path = os.path.join(work, "graph.json")
    with open(path, "w") as f:
        json.dump(graph, f)
    out = subprocess.run([ag, "run", path, "--json"], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.startswith("{")]


print("## A reverberant room offline: late echo")
print()
print(f"{rotations} rotations of 12 exchanges (18 commands each, 6 of them over an answer), the late-echo stage off and")
print("at its default: own-voice starts (the vad starting speech where the user says nothing), interrupting commands")
print("heard (speech starting within 0.6 s of their onset) and recognised exactly (the first final from their onset on),")
print("and all commands exact, in order.")
print()
print("| room | interruption | late-echo 0: own-voice starts, interruptions heard, exact, all exact | default |")
print("|---|---|---|---|")
for name, ir in [("the test daemon's gverb (6 m, 0.4 s), measured", measured_room()),
                 ("synthetic, 0.7 s (not tuned on)", synthetic_room())]:
    for db in [0, -10]:
        cells = []
        for late in [0, None]:
            exact = total = own = heard = right = said_over = 0
            for rotation in range(rotations):
                expected, spans, interrupting = exchanges(ir, db, rotation)
                es = run(late)
                finals = [e for e in es if e["type"] == "final"]
                starts = [e["t"] for e in es if e["type"] == "speech-start"]
                exact += in_order(expected, [f["text"] for f in finals]); total += len(expected)
                own += sum(1 for s in starts if not any(a <= s <= b for a, b in spans))
                for at, c in interrupting:
                    said_over += 1
                    heard += any(at - 0.1 <= s <= at + 0.6 for s in starts)
                    first = [f["text"] for f in finals if f["start"] >= at - 0.5]
                    right += bool(first) and first[0] == c
            cells.append(f"{own}, {heard}/{said_over}, {right}/{said_over}, {exact}/{total}")
        print(f"| {name} | {db} dB | {cells[0]} | {cells[1]} |")
        sys.stdout.flush()
