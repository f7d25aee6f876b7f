#!/usr/bin/env python3
"""Sessions of one speaker: WER after the first 30 s, with and without a setting (Tools/bench
sessions). For measuring adaptation to the speaker during a session (issue 40, section 2).

Each session is one talker's recordings from ../shared/corpus and ../shared/corpus-more, in
file-name order, joined with 1 s of silence into one 16 kHz mono file, and dictated in one
run (graphs/dictation.json, `--source`): the recognizer hears the talker as a live session
would, utterance after utterance. Each recognised word goes to the recording its time lies in;
each recording's words, in order, are scored against its transcript. "After 30 s":
the recordings that start 30 s or more into the session. Sessions (talkers known from the
corpus's notes): pocketsphinx's LibriVox reader and its cards talker, the two
CMU Arctic talkers, the Montreal Forced Aligner's developer (48 recordings), LJ Speech's
reader (with the three recordings of hers that lhotse and speechbrain carry), and the prosody
lab's read sentences (promo, praatio) -- a talker with one recording is not a session.

Then the word confidences the runs printed, per session (each word labelled right or wrong
by aligning its recording's words to the transcript): ROC AUC, ECE and Brier score. The
weights were fitted on these recordings (each decoded alone), so these are in-sample figures:
what they show is the difference a setting makes (`--set asr.session-calibration=true`: the
session's own share of right words, docs/confidences.md), not how well the weights generalise
(`Tools/confidence loso`).

Usage: Tools/session_adaptation.py BIN_DIR [--graph G] [-- --set k=v ...]
  With assignments after `--`, every session runs twice (without them, then with) and the
  table gives both; without, the baseline alone.
"""
import argparse, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transcripts import align, normalize, errors

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SHARED = os.path.join(ROOT, "..", "shared")
GAP = 1.0


def talker(folder, e):
    """The session a recording belongs to, or None (a talker with one recording, or unknown)."""
    f = e["file"]
    if folder == "corpus":
        for prefix in ["ps_librivox", "ps_cards", "ljspeech", "arctic_aew", "arctic_axb"]:
            if f.startswith(prefix):
                return prefix
        return None
    g = e.get("group")
    if "_LJ0" in f:
        # LJ Speech's reader, wherever a source took her recordings from (lhotse, speechbrain).
        return "ljspeech"
    if g == "mfa":
        # The developer's own recordings; LibriSpeech's and Common Voice's are other talkers.
        return None if "61-70968" in f or "common_voice" in f else "mfa-developer"
    # lhotse's other recordings are a LibriSpeech reader and an AMI clip of two talkers, and
    # speechbrain's other is a Harvard sentence: no talker of theirs has two recordings.
    return g if g in ("promo", "praatio") else None


def sessions():
    out = {}
    for folder in ["corpus", "corpus-more"]:
        path = os.path.join(SHARED, folder, "manifest.json")
        for e in json.load(open(path)):
            if e.get("kind") != "speech" or not e.get("transcript"):
                continue
            t = talker(folder, e)
            if t:
                out.setdefault(t, []).append((os.path.join(SHARED, folder, e["file"]), e["transcript"]))
    return {t: sorted(fs) for t, fs in sorted(out.items()) if len(fs) > 1}


def duration(path):
    return float(subprocess.run(["soxi", "-D", path], capture_output=True, text=True, check=True).stdout)


def join(files, work, name):
    """The session's file and each recording's (start, end) in it."""
    parts, spans, t = [], [], 0.0
    gap = os.path.join(work, "gap.wav")
    # No dither (-D) anywhere: sox's is random, and made each run's session a different file
    # (its silence too), so the same build gave 220-226 errors after 30 s run to run.
    subprocess.run(["sox", "-D", "-n", "-r", "16000", "-c", "1", "-b", "16", gap, "trim", "0", str(GAP)], check=True)
    for k, (path, _) in enumerate(files):
        p = os.path.join(work, f"{name}-{k}.wav")
        subprocess.run(["sox", "-D", path, "-r", "16000", "-c", "1", "-b", "16", p], check=True, stderr=subprocess.DEVNULL)
        d = duration(p)
        spans.append((t, t + d))
        parts += [p, gap]
        t += d + GAP
    out = os.path.join(work, f"{name}.wav")
    subprocess.run(["sox", "-D"] + parts + [out], check=True)
    return out, spans


def decode(ag, graph, path, extra):
    r = subprocess.run([ag, "run", graph, "--source", path, "--json"] + extra, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"session_adaptation: {path}: audiograph failed ({r.returncode}): {r.stderr[-400:]}")
    return [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{") and '"final"' in l]


def cell(t):
    """`[words, errors, words after 30 s, errors after 30 s]` as "WER (e/w), WER after 30 s"."""
    return f"{100 * t[1] / t[0]:.1f} % ({t[1]}/{t[0]}), " + (f"{100 * t[3] / t[2]:.1f} % ({t[3]}/{t[2]})" if t[2] else "-")


def tally(rows, after=30):
    """`[words, errors, words after `after` s, errors after it]` of `score`'s rows."""
    return [sum(r[1] for r in rows), sum(r[2] for r in rows),
            sum(r[1] for r in rows if r[0] >= after), sum(r[2] for r in rows if r[0] >= after)]


def assign(finals, spans, confidences=False):
    """Each recording's recognised words (normalised), in order; with `confidences`, each as
    (word, its confidence)."""
    hyps = [[] for _ in spans]
    for f in finals:
        # Word by word (a final can run across the pause between two recordings): each word
        # to the recording its middle lies in, or the nearest.
        for w in f.get("words", []):
            if w["word"].startswith(("<", "[")):
                continue
            m = (w["start"] + w["end"]) / 2
            k = min(range(len(spans)), key=lambda i: 0 if spans[i][0] <= m <= spans[i][1] else min(abs(m - spans[i][0]), abs(m - spans[i][1])))
            hyps[k] += [(t, w["confidence"]) for t in normalize(w["word"])] if confidences else normalize(w["word"])
    return hyps


def labelled(finals, spans, files):
    """(confidence, right) of every recognised word, by recording, aligned to its transcript."""
    out = []
    for h, (_, ref) in zip(assign(finals, spans, confidences=True), files):
        right, _ = align([t for t, _ in h], normalize(ref))
        out += [(c, r) for (_, c), r in zip(h, right)]
    return out


def measures(pairs):
    """ROC AUC, ECE (10 bins) and Brier score of (confidence, right) pairs, by
    `Tools/confidence`'s own measures."""
    from loso import confidence_tool
    C = confidence_tool()
    p, y = [c for c, _ in pairs], [1.0 if r else 0.0 for _, r in pairs]
    brier = sum((c - t) ** 2 for c, t in zip(p, y)) / len(p)
    return f"{C.auc(p, y):.3f} / {C.ece(p, y):.3f} / {brier:.3f}"


def score(finals, spans, files):
    """Per recording: (start, words in its transcript, errors)."""
    hyps = assign(finals, spans)
    rows = []
    for (start, _), h, (_, ref) in zip(spans, hyps, files):
        r = normalize(ref)
        rows.append((start, len(r), errors(h, r)))
    return rows


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser()
    p.add_argument("bin")
    p.add_argument("--graph", default=os.path.join(ROOT, "graphs", "dictation.json"))
    a = p.parse_args(argv)
    if not os.path.isdir(SHARED):
        print("session_adaptation: skipped: ../shared (the corpus) is absent")
        return
    ag = os.path.join(a.bin, "audiograph")
    work = tempfile.mkdtemp(prefix="ag-sessions-")
    configs = [("without", [])] + ([("with " + " ".join(extra[1::2]), extra)] if extra else [])
    print(f"## Sessions of one talker: WER after the first 30 s ({os.path.basename(a.graph)})\n")
    print("| session | recordings (after 30 s) | seconds | " + " | ".join(f"{n}: all, after 30 s" for n, _ in configs) + " |")
    print("|---|---|---|" + "---|" * len(configs))
    totals = {n: [0, 0, 0, 0] for n, _ in configs}
    words = {}  # session -> config -> [(confidence, right)]
    for name, files in sessions().items():
        path, spans = join(files, work, name)
        late = sum(1 for s, _ in spans if s >= 30)
        cells = []
        for n, x in configs:
            finals = decode(ag, a.graph, path, x)
            rows = score(finals, spans, files)
            words.setdefault(name, {})[n] = labelled(finals, spans, files)
            t = tally(rows)
            totals[n] = [x + y for x, y in zip(totals[n], t)]
            cells.append(cell(t))
        print(f"| {name} | {len(files)} ({late}) | {spans[-1][1]:.0f} | " + " | ".join(cells) + " |")
        sys.stdout.flush()
    print("| (pooled) | | | " + " | ".join(cell(t) for t in totals.values()) + " |")
    print("\n## The same runs' word confidences per session (in sample: AUC / ECE / Brier score)\n")
    print("| session | words | share right | " + " | ".join(n for n, _ in configs) + " |")
    print("|---|---|---|" + "---|" * len(configs))
    for name, by in list(words.items()) + [("(pooled)", {n: [p for v in words.values() for p in v[n]] for n, _ in configs})]:
        first = by[configs[0][0]]
        if not first:
            continue
        print(f"| {name} | {len(first)} | {sum(r for _, r in first) / len(first):.2f} | "
              + " | ".join(measures(by[n]) if by[n] else "-" for n, _ in configs) + " |")


if __name__ == "__main__":
    main()
