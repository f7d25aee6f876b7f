#!/usr/bin/env python3
"""The assistant loop's figures (Tools/bench assistant), with flite voices for the user.

1. End of speech on commands with a pause inside them (at a point where the sentence is not
   yet whole): latency from the end of speech to the utterance's end, and commands cut early,
   grammar-aware (graphs/command.json) against the fixed short window.
2. A real loop through a private PulseAudio daemon in which the speaker's sound is looped
   back into the microphone at full level (Tools/pulse-daemon room): N wake word -> command
   -> answer exchanges, every answer beginning with the wake word itself. Counts what the
   assistant recognised of its own answers, the commands recognised, and the time from each
   final result to the first sample of the earcon and of the spoken answer.
3. CPU of speech synthesis per second of speech (flite through the speech-synth node).

Usage: Tools/assistant_bench.py BIN_DIR [EXCHANGES]
"""
import json, os, resource, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pulse_room import PulseRoom
from bench_audio import flite

bin_dir = sys.argv[1]
exchanges = int(sys.argv[2]) if len(sys.argv) > 2 else 20
ag = os.path.join(bin_dir, "audiograph")
work = tempfile.mkdtemp(prefix="ag-assistant-bench-")


def silence(seconds, path):
    subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", path, "trim", "0", str(seconds)], check=True)


def concat(parts, path):
    subprocess.run(["sox"] + parts + [path], check=True)


def events(args):
    out = subprocess.run([ag, "run"] + args + ["--json"], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.startswith("{")]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


only_loop = os.environ.get("AG_BENCH_ONLY_LOOP") == "1"
# 1. End of speech with pauses inside commands.
commands = [
    ("find japanese", "restaurants nearby"), ("find me some", "italian restaurants"),
    ("find a", "chinese restaurant near me"), ("find some indian", "restaurants"),
    ("find mexican", "restaurants nearby"), ("find me a thai", "restaurant"),
    ("find french", "restaurants near me"), ("find some korean", "restaurants nearby"),
    ("go forward", "ten meters"), ("move left", "three steps"), ("go back", "two meters"),
    ("move right", "five steps"), ("go forward", "seven meters"), ("move backward", "one step"),
    ("status of flight", "l x forty"), ("what is the status", "of flight a b twenty"),
    ("status of", "flight k l one two three"), ("what is the status of flight", "u a nine"),
    ("find me japanese", "restaurants near me"), ("go left", "four steps"),
    ("move forward", "six meters"), ("find italian", "restaurants nearby"),
]
pause = 0.7
gap = os.path.join(work, "pause.wav"); silence(pause, gap)
tail = os.path.join(work, "tail.wav"); silence(2, tail)
lead = os.path.join(work, "lead.wav"); silence(0.5, lead)
rows = {"grammar-aware (complete 0.25 s, incomplete 1.2 s)": [], "fixed short (0.5 s)": []}
cut = {k: 0 for k in rows}
for i, (a, b) in enumerate([] if only_loop else commands):
    fa, fb, f = (os.path.join(work, f"c{i}{x}.wav") for x in "ab_")
    flite(a, fa); flite(b, fb)
    concat([lead, fa, gap, fb, tail], f)
    expected = f"{a} {b}"
    for name, extra in [("grammar-aware (complete 0.25 s, incomplete 1.2 s)", []),
                        ("fixed short (0.5 s)", ["--set", "eos.complete=0.5", "--set", "eos.incomplete=0.5"])]:
        es = events(["graphs/command.json", "--source", f] + extra)
        finals = [e["text"] for e in es if e["type"] == "final"]
        ends = [e for e in es if e["type"] == "utterance-end"]
        speech_ends = [e["t"] for e in es if e["type"] == "speech-end"]
        if not finals or finals[0] != expected or len(ends) != 1:
            cut[name] += 1
        if ends:
            last = max([t for t in speech_ends if t <= ends[0]["t"] + 1e-6], default=ends[0]["t"])
            rows[name].append(ends[0]["decided"] - last)
print(f"## End of speech on {len(commands)} flite commands with a {pause} s pause inside (graphs/command.json)")
print()
print("| end of speech | latency p50 | p90 | commands cut early or misrecognised |")
print("|---|---|---|---|")
for name, xs in rows.items():
    print(f"| {name} | {pct(xs, 50) * 1000:.0f} ms | {pct(xs, 90) * 1000:.0f} ms | {cut[name]} of {len(commands)} |")
print()

# 3. Synthesis CPU per second of speech.
def synth_cpu(text):
    g = os.path.join(work, "say.json")
    with open(g, "w") as fh:
        json.dump({"nodes": [{"id": "tts", "type": "speech-synth", "params": {"text": text}},
                             {"id": "out", "type": "null-sink"}],
                   "connections": [{"from": "tts", "to": "out"}]}, fh)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    es = events([g])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    spoken = sum(e["t"] for e in es if e["type"] == "speak-end")
    return cpu, spoken
long_text = " ".join(a + " " + b + "." for a, b in commands) * 3
c0, s0 = synth_cpu("hello.")
c1, s1 = synth_cpu("hello. hello." if only_loop else long_text)
print("## Speech synthesis (flite rms through speech-synth, file output)")
print()
print(f"{(c1 - c0) / (s1 - s0) * 1000:.1f} ms CPU per second of speech ({s1 - s0:.0f} s spoken; process start-up subtracted)")
print()

# 2. The real loop.
def real_loop(exchanges, extra):
    says = ["find japanese restaurants nearby", "go forward ten meters", "status of flight l x forty",
            "find some italian restaurants", "move left three steps"]
    with PulseRoom(work) as room:
        wake = os.path.join(work, "wake.wav"); flite("hello computer", wake)
        w_gap = os.path.join(work, "wgap.wav"); silence(1.5, w_gap)
        a_gap = os.path.join(work, "agap.wav"); silence(7.5, a_gap)
        parts = []
        for i in range(exchanges):
            c = os.path.join(work, f"say{i % len(says)}.wav")
            if not os.path.exists(c):
                flite(says[i % len(says)], c)
            parts += [wake, w_gap, c, a_gap]
        user = os.path.join(work, "user.wav"); concat(parts, user)
        raw = subprocess.run(["sox", user, "-t", "raw", "-"], capture_output=True, check=True).stdout
        def speak():
            time.sleep(3)
            room.speak(raw)
            time.sleep(2)
        es = room.events([ag, "run", "graphs/assistant.json", "--json",
                          "--set", "tts.reply=hello computer, you asked: {text}"] + extra, speak)
    with open(os.path.join(work, f"loop-events-{exchanges}.jsonl"), "w") as fh:
        fh.writelines(json.dumps(e) + "\n" for e in es)
    wakes = [e for e in es if e["type"] == "wake"]
    finals = [e["text"] for e in es if e["type"] == "final"]
    expected = [says[i % len(says)] for i in range(exchanges)]
    own = sum(1 for t in finals if "asked" in t or "hello" in t) + max(0, len(wakes) - exchanges)
    right = sum(1 for t, x in zip(finals, expected) if t == x)
    first_sound, first_word = [], []
    for i, e in enumerate(es):
        if e["type"] == "assistant" and e.get("reason") == "understood":
            later = es[i + 1:]
            ear = next((x for x in later if x["type"] == "earcon"), None)
            spk = next((x for x in later if x["type"] == "speak-start"), None)
            if ear: first_sound.append(ear["t"] - e["t"])
            if spk: first_word.append(spk["t"] - e["t"])
    answers = sum(1 for e in es if e["type"] == "speak-end")
    # The same user offline, no room and no echo: the commands as recognised without the loop.
    alone = events(["graphs/assistant.json", "--source", user, "--sink", os.path.join(work, "alone.wav")])
    alone_right = sum(1 for t, x in zip([e["text"] for e in alone if e["type"] == "final"], expected) if t == x)
    return dict(alone=alone_right, answers=answers, wakes=len(wakes), own=own, right=right, first_sound=first_sound, first_word=first_word)


loop = real_loop(exchanges, [])
quiet = real_loop(5, ["--set", "tts.earcon-end=none"])
print(f"## The real loop through a private PulseAudio daemon with a perfect echo")
print()
print("Each answer begins with the wake word (\"hello computer, you asked: ...\"); the speaker's monitor is looped")
print("into the captured source at full level (Tools/pulse-daemon room). Latencies are stream time, which a live")
print("run keeps in step with the clock: from the final result's decision to the sample handed to the sink.")
print()
print("| figure | default earcons | earcon-end none |")
print("|---|---|---|")
print(f"| exchanges spoken by the user | {exchanges} | 5 |")
print(f"| answers spoken | {loop['answers']} | {quiet['answers']} |")
print(f"| wake-ups | {loop['wakes']} | {quiet['wakes']} |")
print(f"| utterances or wake-ups from its own voice | {loop['own']} | {quiet['own']} |")
print(f"| commands recognised exactly | {loop['right']} | {quiet['right']} |")
print(f"| the same user audio offline, no echo (`--source`): commands recognised exactly | {loop['alone']} | {quiet['alone']} |")
print(f"| final -> first sample at the sink (earcon, or the answer) | p50 {pct(loop['first_sound'], 50) * 1000:.0f} ms, p90 {pct(loop['first_sound'], 90) * 1000:.0f} ms | p50 {pct(quiet['first_word'], 50) * 1000:.0f} ms, p90 {pct(quiet['first_word'], 90) * 1000:.0f} ms |")
print(f"| final -> first sample of the spoken answer | p50 {pct(loop['first_word'], 50) * 1000:.0f} ms, p90 {pct(loop['first_word'], 90) * 1000:.0f} ms (after the 0.19 s earcon) | p50 {pct(quiet['first_word'], 50) * 1000:.0f} ms, p90 {pct(quiet['first_word'], 90) * 1000:.0f} ms |")
