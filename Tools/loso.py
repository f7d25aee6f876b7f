"""What the leave-one-source-out tools share (decoder_loso.py, vad_loso.py,
confidence_background_trial.py): the corpus reader of `Tools/confidence`, the build whose
tuning constants move, and measuring a grid of values and picking one on every source but one."""
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
