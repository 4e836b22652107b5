#!/usr/bin/env python3
"""Independent reference for Krippendorff's alpha (Python 3 stdlib only).

Written for pragmalab's analysis tests in a different form from the Go code:
it enumerates every ordered pair of values within a unit (the paper's
definition of the coincidence matrix, Krippendorff 2011, section B) instead
of using per-category counts, and computes the ordinal difference from the
ranks directly. Prints alpha for the paper's worked example and for the
extra data sets used in analysis/krippendorff_test.go.
"""
import itertools
import math

NAN = float("nan")

def alpha(data, metric):
    units = list(zip(*data))  # data[observer][unit] -> per unit tuple
    pairable = [[v for v in u if not math.isnan(v)] for u in units]
    pairable = [u for u in pairable if len(u) >= 2]
    values = sorted({v for u in pairable for v in u})
    o = {(c, k): 0.0 for c in values for k in values}
    for u in pairable:
        m = len(u)
        for i, j in itertools.permutations(range(m), 2):
            o[(u[i], u[j])] += 1.0 / (m - 1)
    n_c = {c: sum(o[(c, k)] for k in values) for c in values}
    n = sum(n_c.values())

    def delta(c, k):
        if metric == "nominal":
            return 0.0 if c == k else 1.0
        if metric == "interval":
            return (c - k) ** 2
        lo, hi = min(c, k), max(c, k)
        s = sum(n_c[g] for g in values if lo <= g <= hi) - (n_c[c] + n_c[k]) / 2.0
        return s * s

    do = sum(o[(c, k)] * delta(c, k) for c in values for k in values) / n
    de = sum(n_c[c] * n_c[k] * delta(c, k) for c in values for k in values) / (n * (n - 1))
    return 1 - do / de

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
# 4 observers x 12 units, missing values NaN.
PAPER = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]

if __name__ == "__main__":
    for metric in ("nominal", "ordinal", "interval"):
        print(metric, repr(alpha(PAPER, metric)))
