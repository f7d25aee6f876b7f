#!/usr/bin/env python3
"""Echo cancellation and barge-in figures (Tools/bench echo), flite voices for the user.

1. Offline, deterministic: flite's answer through a simulated room (the loop delay, sox's
   reverb, -6 dB) as the microphone, the answer as the reference, through the
   `echo-canceller` node: echo return loss enhancement (ERLE) after 3 s, convergence time (the
   first 0.5 s window taking 20 dB out after which the mean is 25 dB or more), the delay the node
   measured, and the node's CPU per second of audio (with noise suppression too).
2. The room: a private PulseAudio daemon whose captured source hears the user (its pipe
   source) and the speaker's monitor at full level (Tools/pulse-daemon room). Each answer
   begins with the wake word. For each canceller -- the node in graphs/assistant-barge-in.json,
   and PulseAudio's module-echo-cancel (webrtc, speex) in front of graphs/assistant.json with
   barge-in -- N exchanges nobody interrupts (barge-ins, utterances from its own voice) and N
   whose answer the user interrupts with the next command, at 0 dB and -10 dB speech to echo
   (answers stopped, commands recognised exactly, onset to stop). The node once more in a
   drift-free room: the user looped into the speaker and the microphone the speaker's own
   monitor, so the echo is what was played at a fixed latency, on the playback's clock
   (AG_ECHO_ONLY_DRIFT_FREE=1 runs that row alone, AG_ECHO_ONLY_DRIFTING=1 the node's row in
   the drifting room alone; AG_ECHO_ONLY_NODE=1 leaves out the peers). And in a reverberant
   room: the speaker a LADSPA reverb in the daemon (swh-plugins' gverb: 6 m, 0.4 s), the echo
   on the room's clock (Tools/pulse-daemon reverb-room; AG_ECHO_ONLY_REVERB=1 runs that row
   alone). AG_ROOM_LATENCY_MS sets the drifting room's loop latency (Tools/pulse-daemon);
   AG_ROOM_ECHO_LATENCY_MS puts the reverberant room's echo through a loopback of that latency.
   AG_ECHO_ROOMS_ONLY=1 leaves the offline tables empty; AG_ECHO_SET="node.param=value ..." tries --set assignments on the node's rows; AG_ECHO_ONLY_DB=-10 (or 0) runs only that level's interrupted script; AG_ECHO_EVENTS=DIR keeps each room
   run's events and what its user said; AG_ECHO_GRAPH=FILE runs the node's rows on another graph
   (a variant, e.g. with wav-sink taps). Each row is followed by what went wrong with each interrupted answer that
   missed, and by each answer to an interruption that its own voice stopped (an HTML comment
   each).
   Then, with the offline tables, ERLE and CPU in the drifting room, the node beside
   module-echo-cancel on the same answers (echo_room_erle.py; alone: Tools/bench echo-room).
   Before the room, offline: the same N commands with no echo at all, through the assistant
   with and without the canceller in the path (commands exact: the canceller costs nothing).

Usage: Tools/echo_bench.py BIN_DIR [N]
"""
import json, math, os, resource, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pulse_room import PulseRoom
from echo_scoring import in_order
from bench_audio import ANSWER_TEXT, flite, samples, sox

bin_dir = sys.argv[1]
n_room = int(sys.argv[2]) if len(sys.argv) > 2 else 20
ag = os.path.join(bin_dir, "audiograph")
work = tempfile.mkdtemp(prefix="ag-echo-bench-")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# 1. Offline.
ref = os.path.join(work, "ref.wav")
flite(ANSWER_TEXT, ref)
seconds = len(samples(ref)) / 16000


def cancel(mic, params, reference=None):
    """The canceller over `mic` with `reference` (the answer by default) as what plays."""
    out = os.path.join(work, "out.wav")
    graph = os.path.join(work, "aec.json")
    with open(graph, "w") as f:
        json.dump({"graph": "aec", "nodes": [
            {"id": "mic", "type": "file-source", "params": {"path": mic}},
            {"id": "ref", "type": "file-source", "params": {"path": reference or ref}},
            {"id": "aec", "type": "echo-canceller", "params": params},
            {"id": "out", "type": "wav-sink", "params": {"path": out}}],
            "connections": [{"from": "mic", "to": "aec:0"}, {"from": "ref", "to": "aec:1"}, {"from": "aec", "to": "out"}]}, f)
    c0 = cpu_children()
    r = subprocess.run([ag, "run", graph, "--json"], capture_output=True, text=True, check=True)
    cpu = cpu_children() - c0
    delays = [json.loads(l)["delay"] for l in r.stdout.splitlines() if '"echo-delay"' in l]
    return out, cpu, delays


def erle_windows(mic, out):
    m, o = samples(mic), samples(out)
    w = 8000
    es = [(sum(v * v for v in m[s:s + w]), sum(v * v for v in o[s:s + w]), s) for s in range(0, min(len(m), len(o)) - w, w)]
    peak = max(e for e, _, _ in es)
    return [(s / 16000, 10 * math.log10(mi / max(oi, 1e-12))) for mi, oi, s in es if mi > peak * 1e-3]


def passthrough_cpu(mic):
    graph = os.path.join(work, "pass.json")
    with open(graph, "w") as f:
        json.dump({"graph": "pass", "nodes": [
            {"id": "mic", "type": "file-source", "params": {"path": mic}},
            {"id": "ref", "type": "file-source", "params": {"path": ref}},
            {"id": "mix", "type": "mixer"},
            {"id": "out", "type": "wav-sink", "params": {"path": os.path.join(work, "pass.wav")}}],
            "connections": [{"from": "mic", "to": "mix"}, {"from": "ref", "to": "mix"}, {"from": "mix", "to": "out"}]}, f)
    c0 = cpu_children()
    subprocess.run([ag, "run", graph], capture_output=True, check=True)
    return cpu_children() - c0


print("## Echo canceller offline: flite's answer through a simulated room")
print()
print(f"The answer ({seconds:.1f} s) as the reference; the microphone is the answer delayed by the loop, through")
print("`sox reverb 40 50 30`, at -6 dB. ERLE: energy in over energy out over the 0.5 s windows after 3 s where")
print("the echo is loud; converged: the first window taking 20 dB out after which the mean is 25 dB or more.")
print("The node with its defaults, then without its last stage (`coherence` 0: the filter and speexdsp's residual")
print("suppression alone).")
print()
print("| loop delay | delay measured | ERLE after 3 s | converged after | ERLE, coherence off | ERLE, align off | CPU ms per s of audio (noise suppression -15 dB) |")
print("|---|---|---|---|---|---|---|")
offline = os.environ.get("AG_ECHO_ROOMS_ONLY") != "1"  # "1": the room rows alone (tables left empty)
for delay in [0.02, 0.06, 0.12, 0.2, 0.4] if offline else []:
    mic = os.path.join(work, f"mic{delay}.wav")
    sox(ref, mic, "pad", str(delay), "0", "reverb", "40", "50", "30", "gain", "-6")
    base = min(passthrough_cpu(mic) for _ in range(3))
    runs = [cancel(mic, {}) for _ in range(3)]
    out, _, delays = runs[0]
    cpu = (min(r[1] for r in runs) - base) / seconds * 1000
    ws = erle_windows(mic, out)
    after3 = [e for t, e in ws if t >= 3]
    erle = statistics.mean(after3) if after3 else float("nan")
    conv = next((t for i, (t, e) in enumerate(ws) if e >= 20 and statistics.mean(x for _, x in ws[i:]) >= 25), None)
    off = erle_windows(mic, cancel(mic, {"align": False})[0])
    off_erle = statistics.mean([e for t, e in off if t >= 3] or [float("nan")])
    ns = (min(cancel(mic, {"noise-suppression": -15})[1] for _ in range(3)) - base) / seconds * 1000
    plain = erle_windows(mic, cancel(mic, {"coherence": 0})[0])
    plain_erle = statistics.mean([e for t, e in plain if t >= 3] or [float("nan")])
    print(f"| {delay * 1000:.0f} ms | {', '.join(f'{d * 1000:.0f} ms' for d in delays) or '-'} | {erle:.1f} dB | "
          f"{f'{conv:.1f} s' if conv is not None else 'never'} | {plain_erle:.1f} dB | {off_erle:.1f} dB | {cpu:.1f} ({ns:.1f}) |")
print()

# 1c. The microphone on another clock: the echo comes back a little faster or slower than it
# was played (a USB headset's two clocks, a loopback that adapts its rate). Five answers with
# 8 s pauses between (each pause lets the clocks drift apart), through sox's speed at the
# given rate, delayed 120 ms, at -6 dB.
print("## Echo on another clock, offline: five answers with 8 s pauses, the echo at another rate")
print()
print("ERLE over the first second of each answer after the first (the clocks drifted through the pause), and over")
print("seconds 1-3; with `drift` (default) and without.")
print()
print("| clock | first second | seconds 1-3 | without drift: first second, 1-3 |")
print("|---|---|---|---|")
pause = os.path.join(work, "pause.wav")
sox("-n", "-r", "16000", "-c", "1", "-b", "16", pause, "trim", "0", "8")
answers = os.path.join(work, "answers5.wav")
sox(*([ref, pause] * 5), answers)
starts = [k * (seconds + 8) for k in range(5)]


def answer_erle(mic, out, a, b):
    m, o = samples(mic), samples(out)
    ratios = []
    for s0 in starts[1:]:
        x, y = int((s0 + a + 0.12) * 16000), int((s0 + b + 0.12) * 16000)
        ratios.append(10 * math.log10(sum(v * v for v in m[x:y]) / max(sum(v * v for v in o[x:y]), 1e-12)))
    return statistics.mean(ratios)


for ppm in [80, -80, 300] if offline else []:
    mic = os.path.join(work, f"clock{ppm}.wav")
    sox(answers, mic, "pad", "0.12", "0", "speed", f"{1 + ppm * 1e-6:.6f}", "rate", "-v", "16000", "gain", "-6")
    row = []
    for params in [{}, {"drift": False}]:
        out = cancel(mic, params, answers)[0]
        row.append((answer_erle(mic, out, 0, 1), answer_erle(mic, out, 1, 3)))
    print(f"| {ppm:+d} ppm | {row[0][0]:.1f} dB | {row[0][1]:.1f} dB | {row[1][0]:.1f} dB, {row[1][1]:.1f} dB |")
print()
sys.stdout.flush()


# 2. The room.
def room_run(graph, user_raw, extra, modules=(), kind="room"):
    with PulseRoom(work, modules, kind) as room:
        def user():
            time.sleep(6)  # the model loaded and the room's loopbacks settled
            room.speak(user_raw)
            time.sleep(3)
        es = room.events([ag, "run", graph, "--json", "--set", "tts.reply=hello computer, you asked: {text}"] + extra, user)
        if os.environ.get("AG_ECHO_EVENTS"):  # every run's events kept, for a closer look
            os.makedirs(os.environ["AG_ECHO_EVENTS"], exist_ok=True)
            stem = os.path.join(os.environ["AG_ECHO_EVENTS"], f"{kind}-{time.time():.0f}")
            with open(stem + ".jsonl", "w") as f:
                f.writelines(json.dumps(e) + "\n" for e in es)
            with open(stem + ".user.raw", "wb") as f:  # what the user said (16 kHz s16 mono)
                f.write(user_raw)
        return es


says = ["find japanese restaurants nearby", "go forward ten meters", "status of flight l x forty",
        "find some italian restaurants", "move left three steps"]
interrupts = ["go back two meters", "move right five steps", "find some indian restaurants",
              "go forward seven meters", "status of flight a b twenty"]
wake = os.path.join(work, "wake.wav"); flite("hello computer", wake)
for i, s in enumerate(says + interrupts):
    flite(s, os.path.join(work, f"say{i}.wav"))
gap = lambda s: (lambda p: (sox("-n", "-r", "16000", "-c", "1", "-b", "16", p, "trim", "0", str(s)), p)[1])(os.path.join(work, f"gap{s}.wav"))


USER = os.path.join(work, "user.wav")  # the last script, as a file


def script(n, interrupt_db=None):
    """Wake, command; then (interrupting) the next command 2.6 s after it, over the answer.
    Written to USER; returns its raw PCM and the commands it says."""
    parts, expected = [], []
    for i in range(n):
        c = os.path.join(work, f"say{i % len(says)}.wav")
        parts += [wake, gap(1.5), c]
        expected.append(says[i % len(says)])
        if interrupt_db is not None:
            j = len(says) + i % len(interrupts)
            quiet = os.path.join(work, f"int{j}_{interrupt_db}.wav")
            sox(os.path.join(work, f"say{j}.wav"), quiet, "gain", str(interrupt_db))
            parts += [gap(2.6), quiet, gap(6)]
            expected.append(interrupts[i % len(interrupts)])
        else:
            parts += [gap(7.5)]
    sox(*parts, USER)
    raw = subprocess.run(["sox", USER, "-t", "raw", "-"], capture_output=True, check=True).stdout
    return raw, expected


def answers_an_interruption(text, expected, after_a_stop):
    """Whether an answer ("..., you asked: X") answers an interrupting command: X shares more
    words with one of the interrupting commands (expected[1::2]) than with any plain one; on a
    tie (X misheard), whether the answer before it was stopped by the user."""
    asked = set(text.split("asked:")[-1].split())
    best = lambda commands: max((len(asked & set(c.split())) for c in commands), default=0)
    plain, interrupting = best(expected[0::2]), best(expected[1::2])
    return interrupting > plain if interrupting != plain else after_a_stop


def measure(es, expected, interrupted):
    finals = [e["text"] for e in es if e["type"] == "final"]
    ends = [e for e in es if e["type"] == "speak-end"]
    barges = [e for e in es if e["type"] == "barge-in"]
    own = sum(1 for t in finals if "asked" in t or "hello" in t)
    right = 0
    if interrupted:
        # Each interrupting command: the final after a barge-in.
        k = 0
        for i, e in enumerate(es):
            if e["type"] == "barge-in":
                f = next((x for x in es[i + 1:] if x["type"] == "final"), None)
                if f and k < len(expected) and f["text"] in expected[1::2]:
                    right += 1
                k += 1
    else:
        right = in_order(expected, finals)
    # What went wrong with each answer that did not end in an interrupting command recognised
    # exactly: not stopped (and what was heard next), or stopped with another final.
    misses = []
    if interrupted:
        # Finals carry no time: events are in the order they happened.
        starts = [i for i, e in enumerate(es) if e["type"] == "speak-start"]
        stopped = False  # the answer before was stopped: this one answers the interruption
        for n, i in enumerate(starts):
            a = es[i]
            nxt = starts[n + 1] if n + 1 < len(starts) else len(es)
            end = next((x for x in es[i:nxt] if x["type"] == "speak-end"), None)
            after = [x["text"] for x in es[i:nxt] if x["type"] == "final"]
            answers_interruption = answers_an_interruption(a.get("text", ""), expected, stopped)
            # Only a real interruption makes the next answer one to an interruption.
            stopped = bool(end and end.get("cancelled")) and not answers_interruption
            if answers_interruption:
                # Nobody speaks over the answer to an interrupting command: stopped, it was
                # stopped by its own voice.
                if end and end.get("cancelled"):
                    misses.append(f"'{a.get('text', '')}' (the answer to an interruption) stopped by its own voice "
                                  f"{end['t'] - a['t']:.2f} s in")
                continue
            if end and end.get("cancelled"):
                if not after or after[0] not in expected[1::2]:
                    misses.append(f"'{a.get('text', '')}' stopped, then {after[:1] or 'no final'}")
            else:
                misses.append(f"'{a.get('text', '')}' not stopped, then {after[:2]}")
    stop = []
    for b in barges:
        e = next((x for x in ends if x["t"] >= b["t"] and x.get("cancelled")), None)
        if e:
            stop.append(e["t"] - b["t"])
    return dict(answers=len(ends), stopped=sum(1 for e in ends if e.get("cancelled")), barges=len(barges),
                own=own, right=right, stop=stop, misses=misses)


# 1b. Commands with no echo at all, offline (a file has no echo): the canceller in the path
# must not cost the recognizer anything.
print(f"## Commands without any echo, offline: {n_room} exchanges (wake word, command)")
print()
print("| graph | commands exact | barge-ins |")
print("|---|---|---|")
raw, exp = script(n_room)
for name, graph, extra in [("assistant.json, barge-in (no canceller)", "graphs/assistant.json", ["--set", "tts.barge-in=true"]),
                           ("assistant-barge-in.json (the canceller in the path)", "graphs/assistant-barge-in.json", [])] if offline else []:
    out = subprocess.run([ag, "run", graph, "--source", USER, "--sink",
                          os.path.join(work, "answers.wav"), "--json"] + extra, capture_output=True, text=True)
    m = measure([json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")], exp, False)
    print(f"| {name} | {m['right']}/{n_room} | {m['barges']} |")
print()
sys.stdout.flush()

# (name, graph, --set arguments, modules loaded in the room, Tools/pulse-daemon's room kind)
# AG_ECHO_GRAPH=FILE: the node's rows run that graph instead (a variant, e.g. with wav-sink taps).
node_graph = os.environ.get("AG_ECHO_GRAPH", "graphs/assistant-barge-in.json")
cancellers = [
    ("echo-canceller node (graphs/assistant-barge-in.json)", node_graph,
     ["--set", "mic.device=agtest_room.monitor", "--set", "speaker.device=agtest_sink"], [], "room"),
    ("the same, drift-free room (the microphone is the speaker's own monitor)", node_graph,
     ["--set", "mic.device=agtest_sink.monitor", "--set", "speaker.device=agtest_sink"], [], "drift-free-room"),
    ("the same, reverberant room (a 6 m room, 0.4 s: gverb in the daemon, "
     + (f"its echo through a {os.environ['AG_ROOM_ECHO_LATENCY_MS']} ms loopback, drifting)" if os.environ.get("AG_ROOM_ECHO_LATENCY_MS")
        else "drift-free)"), node_graph,
     ["--set", "mic.device=agtest_room.monitor", "--set", "speaker.device=agtest_reverb"], [], "reverb-room"),
]
# AG_ECHO_SET="vad.background=15 aec.hold=20": --set assignments for the node's rows (a trial).
trial = [a for kv in os.environ.get("AG_ECHO_SET", "").split() for a in ("--set", kv)]
cancellers = [(name + (f" with {os.environ['AG_ECHO_SET']}" if trial else ""), graph, extra + trial, modules, kind)
              for name, graph, extra, modules, kind in cancellers]
for method in ([] if os.environ.get("AG_ECHO_ONLY_NODE") == "1" else ["webrtc", "speex"]):
    cancellers.append((f"module-echo-cancel aec_method={method} (graphs/assistant.json, barge-in)", "graphs/assistant.json",
                       ["--set", "tts.barge-in=true", "--set", "mic.device=ec_source", "--set", "speaker.device=ec_sink"],
                       [["module-echo-cancel", "source_master=agtest_room.monitor", "sink_master=agtest_sink",
                         f"aec_method={method}", "source_name=ec_source", "sink_name=ec_sink"]], "room"))
# 2a. ERLE and CPU in the room, the node beside module-echo-cancel on the same answers
# (echo_room_erle.py; with the offline tables, and not when only some rows run).
if offline and not any(os.environ.get(k) == "1" for k in
                       ("AG_ECHO_ONLY_NODE", "AG_ECHO_ONLY_DRIFT_FREE", "AG_ECHO_ONLY_DRIFTING", "AG_ECHO_ONLY_REVERB")):
    sys.stdout.flush()
    subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "echo_room_erle.py"), bin_dir, "3"], check=True)
    sys.stdout.flush()
print(f"## Barge-in in the room: {n_room} exchanges each, answers beginning with the wake word")
print()
print("| canceller | nobody interrupts: barge-ins, own-voice finals, commands exact | interrupted at 0 dB: stopped, commands exact, onset to stop p50/p95 | at -10 dB: stopped, exact |")
print("|---|---|---|---|")
for name, graph, extra, modules, kind in cancellers:
    if os.environ.get("AG_ECHO_ONLY_DRIFT_FREE") == "1" and kind != "drift-free-room":
        continue
    if os.environ.get("AG_ECHO_ONLY_DRIFTING") == "1" and (kind != "room" or modules):
        continue
    if os.environ.get("AG_ECHO_ONLY_REVERB") == "1" and kind != "reverb-room":
        continue
    only_db = os.environ.get("AG_ECHO_ONLY_DB")  # "-10": that level's interrupted run alone
    row = ["-"]
    if only_db is None:
        raw, exp = script(n_room)
        calm = measure(room_run(graph, raw, extra, modules, kind), exp, False)
        row = [f"{calm['barges']}, {calm['own']}, {calm['right']}/{n_room}"]
    notes = []
    for db in [0, -10]:
        if only_db is not None and db != int(only_db):
            row.append("-")
            continue
        raw, exp = script(n_room, db)
        m = measure(room_run(graph, raw, extra, modules, kind), exp, True)
        notes.append((db, m["misses"]))
        row.append(f"{m['stopped']}/{n_room}, {m['right']}/{n_room}"
                   + (f", {pct(m['stop'], 50) * 1000:.0f}/{pct(m['stop'], 95) * 1000:.0f} ms" if db == 0 and m["stop"] else ""))
    print(f"| {name} | " + " | ".join(row) + " |")
    for db, ms in notes:
        for x in ms:
            print(f"<!-- {db} dB miss: {x} -->")
    sys.stdout.flush()
