"""Scoring shared by the echo benches (echo_bench.py, echo_reverb_offline.py)."""


def in_order(expected, finals):
    """Commands recognised exactly, in the script's order, each final used once: the longest
    common subsequence of the two lists, so a lost wake word or a wrong final costs its own
    command only (a greedy scan for each command's next occurrence skipped every command
    between a wrong final and the next time the same command was said)."""
    best = [[0] * (len(finals) + 1) for _ in range(len(expected) + 1)]
    for i, x in enumerate(expected):
        for j, f in enumerate(finals):
            best[i + 1][j + 1] = best[i][j] + 1 if x == f else max(best[i][j + 1], best[i + 1][j])
    return best[-1][-1]
