#!/tmp/benchvenv/bin/python
"""Word confidences against a phone loop: a trial, not shipped (issue #40 §3).

The classic likelihood-ratio confidence: how much better the recognised word's own phones fit
its frames than the best free sequence of phones does. Both scores come from one decoder and
one front end, pocketsphinx 5 (../shared/bench's virtualenv) with its en-us model: the
recording is aligned to the words audiograph recognised in it (all its finals, in order), and
decoded again with the model's phone language model (`allphone`). Per word: (its aligned
acoustic score - the phone loop's over the same frames, each phone's score shared over its
frames) / frames, in nats. PocketSphinx scores each frame against its best senone, so both are
already ratios to that; the phone loop adds which phone sequences are likely. Added to the confidence model's inputs (the word's, and the mean of
its result's), the leave-one-source-out table of `Tools/confidence loso` is printed for each
variant (held-out AUC / ECE: pooled, mfa, promo, wenet, the worst source of those with 20 words
or more), with the ECE that perfect calibration would show on mfa's words.

  Tools/confidence_phoneloop_trial.py
Needs ../shared/corpus and corpus-more, sox and ../shared/bench's virtualenv
(../shared/bench/setup.sh); a few minutes. Results: docs/confidences.md.
"""
import math
import os
import subprocess
import sys
from collections import defaultdict

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tools"))
from loso import confidence_tool, input_variants_table  # noqa: E402



def pcm(path):
    """The recording as 16 kHz mono 16-bit samples (sox, no dither)."""
    return subprocess.run(["sox", "-D", path, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer",
                           "-t", "raw", "-"], check=True, capture_output=True).stdout


def decode(decoder, raw):
    decoder.start_utt()
    decoder.process_raw(raw, full_utt=True)
    decoder.end_utt()
    # pocketsphinx 5 gives a segment's acoustic score as a density: its log is in nats. Senone
    # scores are normalised to the frame's best, so a path of best senones scores 0.
    return [(s.word, s.start_frame, s.end_frame, math.log(max(s.ascore, 1e-300))) for s in decoder.seg()]


def phone_loop_per_frame(segments, frames):
    """Each frame's share of the phone loop's acoustic score (a phone's score spread evenly)."""
    out = np.zeros(frames)
    for _, a, b, score in segments:
        b = min(b, frames - 1)
        if b >= a:
            out[a:b + 1] = score / (b - a + 1)
    return out


def main():
    if not os.path.isdir(os.path.join(ROOT, "..", "shared", "corpus")):
        print("skipped: needs ../shared/corpus")
        return
    from pocketsphinx import Decoder, get_model_path
    C = confidence_tool()
    finals_of = C.finals_reader("graphs/dictation.json", [])
    loop = Decoder(loglevel="FATAL", allphone=os.path.join(get_model_path(), "en-us", "en-us-phone.lm.bin"),
                   lm=None, backtrace=False)
    words, unaligned = [], []
    for folder, entry, group in C.sources():
        labelled, files = C.labelled([entry], finals_of, folder)
        finals = files[0][1]
        hyp = [w["word"] for r in finals for w in r["words"]]
        if not hyp:
            continue
        path = os.path.join(folder, entry["file"])
        raw = pcm(path)
        frames = len(raw) // 2 // 160 + 1
        per_frame = phone_loop_per_frame(decode(loop, raw), frames)
        aligner = Decoder(loglevel="FATAL", backtrace=False)
        ratios = None
        try:
            aligner.set_align_text(" ".join(hyp))
            spans = [s for s in decode(aligner, raw) if not s[0].startswith(("<", "[")) and s[0] != "sil"]
            if len(spans) == len(hyp):
                ratios = [(score - per_frame[a:b + 1].sum()) / (b - a + 1) for _, a, b, score in spans]
        except RuntimeError:  # a word pocketsphinx 5's dictionary lacks
            pass
        if ratios is None:
            unaligned.append(entry["file"])
        k = 0
        for r, final in enumerate(finals):
            for w in final["words"]:
                words.append(dict(group=group, file=path, result=r, features=w["features"], right=labelled[k][1],
                                  ratio=None if ratios is None else ratios[k]))
                k += 1
    known = [w["ratio"] for w in words if w["ratio"] is not None]
    typical = float(np.median(known))
    for w in words:
        if w["ratio"] is None:
            w["ratio"] = typical
    results = defaultdict(list)
    for w in words:
        results[w["file"], w["result"]].append(w["ratio"])
    for w in words:
        w["result_ratio"] = float(np.mean(results[w["file"], w["result"]]))
    print(f"{len(words)} words; {len(unaligned)} recordings not aligned to their recognised words "
          f"(their words get the median ratio {typical:.2f}): {', '.join(unaligned) or 'none'}\n")
    y = [1.0 if w["right"] else 0.0 for w in words]
    for label, right in (("right", 1.0), ("wrong", 0.0)):
        v = [w["ratio"] for w, t in zip(words, y) if t == right]
        print(f"ratio of {label} words: p10 / p50 / p90 {np.percentile(v, 10):.2f} / {np.median(v):.2f} / "
              f"{np.percentile(v, 90):.2f} nats per frame")
    print(f"AUC of the ratio alone: {C.auc([w['ratio'] for w in words], y):.3f}\n")
    clip = lambda v: max(-8.0, min(2.0, v)) / 2  # noqa: E731
    variants = {"the ten (shipped)": lambda w: [],
                "+ the word's ratio": lambda w: [clip(w["ratio"])],
                "+ the result's mean ratio": lambda w: [clip(w["result_ratio"])],
                "+ both": lambda w: [clip(w["ratio"]), clip(w["result_ratio"])]}
    input_variants_table(C, words, variants)


if __name__ == "__main__":
    main()
