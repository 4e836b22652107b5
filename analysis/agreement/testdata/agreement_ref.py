#!/usr/bin/env python3
"""Independent reference for the agreement bootstrap (Python 3 stdlib).

Reads agreement_boot.csv and the replicate draws agreement_boot_draws.txt
(written by the Go test from the same generator), builds each replicate as
a literal data set -- every drawn item copied as many times as drawn, under
a new id -- and computes the statistics from scratch on it: pairwise Cohen's
kappa from confusion tables, Light's kappa, pooled raw agreement and PABAK,
Fleiss' kappa over the items with the most raters, Krippendorff's alpha
(krippendorff_ref.py, pairs enumerated). The 95 % intervals
(docs/statistics.md#agreement-intervals): for the kappas and alpha BCa
(Efron & Tibshirani 1993, eq. 14.9-14.15) over the replicates where the
statistic is defined (null when fewer than 90 % are), z0 from the share
below the estimate (ties within 1e-12 counted half), the acceleration from
the leave-one-item-out jackknife, percentiles by linear interpolation
(numpy's default), widened to hold the estimate; for raw agreement Wilson's
interval (interval_ref.py) with the items as clusters (n = p(1-p)/v, v the
cluster-robust variance, at most the number of pairs), PABAK = 2 raw - 1.
Prints the Go test's expected values.
"""
import csv
import math
import os
import statistics
import sys

# krippendorff_ref and interval_ref are the core's, in analysis/testdata.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "testdata"))
from krippendorff_ref import alpha as kalpha  # noqa: E402
from interval_ref import wilson  # noqa: E402
from statistics import NormalDist  # noqa: E402

N01 = NormalDist()

HERE = os.path.dirname(__file__)
NAN = float("nan")


def load():
    js = {}
    order, types = [], {}
    anns = set()
    with open(os.path.join(HERE, "agreement_boot.csv")) as f:
        for r in csv.DictReader(f):
            it = r["item_id"]
            if it not in types:
                order.append(it)
                types[it] = r["item_type"]
            anns.add(r["annotator_id"])
            p = r["plausible"] == "yes"
            c = r["cancellation_correct"]
            js[(r["annotator_id"], it)] = (p, None if (not p or c == "") else c == "yes")
    return js, order, types, sorted(anns)


def value(js, a, it, question):
    j = js.get((a, it))
    if j is None:
        return None
    return j[0] if question == "p" else j[1]


def cohen(pairs):
    n = len(pairs)
    if n == 0:
        return None, None
    po = sum(1 for x, y in pairs if x == y) / n
    pa = sum(1 for x, _ in pairs if x) / n
    pb = sum(1 for _, y in pairs if y) / n
    pe = pa * pb + (1 - pa) * (1 - pb)
    return po, (None if pe >= 1 else (po - pe) / (1 - pe))


def stats(js, units, anns, question):
    """units: list of original item ids, repeated as drawn."""
    out = {}
    pooled = []
    kappas = []
    for i in range(len(anns)):
        for k in range(i + 1, len(anns)):
            prs = []
            for it in units:
                x, y = value(js, anns[i], it, question), value(js, anns[k], it, question)
                if x is not None and y is not None:
                    prs.append((x, y))
            _, kap = cohen(prs)
            out["pair%d%d_kappa" % (i, k)] = kap
            if kap is not None:
                kappas.append(kap)
            pooled += prs
    raw, _ = cohen(pooled)
    out["raw"] = raw
    out["pabak"] = None if raw is None else 2 * raw - 1
    out["light"] = statistics.fmean(kappas) if kappas else None
    # Fleiss over items with the most raters, none spoiled.
    rows = []
    for it in units:
        vals = [value(js, a, it, question) for a in anns if (a, it) in js]
        if any(v is None for v in vals):
            continue
        rows.append([sum(1 for v in vals if v), sum(1 for v in vals if not v)])
    most = max((sum(r) for r in rows), default=0)
    rows = [r for r in rows if sum(r) == most]
    out["fleiss"] = None
    if most >= 2 and rows:
        N, n = len(rows), most
        P = [(sum(c * c for c in r) - n) / (n * (n - 1)) for r in rows]
        pj = [sum(r[j] for r in rows) / (N * n) for j in range(2)]
        pe = sum(p * p for p in pj)
        if pe < 1:
            out["fleiss"] = (statistics.fmean(P) - pe) / (1 - pe)
    # Krippendorff's alpha, nominal: data[observer][unit].
    data = []
    for a in anns:
        row = []
        for it in units:
            v = value(js, a, it, question)
            row.append(NAN if v is None else (1.0 if v else 0.0))
        data.append(row)
    try:
        out["alpha"] = kalpha(data, "nominal")
    except ZeroDivisionError:
        out["alpha"] = None
    return out


def q7(xs, p):
    h = (len(xs) - 1) * p
    i = math.floor(h)
    if i + 1 >= len(xs):
        return xs[-1]
    return xs[i] + (h - i) * (xs[i + 1] - xs[i])


def bca(point, reps, jack):
    if point is None:
        return None
    d = sorted(r for r in reps if r is not None)
    if not d or len(d) < 0.9 * len(reps):
        return None
    B = len(d)
    below = sum(1 for v in d if v < point - 1e-12)
    ties = sum(1 for v in d if abs(v - point) <= 1e-12)
    z0 = N01.inv_cdf(min(max((below + ties / 2) / B, 0.5 / B), 1 - 0.5 / B))
    j = [v for v in jack if v is not None]
    a = 0.0
    if len(j) >= 3:
        m = statistics.fmean(j)
        s2 = sum((m - v) ** 2 for v in j)
        if s2 > 0:
            a = sum((m - v) ** 3 for v in j) / (6 * s2 ** 1.5)

    def at(alpha):
        z = z0 + N01.inv_cdf(alpha)
        den = 1 - a * z
        if den <= 0:
            return d[0] if alpha < 0.5 else d[-1]
        return q7(d, N01.cdf(z0 + z / den))
    lo, hi = at(0.025), at(0.975)
    return min(lo, point), max(hi, point)


def raw_wilson(js, units, anns, question):
    ys, ms = [], []
    for it in units:
        y = m = 0
        for i in range(len(anns)):
            for k in range(i + 1, len(anns)):
                x, w = value(js, anns[i], it, question), value(js, anns[k], it, question)
                if x is not None and w is not None:
                    m += 1
                    y += x == w
        if m > 0:
            ys.append(y)
            ms.append(m)
    N = sum(ms)
    if N == 0:
        return None
    p = sum(ys) / N
    neff = N
    if len(ms) > 1:
        v = len(ms) / (len(ms) - 1) * sum((y - p * m) ** 2 for y, m in zip(ys, ms)) / N ** 2
        if v > 0:
            neff = min(N, p * (1 - p) / v)
    return wilson(p * neff, neff)


def main():
    js, order, types, anns = load()
    draws = []
    with open(os.path.join(HERE, "agreement_boot_draws.txt")) as f:
        for line in f:
            units = []
            for tok in line.split():
                it, n = tok.rsplit(":", 1)
                units += [it] * int(n)
            draws.append(units)
    for group in ("all", "scalar"):
        keep = [it for it in order if group == "all" or types[it] == group]
        for q in ("p", "c"):
            point = stats(js, keep, anns, q)
            reps = [stats(js, [u for u in d if u in keep], anns, q) for d in draws]
            jack = [stats(js, [u for u in keep if u != left], anns, q) for left in keep]
            raw = raw_wilson(js, keep, anns, q)
            for key in ("raw", "pabak", "light", "fleiss", "alpha", "pair01_kappa"):
                if key == "raw":
                    ci = raw
                elif key == "pabak":
                    ci = None if raw is None else (2 * raw[0] - 1, 2 * raw[1] - 1)
                else:
                    ci = bca(point[key], [r[key] for r in reps], [r[key] for r in jack])
                print(group, q, key, repr(point[key]), "None" if ci is None else "%r %r" % ci)


if __name__ == "__main__":
    main()
