#!/usr/bin/env python3
"""A cache language model of the session's own finals, tried without a change to the engine
(issue 40, section 2; Sources/AudioGraphSpeech/TUNING.md has the result).

The same sessions as session_adaptation.py. Each recording of a session is decoded alone
(graphs/dictation.json), once as is and once with a `vocabulary` file of what the session's
earlier recordings were recognised as: runs of two or more consecutive words whose confidence
is at least CONF (0: every final whole), one phrase per line. A vocabulary's phrases make
their word pairs likelier (the recognizer interpolates a small model of them with its own),
which is what a cache of recent finals would do between utterances. No transcript is used
for the cache: only the recognised words. Prints, per session and pooled, words, errors and
WER over all recordings and over those starting 30 s or more into the session.

Usage: Tools/session_cache_trial.py BIN_DIR [CONF]
"""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session_adaptation import ROOT, GAP, cell, decode, duration, sessions
from transcripts import normalize, errors

ag = os.path.join(sys.argv[1], "audiograph")
conf = float(sys.argv[2]) if len(sys.argv) > 2 else 0.85
graph = os.path.join(ROOT, "graphs", "dictation.json")
work = tempfile.mkdtemp(prefix="ag-cache-")


def finals(path, vocabulary=None):
    return decode(ag, graph, path, ["--set", f"asr.vocabulary={vocabulary}"] if vocabulary else [])


def phrases(fs):
    """The confident runs of words of `fs`, as phrases."""
    out = []
    for f in fs:
        if conf <= 0:
            out += [" ".join(normalize(f["text"]))] if f["text"].strip() else []
            continue
        run = []
        for w in f.get("words", []) + [{"word": "<end>", "confidence": 0}]:
            if w["word"].startswith(("<", "[")) or w.get("confidence", 0) < conf:
                if len(run) >= 2:
                    out.append(" ".join(run))
                run = []
            else:
                run += normalize(w["word"])
    return out


print(f"## A cache of the session's finals (confidence >= {conf}) as vocabulary phrases\n")
print("| session | without: all, after 30 s | with the cache: all, after 30 s |")
print("|---|---|---|")
pooled = {"without": [0] * 4, "with": [0] * 4}
for name, files in sessions().items():
    t, seen, row = 0.0, [], {"without": [0] * 4, "with": [0] * 4}
    for path, reference in files:
        ref = normalize(reference)
        plain = finals(path)
        if seen:
            v = os.path.join(work, "cache.txt")
            with open(v, "w") as f:
                f.write("\n".join(seen) + "\n")
            cached = finals(path, v)
        else:
            cached = plain
        for key, fs in [("without", plain), ("with", cached)]:
            e = errors([w for f in fs for w in normalize(f["text"])], ref)
            for tot in (row[key], pooled[key]):
                tot[0] += len(ref); tot[1] += e
                if t >= 30:
                    tot[2] += len(ref); tot[3] += e
        seen += phrases(cached)
        t += duration(path) + GAP
    print(f"| {name} | {cell(row['without'])} | {cell(row['with'])} |")
    sys.stdout.flush()
print(f"| (pooled) | {cell(pooled['without'])} | {cell(pooled['with'])} |")
