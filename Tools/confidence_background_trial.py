#!/usr/bin/env python3
"""Word confidences with the acoustic model's own background: a trial, not shipped (issue #40 §3).

Each 10 ms frame's log-likelihood under every Gaussian of PocketSphinx's en-us model at once
(42 codebooks of 128, equal weights, per stream), computed from the recording with the front
end the model's feat.params asks for (Debian's sphinx_fe; cepstral mean over the recording;
1s_c_d_dd deltas). It does not depend on what was recognised. Averaged over a word's frames,
its result's and its recording's, it is added to the confidence model's nine inputs, and the
leave-one-source-out table of `Tools/confidence loso` is printed for each variant (held-out
AUC / ECE: pooled, mfa, promo, wenet, and the worst source of those with 20 words or more).

  python3 Tools/confidence_background_trial.py
Needs ../shared/corpus and corpus-more, sox and sphinx_fe (apt-get install sphinxbase-utils),
numpy; about 4 minutes. Results: docs/confidences.md.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections import defaultdict

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tools"))
from loso import confidence_tool, input_variants_table  # noqa: E402

MODEL = "/usr/share/pocketsphinx/model/en-us/en-us/"


def gaussians(path):
    """A Sphinx-III means or variances file: one (Gaussians x 13) array per stream."""
    b = open(path, "rb").read()
    i = b.index(b"endhdr\n") + 7
    assert struct.unpack("<I", b[i:i + 4])[0] == 0x11223344, "byte order"
    codebooks, streams, densities = struct.unpack("<3i", b[i + 4:i + 16])
    lengths = struct.unpack(f"<{streams}i", b[i + 16:i + 16 + 4 * streams])
    i += 16 + 4 * streams + 4
    a = np.frombuffer(b[i:], dtype="<f4")
    out, offset = [[] for _ in range(streams)], 0
    for _ in range(codebooks):
        for s in range(streams):
            n = densities * lengths[s]
            out[s].append(a[offset:offset + n].reshape(densities, lengths[s]))
            offset += n
    return [np.concatenate(x).astype(np.float64) for x in out]


def frames(path, work):
    """The recording's 1s_c_d_dd streams, cepstral mean removed over the recording."""
    raw, mfc = os.path.join(work, "x.raw"), os.path.join(work, "x.mfc")
    subprocess.run(["sox", "-D", path, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", raw], check=True)
    subprocess.run(["sphinx_fe", "-i", raw, "-o", mfc, "-raw", "yes", "-input_endian", "little", "-samprate", "16000",
                    "-lowerf", "130", "-upperf", "6800", "-nfilt", "25", "-transform", "dct", "-lifter", "22"],
                   check=True, capture_output=True)
    b = open(mfc, "rb").read()
    c = np.frombuffer(b[4:4 + 4 * struct.unpack("<i", b[:4])[0]], dtype="<f4").reshape(-1, 13).astype(np.float64)
    c = c - c.mean(0)
    p = np.pad(c, ((3, 3), (0, 0)), mode="edge")
    at = lambda k: p[3 + k:3 + k + len(c)]
    return [c, at(2) - at(-2), (at(3) - at(1)) - (at(-1) - at(-3))]


def background(streams, means, variances):
    """Per frame: the sum over streams of the log of the mean density of every Gaussian."""
    total = 0
    for x, mu, var in zip(streams, means, variances):
        ll = -0.5 * (((x[:, None, :] - mu[None]) ** 2 / var[None]).sum(-1) + np.log(2 * np.pi * var).sum(-1)[None])
        top = ll.max(1)
        total = total + top + np.log(np.exp(ll - top[:, None]).mean(1))
    return total


def main():
    for tool in ("sox", "sphinx_fe"):
        if not shutil.which(tool):
            sys.exit(f"needs {tool} (apt-get install sox sphinxbase-utils)")
    if not os.path.isdir(os.path.join(ROOT, "..", "shared", "corpus")):
        print("skipped: needs ../shared/corpus")
        return
    C = confidence_tool()
    means = gaussians(MODEL + "means")
    variances = [np.maximum(v, 1e-4) for v in gaussians(MODEL + "variances")]  # PocketSphinx's -varfloor
    finals_of = C.finals_reader("graphs/dictation.json", [])
    words, per_file, work = [], {}, tempfile.mkdtemp(prefix="ag-background-")
    for folder, entry, group in C.sources():
        labelled, files = C.labelled([entry], finals_of, folder)
        path = os.path.join(folder, entry["file"])
        per_file[path] = background(frames(path, work), means, variances)
        k = 0
        for r, final in enumerate(files[0][1]):
            for w in final["words"]:
                words.append(dict(group=group, file=path, result=r, start=w["start"], end=w["end"],
                                  features=w["features"], right=labelled[k][1]))
                k += 1

    def span(w):
        frames = per_file[w["file"]]
        a = min(int(w["start"] * 100), len(frames) - 1)
        return frames[a:max(a + 1, int(w["end"] * 100))]
    results, recordings = defaultdict(list), defaultdict(list)
    for w in words:
        results[w["file"], w["result"]].append(w)
        recordings[w["file"]].append(w)
    for w in words:
        w["word"] = float(np.mean(span(w)))
        w["result_bg"] = float(np.mean(np.concatenate([span(x) for x in results[w["file"], w["result"]]])))
        w["recording"] = float(np.mean(np.concatenate([span(x) for x in recordings[w["file"]]])))
        w["loudest"] = float(np.percentile(per_file[w["file"]], 90))
    scaled = lambda v: (v + 155) / 10
    variants = {"the nine (shipped)": lambda w: [],
                "+ the word's": lambda w: [scaled(w["word"])],
                "+ the result's": lambda w: [scaled(w["result_bg"])],
                "+ the recording's": lambda w: [scaled(w["recording"])],
                "+ the word's and the result's": lambda w: [scaled(w["word"]), scaled(w["result_bg"])],
                "+ all three": lambda w: [scaled(w["word"]), scaled(w["result_bg"]), scaled(w["recording"])],
                "+ the recording's loudest frames (90th percentile)": lambda w: [scaled(w["loudest"])]}
    input_variants_table(C, words, variants)


if __name__ == "__main__":
    main()
