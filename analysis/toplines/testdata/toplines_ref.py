#!/usr/bin/env python3
"""Independent reference for the toplines bootstrap (Python 3 stdlib).

Reads toplines_boot.csv and toplines_boot_draws.txt (participant and item
multiplicities per replicate, written by the Go test from the same
generator). Exclusion and z-scores (population SD over each participant's
non-check ratings) are computed once, as the scheme says. Each replicate is
then built literally: every drawn participant copied as often as drawn,
every drawn item likewise, and the data set of (participant copy, item
copy, condition, z) rows formed; item means, shares and
statistics.correlation are computed from that table; the second level
(Q: participants drawn from those the replicate drew, the same items)
likewise. Intervals (docs/statistics.md#toplines-intervals), from
statistics.quantiles(method="inclusive") (numpy's default percentile) over
the replicates where the value is defined, none if fewer than 90 % are:
belief update by the basic interval [2t - q97.5, 2t - q2.5] within [0, 1],
every other share and r (on the atanh scale) by the extrapolated one,
centre c = 3t - 3 mean(level 2) + mean(level 3), bounds c - (q97.5 - mean),
c - (q2.5 - mean); each widened to hold its estimate t and the items-only
interval: Wilson's over the share's items (interval_ref.py, the quadratic's
roots), Fisher's z for r (n >= 4 pairs, |r| < 1).
"""
import csv
import math
import os
import statistics
from collections import defaultdict

# interval_ref is the core's, in analysis/testdata.
sys_path = os.path.join(os.path.dirname(__file__), "..", "..", "testdata")
import sys  # noqa: E402
sys.path.insert(0, sys_path)
from interval_ref import wilson, Z  # noqa: E402

HERE = os.path.dirname(__file__)
TYPES = ["scalar", "discourse", "synthetic", "natural"]
TOL = 1e-12


def load():
    ratings = defaultdict(list)
    checks = defaultdict(list)
    item_type, porder = {}, []
    with open(os.path.join(HERE, "toplines_boot.csv")) as f:
        for r in csv.DictReader(f):
            p = r["participant_id"]
            if p not in porder:
                porder.append(p)
            if r["check"]:
                checks[p].append((r["check"], int(r["rating"])))
            else:
                item_type[r["item_id"]] = r["item_type"]
                ratings[p].append((r["item_id"], r["condition"], int(r["rating"])))
    z = {}
    for p in porder:
        failed = sum(1 for k, v in checks[p] if (k == "high" and v < 5) or (k == "low" and v > 3))
        vals = [v for _, _, v in ratings[p]]
        if failed >= 3 or not vals or statistics.pstdev(vals) == 0:
            continue
        mu, sd = statistics.fmean(vals), statistics.pstdev(vals)
        z[p] = [(it, c, (v - mu) / sd) for it, c, v in ratings[p]]
    return z, item_type


counts = {}


def measures(rows, item_copies, item_type):
    """rows: (item copy, condition, z); item_copies: list of (copy id, item).
    Leaves each group's (hits, n) per share and the pairs of r in counts."""
    by = defaultdict(list)
    for ic, c, v in rows:
        by[(ic, c)].append(v)
    means = {k: statistics.fmean(v) for k, v in by.items()}
    out = {}
    for group in TYPES + ["all"]:
        cnt = {m: [0, 0] for m in range(6)}
        xs, ys = [], []
        for ic, it in item_copies:
            if group != "all" and item_type[it] != group:
                continue
            g = lambda c: means.get((ic, c))
            t, ca, ne, st, nu = g("trigger"), g("cancel"), g("negation"), g("strengthen"), g("neutral")

            def add(m, ok, hit):
                if ok:
                    cnt[m][1] += 1
                    cnt[m][0] += 1 if hit else 0
            add(0, t is not None, t is not None and t > TOL)
            add(1, t is not None and ca is not None, t is not None and ca is not None and t - ca > TOL)
            add(2, t is not None and ca is not None, t is not None and ca is not None and t > TOL and t - ca > TOL)
            add(3, t is not None and ne is not None, t is not None and ne is not None and t - ne > TOL)
            add(4, t is not None and st is not None, t is not None and st is not None and st - t > TOL)
            add(5, t is not None and nu is not None, t is not None and nu is not None and (nu > TOL) == (t > TOL))
            if t is not None and ca is not None:
                xs.append(t)
                ys.append(ca)
        vals = [None if n == 0 else h / n for h, n in (cnt[m] for m in range(6))]
        counts[group] = [tuple(cnt[m]) for m in range(6)] + [len(xs)]
        r = None
        if len(xs) >= 3:
            try:
                r = statistics.correlation(xs, ys)
            except statistics.StatisticsError:
                r = None
        out[group] = vals + [r]
    return out


def defined(reps):
    d = [r for r in reps if r is not None]
    return d if d and len(d) >= 0.9 * len(reps) else None


def fz(r):
    return math.atanh(max(-1 + 1e-12, min(1 - 1e-12, r)))


def widen(point, lo, hi):
    return min(lo, point), max(hi, point)


def items_interval(point, cnt, is_r):
    """Wilson over the share's items; Fisher's z for r."""
    if is_r:
        n = cnt
        if n < 4 or abs(point) >= 1:
            return None
        z, se = math.atanh(point), 1 / math.sqrt(n - 3)
        return math.tanh(z - Z * se), math.tanh(z + Z * se)
    h, n = cnt
    return wilson(h, n) if n > 0 else None


def floor(ci, items):
    if ci is None or items is None:
        return ci
    return min(ci[0], items[0]), max(ci[1], items[1])


def basic(point, reps):
    d = defined(reps)
    if point is None or d is None:
        return None
    q = statistics.quantiles(d, n=40, method="inclusive")
    lo, hi = max(0.0, 2 * point - q[-1]), min(1.0, 2 * point - q[0])
    return widen(point, lo, hi)


def extrapolated(point, reps, reps2, is_r):
    d, d2 = defined(reps), defined(reps2)
    if point is None or d is None or d2 is None:
        return None
    f, g, lo_b, hi_b = (fz, math.tanh, -1.0, 1.0) if is_r else ((lambda x: x), (lambda x: x), 0.0, 1.0)
    t = [f(v) for v in d]
    m2, m3 = statistics.fmean(t), statistics.fmean(f(v) for v in d2)
    c = 3 * f(point) - 3 * m2 + m3
    q = statistics.quantiles(t, n=40, method="inclusive")
    lo = max(lo_b, min(hi_b, g(c - (q[-1] - m2))))
    hi = max(lo_b, min(hi_b, g(c - (q[0] - m2))))
    return widen(point, lo, hi)


def main():
    z, item_type = load()
    items = sorted(item_type)
    point_rows = [(it, c, v) for p in z for it, c, v in z[p]]
    point = measures(point_rows, [(it, it) for it in items], item_type)
    point_counts = dict(counts)
    reps, reps2 = [], []

    def copies_of(section):
        out = []
        for tok in section.split()[1:]:
            p, n = tok.rsplit(":", 1)
            out += [p] * int(n)
        return out

    with open(os.path.join(HERE, "toplines_boot_draws.txt")) as f:
        for line in f:
            ps, its, qs = line.split("|")
            copies = []
            for tok in its.split()[1:]:
                it, n = tok.rsplit(":", 1)
                for k in range(int(n)):
                    copies.append((it + "#" + str(k), it))
            copy_of = defaultdict(list)
            for ic, it in copies:
                copy_of[it].append(ic)
            for out, pcopies in ((reps, copies_of(ps)), (reps2, copies_of(qs))):
                rows = []
                for p in pcopies:
                    for it, c, v in z[p]:
                        for ic in copy_of[it]:
                            rows.append((ic, c, v))
                out.append(measures(rows, copies, item_type))
    names = ["implicature_recognition", "cancellation_recognition", "belief_update",
             "negation_cancellation", "strengthening", "unchanged", "pearson_r"]
    for group in TYPES + ["all"]:
        for k, name in enumerate(names):
            col, col2 = [r[group][k] for r in reps], [r[group][k] for r in reps2]
            if name == "belief_update":
                ci = basic(point[group][k], col)
            else:
                ci = extrapolated(point[group][k], col, col2, name == "pearson_r")
            if point[group][k] is not None:
                ci = floor(ci, items_interval(point[group][k], point_counts[group][k], name == "pearson_r"))
            print(group, name, repr(point[group][k]), "None" if ci is None else "%r %r" % ci)


if __name__ == "__main__":
    main()
