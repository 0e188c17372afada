"""Intervals for means and variances from one exact pivot instead of a union of intervals.

A mean is released as S~/N~ with S~ = S + X (noisy centred sum, in grid steps) and
N~ = N + Y (noisy count). For the true centred mean μ = S/N,

    S~ − μ·N~ = X − μ·Y,

whose law depends on μ only (X and Y are the independent, symmetric noises). So
{μ : |S~ − μN~| <= Q(|μ|)} holds μ with probability at least 1 − α whenever
P(|X + μY| > Q(|μ|)) <= α: one event, no split of α, no worst case over the noisy count, and
the width follows where the mean actually lies (narrow near the middle of the bounds).

Q must hold for every |μ| in a cell of a grid, so it is made monotone: with U uniform on
(−1/2, 1/2), X + U has a symmetric unimodal density, so P(|X + U + tY| <= w) falls as t grows
(for each y, an interval of fixed length further from the centre); |U| <= 1/2 twice costs one
step. ``pivot_half_width(…, t)`` is therefore valid for every |μ| <= t.

A variance is m2 − μ² with m2 the mean squared distance to the midpoint: the same pivot
for m2 (from the sum of squares) and for μ, each at α/2, and the variance's interval is
the range of m2 − μ² over the two sets.

Every probability here is a lower bound on a coverage (tails bounded from above); the
released interval covers the exact statistic of the clamped values with at least the stated
confidence.

numpy is imported by the four functions that sum a law, not with the module: the kinds read
it, and the desktop app's start reads the kinds (issue 24).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .measure import Measurement
from .sensitivity import Grid

if TYPE_CHECKING:
    import numpy as np

_SLACK = 1e-9
_GRID_CELLS = 32


@dataclass(frozen=True)
class Law:
    """An integer noise law: none, laplace (scale in steps) or gaussian (σ² in steps²)."""

    kind: str
    param: float = 0.0


def law_of(m: Measurement) -> Law:
    if m.mechanism == "laplace":
        assert m.scale is not None
        return Law("laplace", float(m.scale))
    if m.mechanism == "gaussian":
        assert m.sigma_sq is not None
        return Law("gaussian", float(m.sigma_sq))
    if m.mechanism == "none":
        return Law("none")
    raise ValueError(f"no integer noise law for {m.mechanism}")


# ----------------------------------------------------------------------------- tails


@functools.lru_cache(maxsize=64)
def _gaussian_table(sigma_sq: float) -> tuple[int, np.ndarray]:
    """Upper bounds on P(X >= m) for m in [-B, B + 1] (σ below 256), from the summed law."""
    import numpy as np

    sigma = math.sqrt(sigma_sq)
    bound = int(math.ceil(40 * sigma)) + 2
    y = np.arange(-bound, bound + 1, dtype=np.float64)
    w = np.exp(-(y * y) / (2 * sigma_sq))
    z = float(w.sum())  # a lower bound on the normaliser (the rest is below e^-800)
    tails = np.append(np.cumsum(w[::-1])[::-1], 0.0) / z  # P(X >= -B + i)
    return bound, np.minimum(1.0, tails * (1 + _SLACK) + 1e-300)


def tail_upper(law: Law, ms: np.ndarray) -> np.ndarray:
    """Upper bounds on P(X >= m) for integer m (any sign)."""
    import numpy as np

    ms = np.asarray(ms, dtype=np.float64)
    if law.kind == "none":
        return (ms <= 0).astype(np.float64)
    if law.kind == "laplace":
        log_q = -1 / law.param
        q = math.exp(log_q)
        pos = np.exp(np.maximum(ms, 1.0) * log_q) / (1 + q)  # P(X >= m), m >= 1
        neg = 1 - np.exp((1 - np.minimum(ms, 0.0)) * log_q) / (1 + q) * (1 - _SLACK)
        bounded: np.ndarray = np.minimum(1.0, np.where(ms >= 1, pos * (1 + _SLACK), neg))
        return bounded
    sigma = math.sqrt(law.param)
    if sigma < 256:
        bound, table = _gaussian_table(law.param)
        idx = np.clip(ms + bound, 0, 2 * bound + 1).astype(np.int64)
        tails: np.ndarray = table[idx]
        tails[ms > bound + 1] = 1e-300
        tails[ms < -bound] = 1.0
        return tails
    # large σ: integral bounds (see gaussian.py), normaliser √(2π)σ to far below the slack
    root2s = sigma * math.sqrt(2)
    norm = math.sqrt(2 * math.pi) * sigma
    out = np.empty(ms.size)
    for i, m in enumerate(ms.tolist()):
        if m >= 0:
            if m - 0.5 >= sigma:
                up = 0.5 * math.erfc((m - 0.5) / root2s)
            else:
                up = 0.5 * math.erfc(m / root2s) + math.exp(-m * m / (2 * law.param)) / norm
            out[i] = min(1.0, up * (1 + _SLACK))
        else:  # 1 - P(X >= 1 - m), with the plain integral as the lower bound of the latter
            out[i] = 1 - 0.5 * math.erfc((1 - m) / root2s) * (1 - _SLACK)
    return out


def support(law: Law) -> tuple[np.ndarray, np.ndarray]:
    """Integer points and lower bounds on their probabilities; the mass left out is below
    1e-14 (it only lowers a coverage bound)."""
    import numpy as np

    if law.kind == "none":
        return np.zeros(1), np.ones(1)
    if law.kind == "laplace":
        q = math.exp(-1 / law.param)
        top = int(math.ceil(law.param * 34)) + 1
        y = np.arange(-top, top + 1, dtype=np.float64)
        return y, (1 - q) / (1 + q) * np.exp(-np.abs(y) / law.param) * (1 - _SLACK)
    sigma = math.sqrt(law.param)
    top = int(math.ceil(8.5 * sigma)) + 1
    y = np.arange(-top, top + 1, dtype=np.float64)
    # normaliser from above: sum over |y| <= 40σ plus the rest (< e^-800), or √(2π)σ·(1+tiny)
    if sigma < 256:
        far = np.arange(-int(40 * sigma) - 2, int(40 * sigma) + 3, dtype=np.float64)
        z = float(np.exp(-(far * far) / (2 * law.param)).sum())
    else:
        z = math.sqrt(2 * math.pi) * sigma
    return y, np.exp(-(y * y) / (2 * law.param)) / z * (1 - _SLACK)


MAX_SUPPORT = 1_000_000


def support_size(law: Law) -> int:
    if law.kind == "laplace":
        return 2 * int(math.ceil(law.param * 34)) + 3
    if law.kind == "gaussian":
        return 2 * int(math.ceil(8.5 * math.sqrt(law.param))) + 3
    return 1


# ----------------------------------------------------------------------------- the pivot


def coverage_lower(x: Law, y: Law, t: float, w: float) -> float:
    """A lower bound on P(|X + tY| <= w)."""
    import numpy as np

    ys, ps = support(y)
    shift = t * ys
    hi = w - shift
    lo = w + shift
    # P(X > b) = P(X >= floor(b) + 1); nudging b down only raises the tail (conservative)
    up = tail_upper(x, np.floor(hi - 1e-9 * (1 + np.abs(hi))) + 1)
    down = tail_upper(x, np.floor(lo - 1e-9 * (1 + np.abs(lo))) + 1)
    return float((ps * np.maximum(0.0, 1 - up - down)).sum())


@functools.lru_cache(maxsize=4096)
def pivot_half_width(x: Law, y: Law, t: float, alpha: float) -> float:
    """Q with P(|X + μY| > Q) <= alpha for every |μ| <= t, in X's steps."""
    if support_size(y) > MAX_SUPPORT:
        return math.inf  # a count this noisy says nothing about a mean
    target = 1 - alpha
    hi = 1.0
    while coverage_lower(x, y, t, hi) < target:
        hi *= 2
        if hi > 1e300:
            return math.inf
    lo = 0.0 if coverage_lower(x, y, t, 0.0) < target else None
    if lo is None:
        return 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if coverage_lower(x, y, t, mid) >= target:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-7 * hi + 1e-9:
            break
    return hi + 1.0  # the lattice step that makes Q valid for every smaller |μ|


def pivot_table(x: Law, y: Law, top: float, alpha: float,
                cells: int = _GRID_CELLS) -> list[tuple[float, float, float]]:
    """(t_j, t_j+1, Q(t_j+1)) over a grid of [0, top]."""
    edges = [top * j / cells for j in range(cells + 1)]
    return [(edges[j], edges[j + 1], pivot_half_width(x, y, edges[j + 1], alpha))
            for j in range(cells)]


def confidence_hull(noisy_num: float, noisy_n: float, table: list[tuple[float, float, float]],
                    signed: bool) -> tuple[float, float] | None:
    """Hull of {μ : |noisy_num − μ·noisy_n| <= Q(|μ|)}, μ in [−top, top] (or [0, top]);
    None when the set is empty (the noise fell outside its interval)."""
    lo, hi = math.inf, -math.inf
    for a, b, q in table:
        pieces = [(a, b), (-b, -a)] if signed else [(a, b)]
        for p_lo, p_hi in pieces:
            if noisy_n > 0:
                s_lo, s_hi = (noisy_num - q) / noisy_n, (noisy_num + q) / noisy_n
            elif noisy_n < 0:
                s_lo, s_hi = (noisy_num + q) / noisy_n, (noisy_num - q) / noisy_n
            else:
                s_lo, s_hi = (-math.inf, math.inf) if abs(noisy_num) <= q else (1.0, -1.0)
            c_lo, c_hi = max(p_lo, s_lo), min(p_hi, s_hi)
            if c_lo <= c_hi:
                lo, hi = min(lo, c_lo), max(hi, c_hi)
    return (lo, hi) if lo <= hi else None


# ----------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class MeanParts:
    """The public pieces of a mean or variance: laws and grid, in steps."""

    count: Law
    total: Law
    squares: Law | None
    radius: int  # in grid steps
    step: float


def mean_parts_on(grid: Grid, ms: list[Measurement]) -> MeanParts:
    """The parts of a mean or variance from its measurements, on its grid
    (``kinds.shared_dp.mean_parts`` finds the grid of a statistic)."""
    by_name = {m.component.name: m for m in ms}
    squares = by_name.get("sumsq")
    return MeanParts(count=law_of(by_name["count"]), total=law_of(by_name["sum"]),
                     squares=None if squares is None else law_of(squares),
                     radius=grid.radius, step=grid.step)


def mean_half_width(parts: MeanParts, n: float, alpha: float) -> float:
    """The largest half-width of the mean's interval when the noisy count is ``n``,
    wherever the mean lies (value units)."""
    q = pivot_half_width(parts.total, parts.count, float(parts.radius), alpha)
    return q / n * parts.step + parts.step / 2


def variance_half_width(parts: MeanParts, n: float, alpha: float) -> float:
    """The largest half-width of the variance's interval when the noisy count is ``n``."""
    assert parts.squares is not None
    r = float(parts.radius)
    e1 = pivot_half_width(parts.total, parts.count, r, alpha / 2) / n  # steps
    e2 = pivot_half_width(parts.squares, parts.count, r * r, alpha / 2) / n  # steps²
    return (e2 + 2 * r * e1) * parts.step**2 + _grid_slack(parts)


def _grid_slack(parts: MeanParts) -> float:
    """How far rounding each value to the grid can move the variance (value units²)."""
    return parts.radius * parts.step * parts.step + parts.step**2 / 4


def mean_interval(parts: MeanParts, noisy_sum: float, noisy_n: float,
                  alpha: float) -> tuple[float, float]:
    """Interval for the centred mean (value units, before the midpoint is added back)."""
    r = float(parts.radius)
    table = pivot_table(parts.total, parts.count, r, alpha)
    hull = confidence_hull(noisy_sum, noisy_n, table, signed=True)
    if hull is None:  # outside the confidence event: the nearest possible means
        guess = min(r, max(-r, noisy_sum / max(noisy_n, 1.0)))
        hull = (guess, guess)
    half_step = 0.5
    return ((hull[0] - half_step) * parts.step, (hull[1] + half_step) * parts.step)


def variance_interval(parts: MeanParts, noisy_sum: float, noisy_squares: float,
                      noisy_n: float, alpha: float) -> tuple[float, float]:
    """Interval for the variance (value units²): m2 − μ² over both confidence sets."""
    assert parts.squares is not None
    r = float(parts.radius)
    mu = confidence_hull(noisy_sum, noisy_n,
                         pivot_table(parts.total, parts.count, r, alpha / 2), signed=True)
    m2 = confidence_hull(noisy_squares, noisy_n,
                         pivot_table(parts.squares, parts.count, r * r, alpha / 2), signed=False)
    if mu is None:
        mu = (-r, r)
    if m2 is None:
        m2 = (0.0, r * r)
    mu_sq_max = max(mu[0] ** 2, mu[1] ** 2)
    mu_sq_min = 0.0 if mu[0] <= 0 <= mu[1] else min(mu[0] ** 2, mu[1] ** 2)
    sq = parts.step**2
    slack = _grid_slack(parts)
    low = max(0.0, (m2[0] - mu_sq_max) * sq - slack)
    high = min(r * r * sq, max(0.0, m2[1] - mu_sq_min) * sq + slack)
    return low, high
