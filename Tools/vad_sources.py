#!/tmp/benchvenv/bin/python
"""Tools/bench vad-sources: the vad per source, and false starts in quiet scenes, beside the
peers (WebRTC VAD's recipe, Silero's VADIterator) in the same run.

1. Per source: every transcribed recording of ../shared/corpus and corpus-more, its speech
   regions from the labels where there are any, else from the words of a forced alignment of
   its transcript (pocketsphinx 5, merged across gaps under 0.3 s: ../shared/bench/common.py);
   frame F1 (10 ms) and false alarms per source, pooled, and the worst source. The vad's model
   was fitted on synthetic speech only (TUNING.md), so every source is one it never saw: the
   per-source figure is the leave-one-source-out figure.
2. Quiet scenes (issue #40, "the first seconds in a quiet room"): 6 s windows of each corpus
   noise recording, scaled to an RMS of -60, -55, -50, -45 and -40 dBFS: speech starts in the
   first 6 s (each is a false start: there is no speech).
3. Lead-ins: recordings whose first word comes after their first LEAD_MARGIN s; a start in the
   first 6 s and LEAD_MARGIN s or more before the first word is a false start before it (the
   issue's "corpus's own quiet lead-ins"). Listed per detector, with what the peers do there.

  vad_sources.py AUDIOGRAPH [--windows N]
Needs ../shared/bench's virtualenv (/tmp/benchvenv: ../shared/bench/setup.sh).
"""
import argparse
import collections
import os
import sys
import tempfile

import numpy as np
import soundfile as sf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared")
sys.path.insert(0, os.path.join(SHARED, "bench"))
import common  # noqa: E402
import vad_peers  # noqa: E402

LEVELS = (-60, -55, -50, -45, -40)
LEAD_MARGIN = 0.15  # s: a start this much before the first word's aligned onset is early


def early_start(segs, regions):
    """How a detector opens a recording with a lead-in: (the first segment start in the first 6 s
    that lies LEAD_MARGIN s or more before the first speech region, or None; the first decision
    to start taken before that region's onset, or None). The first is an onset stamped early;
    the second a start the lead-in itself caused, whatever the stamp."""
    first = regions[0][0]
    stamped = [g["start"] for g in segs if g["start"] < 6 and g["start"] <= first - LEAD_MARGIN]
    decided = [g["start_at"] for g in segs if g["start_at"] < min(6, first)]
    return (min(stamped) if stamped else None, min(decided) if decided else None)


def scenes(x, level, windows=15):
    """The quiet scenes of issue #40 §4: `windows` 6 s windows spread over noise recording `x`,
    scaled so that the whole recording's RMS is `level` dBFS; (first sample, window) pairs."""
    rms = np.sqrt(np.mean(x.astype(np.float64) ** 2))
    n = common.SR * 6
    hop = max(n, (len(x) - n) // max(1, windows - 1))
    for s in list(range(0, len(x) - n + 1, hop))[:windows]:
        yield s, (x[s:s + n] * (10 ** (level / 20) / rms)).astype(np.float32)


def source_of(item):
    """`group` in corpus-more, the `source` repository in the first corpus's manifest."""
    return item.raw.get("group") or item.raw.get("source", "").split(":")[0].split("/")[-1] or "unknown"


def detectors(binary):
    """Ours through the peer harness's own command peer and vad graph (as `Tools/bench vad`
    runs it), beside the peers."""
    return {"audiograph vad": vad_peers.cmd_peer(
                f"{binary} run {os.path.join(SHARED, 'bench', 'graphs', 'vad.json')} --set src.path={{in}} --json"),
            "webrtcvad mode 3 + recipe": vad_peers.webrtc_recipe(3),
            "silero VADIterator 0.5": vad_peers.silero_iterator()}


def run_detector(name, f, path, x):
    """A peer's segments (the command peer reads the file, the others the samples)."""
    out = f(path, len(x) / common.SR) if name.startswith("audiograph") else f(x, common.pcm16(x))
    return out[0] if isinstance(out, tuple) else out


def items():
    """Transcribed speech of both corpora, and their noise recordings."""
    speech, noises = [], []
    for manifest in (os.path.join(SHARED, "corpus", "manifest.json"), os.path.join(SHARED, "corpus-more", "manifest.json")):
        if not os.path.exists(manifest):
            continue
        os.environ["BENCH_MANIFEST"] = manifest
        speech += [it for it in common.load_corpus() if it.text]
        noises += common.load_corpus("noise")
    return speech, noises


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--windows", type=int, default=15, help="6 s windows per noise recording")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ag-vad-sources-")
    D = detectors(a.binary)
    speech, noises = items()
    if not speech:
        sys.exit("vad-sources needs ../shared/corpus (the recordings and their transcripts)")

    scores = collections.defaultdict(vad_peers.Score)
    unaligned = []
    lead_ins = collections.defaultdict(dict)  # recording -> detector -> early start or None
    for it in speech:
        try:
            regions = common.truth_speech(it)
        except TypeError:  # the forced alignment found no path through the transcript
            regions = None
        if not regions:
            unaligned.append(it.id)
            continue
        path = str(common.to16k(it))
        x = sf.read(path, dtype="float32")[0]
        for name, f in D.items():
            segs = run_detector(name, f, path, x)
            for key in (source_of(it), "pooled"):
                scores[key, name].add(segs, regions, len(x) / common.SR)
            if regions[0][0] >= LEAD_MARGIN:
                lead_ins[it.id][name] = early_start(segs, regions)
                lead_ins[it.id]["first word"] = regions[0][0]
    sources = sorted({k for k, _ in scores if k != "pooled"})
    print(f"## The vad per source ({len(speech) - len(unaligned)} recordings, {len(sources)} sources; F1 % / false alarm %)\n")
    if unaligned:
        print(f"Left out, no forced alignment of their transcript: {', '.join(unaligned)}\n")
    rows = [[s, *[" / ".join(scores[s, n].row()[i] for i in (2, 3)) for n in D]] for s in sources + ["pooled"]]
    print(common.md_table(["source", *D], rows) + "\n")
    for n in D:
        f1 = {s: float(scores[s, n].row()[2]) for s in sources}
        worst = min(f1, key=f1.get)
        print(f"{n}: pooled F1 {scores['pooled', n].row()[2]} %, worst source {worst} {f1[worst]:.1f} %")

    print(f"\n## Lead-ins: the first 6 s of the {len(lead_ins)} recordings whose first word comes after "
          f"{LEAD_MARGIN} s\n")
    print(f"Stamped early: a segment starts {LEAD_MARGIN} s or more before the first word's aligned onset "
          "(the onset back-dated over what precedes the word). Decided early: the detector started "
          "speech before that onset, so the lead-in started it.\n")
    print(common.md_table(["detector", "stamped early", "decided early"],
                          [[n, sum(v[n][0] is not None for v in lead_ins.values()),
                            sum(v[n][1] is not None for v in lead_ins.values())] for n in D]) + "\n")
    show = lambda t: "-" if t is None else f"{t:.2f}"  # noqa: E731
    rows = [[rec, f"{v['first word']:.2f}", *[f"{show(v[n][0])} / {show(v[n][1])}" for n in D]]
            for rec, v in sorted(lead_ins.items()) if any(v[n] != (None, None) for n in D)]
    print(common.md_table(["recording", "first word s", *[f"{n}: stamped / decided s" for n in D]], rows))

    print(f"\n## Quiet scenes: speech starts in 6 s of noise alone ({a.windows} windows per recording and level)\n")
    rows = []
    for it in noises:
        x = sf.read(str(common.to16k(it)), dtype="float32")[0]
        for level in LEVELS:
            counts = collections.Counter()
            started = collections.Counter()
            windows = 0
            for _, y in scenes(x, level, a.windows):
                windows += 1
                path = os.path.join(tmp, "scene.wav")
                common.write_wav(path, y)
                for name, f in D.items():
                    n = len(run_detector(name, f, path, y))
                    counts[name] += n
                    started[name] += n > 0
            rows.append([it.id, level, *[f"{counts[n]} in {started[n]} of {windows}" for n in D]])
    print(common.md_table(["noise", "RMS dBFS", *D], rows))


if __name__ == "__main__":
    main()
