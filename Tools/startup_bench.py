#!/usr/bin/env python3
"""Ready at once, and how heavy: whole-process figures of `audiograph run graphs/dictation.json
--source FILE --json` beside `pocketsphinx_continuous -infile FILE`, alternating, same run.

  Tools/startup_bench.py BIN_DIR [--runs N] [--long FILE] [--speech FILE]

For half a second of silence (made here), and with --speech for a short utterance (a run with
no speech never builds the search over the language model; one with speech does): launch to
`listening` (ours: the event; PocketSphinx's CLI prints nothing when ready, so its figure is its
whole run, an upper bound), launch to the end, and peak memory split as Linux counts it: private (anonymous: heap and the like, this
process's alone) and file-backed (mapped pages of the binary, libraries and model files, which
a second process running the same model shares). Peaks are sampled every 5 ms from
/proc/PID/status (RssAnon, RssFile; VmHWM for the total). With --long, the same memory figures
for that file (e.g. a 5-minute recording, 16 kHz mono for PocketSphinx).
"""
import argparse, os, statistics, subprocess, sys, tempfile, time, wave

MODEL = "/usr/share/pocketsphinx/model/en-us"
CONT = ["pocketsphinx_continuous", "-hmm", f"{MODEL}/en-us", "-lm", f"{MODEL}/en-us.lm.bin",
        "-dict", f"{MODEL}/cmudict-en-us.dict", "-logfn", "/dev/null", "-infile"]


def run(cmd, marker=None):
    """(seconds to the line containing marker or None, seconds to the end, peak {hwm, anon, file} MB)."""
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    os.set_blocking(p.stdout.fileno(), False)
    ready, peak, buf = None, {"VmHWM": 0, "RssAnon": 0, "RssFile": 0}, ""
    while True:
        chunk = p.stdout.read()  # bytes, or None when nothing is there yet
        if chunk:
            chunk = chunk.decode(errors="replace")
            buf += chunk
            if marker and ready is None and marker in buf:
                ready = time.monotonic() - t
        try:
            for line in open(f"/proc/{p.pid}/status"):
                k = line.split(":")[0]
                if k in peak:
                    peak[k] = max(peak[k], int(line.split()[1]))
        except OSError:
            pass
        if p.poll() is not None:
            break
        time.sleep(0.005)
    end = time.monotonic() - t
    return ready, end, {k: v / 1024 for k, v in peak.items()}


def compare(title, ps_cmd, our_cmd, runs, ps_name):
    """Runs PocketSphinx's CLI and ours alternately; prints their table; returns the medians
    (ours to listening, ours to the end, PocketSphinx's end)."""
    rows = {"ours": [], "ps": []}
    for _ in range(runs):
        rows["ps"].append(run(ps_cmd))
        rows["ours"].append(run(our_cmd, '"listening"'))
    med = statistics.median
    print(f"## {title}, median of {runs} runs, alternating")
    print()
    print("| | launch to listening s | launch to end s | peak RSS MB | private MB | file-backed (shared) MB |")
    print("|---|---|---|---|---|---|")
    for name, key in [(ps_name, "ps"), ("audiograph run graphs/dictation.json --source", "ours")]:
        r = rows[key]
        ready = "-" if key == "ps" else f"{med([x[0] for x in r]):.3f}"
        print(f"| {name} | {ready} | {med([x[1] for x in r]):.3f} | {med([x[2]['VmHWM'] for x in r]):.1f} | "
              f"{med([x[2]['RssAnon'] for x in r]):.1f} | {med([x[2]['RssFile'] for x in r]):.1f} |")
    print()
    return (med([x[0] for x in rows["ours"]]), med([x[1] for x in rows["ours"]]), med([x[1] for x in rows["ps"]]))


def main():
    a = argparse.ArgumentParser()
    a.add_argument("bin")
    a.add_argument("--runs", type=int, default=5)
    a.add_argument("--long")
    a.add_argument("--speech", help="a short utterance: the same start-up figures with speech to decode")
    o = a.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ours = [os.path.join(o.bin, "audiograph"), "run", os.path.join(root, "Graphs", "dictation.json"), "--json", "--source"]
    with tempfile.TemporaryDirectory() as tmp:
        short = os.path.join(tmp, "half-second.wav")
        w = wave.open(short, "wb")
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000); w.writeframes(b"\0\0" * 8000); w.close()
        run(ours + [short], '"listening"')  # the first run cuts the dictionary to the model (then kept)
        our_ready, our_end, ps_end = compare("Start-up, half a second of silence", CONT + [short], ours + [short],
                                             o.runs, "pocketsphinx_continuous -infile")
        print(f"Listening {ps_end / our_ready:.1f}x sooner than PocketSphinx's CLI ends (its readiness is at most its end); "
              f"the end {ps_end / our_end:.2f}x its time.")
        if o.speech:
            # With speech the whole search is built and used: nothing of the load is skipped.
            conv = os.path.join(tmp, "speech16k.wav")
            subprocess.run(["sox", o.speech, "-r", "16000", "-c", "1", "-b", "16", conv], check=True)
            print()
            _, our_end, ps_end = compare(f"The same on {os.path.basename(o.speech)} (speech)", CONT + [conv],
                                         ours + [o.speech], o.runs, "pocketsphinx_continuous -infile (16 kHz mono copy)")
            print(f"The end {ps_end / our_end:.2f}x PocketSphinx's CLI's time.")
        if o.long:
            print()
            print(f"## Peak memory on {os.path.basename(o.long)}")
            print()
            print("| | peak RSS MB | private MB | file-backed (shared) MB |")
            print("|---|---|---|---|")
            conv = os.path.join(tmp, "long16k.wav")
            subprocess.run(["sox", o.long, "-r", "16000", "-c", "1", "-b", "16", conv], check=True)
            for name, cmd in [("pocketsphinx_continuous -infile (16 kHz mono copy)", CONT + [conv]),
                              ("audiograph run graphs/dictation.json --source", ours + [o.long])]:
                _, _, p = run(cmd)
                print(f"| {name} | {p['VmHWM']:.1f} | {p['RssAnon']:.1f} | {p['RssFile']:.1f} |")


if __name__ == "__main__":
    main()
