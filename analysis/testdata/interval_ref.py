#!/usr/bin/env python3
"""Independent Wilson score intervals (Python 3 stdlib), written as the two
roots of the quadratic  (p - x)^2 = z^2 x (1 - x) / n  in x rather than the
centre-and-half-width form of analysis/interval.go."""
import math
from statistics import NormalDist

Z = NormalDist().inv_cdf(0.975)

def wilson(k, n):
    p = k / n
    a = 1 + Z * Z / n
    b = -(2 * p + Z * Z / n)
    c = p * p
    disc = math.sqrt(max(0.0, b * b - 4 * a * c))
    return max(0.0, (-b - disc) / (2 * a)), min(1.0, (-b + disc) / (2 * a))

if __name__ == "__main__":
    for k, n in [(7, 10), (0, 10), (10, 10), (43, 54)]:
        lo, hi = wilson(k, n)
        print(k, n, "%.15f %.15f" % (lo, hi))
