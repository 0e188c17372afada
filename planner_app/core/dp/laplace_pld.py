"""The privacy loss distribution of the discrete Laplace mechanism, in closed form.

dp-accounting's own constructor enumerates every output, which is too slow for sums measured
in fine grid steps (sensitivities of 10^5 steps and more). Every loss is rounded up to the
discretisation grid exactly, in rationals, so a loss on a grid point stays on it (1,000 counts
at ε = 0.01 compose to dp-accounting's 1.3654 at δ = 1e-6, not 1.4654) and one truly above a
grid point still goes up: the PLD stays an upper bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from .pld_pmf import DensePmf

PLD_DISCRETISATION = 1e-4
DIRECT_LAPLACE_OUTPUTS = 20_000
GRID_TIE = 1e-9  # relative: a computed loss this close to a grid point is decided exactly


def _ceil_exact(approx: np.ndarray, magnitude: float, numerator: Callable[[int], int],
                denominator: int) -> np.ndarray:
    """ceil of exact rationals ``numerator(i) / denominator`` given their float values
    ``approx`` (computed from terms no larger than ``magnitude``).

    Float error in ``approx`` is far below ``GRID_TIE * magnitude``: away from an integer by
    more than that, the float ceil is the exact one; within it (a loss of 0.01 is 100 grid
    steps of 1e-4, and its float quotient 100.00000000000001), the exact integers decide, so a
    value on a grid point stays on it and one truly above it still goes up."""
    out = np.ceil(approx)
    nearest = np.rint(approx)
    for i in np.flatnonzero(np.abs(approx - nearest) <= GRID_TIE * max(1.0, magnitude)).tolist():
        out[i] = -(-numerator(i) // denominator)
    result: np.ndarray = out.astype(np.int64)
    return result


def discrete_laplace_pld(scale: Fraction, sensitivity: int,
                         d: float = PLD_DISCRETISATION) -> DensePmf:
    """Pessimistic PLD of the discrete Laplace mechanism (P(x) ∝ exp(-|x|/scale)) for an
    integer sensitivity, in closed form.

    The privacy loss at
    output o (noise centred at 0 against centred at Δ) is +aΔ for o <= 0, -aΔ for o >= Δ and
    a(Δ - 2o) between, with a = 1/scale; every loss is rounded up to the grid d exactly, in
    rationals (d as the decimal it is written as, 1e-4 = 1/10,000, whose multiples are the
    losses dp-accounting reads back), so the result is an upper bound like dp-accounting's
    pessimistic estimate and no loss goes a step up by float error.
    """

    a = math.nextafter(float(1 / scale), math.inf)  # for the masses: less noise
    ratio = 1 / (scale * Fraction(repr(d)))  # a / d, exactly: a loss c·a is c·ratio grid steps
    num, den = ratio.numerator, ratio.denominator
    q = math.exp(-a)
    big = a * sensitivity
    steps = big / d  # the largest loss in grid steps, for the float error's size
    ends = _ceil_exact(np.array([steps, -steps]), steps,
                       lambda i: (sensitivity, -sensitivity)[i] * num, den)
    js = [ends]
    masses = [np.array([1 / (1 + q), math.exp(-a * sensitivity) / (1 + q)])]
    if sensitivity > 1:
        if sensitivity - 1 <= DIRECT_LAPLACE_OUTPUTS:
            o = np.arange(1, sensitivity, dtype=np.float64)
            js.append(_ceil_exact((big - 2 * a * o) / d, steps,
                                  lambda i: (sensitivity - 2 * (i + 1)) * num, den))
            masses.append((1 - q) / (1 + q) * np.exp(-a * o))
        else:
            # group outputs by loss bucket: bucket j holds the outputs whose loss rounds up to
            # j·d, from the first output whose loss is at most j·d (exact, as above) to the
            # one before the first whose loss is at most (j-1)·d
            j_hi, j_lo = int(ends[0]), int(ends[1])
            buckets = np.arange(j_lo - 1, j_hi + 1, dtype=np.float64)
            first = _ceil_exact((big - buckets * d) / (2 * a), sensitivity,
                                lambda i: sensitivity * num - (j_lo - 1 + i) * den, 2 * num)
            first = np.clip(first, 1, sensitivity)
            start, end = first[1:], first[:-1] - 1
            ok = end >= start
            js.append(buckets[1:][ok].astype(np.int64))
            masses.append((np.exp(-a * start[ok]) - np.exp(-a * (end[ok] + 1))) / (1 + q))
    return _dense_pld(js, masses, d)



def discrete_laplace_pld_before_exact_grid(scale: Fraction, sensitivity: int,
                         d: float = PLD_DISCRETISATION) -> DensePmf:
    """``discrete_laplace_pld`` as releases computed it before the exact grid, for verifying
    their bundles: each loss divided by d in floats and bumped by 1e-9 before ``ceil``, so a
    loss on a grid point (0.01 on 1e-4) went one step up, and the bucketed path put every
    output one step up.

    dp-accounting's own constructor enumerates every output, which is too slow for sums
    measured in fine grid steps (sensitivities of 10^5 steps and more). The privacy loss at
    output o (noise centred at 0 against centred at Δ) is +aΔ for o <= 0, -aΔ for o >= Δ and
    a(Δ - 2o) between, with a = 1/scale; every loss is rounded up to the grid d, so the result
    is an upper bound like dp-accounting's pessimistic estimate.
    """

    a = math.nextafter(float(1 / scale), math.inf)  # pessimistic: less noise
    q = math.exp(-a)
    big = a * sensitivity
    bump = 1e-9
    js = [np.array([math.ceil(big / d + bump), math.ceil(-big / d + bump)], dtype=np.int64)]
    masses = [np.array([1 / (1 + q), math.exp(-a * sensitivity) / (1 + q)])]
    if sensitivity > 1:
        if sensitivity - 1 <= DIRECT_LAPLACE_OUTPUTS:
            o = np.arange(1, sensitivity, dtype=np.float64)
            js.append(np.ceil((big - 2 * a * o) / d + bump).astype(np.int64))
            masses.append((1 - q) / (1 + q) * np.exp(-a * o))
        else:
            # group outputs by loss bucket; one extra bucket up covers float error at edges
            j_hi = math.ceil(big / d + bump)
            j_lo = math.ceil(-big / d + bump)
            buckets = np.arange(j_lo, j_hi + 1, dtype=np.float64)
            start = np.clip(np.ceil((big - buckets * d) / (2 * a)), 1, sensitivity - 1)
            end = np.clip(np.ceil((big - (buckets - 1) * d) / (2 * a)) - 1, 1, sensitivity - 1)
            ok = end >= start
            js.append(buckets[ok].astype(np.int64) + 1)
            masses.append((np.exp(-a * start[ok]) - np.exp(-a * (end[ok] + 1))) / (1 + q))
    return _dense_pld(js, masses, d)


def _dense_pld(js: list[np.ndarray], masses: list[np.ndarray],
               d: float) -> DensePmf:
    """The pessimistic PLD whose loss j·d has the summed mass of every bucket at j."""
    all_js = np.concatenate(js)
    all_masses = np.concatenate(masses)
    lower = int(all_js.min())
    probs = np.zeros(int(all_js.max()) - lower + 1)
    np.add.at(probs, all_js - lower, all_masses)
    return DensePmf(d, lower, probs, 0.0)
