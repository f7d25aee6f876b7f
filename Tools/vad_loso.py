#!/tmp/benchvenv/bin/python
"""The vad's tuning constants judged by leave-one-source-out (issue #40 §1).

Every transcribed recording of ../shared/corpus and corpus-more goes through the peer
harness's vad graph (as `Tools/bench vad-sources` runs it) once with the shipped constants
and once per value of the grid below, one constant moved at a time. Frame F1 (10 ms) per
source against the labels, or the forced alignment of the transcript where there are none.
For each constant and each source, the value with the best F1 over the *other* sources'
frames is taken (the shipped one on a tie) and judged on the left-out source: the pooled
leave-one-source-out F1 beside the shipped one, the worst source (of those with 5 s of speech
or more), and the folds that chose another value. Also, per value, speech starts in 6 s scenes of the corpus's dishes noise
(issue #40 §4; 15 windows, -50 dBFS: the level does not matter to the vad).

The vad model's weights were fitted on synthetic speech only, so they need no such split
(TUNING.md); these are the constants set around it. Constants that are not parameters are
moved through a build made for it (`-Xswiftc -DAG_TUNING_OVERRIDES`, in .build/tuning;
`AG_TUNE_<name>`, Sources/AudioGraphDSP/TuningOverride.swift).

  Tools/vad_loso.py
About 2 minutes on 2 cores. Needs ../shared/bench's virtualenv (/tmp/benchvenv:
../shared/bench/setup.sh) and ../shared/corpus. Results: Sources/AudioGraphDSP/Speech/TUNING.md.
"""
import collections
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import soundfile as sf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared")
sys.path.insert(0, os.path.join(SHARED, "bench"))
sys.path.insert(0, os.path.join(ROOT, "Tools"))
import common  # noqa: E402
import vad_peers  # noqa: E402
from loso import folds, override_binary, sweep  # noqa: E402
from vad_sources import items, scenes, source_of  # noqa: E402

# (constant, shipped value, [(value, environment, --set)]).
GRID = [
    ("background gate (`background`, dB)", "20", [(v, {}, [f"vad.background={v}"]) for v in ("15", "25")]),
    ("start threshold (`onBase`)", "1.3", [(v, {"AG_TUNE_onBase": v}, []) for v in ("1.1", "1.5")]),
    ("end threshold (`offFraction`)", "0.6", [(v, {"AG_TUNE_offFraction": v}, []) for v in ("0.5", "0.7")]),
    ("word tail (`tailMargin`)", "0.3", [(v, {"AG_TUNE_tailMargin": v}, []) for v in ("0.2", "0.4")]),
    ("sound needed (`presence`)", "0.1", [(v, {"AG_TUNE_presence": v}, []) for v in ("0.05", "0.2")]),
    ("voice to start while young (`voicedHarmonicity`)", "0.4", [(v, {"AG_TUNE_voicedHarmonicity": v}, []) for v in ("0.35", "0.5")]),
    ("a quiet room, voice to start (`quietRoomLevel`, dBFS)", "-40", [(v, {"AG_TUNE_quietRoomLevel": v}, []) for v in ("-1000", "-50", "-30")]),
    ("plain voicing to start (`plainVoicedBar`)", "0.85", [(v, {"AG_TUNE_plainVoicedBar": v}, []) for v in ("0.75", "0.9")]),
    ("a sound clear of its room (`clearAboveFloor`, dB)", "20", [(v, {"AG_TUNE_clearAboveFloor": v}, []) for v in ("15", "30")]),
]


def f1(c):
    tp, fp, fn = c[0], c[1], c[2]
    return 100 * 2 * tp / max(2 * tp + fp + fn, 1)


def main():
    if not os.path.isdir(os.path.join(SHARED, "corpus")):
        print("skipped: needs ../shared/corpus")
        return
    binary = override_binary()
    speech, noises = items()
    truth = []
    for it in speech:
        try:
            regions = common.truth_speech(it)
        except TypeError:  # no forced alignment through the transcript
            regions = None
        if regions:
            path = str(common.to16k(it))
            truth.append((source_of(it), path, regions, sf.info(path).duration))
    work = tempfile.mkdtemp(prefix="ag-vad-loso-")
    quiet = []
    for it in noises:
        x = sf.read(str(common.to16k(it)), dtype="float32")[0]
        for s, y in scenes(x, -50):
            path = os.path.join(work, f"{it.id}-{s}.wav")
            common.write_wav(path, y)
            quiet.append(path)

    def measure(env, sets):
        """Per source the frame counts [tp, fp, fn, tn], and the speech starts in the scenes."""
        # The peer harness runs a shell command: the constants go in as its environment.
        assignments = "".join(f"{k}={v} " for k, v in env.items())
        extra = " ".join(f"--set {s}" for s in sets)
        peer = vad_peers.cmd_peer(f"{assignments}{binary} run {os.path.join(SHARED, 'bench', 'graphs', 'vad.json')} "
                                  f"--set src.path={{in}} {extra} --json")
        with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            segments = list(pool.map(lambda t: peer(t[1], t[3])[0], truth))
            starts = sum(len(s) for s in pool.map(lambda p: peer(p, 6.0)[0], quiet))
        per = collections.defaultdict(lambda: np.zeros(4))
        for (group, _, regions, duration), segs in zip(truth, segments):
            score = vad_peers.Score()
            score.add(segs, regions, duration)
            per[group] += score.c
        return dict(per), starts

    shipped = measure({}, [])
    groups = sorted(shipped[0])
    pooled = lambda run, left_out=None: f1(sum(c for g, c in run[0].items() if g != left_out))
    print(f"## Vad constants, leave one source out ({len(truth)} recordings, {len(groups)} sources; "
          f"shipped pooled F1 {pooled(shipped):.1f} %, {shipped[1]} starts in {len(quiet)} dish scenes)\n")
    print("| constant | shipped | pooled F1 per value (dish starts) | leave one source out | worst source | folds choosing another value |")
    print("|---|---|---|---|---|---|")
    for name, value, variants in GRID:
        runs, chosen = sweep(value, shipped, variants, measure, groups, lambda run, left_out: round(pooled(run, left_out), 2))
        counts = sum(runs[chosen[g]][0][g] for g in groups)
        per = {g: f1(runs[chosen[g]][0][g]) for g in groups}
        # The worst of the sources with 5 s of speech or more (a few words say little).
        worst = min((g for g in groups if shipped[0][g][0] + shipped[0][g][2] >= 500), key=per.get)
        tried = ", ".join(f"{v}: {pooled(r):.1f} % ({r[1]})" for v, r in runs.items())
        print(f"| {name} | {value} | {tried} | {f1(counts):.1f} % | {worst} {per[worst]:.1f} % | {folds(chosen, groups, value)} |", flush=True)


if __name__ == "__main__":
    main()
