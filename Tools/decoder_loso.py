#!/usr/bin/env python3
"""The decoder's tuning constants judged by leave-one-source-out (issue #40 §1).

Every transcribed recording of ../shared/corpus and corpus-more (95, 15 sources) is dictated
(`audiograph batch graphs/dictation.json`) once with the shipped constants and once per value
of the grid below, one constant moved at a time. For each constant and each source, the value
with the fewest errors on the *other* sources is taken (the shipped one on a tie) and that
value's errors on the left-out source are counted: the pooled leave-one-source-out WER beside
the shipped one, the worst source, the folds that chose another value, and the sources the
in-sample best value makes worse by more than a point.

The constants that are not parameters are set through a build made for measuring them
(`-Xswiftc -DAG_TUNING_OVERRIDES`, in .build/tuning; `AG_TUNE_<name>` and `AG_TUNE_PS`, see
Sources/AudioGraphDSP/TuningOverride.swift). Results: Sources/AudioGraphSpeech/TUNING.md.

  python3 Tools/decoder_loso.py [--jobs N] [--graph G]
About 12 minutes on 2 cores. Needs ../shared/corpus (skips without it).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tools"))
from loso import confidence_tool, folds, override_binary, sweep  # noqa: E402
from transcripts import align, normalize  # noqa: E402

# (constant, shipped value, [(value, environment, --set)]): one row of the table each.
GRID = [
    ("language weight (-lw)", "6.5", [(v, {"AG_TUNE_PS": f"-lw {v}"}, []) for v in ("5", "8")]),
    ("word insertion penalty (-wip)", "0.65", [(v, {"AG_TUNE_PS": f"-wip {v}"}, []) for v in ("0.2", "2")]),
    ("lattice language weight (-bestpathlw)", "9.5", [(v, {"AG_TUNE_PS": f"-bestpathlw {v}"}, []) for v in ("6.5", "13")]),
    ("second pass word beam (-fwdflatwbeam)", "1e-24", [(v, {"AG_TUNE_PS": f"-fwdflatwbeam {v}"}, []) for v in ("7e-29", "1e-20")]),
    ("second pass successor window (-fwdflatsfwin)", "15", [(v, {"AG_TUNE_PS": f"-fwdflatsfwin {v}"}, []) for v in ("8", "25")]),
    ("max-hmms", "4000", [(v, {}, [f"asr.max-hmms={v}"]) for v in ("2000", "6000", "8000")]),
    ("top-gaussians", "4", [(v, {}, [f"asr.top-gaussians={v}"]) for v in ("3", "6")]),
    ("trailingSeconds", "0.3", [(v, {"AG_TUNE_trailingSeconds": v}, []) for v in ("0.15", "0.2", "0.4")]),
    ("liveLeadIn", "0.2", [(v, {"AG_TUNE_liveLeadIn": v}, []) for v in ("0.1", "0.3")]),
]


def sources():
    """(path, transcript, source) of every transcribed recording, as `Tools/confidence loso` groups them."""
    return [(os.path.join(folder, e["file"]), e["transcript"], group) for folder, e, group in confidence_tool().sources()]


def errors_per_source(binary, graph, items, env, sets, jobs, work):
    """{source: [errors, reference words]} of one dictation run over every recording."""
    out = tempfile.mkdtemp(dir=work)
    cmd = [binary, "batch", graph, *[p for p, _, _ in items], "--output", out, "--jobs", str(jobs)]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, env={**os.environ, **env}, check=True, capture_output=True)
    per = {}
    for path, transcript, group in items:
        hyp = []
        with open(os.path.join(out, os.path.splitext(os.path.basename(path))[0] + ".jsonl")) as f:
            for line in f:
                event = json.loads(line)
                if event.get("type") == "final":
                    hyp += [x for w in event.get("words", []) for x in normalize(w["word"])]
        ref = normalize(transcript)
        counts = per.setdefault(group, [0, 0])
        counts[0] += align(hyp, ref)[1]
        counts[1] += len(ref)
    return per


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--graph", default=os.path.join(ROOT, "graphs", "dictation.json"))
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(ROOT, "..", "shared", "corpus")):
        print("skipped: needs ../shared/corpus")
        return
    binary = override_binary()
    items = sources()
    work = tempfile.mkdtemp(prefix="ag-decoder-loso-")
    shipped = errors_per_source(binary, a.graph, items, {}, [], a.jobs, work)
    groups = sorted(shipped)
    words = sum(shipped[g][1] for g in groups)
    wer = lambda e, g=None: 100 * e / (shipped[g][1] if g else words)
    total = lambda run, left_out=None: sum(run[g][0] for g in groups if g != left_out)
    print(f"## Decoder constants, leave one source out ({os.path.basename(a.graph)}; {len(items)} recordings, "
          f"{len(groups)} sources, {words} words; shipped: {wer(total(shipped)):.1f} %)\n")
    print("| constant | shipped | values tried: pooled WER | leave one source out | worst source | folds choosing another value | sources worse by > 1 point with the in-sample best |")
    print("|---|---|---|---|---|---|---|")
    for name, value, variants in GRID:
        measure = lambda env, sets: errors_per_source(binary, a.graph, items, env, sets, a.jobs, work)
        runs, chosen = sweep(value, shipped, variants, measure, groups, lambda run, left_out: -total(run, left_out))
        errs = sum(runs[chosen[g]][g][0] for g in groups)
        worst = max((g for g in groups if shipped[g][1] >= 20), key=lambda g: runs[chosen[g]][g][0] / shipped[g][1])
        best = min(runs, key=lambda v: (total(runs[v]), v != value))
        worse = [f"{g} +{wer(runs[best][g][0] - shipped[g][0], g):.1f}" for g in groups
                 if wer(runs[best][g][0] - shipped[g][0], g) > 1]
        tried = ", ".join(f"{v}: {wer(total(r)):.1f} %" for v, r in runs.items())
        print(f"| {name} | {value} | {tried} | {wer(errs):.1f} % | {worst} {wer(runs[chosen[worst]][worst][0], worst):.1f} % | "
              f"{folds(chosen, groups, value)} | {', '.join(worse) or 'none'} |", flush=True)


if __name__ == "__main__":
    main()
