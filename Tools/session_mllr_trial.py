#!/usr/bin/env python3
"""MLLR adaptation to the talker from a session's first 30 s, tried without a change to the
engine (issue 40, section 2; Sources/AudioGraphSpeech/TUNING.md has the result).

The same sessions as session_adaptation.py, each dictated in one run. The recordings that
start in the session's first 30 s are the adaptation data, with as transcript either what
the session's run recognised in them (`hyp`: no labels, what an app would have) or their
reference transcripts (`ref`: the bound for the same amount of speech, supervised).
Debian's sphinxtrain estimates one mean transform (MLLR, one regression class) from them:
`sphinx_fe` (the model's own front end, feat.params), `bw` (the alignment's statistics),
`mllr_solve`; `mllr_transform` applies it to a copy of the model's means. The session is then
dictated again with that model (`--set asr.hmm=`), and the recordings after 30 s are scored.

Debian's en-us model keeps its mixture weights quantised (`sendump`, which bw cannot read) and
its model definition binary: both are written out once in the forms bw reads (mixture_weights,
mdef.txt through `pocketsphinx_mdef_convert`).

Needs: sphinxtrain, sphinxbase-utils (sphinx_fe), pocketsphinx (pocketsphinx_mdef_convert).
Usage: Tools/session_mllr_trial.py BIN_DIR [--window S] [hyp|ref|hyp-bias|ref-bias ...]
  (`--window S`: adapt from the recordings that start in the first S s, judge on the rest;
  default 30)
  (`-bias`: the transform's shift term alone, `mllr_solve -mllrmult no`)
       Tools/session_mllr_trial.py BIN_DIR --bound [--effect "SOX EFFECT"] SESSION ...
  (the most one mean transform can give a session: estimated from all its recordings whose
  words the dictionary has, with their reference words, and judged on those same recordings,
  each decoded alone -- supervised and in sample. `--effect` first passes every recording
  through a sox effect, e.g. "pitch 400": a talker the model has not heard, made on purpose,
  where a working transform must gain)
"""
import os, shutil, struct, subprocess, sys, tempfile

import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session_adaptation import ROOT, SHARED, assign, cell, decode, join, score, sessions, tally
from transcripts import errors, normalize

HMM = "/usr/share/pocketsphinx/model/en-us/en-us"
DICT = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"
SPHINXTRAIN = "/usr/lib/sphinxtrain"


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"session_mllr_trial: {os.path.basename(args[0])} failed ({r.returncode}): {(r.stderr or r.stdout)[-600:]}")
    return r


def sendump_weights(path):
    """The mixture weights of a PocketSphinx sendump, as a (senones, streams, codewords) array.
    Its header is length-prefixed strings ending with an empty one; then, per stream and
    codeword, one byte per senone: -log_1.0001(weight) >> shift."""
    data = open(path, "rb").read()
    pos, fields = 0, {}

    def string():
        nonlocal pos
        n = struct.unpack_from("<i", data, pos)[0]
        pos += 4
        s = data[pos:pos + n].rstrip(b"\0").decode()
        pos += n
        return s if n else None

    string()  # the title
    while (h := string()) is not None:
        parts = h.split()
        if len(parts) == 2 and parts[1].isdigit():
            fields[parts[0]] = int(parts[1])
    n_feat, shift = fields["feature_count"], fields.get("mixw_shift", 10)
    # Codewords and senones: in the header, or (no clusters) right after it.
    n_cw, n_sen = fields.get("model_count"), fields.get("mixture_count")
    if not fields.get("cluster_count"):
        n_cw, n_sen = struct.unpack_from("<ii", data, pos)
        pos += 8
    codes = numpy.frombuffer(data, dtype=numpy.uint8, count=n_feat * n_cw * n_sen, offset=pos)
    logs = codes.reshape(n_feat, n_cw, n_sen).astype(numpy.float64) * (1 << shift)
    w = numpy.power(1.0001, -logs).transpose(2, 0, 1)
    return w / w.sum(axis=2, keepdims=True)


def write_mixw(path, w):
    """A Sphinx-III binary mixture-weight file: its header, the byte-order word, then dims,
    count and floats, and their checksum (each 32-bit word added to the sum rotated left 20)."""
    body = numpy.concatenate([numpy.array([*w.shape, w.size], dtype="<u4"),
                              w.astype("<f4").view("<u4").ravel()])
    chksum = 0
    for v in body.tolist():
        chksum = ((((chksum << 20) | (chksum >> 12)) & 0xFFFFFFFF) + v) & 0xFFFFFFFF
    head = b"s3\nversion 1.0\nchksum0 yes\n"
    pad = (4 - (len(head) + len(b"endhdr\n")) % 4) % 4
    with open(path, "wb") as out:
        out.write(head + b" " * pad + b"endhdr\n")
        out.write(struct.pack("<i", 0x11223344))
        out.write(body.tobytes())
        out.write(struct.pack("<I", chksum))


def adaptable_model(work):
    """A copy of the model with the files bw reads."""
    m = os.path.join(work, "model")
    if not os.path.isdir(m):
        shutil.copytree(HMM, m)
        run(["pocketsphinx_mdef_convert", "-text", os.path.join(HMM, "mdef"), os.path.join(m, "mdef.txt")])
        write_mixw(os.path.join(m, "mixture_weights"), sendump_weights(os.path.join(HMM, "sendump")))
    return m


def adapted_model(model, wavs, texts, work, bias_only=False):
    """The model with its means moved by an MLLR transform estimated from `wavs` (paths) and
    `texts` (word lists), and how many recordings it came from; None when none could be
    aligned (each needs every word in the dictionary). `bias_only`: the
    transform's shift alone (a mean offset per feature, 39 numbers instead of 546)."""
    vocab = {l.split()[0] for l in open(DICT) if l.strip()}
    utts = [(w, t) for w, t in zip(wavs, texts) if t and all(x in vocab for x in t)]
    if not utts:
        return None
    d = tempfile.mkdtemp(dir=work)
    with open(os.path.join(d, "fileids"), "w") as ctl, open(os.path.join(d, "transcription"), "w") as lsn:
        for k, (w, t) in enumerate(utts):
            shutil.copy(w, os.path.join(d, f"u{k}.wav"))
            ctl.write(f"u{k}\n")
            lsn.write(f"<s> {' '.join(t)} </s> (u{k})\n")
    run(["sphinx_fe", "-argfile", os.path.join(model, "feat.params"), "-samprate", "16000", "-c", "fileids",
         "-di", ".", "-do", ".", "-ei", "wav", "-eo", "mfc", "-mswav", "yes"], cwd=d)
    run([os.path.join(SPHINXTRAIN, "bw"), "-hmmdir", model, "-moddeffn", os.path.join(model, "mdef.txt"),
         "-ts2cbfn", ".ptm.", "-feat", "1s_c_d_dd", "-svspec", "0-12/13-25/26-38", "-cmn", "current", "-agc", "none",
         "-dictfn", DICT, "-fdictfn", os.path.join(model, "noisedict"), "-ctlfn", "fileids", "-lsnfn", "transcription",
         "-cepdir", ".", "-cepext", "mfc", "-accumdir", "."], cwd=d)
    run([os.path.join(SPHINXTRAIN, "mllr_solve"), "-meanfn", os.path.join(model, "means"), "-varfn",
         os.path.join(model, "variances"), "-outmllrfn", "mllr_matrix", "-accumdir", ".",
         "-mllrmult", "no" if bias_only else "yes"], cwd=d)
    out = os.path.join(d, "model")
    shutil.copytree(HMM, out)
    os.remove(os.path.join(out, "means"))
    run([os.path.join(SPHINXTRAIN, "mllr_transform"), "-inmeanfn", os.path.join(model, "means"),
         "-outmeanfn", os.path.join(out, "means"), "-mllrmat", "mllr_matrix"], cwd=d)
    return out, len(utts)


def bound(ag, graph, names, effect):
    """Each named session's WER without and with a transform from its own reference words."""
    vocab = {l.split()[0] for l in open(DICT) if l.strip()}
    work = tempfile.mkdtemp(prefix="ag-mllr-bound-")
    model = adaptable_model(work)
    all_sessions = sessions()
    print(f"## One MLLR transform, supervised and in sample{' (recordings through sox ' + effect + ')' if effect else ''}\n")
    print("| session | recordings (in the dictionary) | WER without | WER with the transform |")
    print("|---|---|---|---|")
    for name in names:
        if name not in all_sessions:
            sys.exit(f"session_mllr_trial: no session {name!r} (there are {', '.join(all_sessions)})")
        files = [(p, normalize(t)) for p, t in all_sessions[name]]
        known = [(p, t) for p, t in files if all(w in vocab for w in t)]
        wavs = []
        for k, (p, _) in enumerate(known):
            w = os.path.join(work, f"{name}-{k}.wav")
            subprocess.run(["sox", "-D", p, "-r", "16000", "-c", "1", "-b", "16", w] + effect.split(),
                           check=True, stderr=subprocess.DEVNULL)
            wavs.append(w)
        adapted = adapted_model(model, wavs, [t for _, t in known], work) if known else None
        cells = []
        for extra in [[], ["--set", f"asr.hmm={adapted[0]}"] if adapted else None]:
            if extra is None:
                cells.append("-")
                continue
            words = errs = 0
            for w, (_, t) in zip(wavs, known):
                hyp = assign(decode(ag, graph, w, extra), [(0.0, float("inf"))])[0]
                words, errs = words + len(t), errs + errors(hyp, t)
            cells.append(f"{100 * errs / words:.1f} % ({errs}/{words})")
        print(f"| {name} | {len(files)} ({len(known)}) | " + " | ".join(cells) + " |")
        sys.stdout.flush()


def main():
    if not os.path.isdir(SHARED):
        print("session_mllr_trial: skipped: ../shared (the corpus) is absent")
        return
    missing = [p for p in [os.path.join(SPHINXTRAIN, "bw"), shutil.which("sphinx_fe"), shutil.which("pocketsphinx_mdef_convert")]
               if not p or not os.path.exists(p)]
    if missing:
        sys.exit("session_mllr_trial: needs sphinxtrain, sphinxbase-utils and pocketsphinx "
                 "(apt-get install sphinxtrain sphinxbase-utils pocketsphinx)")
    args = sys.argv[1:]
    graph = os.path.join(ROOT, "graphs", "dictation.json")
    if "--bound" in args:
        args.remove("--bound")
        effect = ""
        if "--effect" in args:
            k = args.index("--effect")
            effect = args[k + 1]
            del args[k:k + 2]
        bound(os.path.join(args[0], "audiograph"), graph, args[1:] or ["mfa-developer"], effect)
        return
    window = 30.0
    if "--window" in args:
        k = args.index("--window")
        window = float(args[k + 1])
        del args[k:k + 2]
    ag = os.path.join(args[0], "audiograph")
    kinds = args[1:] or ["hyp", "ref"]
    work = tempfile.mkdtemp(prefix="ag-mllr-")
    model = adaptable_model(work)
    print(f"## MLLR from the session's first {window:g} s (one mean transform, sphinxtrain)\n")
    print(f"| session | adaptation recordings | without: all, after {window:g} s | " + " | ".join(f"MLLR from {k}: all, after {window:g} s" for k in kinds) + " |")
    print("|---|---|---|" + "---|" * len(kinds))
    totals = {k: [0] * 4 for k in ["without"] + kinds}
    for name, files in sessions().items():
        path, spans = join(files, work, name)
        early = [k for k, (s, _) in enumerate(spans) if s < window]
        if len(early) == len(spans):
            continue  # nothing after 30 s to judge it on
        base = decode(ag, graph, path, [])
        hyps = assign(base, spans)
        wavs = [os.path.join(work, f"{name}-{k}.wav") for k in early]
        cells, used = [], []
        for kind in ["without"] + kinds:
            if kind == "without":
                finals = base
            else:
                texts = [hyps[k] if kind.startswith("hyp") else normalize(files[k][1]) for k in early]
                adapted = adapted_model(model, wavs, texts, work, bias_only=kind.endswith("-bias"))
                used.append(str(adapted[1]) if adapted else "0")
                # Nothing to align: the session goes on unadapted.
                finals = decode(ag, graph, path, ["--set", f"asr.hmm={adapted[0]}"]) if adapted else base
            t = tally(score(finals, spans, files), window)
            totals[kind] = [x + y for x, y in zip(totals[kind], t)]
            cells.append(cell(t))
        print(f"| {name} | {len(early)} ({'/'.join(used)} aligned) | " + " | ".join(cells) + " |")
        sys.stdout.flush()
    print("| (pooled) | | " + " | ".join(cell(t) for t in totals.values()) + " |")


if __name__ == "__main__":
    main()
