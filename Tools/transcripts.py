"""Comparing recognised text with reference transcripts, for the Tools/ scripts: the same
normalisation as ../shared/bench (lowercase, letters and apostrophes, mr/mrs/dr spelled out)
and one word alignment for error counts and right/wrong labels."""
import re


def normalize(t):
    t = re.sub(r"[^a-z' ]", " ", (t or "").lower())
    words = {"mr": "mister", "mrs": "missus", "dr": "doctor"}
    return [words.get(w, w) for w in t.split()]


def align(hyp, ref):
    """For each hypothesis word, whether it is aligned to an equal reference word."""
    n, m = len(hyp), len(ref)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        d[i][0] = i
    for j in range(m + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (hyp[i - 1] != ref[j - 1]))
    right = [False] * n
    i, j = n, m
    while i > 0 and j > 0:
        if d[i][j] == d[i - 1][j - 1] + (hyp[i - 1] != ref[j - 1]):
            right[i - 1] = hyp[i - 1] == ref[j - 1]
            i, j = i - 1, j - 1
        elif d[i][j] == d[i - 1][j] + 1:
            i -= 1
        else:
            j -= 1
    return right, d[n][m]


def errors(hyp, ref):
    """Word errors (substitutions, insertions, deletions) of `hyp` against `ref`."""
    return align(hyp, ref)[1]
