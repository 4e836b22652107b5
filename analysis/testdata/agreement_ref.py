#!/usr/bin/env python3
"""Independent reference for the agreement bootstrap (Python 3 stdlib).

Reads agreement_boot.csv and the replicate draws agreement_boot_draws.txt
(written by the Go test from the same generator), builds each replicate as
a literal data set -- every drawn item copied as many times as drawn, under
a new id -- and computes the statistics from scratch on it: pairwise Cohen's
kappa from confusion tables, Light's kappa, pooled raw agreement and PABAK,
Fleiss' kappa over the items with the most raters, Krippendorff's alpha
(krippendorff_ref.py, pairs enumerated). The 95 % interval is
statistics.quantiles(method="inclusive"), i.e. numpy's default linear
percentile, over the replicates where the statistic is defined (null when
fewer than 90 % are). Prints the Go test's expected values.
"""
import csv
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from krippendorff_ref import alpha as kalpha  # noqa: E402

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


def interval(point, reps):
    if point is None:
        return None
    d = [r for r in reps if r is not None]
    if len(d) < 0.9 * len(reps):
        return None
    q = statistics.quantiles(d, n=40, method="inclusive")
    return q[0], q[-1]


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
            for key in ("raw", "pabak", "light", "fleiss", "alpha", "pair01_kappa"):
                ci = interval(point[key], [r[key] for r in reps])
                print(group, q, key, repr(point[key]), "None" if ci is None else "%r %r" % ci)


if __name__ == "__main__":
    main()
