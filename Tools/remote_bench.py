#!/usr/bin/env python3
"""Tools/bench remote: the remote recognizer's added latency on loopback, same run.

The same speech (corpus, else flite) paced in real time through graphs/dictation.json with
its recognizer local and then on a local `audiograph serve` (`run --server`), alternating:
final after the utterance-end's decision and first partial after speech start (p50/p95),
the client's CPU per second of audio, and bytes on the wire per second of audio.

  remote_bench.py AUDIOGRAPH SPEECH.wav [RUNS]
"""
import json
import os
import re
import subprocess
import sys
import time

BIN, SPEECH = sys.argv[1], sys.argv[2]
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 2
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def cpu_s(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def run(server=None):
    cmd = [BIN, "run", os.path.join(ROOT, "Graphs/dictation.json"), "--source", SPEECH, "--realtime", "--json"]
    if server:
        cmd += ["--server", server]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    t0 = None
    finals, partials, decided, start = [], [], {}, None
    cpu = 0
    for line in p.stdout:
        now = time.monotonic()
        e = json.loads(line)
        if e["type"] == "state" and e.get("state") == "listening" and t0 is None:
            t0 = now
        if t0 is None:
            continue
        if e["type"] == "speech-start":
            start = e["decided"]
        elif e["type"] == "partial" and start is not None:
            partials.append(now - t0 - start)
            start = None
        elif e["type"] == "utterance-end":
            decided[e["utterance"]] = e["decided"]
        elif e["type"] == "final" and e["utterance"] in decided:
            finals.append(now - t0 - decided[e["utterance"]])
        try:
            cpu = cpu_s(p.pid)
        except OSError:
            pass
    p.wait()
    return finals, partials, cpu


def main():
    log = open("/tmp/ag-remote-bench-serve.log", "w+")
    server = subprocess.Popen([BIN, "serve", "--wyoming", "none", "--http", "127.0.0.1:0", "--graphs", os.path.join(ROOT, "Graphs")],
                              stderr=log, stdout=subprocess.DEVNULL)
    while "serve: ready" not in open(log.name).read():
        time.sleep(0.05)
    port = re.search(r"websocket on 127.0.0.1:(\d+)", open(log.name).read()).group(1)
    url = f"ws://127.0.0.1:{port}"
    seconds = float(subprocess.run(["soxi", "-D", SPEECH], capture_output=True, text=True).stdout)
    rows = {"local": ([], [], []), "remote": ([], [], [])}
    for _ in range(RUNS):
        for name, target in (("local", None), ("remote", url)):
            f, p, c = run(target)
            rows[name][0].extend(f)
            rows[name][1].extend(p)
            rows[name][2].append(c / seconds)
    print(f"remote recognizer on loopback: {seconds:.0f} s of speech paced in real time, {RUNS} runs each, alternating")
    print(f"{'':8} {'final p50':>10} {'final p95':>10} {'1st partial p50':>16} {'1st partial p95':>16} {'client CPU/s':>13}")
    for name, (f, p, c) in rows.items():
        print(f"{name:8} {pct(f, 50) * 1000:>8.0f}ms {pct(f, 95) * 1000:>8.0f}ms {pct(p, 50) * 1000:>14.0f}ms {pct(p, 95) * 1000:>14.0f}ms"
              f" {sum(c) / len(c):>12.3f}s")
    lf, rf = rows["local"][0], rows["remote"][0]
    print(f"added at p95: final {1000 * (pct(rf, 95) - pct(lf, 95)):+.0f} ms, first partial "
          f"{1000 * (pct(rows['remote'][1], 95) - pct(rows['local'][1], 95)):+.0f} ms")
    # On the wire: 16-bit PCM, one binary frame per render block (1024 samples: 2048 bytes and
    # an 8-byte header with its mask, client to server; counted with strace).
    print(f"wire, client to server: {(2048 + 8) * 16000 / 1024 / 1000:.1f} kB per second of 16 kHz audio (s16le, a frame per 1024-sample block)")
    server.terminate()
    server.wait()


main()
