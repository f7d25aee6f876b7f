"""SessionCalibration.swift mirrored, and measured per source (Tools/confidence loso's
"Session calibration" table; `report` checks the binary against `session_calibrated`).

A session's share of right words is estimated from the model confidences of its earlier
finals (two EM steps of a changed base rate from the share the model was fitted at, with
pseudo-words at that share), and each final's confidences move from the fitted share to it.
"""
import json
import math
import os


# SessionCalibration.swift's constants, mirrored: words at the fitted share in every estimate,
# EM steps, bins of the session's confidences.
PSEUDO_WORDS, STEPS, BINS = 30.0, 2, 100


def moved(p, frm, to):
    """Confidence p of a model fitted where `frm` of the words were right, for a session where
    `to` are (SessionCalibration.moved)."""
    if to == frm:
        return p
    ratio = (to / (1 - to)) / (frm / (1 - frm))
    return ratio * p / (ratio * p + (1 - p))


def session_calibrated(finals, fitted_share, pseudo_words=PSEUDO_WORDS, steps=STEPS):
    """What SessionCalibration makes of a session's model confidences: `finals` is a list of
    lists (each final's words' confidences, in order); the same shape back, each final moved to
    the share of right words its session's earlier finals estimate."""
    counts, total, out = [0] * BINS, 0, []
    for words in finals:
        share = fitted_share
        if total:
            for _ in range(steps):
                acc = pseudo_words * fitted_share
                for b, n in enumerate(counts):
                    if n:
                        acc += n * moved((b + 0.5) / BINS, fitted_share, share)
                share = acc / (pseudo_words + total)
        out.append([moved(p, fitted_share, share) for p in words])
        for p in words:
            counts[min(BINS - 1, max(0, int(p * BINS)))] += 1
            total += 1
    return out


def talker_sessions(corpus):
    """file -> the talker session it belongs to (Tools/session_adaptation.py's talkers), for
    the files that have one."""
    import session_adaptation
    out = {}
    for folder in ("corpus", "corpus-more"):
        try:
            entries = json.load(open(os.path.join(corpus + folder[len("corpus"):], "manifest.json")))
        except OSError:
            continue
        for e in entries:
            t = session_adaptation.talker(folder, e)
            if t:
                out[e["file"]] = t
    return out


def by_source(files, words, y, held, group_of_word, groups, auc, ece, corpus):
    """Per source, the held-out confidences before and after SessionCalibration (each fold's
    confidences moved from the share of right words it was fitted at): with every recording a
    session (as these runs were), and with each talker's recordings one session in file-name
    order (a long dictation of one talker; the same words, so a simulation of it). Then the
    calibration's constants judged by leaving one source out: picked by the log loss of the
    other sources' words, measured on the one left out."""
    share_without = {g: sum(t for (w, _), t in zip(words, y) if group_of_word[id(w)] != g) /
                     max(1, sum(1 for w, _ in words if group_of_word[id(w)] != g)) for g in groups}
    talkers = talker_sessions(corpus)
    spans, k = [], 0  # (file, session of its talker, group, [(first, count) per final])
    for g, name, finals, _ in files:
        spans.append((name, talkers.get(name, name), g, [(k + sum(len(r["words"]) for r in finals[:i]), len(r["words"]))
                                                         for i, r in enumerate(finals)]))
        k += sum(len(r["words"]) for r in finals)

    def calibrated(by_talker, pseudo_words=PSEUDO_WORDS, steps=STEPS):
        out = list(held)
        sessions = {}
        for name, talker, g, finals in spans:
            sessions.setdefault(talker if by_talker else name, []).append((g, finals))
        for members in sessions.values():
            # A session's recordings may come from one source only (a talker's): its fold's share.
            share = share_without[members[0][0]]
            finals = [f for _, fs in members for f in fs]
            moved_p = session_calibrated([[held[a + i] for i in range(n)] for a, n in finals], share, pseudo_words, steps)
            for (a, n), ps in zip(finals, moved_p):
                out[a:a + n] = ps
        return out

    brier = lambda p, t: sum((a - b) ** 2 for a, b in zip(p, t)) / max(1, len(p))  # noqa: E731
    variants = [("held out", held), ("each recording a session", calibrated(False)),
                ("each talker's recordings one session", calibrated(True))]
    big = [g for g in groups if sum(1 for w, _ in words if group_of_word[id(w)] == g) >= 20]
    print(f"\n### Session calibration (SessionCalibration: {PSEUDO_WORDS:g} words at the fitted share, {STEPS} EM steps; "
          "held out; AUC / ECE / Brier score)\n")
    print("| confidences | " + " | ".join(big + ["(pooled)"]) + " |")
    print("|---|" + "---|" * (len(big) + 1))
    for label, p in variants:
        cells = []
        for g in big + ["(pooled)"]:
            sel = [i for i, (w, _) in enumerate(words) if g == "(pooled)" or group_of_word[id(w)] == g]
            ps, t = [p[i] for i in sel], [y[i] for i in sel]
            cells.append(f"{auc(ps, t):.3f} / {ece(ps, t):.3f} / {brier(ps, t):.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |")

    loss = lambda p, sel: -sum(y[i] * math.log(max(p[i], 1e-9)) + (1 - y[i]) * math.log(max(1 - p[i], 1e-9))  # noqa: E731
                               for i in sel) / max(1, len(sel))
    grid = {(n, s): calibrated(True, n, s) for n in (10.0, 30.0, 100.0) for s in (1, 2)}
    grid[(0.0, 0)] = held
    chosen, left_out = {}, list(held)
    for g in groups:
        others = [i for i, (w, _) in enumerate(words) if group_of_word[id(w)] != g]
        chosen[g] = min(grid, key=lambda v: (loss(grid[v], others), v != (PSEUDO_WORDS, STEPS)))
        for i, (w, _) in enumerate(words):
            if group_of_word[id(w)] == g:
                left_out[i] = grid[chosen[g]][i]
    others = {g: v for g, v in chosen.items() if v != (PSEUDO_WORDS, STEPS)}
    cells = []
    for g in big + ["(pooled)"]:
        sel = [i for i, (w, _) in enumerate(words) if g == "(pooled)" or group_of_word[id(w)] == g]
        cells.append(f"{g} {ece([left_out[i] for i in sel], [y[i] for i in sel]):.3f}")
    print(f"\nThe constants left one source out (talker sessions; pseudo-words 10 / 30 / 100 x 1 / 2 steps, or none; "
          f"picked by the other sources' log loss): folds choosing another than the shipped "
          f"{PSEUDO_WORDS:g} / {STEPS}: {', '.join(f'{g} {v[0]:g} / {v[1]}' for g, v in others.items()) or 'none'}; "
          f"held-out ECE so: {', '.join(cells)}.")
