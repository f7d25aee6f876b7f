#!/usr/bin/env python3
"""Echo return loss enhancement and CPU in the room, each canceller on the same answers
(Tools/bench echo-room).

The room is Tools/pulse-daemon's drifting `room` (the speaker's monitor looped into the
microphone at full level, through loopbacks that adapt their rates); nobody talks. The same
flite answer (10 s) plays A times with 3 s pauses, through:
- the `echo-canceller` node: one graph plays the answers file to the speaker and to the node's
  reference; the microphone before the node and the node's output are written to WAV files by
  the same graph (so the two line up exactly); with its defaults, and with noise suppression;
- PulseAudio's module-echo-cancel (aec_method webrtc, then speex, their defaults), loaded on
  the same microphone and speaker: the answers played to its sink with paplay, its master
  source and its own source recorded with parec.
ERLE: energy in over energy out, over the 0.5 s windows after 3 s of each answer where the
echo is loud (within 30 dB of the loudest window), mean in dB; and over each answer's first
3 s (convergence). CPU per second of audio: the node, its run minus the same graph with a
mixer in its place; the module, the sound server's CPU with it minus without it, same
streams.

Usage: Tools/echo_room_erle.py BIN_DIR [A]
"""
import json, math, os, statistics, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pulse_room import PulseRoom
from bench_audio import ANSWER_TEXT, flite, raw_samples, samples, sox

bin_dir = sys.argv[1]
answers = int(sys.argv[2]) if len(sys.argv) > 2 else 3
ag = os.path.join(bin_dir, "audiograph")
work = tempfile.mkdtemp(prefix="ag-echo-room-")
RATE = 16000

one = os.path.join(work, "answer.wav")
flite(ANSWER_TEXT, one)
length = float(subprocess.run(["soxi", "-D", one], capture_output=True, text=True, check=True).stdout)
period = length + 3
# 2 s of silence first (the streams settle), then each answer and 3 s of silence.
sox("-n", "-r", str(RATE), "-c", "1", "-b", "16", os.path.join(work, "lead.wav"), "trim", "0", "2")
spaced = os.path.join(work, "spaced.wav")
sox(one, os.path.join(work, "one_padded.wav"), "pad", "0", "3")
sox(*([os.path.join(work, "lead.wav")] + [os.path.join(work, "one_padded.wav")] * answers + [spaced]))
total = 2 + answers * period


def energies(x, start, end, w=RATE // 2):
    return [sum(v * v for v in x[s:s + w]) for s in range(int(start * RATE), int(end * RATE) - w + 1, w)]


def onset(x):
    """The echo's first loud 10 ms (the answers' start in the microphone)."""
    peak = max(abs(v) for v in x)
    k = next(i for i, v in enumerate(x) if abs(v) > peak * 0.05)
    return k / RATE - 0.05


def erle(mic, out):
    """(mean ERLE after 3 s of each answer, mean over each answer's first 3 s), in dB."""
    t0 = onset(mic)
    late, early = [], []
    for k in range(answers):
        a = t0 + k * period
        for lo, hi, into in [(a + 3, a + length, late), (a, a + 3, early)]:
            m, o = energies(mic, lo, hi), energies(out, lo, hi)
            loud = max(m)
            into += [10 * math.log10(mi / max(oi, 1e-12)) for mi, oi in zip(m, o) if mi > loud * 1e-3]
    return statistics.mean(late), statistics.mean(early)


def cpu_seconds(pid):
    """User and system CPU of process `pid` so far (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        s = f.read().rsplit(")", 1)[1].split()
    return (int(s[11]) + int(s[12])) / os.sysconf("SC_CLK_TCK")


def daemon_cpu(room):
    pid = subprocess.run(["pgrep", "-f", f"pulseaudio.*{room.dir}/native"], capture_output=True, text=True).stdout.split()
    if not pid:  # PipeWire: its pulse server
        pid = subprocess.run(["pgrep", "-x", "pipewire-pulse"], capture_output=True, text=True).stdout.split()
    return cpu_seconds(pid[0])


def silence_to_pipe(room, seconds):
    room.speak(b"\0\0" * int(seconds * RATE))


def node_run(params, kind="echo-canceller"):
    """The node in the room: (ERLE after 3 s, first 3 s, process CPU s)."""
    mic_wav, out_wav = os.path.join(work, "node_in.wav"), os.path.join(work, "node_out.wav")
    graph = os.path.join(work, "node.json")
    with open(graph, "w") as f:
        json.dump({"graph": "echo-room", "nodes": [
            {"id": "mic", "type": "pulse-source", "params": {"device": "agtest_room.monitor"}},
            {"id": "rs", "type": "resampler", "params": {"rate": RATE}},
            {"id": "answers", "type": "file-source", "params": {"path": spaced}},
            {"id": "aec", "type": kind, "params": params},
            {"id": "speaker", "type": "pulse-sink", "params": {"device": "agtest_sink"}},
            {"id": "in", "type": "wav-sink", "params": {"path": mic_wav}},
            {"id": "out", "type": "wav-sink", "params": {"path": out_wav}}],
            "connections": [{"from": "mic", "to": "rs"}, {"from": "rs", "to": "aec:0"}, {"from": "rs", "to": "in"},
                            {"from": "answers", "to": "aec:1"}, {"from": "answers", "to": "speaker"},
                            {"from": "aec", "to": "out"}]}, f)
    with PulseRoom(work, (), "room") as room:
        run = subprocess.Popen([ag, "run", graph], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=room.env)
        silence_to_pipe(room, total + 1)
        cpu = cpu_seconds(run.pid)
        run.send_signal(2)
        _, err = run.communicate()
        if run.returncode != 0:
            sys.exit(f"echo_room_erle: the node's run failed ({run.returncode}): {err.decode()[-400:]}")
    if kind != "echo-canceller":
        return None, None, cpu
    late, early = erle(samples(mic_wav), samples(out_wav))
    return late, early, cpu


def module_run(method, args=()):
    """module-echo-cancel in the room: (ERLE after 3 s, first 3 s, server CPU s); method None:
    the same streams without the module (the server's CPU without it). `args`: its aec_args."""
    modules = [["module-echo-cancel", "source_master=agtest_room.monitor", "sink_master=agtest_sink",
                f"aec_method={method}", "source_name=ec_source", "sink_name=ec_sink"]
               + ([f'aec_args="{" ".join(args)}"'] if args else [])] if method else []
    sink, source = ("ec_sink", "ec_source") if method else ("agtest_sink", "agtest_room.monitor")
    mic_raw, out_raw = os.path.join(work, "mod_in.raw"), os.path.join(work, "mod_out.raw")
    with PulseRoom(work, modules, "room") as room:
        fmt = ["--format=s16le", f"--rate={RATE}", "--channels=1", "--latency-msec=20", "--raw"]
        files = [open(p, "wb") for p in (mic_raw, out_raw)]
        recs = [subprocess.Popen(["parec", "-d", d] + fmt, stdout=f, env=room.env)
                for d, f in zip(("agtest_room.monitor", source), files)]
        time.sleep(0.5)
        c0 = daemon_cpu(room)
        pipe = threading.Thread(target=silence_to_pipe, args=(room, total + 1))
        pipe.start()
        subprocess.run(["paplay", "-d", sink, spaced], check=True, env=room.env)
        pipe.join()
        cpu = daemon_cpu(room) - c0
        for r, f in zip(recs, files):
            r.send_signal(2)
            r.wait()
            f.close()
    if not method:
        return None, None, cpu
    late, early = erle(raw_samples(mic_raw), raw_samples(out_raw))
    return late, early, cpu


audio = answers * length
print(f"## ERLE and CPU in the room: the same answer ({length:.1f} s) {answers} times, each canceller")
print()
print("The drifting room (Tools/pulse-daemon room), nobody talking. ERLE: energy in over energy out over the 0.5 s")
print("windows where the echo is loud, mean in dB, after 3 s of each answer and over its first 3 s. CPU per second")
print("of answer: the node, its run minus the same graph with a mixer in its place; the module, the sound server's")
print("CPU with it minus without it (same streams).")
print()
print("| canceller | ERLE after 3 s | ERLE, first 3 s | CPU ms per s of audio |")
print("|---|---|---|---|")
sys.stdout.flush()
base = node_run({}, kind="mixer")[2]
for name, params in [("`echo-canceller` (defaults)", {}), ("`echo-canceller`, `noise-suppression` -15", {"noise-suppression": -15})]:
    late, early, cpu = node_run(params)
    print(f"| {name} | {late:.1f} dB | {early:.1f} dB | {(cpu - base) / audio * 1000:.1f} |")
    sys.stdout.flush()
server_base = module_run(None)[2]
# webrtc's defaults include gain control, which raises what it passes on (its ERLE looks
# lower for it): once more without.
for method, args in [("webrtc", ()), ("webrtc", ("analog_gain_control=0", "digital_gain_control=0")), ("speex", ())]:
    late, early, cpu = module_run(method, args)
    how = f"aec_args=\"{' '.join(args)}\"" if args else "its defaults"
    print(f"| module-echo-cancel aec_method={method} ({how}) | {late:.1f} dB | {early:.1f} dB | {(cpu - server_base) / audio * 1000:.1f} |")
    sys.stdout.flush()
print()
