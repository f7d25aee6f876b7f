"""What the leave-one-source-out tools share (decoder_loso.py, vad_loso.py,
confidence_background_trial.py): the corpus reader of `Tools/confidence`, the build whose
tuning constants move, measuring a grid of values and picking one on every source but one, and
the confidence trials' table of model inputs."""
import functools
import importlib.machinery
import importlib.util
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.cache
def confidence_tool():
    """Tools/confidence as a module: its corpus reader (`sources`), fitting and measures."""
    sys.path.insert(0, os.path.join(ROOT, "Tools"))
    loader = importlib.machinery.SourceFileLoader("confidence_tool", os.path.join(ROOT, "Tools", "confidence"))
    spec = importlib.util.spec_from_loader("confidence_tool", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def override_binary():
    """`audiograph` built with `-DAG_TUNING_OVERRIDES` in .build/tuning (the release binaries
    stay as they are): `AG_TUNE_<name>` and `AG_TUNE_PS` move its constants
    (Sources/AudioGraphDSP/TuningOverride.swift)."""
    scratch = os.path.join(ROOT, ".build", "tuning")
    subprocess.run(["swift", "build", "-c", "release", "--product", "audiograph", "--scratch-path", scratch,
                    "-Xswiftc", "-DAG_TUNING_OVERRIDES"], cwd=ROOT, check=True, capture_output=True)
    return os.path.join(scratch, "release", "audiograph")


def choose(runs, groups, shipped, score):
    """Per left-out group, the value (a key of `runs`) whose `score(run, left_out)` over the
    other groups is highest, the `shipped` one on a tie."""
    return {g: max(runs, key=lambda v: (score(runs[v], g), v == shipped)) for g in groups}


def sweep(value, shipped, variants, measure, groups, score):
    """One constant of a grid: the shipped `value`'s run (`shipped`, measured once for every
    constant) and `measure(env, sets)` of each (value, environment, --set) variant, as `runs`;
    and per left-out group the value `choose` takes on the others by `score`."""
    runs = {value: shipped}
    for v, env, sets in variants:
        runs[v] = measure(env, sets)
    return runs, choose(runs, groups, value, score)


def folds(chosen, groups, shipped):
    """The folds that chose another value than `shipped`, as a table cell: per value, how many
    and which (or which not, when more than half did)."""
    others = {}
    for g in groups:
        if chosen[g] != shipped:
            others.setdefault(chosen[g], []).append(g)
    cells = []
    for v, took in others.items():
        rest = [g for g in groups if g not in took]
        if not rest:
            cells.append(f"{v}: all {len(took)}")
        else:
            cells.append(f"{v}: {len(took)} ({', '.join(took) if len(took) <= len(groups) / 2 else 'all but ' + ', '.join(rest)})")
    return "; ".join(cells) or "none"


def input_variants_table(C, words, variants):
    """The confidence trials' table: for each variant (name -> the inputs it adds to a word),
    the held-out AUC / ECE pooled and of mfa, promo and wenet, and the worst source of those
    with 20 words or more. `C` is `confidence_tool()`; `words` dicts with `group`, `features`
    and `right`."""
    groups = sorted({w["group"] for w in words})
    y = [1.0 if w["right"] else 0.0 for w in words]
    print("| model inputs | pooled | mfa | promo | wenet | worst AUC / worst ECE |\n|---|---|---|---|---|---|")
    for name, extra in variants.items():
        items = [({"features": w["features"] + extra(w)}, w["right"]) for w in words]
        group_of = {id(x): w["group"] for (x, _), w in zip(items, words)}
        p = C.held_out(items, lambda x: group_of[id(x)], C.L2)
        per = {}
        for g in groups + ["pooled"]:
            sel = [i for i, w in enumerate(words) if g == "pooled" or w["group"] == g]
            per[g] = (len(sel), C.auc([p[i] for i in sel], [y[i] for i in sel]), C.ece([p[i] for i in sel], [y[i] for i in sel]))
        big = [g for g in groups if per[g][0] >= 20]
        worst_auc, worst_ece = min(big, key=lambda g: per[g][1]), max(big, key=lambda g: per[g][2])
        cell = lambda g: f"{per[g][1]:.3f} / {per[g][2]:.3f}" if g in per else "-"  # noqa: E731
        print(f"| {name} | {cell('pooled')} | {cell('mfa')} | {cell('promo')} | {cell('wenet')} | "
              f"{worst_auc} {per[worst_auc][1]:.3f} / {worst_ece} {per[worst_ece][2]:.3f} |")
