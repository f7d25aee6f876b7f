#!/usr/bin/env python3
"""Writes Tools/release-symbol-order.txt: the functions of the release audiograph that its
common runs execute, which Tools/build-release has the linker lay out together.

  Tools/symbol_order.py

Builds the release binary, runs it under valgrind's callgrind (which records every function
that runs) on flite speech through the dictation, transcription, command and assistant
graphs, a 48 kHz stereo file through the resampler, and `validate`, `nodes` and `--help`,
and lists the functions of the binary itself, those that more of the runs execute first (the Swift runtime, Foundation and ours; the
shared C libraries have their own layout). Run it again after large changes: a function
missing from the list still works, it only lies elsewhere in the file. Needs valgrind, flite
and sox (installs valgrind with apt when missing).
"""
import os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tools", "release-symbol-order.txt")


def sh(*cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def main():
    if not shutil.which("valgrind"):
        sh("apt-get", "install", "-y", "-q", "valgrind", stdout=subprocess.DEVNULL)
    sh(os.path.join(ROOT, "Tools", "build-release"), "--product", "audiograph", stdout=subprocess.DEVNULL)
    bindir = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.strip()
    graphs = os.path.join(ROOT, "Graphs")
    with tempfile.TemporaryDirectory() as tmp:
        # valgrind cannot read the debug information lld writes; the symbol table is enough.
        binary = os.path.join(tmp, "audiograph")
        sh("objcopy", "--strip-debug", os.path.join(bindir, "audiograph"), binary)
        speech, user, stereo = (os.path.join(tmp, n) for n in ("speech.wav", "user.wav", "stereo.wav"))
        sh("flite", "-voice", "rms", "-t", "go forward ten meters. find japanese restaurants nearby", "-o", speech)
        sh("flite", "-voice", "rms", "-t", "hello computer. find thai restaurants nearby", "-o", user)
        sh("sox", speech, "-r", "48000", "-c", "2", stereo)
        runs = [
            ["run", f"{graphs}/dictation.json", "--source", speech, "--json"],
            ["run", f"{graphs}/dictation.json", "--source", speech],
            ["run", f"{graphs}/transcribe.json", "--source", stereo, "--json"],
            ["run", f"{graphs}/command.json", "--source", speech, "--json"],
            ["run", f"{graphs}/assistant.json", "--source", user, "--sink", os.path.join(tmp, "answers.wav"), "--json"],
            ["run", f"{graphs}/gain.json", "--source", stereo, "--set", f"out.path={tmp}/quieter.wav"],
            ["validate", f"{graphs}/dictation.json"],
            ["nodes"],
            ["--help"],
        ]
        runs_of = {}  # function -> how many of the runs executed it
        for i, args in enumerate(runs):
            out = os.path.join(tmp, f"cg.{i}")
            # Each run gets its own cache folder, as a first run on a machine would.
            env = dict(os.environ, AUDIOGRAPH_CACHE=os.path.join(tmp, f"cache.{i}"))
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no",
                            "--compress-strings=no", "--demangle=no", binary] + args,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp)
            ours, seen = False, set()
            for line in open(out, errors="replace"):
                if line.startswith("ob="):
                    ours = line[3:].strip() == binary
                elif ours and line.startswith("fn="):
                    name = re.sub(r"'\d+$", "", line[3:].strip())  # callgrind's recursion-cycle marks
                    if not name.startswith("0x"):
                        seen.add(name)
            for name in seen:
                runs_of[name] = runs_of.get(name, 0) + 1
            print(f"{' '.join(args[:2])}: {len(runs_of)} functions so far", file=sys.stderr)
    # What every run executes first, then what fewer runs do: a run's code stays together.
    names = sorted(runs_of, key=lambda n: (-runs_of[n], n))
    with open(OUT, "w") as f:
        f.write("# Functions the release audiograph runs in common runs, laid out together by\n"
                "# Tools/build-release. Made by Tools/symbol_order.py; do not edit by hand.\n")
        f.write("\n".join(names) + "\n")
    print(f"wrote {len(names)} functions to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
