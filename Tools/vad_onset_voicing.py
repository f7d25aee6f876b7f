#!/tmp/benchvenv/bin/python
"""How voiced the vad's speech starts are: the washing-up scenes of issue #40 §4 beside the
corpus's speech (a measurement, not a fit; `Tools/bench vad-onsets`).

Each start the vad makes (`../shared/bench/graphs/vad.json`, as `Tools/bench vad-sources`
runs it) in 6 s windows of the corpus's noise recordings (15 per recording, scaled to -40 dBFS
RMS: the vad reads sound against the room's own noise, so the level does not change its
starts) and in every transcribed recording of both corpora. For each start: the 10 ms frames in
the 0.5 s from its onset whose 32 ms window is voiced (the peak of its normalised
autocorrelation at 70-400 Hz pitch lags over 0.7, as the recognizer's `VoicingTrack` measures),
and how many frames pass before the third voiced one. Prints their spread per kind and every
speech start with 5 voiced frames or fewer.

  Tools/vad_onset_voicing.py AUDIOGRAPH
Needs ../shared/bench's virtualenv (/tmp/benchvenv: ../shared/bench/setup.sh); about 2 minutes.
"""
import os
import sys
import tempfile

import numpy as np
import soundfile as sf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vad_sources  # noqa: E402

common = vad_sources.common
VOICED = 0.7
WINDOW = 50  # frames after the onset: 0.5 s


def voicing(x):
    """Per 10 ms frame (32 ms Hann window, 16 kHz): the normalised autocorrelation's peak at
    lags of 2.5-14.3 ms, the window's own autocorrelation divided out."""
    n, hop = 512, 160
    count = max(1, (len(x) - n) // hop + 1)
    idx = np.arange(n)[None, :] + hop * np.arange(count)[:, None]
    f = np.pad(x, (0, max(0, idx.max() + 1 - len(x))))[idx]
    f = f - f.mean(1, keepdims=True)
    ac = np.fft.irfft(np.abs(np.fft.rfft(f * np.hanning(n), 2 * n)) ** 2)[:, :n]
    ac /= np.maximum(np.fft.irfft(np.abs(np.fft.rfft(np.hanning(n), 2 * n)) ** 2)[:n][None], 1e-9)
    ac /= np.maximum(ac[:, :1], 1e-12)
    return np.clip(ac[:, 40:229].max(1), 0, 1)


def starts(vad, path, x):
    """The vad's onsets (seconds) on a file holding `x` (the vad as `Tools/bench vad-sources`
    runs it)."""
    return [seg["start"] for seg in vad_sources.run_detector("audiograph vad", vad, path, x)]


def measure(v, t):
    a = int(t * 100)
    voiced = v[a:a + 200] > VOICED
    third = np.cumsum(voiced)
    return int(voiced[:WINDOW].sum()), int(np.argmax(third >= 3)) if third[-1] >= 3 else None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    vad = vad_sources.detectors(sys.argv[1])["audiograph vad"]
    speech, noises = vad_sources.items()
    if not speech:
        print("skipped: needs ../shared/corpus")
        return
    rows, tmp = [], tempfile.mkdtemp(prefix="ag-vad-onsets-")
    for it in noises:
        x = sf.read(str(common.to16k(it)), dtype="float32")[0]
        for k, (_, y) in enumerate(vad_sources.scenes(x, -40)):
            path = os.path.join(tmp, "scene.wav")
            common.write_wav(path, y)
            v = voicing(y.astype(np.float64))
            rows += [("noise", f"{it.id} window {k}", t, *measure(v, t)) for t in starts(vad, path, y)]
    for it in speech:
        path = str(common.to16k(it))
        x = sf.read(path, dtype="float64")[0]
        v = voicing(x)
        for k, t in enumerate(starts(vad, path, x)):
            rows.append(("a recording's first start" if k == 0 else "later starts", f"{vad_sources.source_of(it)}: {it.id}", t, *measure(v, t)))
    print("| starts | count | voiced frames in the 0.5 s from the onset: min / p5 / p10 / median / max | frames to the third voiced one: median (none within 2 s) |")
    print("|---|---|---|---|")
    for kind in ("noise", "a recording's first start", "later starts"):
        r = [x for x in rows if x[0] == kind]
        if not r:
            continue
        counts = np.percentile([x[3] for x in r], [0, 5, 10, 50, 100])
        third = [x[4] for x in r if x[4] is not None]
        print(f"| {kind} | {len(r)} | {' / '.join(f'{c:.0f}' for c in counts)} | "
              f"{np.median(third) if third else '-'} ({len(r) - len(third)}) |")
    print("\nSpeech starts with 5 voiced frames or fewer in their first 0.5 s:\n")
    for kind, name, t, count, third in rows:
        if kind != "noise" and count <= 5:
            print(f"- {name} at {t:.2f} s: {count} (third voiced frame {'none' if third is None else f'after {third} frames'})")


if __name__ == "__main__":
    main()
