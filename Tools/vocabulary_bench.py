#!/usr/bin/env python3
"""Custom vocabulary, measured: sentences with words the en-us dictionary lacks, spoken by
flite (voices rms and slt), recognised by graphs/dictation.json without and with a vocabulary
file of those words and a few phrases; then the shared corpus with the vocabulary loaded.

  Tools/vocabulary_bench.py BIN_DIR

Reports: the share of sentences whose new word is found, word recall of the new words, and
sentence WER, without and with the vocabulary; corpus WER without and with it, and with a
vocabulary of one new word (neither should make it worse by more than 0.5 point). The
vocabulary files are written to a temporary directory.
"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transcripts import errors, normalize  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")

# (sentence, the new word in it). Cuisines for the restaurant finder; tools and services for dictation.
SENTENCES = [
    ("find ramen restaurants nearby", "ramen"), ("i want some ramen tonight", "ramen"),
    ("find shawarma restaurants nearby", "shawarma"), ("order a shawarma for lunch", "shawarma"),
    ("where can i get boba tea", "boba"), ("i would like a boba tea", "boba"),
    ("is there kombucha in the fridge", "kombucha"), ("buy a bottle of kombucha", "kombucha"),
    ("find bulgogi restaurants nearby", "bulgogi"), ("find bibimbap restaurants nearby", "bibimbap"),
    ("order gyoza and noodles", "gyoza"), ("add sriracha to the noodles", "sriracha"),
    ("i would like a matcha latte", "matcha"), ("order some edamame", "edamame"),
    ("watch netflix tonight", "netflix"), ("open netflix on the television", "netflix"),
    ("call a lyft to the airport", "lyft"), ("book a lyft for eight o'clock", "lyft"),
    ("book an airbnb in paris", "airbnb"), ("find an airbnb near the beach", "airbnb"),
    ("open tiktok", "tiktok"), ("post this video on tiktok", "tiktok"),
    ("deploy the service to kubernetes", "kubernetes"), ("restart the kubernetes cluster", "kubernetes"),
    ("check the grafana dashboard", "grafana"), ("add a panel to grafana", "grafana"),
    ("back up the postgres database", "postgres"), ("run terraform on the new cluster", "terraform"),
    ("open a jira ticket for the bug", "jira"), ("order dinner on doordash", "doordash"),
    ("search for it on duckduckgo", "duckduckgo"), ("send me the money on venmo", "venmo"),
]
PHRASES = ["find ramen restaurants", "find shawarma restaurants", "boba tea", "call a lyft", "book an airbnb",
           "watch netflix", "deploy to kubernetes", "the grafana dashboard"]


def recognise(bin_dir, wav, vocabulary=None):
    cmd = [os.path.join(bin_dir, "audiograph"), "run", "graphs/dictation.json", "--source", wav, "--json"]
    if vocabulary:
        cmd += ["--set", f"asr.vocabulary={vocabulary}"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"audiograph failed on {wav}: {out.stderr.strip()}")
    finals = [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{") and '"final"' in l]
    return " ".join(f["text"] for f in finals)


def main():
    bin_dir = sys.argv[1] if len(sys.argv) > 1 else subprocess.run(
        ["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    tmp = tempfile.mkdtemp(prefix="audiograph-vocabulary-")
    vocabulary = os.path.join(tmp, "vocabulary.txt")
    words = sorted({w for _, w in SENTENCES})
    with open(vocabulary, "w") as f:
        f.write("\n".join(words + PHRASES) + "\n")
    rows = {False: [0, 0, 0, 0], True: [0, 0, 0, 0]}  # sentences with the word, words found, word errors, words
    n = 0
    for voice in ("rms", "slt"):
        for k, (sentence, word) in enumerate(SENTENCES):
            wav = os.path.join(tmp, f"{voice}-{k}.wav")
            subprocess.run(["flite", "-voice", voice, "-t", sentence, "-o", wav], check=True)
            n += 1
            for use in (False, True):
                hyp = normalize(recognise(bin_dir, wav, vocabulary if use else None))
                ref = normalize(sentence)
                r = rows[use]
                r[0] += word in hyp
                r[1] += min(hyp.count(word), ref.count(word))
                r[2] += errors(hyp, ref)
                r[3] += len(ref)
    print(f"## Custom vocabulary: {len(SENTENCES)} sentences x 2 flite voices (rms, slt), {len(words)} words the "
          f"dictionary lacks, graphs/dictation.json\n")
    print("| | sentences whose new word is found | sentence WER |")
    print("|---|---|---|")
    for use in (False, True):
        r = rows[use]
        print(f"| {'with' if use else 'without'} the vocabulary ({len(words)} words, {len(PHRASES)} phrases) | "
              f"{r[0]}/{n} ({100 * r[0] / n:.0f} %) | {100 * r[2] / r[3]:.1f} % |")
    manifest = os.path.join(CORPUS, "manifest.json")
    if not os.path.exists(manifest):
        print("\n(corpus WER skipped: ../shared/corpus is absent)")
        return
    # A vocabulary of one new word (a product's name): the fewer the words, the likelier each
    # could be made, and a word too likely replaces unrelated speech that sounds like it
    # ("line", "blind man" -> "aligner" in this corpus before new words were capped).
    one_word = os.path.join(tmp, "one-word.txt")
    with open(one_word, "w") as f:
        f.write("montreal forced aligner\n")
    configs = [("without the vocabulary", None), ("with it loaded", vocabulary),
               ("with one new word loaded (\"montreal forced aligner\")", one_word)]
    items = [e for e in json.load(open(manifest)) if e.get("kind") == "speech" and e.get("transcript")]
    totals = [[0, 0] for _ in configs]
    for e in items:
        ref = normalize(e["transcript"])
        for k, (_, v) in enumerate(configs):
            hyp = normalize(recognise(bin_dir, os.path.join(CORPUS, e["file"]), v))
            totals[k][0] += errors(hyp, ref)
            totals[k][1] += len(ref)
    wer = [100 * e / w for e, w in totals]
    print(f"\n| shared corpus ({len(items)} files), dictation | WER |\n|---|---|")
    for k, (name, _) in enumerate(configs):
        print(f"| {name} | {wer[k]:.1f} %{f' ({wer[k] - wer[0]:+.1f} points)' if k else ''} |")


if __name__ == "__main__":
    main()
