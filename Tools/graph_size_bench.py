#!/usr/bin/env python3
"""Tools/bench graph-size: graphs of many nodes, as a program that writes graphs makes them.

A chain of N gain nodes (0 dB) between a 10 s 16 kHz mono sine and a null sink:
`audiograph validate` and `audiograph run` (load, negotiate, prepare, render the 10 s), wall
time and peak memory; beside it GStreamer's `gst-launch-1.0` with N `volume` elements on the
same signal (audiotestsrc -> volume x N -> fakesink), same run, where GStreamer finishes within
PEER_LIMIT seconds (its set-up grows faster than the chain: N=10,000 took 199 s here). Each
run's output is checked: the sink's samples are the source's (audiograph: the last gain's
level event; GStreamer: exit 0).

  graph_size_bench.py AUDIOGRAPH [N ...]      (default N: 1000 3000 10000 50000)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1]
SIZES = [int(a) for a in sys.argv[2:]] or [1000, 3000, 10000, 50000]
PEER_LIMIT = 120
TMP = tempfile.mkdtemp(prefix="ag-graph-size-")


def chain(n):
    nodes = [{"id": "src", "type": "test-signal", "params": {"rate": 16000, "duration": 10, "frequency": 440}}]
    nodes += [{"id": f"g{i}", "type": "gain"} for i in range(n)]
    nodes += [{"id": "meter", "type": "level-meter", "params": {"interval": 1}}, {"id": "out", "type": "null-sink"}]
    ids = [x["id"] for x in nodes]
    path = os.path.join(TMP, f"chain{n}.json")
    with open(path, "w") as f:
        json.dump({"graph": f"chain{n}", "nodes": nodes, "connections": [{"from": a, "to": b} for a, b in zip(ids, ids[1:])]}, f)
    return path


def timed(cmd, limit=None):
    """Wall seconds, peak resident MiB and stdout of `cmd` (None on a timeout)."""
    t = time.monotonic()
    try:
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    wall = time.monotonic() - t
    peak = int(p.stderr.strip().splitlines()[-1]) / 1024 if p.stderr.strip() else float("nan")
    return wall, peak, p.returncode, p.stdout


def main():
    have_gst = shutil.which("gst-launch-1.0") is not None
    print(f"{'N':>7} | {'validate s':>10} | {'run s':>7} | {'run MiB':>7} | {'GStreamer s':>11} | {'MiB':>5} | ratio")
    print("-" * 72)
    gst_gave_up = False
    for n in SIZES:
        path = chain(n)
        v = timed([BIN, "validate", path])
        r = timed([BIN, "run", path, "--json"])
        assert v and v[2] == 0 and r and r[2] == 0, f"audiograph failed at N={n}"
        levels = [json.loads(line) for line in r[3].splitlines() if '"level"' in line]
        peak_db = max(e["peak"] for e in levels)
        assert len(levels) == 10 and abs(peak_db - (-20)) < 0.5, f"N={n}: the sine did not come through whole ({levels[:2]})"
        g = None
        if have_gst and not gst_gave_up:
            vols = " ! ".join(["volume volume=1.0"] * n).split()
            g = timed(["gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=160", "samplesperbuffer=1000", "freq=440",
                       "!", "audio/x-raw,format=F32LE,rate=16000,channels=1", "!"] + vols + ["!", "fakesink"], PEER_LIMIT)
            gst_gave_up = g is None
        gst = f"{g[0]:>11.2f} | {g[1]:>5.0f} | {g[0] / r[0]:.1f}x" if g else \
            f"{'> ' + str(PEER_LIMIT):>11} | {'':>5} |" if have_gst and gst_gave_up else f"{'(skipped)':>11} | {'':>5} |"
        print(f"{n:>7} | {v[0]:>10.2f} | {r[0]:>7.2f} | {r[1]:>7.0f} | {gst}", flush=True)
    print("\nratio: GStreamer's wall time over audiograph's run (both render the same 10 s of a 440 Hz sine).")
    if not have_gst:
        print("GStreamer skipped: gst-launch-1.0 is not installed (../shared/bench/setup.sh installs it).")
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
