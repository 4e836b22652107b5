#!/usr/bin/env python3
"""Independent reference for the toplines bootstrap (Python 3 stdlib).

Reads toplines_boot.csv and toplines_boot_draws.txt (participant and item
multiplicities per replicate, written by the Go test from the same
generator). Exclusion and z-scores (population SD over each participant's
non-check ratings) are computed once, as the scheme says. Each replicate is
then built literally: every drawn participant copied as often as drawn,
every drawn item likewise, and the data set of (participant copy, item
copy, condition, z) rows formed; item means, shares and
statistics.correlation are computed from that table. Intervals:
statistics.quantiles(method="inclusive") (numpy's default percentile) over
the replicates where the value is defined, none if fewer than 90 % are.
"""
import csv
import math
import os
import statistics
from collections import defaultdict

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


def measures(rows, item_copies, item_type):
    """rows: (item copy, condition, z); item_copies: list of (copy id, item)."""
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
        r = None
        if len(xs) >= 3:
            try:
                r = statistics.correlation(xs, ys)
            except statistics.StatisticsError:
                r = None
        out[group] = vals + [r]
    return out


def interval(point, reps):
    if point is None:
        return None
    d = [r for r in reps if r is not None]
    if len(d) < 0.9 * len(reps):
        return None
    q = statistics.quantiles(d, n=40, method="inclusive")
    return q[0], q[-1]


def main():
    z, item_type = load()
    items = sorted(item_type)
    point_rows = [(it, c, v) for p in z for it, c, v in z[p]]
    point = measures(point_rows, [(it, it) for it in items], item_type)
    reps = []
    with open(os.path.join(HERE, "toplines_boot_draws.txt")) as f:
        for line in f:
            ps, its = line.split("|")
            rows, copies = [], []
            pcopies = []
            for tok in ps.split()[1:]:
                p, n = tok.rsplit(":", 1)
                pcopies += [p] * int(n)
            for tok in its.split()[1:]:
                it, n = tok.rsplit(":", 1)
                for k in range(int(n)):
                    copies.append((it + "#" + str(k), it))
            copy_of = defaultdict(list)
            for ic, it in copies:
                copy_of[it].append(ic)
            for p in pcopies:
                for it, c, v in z[p]:
                    for ic in copy_of[it]:
                        rows.append((ic, c, v))
            reps.append(measures(rows, copies, item_type))
    names = ["implicature_recognition", "cancellation_recognition", "belief_update",
             "negation_cancellation", "strengthening", "unchanged", "pearson_r"]
    for group in TYPES + ["all"]:
        for k, name in enumerate(names):
            ci = interval(point[group][k], [r[group][k] for r in reps])
            print(group, name, repr(point[group][k]), "None" if ci is None else "%r %r" % ci)


if __name__ == "__main__":
    main()
