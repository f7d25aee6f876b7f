#!/usr/bin/env python3
"""The resampler in memory beside soxr, alternating: which is faster on this machine now.

  Tools/resampler_bench.py BENCH_BINARY [--rounds N]

Each round runs soxr.resample (quality HQ, float32, 60 s of seeded white noise at the input
rate, median of 5 calls) and then `audiograph-bench resample FROM TO high` (the same length
of noise through the engine: array source -> resampler -> null sink, median of 5 runs), for
48 -> 16, 44.1 -> 16 and 8 -> 16 kHz. A busy machine slows both in turn, so the ratio of the
medians over the rounds holds where separate runs drift by 30 % or more. Needs the peer
harness's Python (numpy, soxr): run it with ../shared/bench's venv.
"""
import argparse, statistics, subprocess, time

import numpy as np
import soxr

PAIRS = [(48000, 16000), (44100, 16000), (8000, 16000)]


def soxr_rate(x, fi, fo):
    ts = []
    for _ in range(5):
        t = time.perf_counter()
        soxr.resample(x, fi, fo, quality="HQ")
        ts.append(time.perf_counter() - t)
    return len(x) / statistics.median(ts) / 1e6


def ours_rate(binary, fi, fo):
    out = subprocess.run([binary, "resample", str(fi), str(fo), "high"], check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1].split("|")[4])


def main():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("binary")
    a.add_argument("--rounds", type=int, default=7)
    o = a.parse_args()
    rng = np.random.default_rng(1)
    print(f"## Resampler `high` in memory beside soxr HQ, alternating ({o.rounds} rounds, Msamples/s in)\n")
    print("| ratio | audiograph | soxr HQ | audiograph / soxr |")
    print("|---|---|---|---|")
    for fi, fo in PAIRS:
        x = (0.25 * rng.standard_normal(60 * fi)).astype(np.float32)
        s, g = [], []
        for _ in range(o.rounds):
            s.append(soxr_rate(x, fi, fo))
            g.append(ours_rate(o.binary, fi, fo))
        ms, mg = statistics.median(s), statistics.median(g)
        print(f"| {fi} -> {fo} | {mg:.1f} | {ms:.1f} | {mg / ms:.2f}x |")


if __name__ == "__main__":
    main()
