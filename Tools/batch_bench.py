#!/usr/bin/env python3
"""Whole archives, measured: the shared corpus's recordings (16 kHz mono conversions, made
once with sox) transcribed by `audiograph batch` with 1 and 2 workers, beside
pocketsphinx_continuous run once per file by `xargs -P 1` and `-P 2`, same files, same run,
alternating. Reports files per minute (median of --reps runs), the throughput ratio, and
WER of each against the corpus transcripts.

  Tools/batch_bench.py BIN_DIR [--reps N] [--graph GRAPH]
"""
import argparse, glob, json, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transcripts import errors, normalize  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
MODEL = "/usr/share/pocketsphinx/model/en-us"
CONT = ["pocketsphinx_continuous", "-hmm", f"{MODEL}/en-us", "-lm", f"{MODEL}/en-us.lm.bin",
        "-dict", f"{MODEL}/cmudict-en-us.dict", "-logfn", "/dev/null", "-infile"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bin")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--graph", default=os.path.join(ROOT, "Graphs", "transcribe.json"))
    a = p.parse_args()
    manifest = json.load(open(os.path.join(CORPUS, "manifest.json")))
    items = [m for m in manifest if m.get("kind") == "speech" and m.get("transcript")]
    work = tempfile.mkdtemp(prefix="ag-batch-")
    try:
        inputs = os.path.join(work, "in")
        os.makedirs(inputs)
        refs = {}
        for m in items:
            name = os.path.splitext(m["file"])[0]
            subprocess.run(["sox", os.path.join(CORPUS, m["file"]), "-r", "16000", "-c", "1", "-b", "16",
                            os.path.join(inputs, name + ".wav")], check=True)
            refs[name] = m["transcript"]
        files = sorted(glob.glob(os.path.join(inputs, "*.wav")))
        audio = sum(float(subprocess.run(["soxi", "-D", f], capture_output=True, text=True).stdout) for f in files)

        def ours(jobs):
            out = os.path.join(work, f"ag{jobs}")
            shutil.rmtree(out, ignore_errors=True)
            t = time.monotonic()
            subprocess.run([os.path.join(a.bin, "audiograph"), "batch", a.graph, inputs, "--output", out,
                            "--jobs", str(jobs)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall = time.monotonic() - t
            hyps = {}
            for f in files:
                name = os.path.splitext(os.path.basename(f))[0]
                finals = [json.loads(l) for l in open(os.path.join(out, name + ".jsonl")) if '"final"' in l]
                hyps[name] = " ".join(e["text"] for e in finals if e.get("type") == "final")
            return wall, hyps

        def peer(jobs):
            out = os.path.join(work, f"ps{jobs}")
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            script = " ".join(CONT) + ' "$1" > ' + out + '/"$(basename "$1" .wav)".txt 2>/dev/null'
            t = time.monotonic()
            subprocess.run(["xargs", "-P", str(jobs), "-n", "1", "sh", "-c", script, "_"],
                           input="\n".join(files), text=True, check=True)
            wall = time.monotonic() - t
            hyps = {}
            for f in files:
                name = os.path.splitext(os.path.basename(f))[0]
                hyps[name] = " ".join(open(os.path.join(out, name + ".txt")).read().split())
            return wall, hyps

        runs = {k: [] for k in ["ag1", "ag2", "ps1", "ps2"]}
        hyps = {}
        for _ in range(a.reps):
            for key, fn, jobs in [("ps1", peer, 1), ("ag1", ours, 1), ("ps2", peer, 2), ("ag2", ours, 2)]:
                wall, h = fn(jobs)
                runs[key].append(wall)
                hyps[key] = h

        def wer(h):
            e = n = 0
            for name, ref in refs.items():
                e += errors(normalize(h.get(name, "")), normalize(ref))
                n += len(normalize(ref))
            return 100.0 * e / max(1, n)

        print(f"## Whole archives: {len(files)} corpus recordings ({audio:.0f} s, 16 kHz mono), median of {a.reps} runs")
        print()
        print("| transcriber | workers | wall s | files / min | vs pocketsphinx_continuous | WER % |")
        print("|---|---|---|---|---|---|")
        for jobs in (1, 2):
            ps, ag = statistics.median(runs[f"ps{jobs}"]), statistics.median(runs[f"ag{jobs}"])
            print(f"| pocketsphinx_continuous -infile, xargs -P {jobs} | {jobs} | {ps:.1f} | {60 * len(files) / ps:.0f} | 1.00x | {wer(hyps[f'ps{jobs}']):.1f} |")
            print(f"| audiograph batch {os.path.basename(a.graph)} --jobs {jobs} | {jobs} | {ag:.1f} | {60 * len(files) / ag:.0f} | {ps / ag:.2f}x | {wer(hyps[f'ag{jobs}']):.1f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
