#!/usr/bin/env python3
"""Speech that was once at 8 kHz, measured: every recording of ../shared/corpus and
../shared/corpus-more as it is and once at 8 kHz (sox), through `run transcribe`.

  Tools/narrowband_bench.py AUDIOGRAPH

Reports the corpus's WER as recorded and once at 8 kHz (the figure the recognizer's
narrowband warning quotes), and how many recordings of each kind drew that warning (the
recognizer decides after 2 s of speech louder than -45 dBFS; shorter ones draw none).
"""
import glob, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transcripts import errors, normalize  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared")
WARNING = "nothing above 4 kHz"


def transcribe(binary, wav):
    r = subprocess.run([binary, "run", "transcribe", "--source", wav, "--json"], capture_output=True, text=True)
    finals = [json.loads(line) for line in r.stdout.splitlines() if '"type":"final"' in line]
    warned = any(WARNING in line for line in r.stdout.splitlines() if '"type":"warning"' in line)
    return " ".join(f["text"] for f in finals), warned


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "audiograph")
    manifest = os.path.join(SHARED, "corpus", "manifest.json")
    if not os.path.exists(manifest):
        sys.exit("narrowband needs ../shared/corpus")
    transcripts = {e["file"]: e.get("transcript") for e in json.load(open(manifest)) if e.get("kind") == "speech"}
    files = sorted(glob.glob(os.path.join(SHARED, "corpus", "*.wav")) + glob.glob(os.path.join(SHARED, "corpus-more", "*.wav")))
    wer = {"as recorded": [0, 0], "once at 8 kHz": [0, 0]}
    warned = {"as recorded": [], "once at 8 kHz": []}
    with tempfile.TemporaryDirectory() as tmp:
        narrow = os.path.join(tmp, "narrow.wav")
        for f in files:
            subprocess.run(["sox", f, "-r", "8000", "-c", "1", narrow], check=True, stderr=subprocess.DEVNULL)
            for kind, wav in (("as recorded", f), ("once at 8 kHz", narrow)):
                text, w = transcribe(binary, wav)
                if w:
                    warned[kind].append(os.path.basename(f))
                ref = transcripts.get(os.path.basename(f)) if os.path.dirname(f).endswith("corpus") else None
                if ref:
                    wer[kind][0] += errors(normalize(text), normalize(ref))
                    wer[kind][1] += len(normalize(ref))
    print(f"{len(files)} recordings; WER over ../shared/corpus's {wer['as recorded'][1]} words")
    for kind in wer:
        e, n = wer[kind]
        print(f"  {kind:14s} WER {100 * e / max(1, n):5.1f} %   narrowband warning: {len(warned[kind])} of {len(files)}"
              + (f" ({', '.join(warned[kind])})" if kind == "as recorded" and warned[kind] else ""))


if __name__ == "__main__":
    main()
