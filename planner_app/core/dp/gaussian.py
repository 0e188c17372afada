"""The discrete Gaussian's exact privacy curve, and σ calibrated from it.

For one integer-valued cell with sensitivity Δ, the discrete Gaussian N_Z(0, σ²) is
(ε, δ)-DP for exactly

    δ(ε) = P[Y > εσ²/Δ − Δ/2] − e^ε · P[Y > εσ²/Δ + Δ/2],   Y ~ N_Z(0, σ²)

(Canonne, Kamath, Steinke 2020, Theorem 7). Two facts make it the whole curve:

* the privacy loss of output y against the shifted law is (Δ² − 2yΔ)/(2σ²), monotone in y, so
  the worst set of outputs is a tail and the formula is the hockey-stick divergence itself;
* a shift d smaller than Δ never costs more: N_Z is log-concave, so the shifted family has a
  monotone likelihood ratio, the most powerful tests are threshold tests whose threshold is
  fixed by N_Z(0, σ²) alone, and their power grows with the shift; the trade-off curve, and so
  δ(ε), is monotone in |d|.

``delta_upper`` returns a rigorous upper bound on that δ (never below the truth), and
``sigma_sq_for`` the smallest σ² on a fine rational grid whose bound stays within the target.

numpy is imported by the two functions that sum a law, not with the module: planning reads
this module, and the desktop app's start reads the planning code (issue 24).
"""

from __future__ import annotations

import functools
import math

DIRECT_SIGMA = 256.0  # below: sum the law term by term; above: integral bounds
MIN_DELTA = 1e-200  # below this δ the floating-point tails are not trusted: use zCDP
_SLACK = 1e-9  # relative margin for floating-point error in exp, erfc and sums
_SQRT2PI = math.sqrt(2 * math.pi)


def _direct_tails(sigma_sq: float, ms: list[int]) -> tuple[list[float], list[float]]:
    """Upper and lower bounds on P[Y >= m] for each m >= 0, by summing the law.

    Terms beyond 40σ after m weigh less than e^-800 of the first one (far below the slack);
    the normaliser summed over |y| <= 40σ + 2 is a lower bound on the true one, and exceeds
    it by less than e^-800 relatively."""
    import numpy as np

    sigma = math.sqrt(sigma_sq)
    span = int(math.ceil(40 * sigma)) + 2
    y = np.arange(1, span + 1, dtype=np.float64)
    z = 1.0 + 2.0 * float(np.exp(-(y * y) / (2 * sigma_sq)).sum())
    ups, los = [], []
    for m in ms:
        ys = np.arange(m, m + span + 1, dtype=np.float64)
        log_first = -(m * m) / (2 * sigma_sq)
        rel = np.exp(-(ys * ys - m * m) / (2 * sigma_sq))  # f(y)/f(m), all <= 1
        log_tail = log_first + math.log(float(rel.sum())) - math.log(z)
        tail = math.exp(log_tail)
        ups.append(tail * (1 + _SLACK))
        los.append(tail * (1 - _SLACK))
    return ups, los


def _integral_tails(sigma_sq: float, ms: list[int]) -> tuple[list[float], list[float]]:
    """Upper and lower bounds on P[Y >= m] for large σ, from integrals of f = e^(-y²/2σ²).

    f decreases on [0, ∞) and is convex on [σ, ∞). For a convex stretch the midpoint rule
    undercounts and the trapezoid rule overcounts the integral, so
        ∫_m^∞ f + f(m)/2  <=  Σ_{y>=m} f(y)  <=  ∫_{m-1/2}^∞ f,
    and for any m >= 0:  ∫_m^∞ f <= Σ_{y>=m} f(y) <= ∫_m^∞ f + f(m). The normaliser is
    √(2π)σ·(1 + 2Σ_k e^(-2π²σ²k²)) (Poisson summation): √(2π)σ to far below the slack."""
    sigma = math.sqrt(sigma_sq)
    root2s = sigma * math.sqrt(2)
    ups, los = [], []
    for m in ms:
        head = math.exp(-(m * m) / (2 * sigma_sq)) / (_SQRT2PI * sigma)  # f(m)/Z
        if m - 0.5 >= sigma:
            up = 0.5 * math.erfc((m - 0.5) / root2s)
        else:
            up = 0.5 * math.erfc(m / root2s) + head
        lo = 0.5 * math.erfc(m / root2s) + (head / 2 if m >= sigma else 0.0)
        ups.append(up * (1 + _SLACK))
        los.append(lo * (1 - _SLACK))
    return ups, los


def delta_upper(sigma_sq: float, sensitivity: int, epsilon: float) -> float:
    """An upper bound on the smallest δ for which one discrete Gaussian cell with σ² (in
    steps²) and integer sensitivity Δ is (ε, δ)-DP. Never below the exact value."""
    if sensitivity <= 0:
        return 0.0
    if sigma_sq <= 0 or epsilon < 0:
        return 1.0
    d = sensitivity
    c = epsilon * sigma_sq / d - d / 2  # the privacy loss exceeds ε exactly for y > c
    m = math.floor(c) + 1
    # δ(ε) = max over thresholds t of P[Y >= t] - e^ε P[Y >= t + Δ]; the maximiser is
    # floor(c) + 1, the neighbours cover floating-point error in c (each is a lower bound,
    # the max of them is the exact value)
    starts = [m - 1, m, m + 1]
    ms = starts + [t + d for t in starts]
    # a tail from t < 0 is 1 - P[Y >= 1 - t] (symmetry), so bound tails from t >= 0 only
    ask = [t if t >= 0 else 1 - t for t in ms]
    tails = _direct_tails if math.sqrt(sigma_sq) < DIRECT_SIGMA else _integral_tails
    ups, los = tails(sigma_sq, ask)
    up = [u if t >= 0 else 1 - lo for t, u, lo in zip(ms, ups, los, strict=True)]
    low = [lo if t >= 0 else 1 - u for t, u, lo in zip(ms, ups, los, strict=True)]
    # δ(ε) falls as ε grows, so δ(min(ε, 700)) still bounds it (e^999 overflows a float)
    e_eps = math.exp(min(epsilon, 700.0)) * (1 - _SLACK)
    best = max(up[i] - e_eps * low[3 + i] for i in range(3))
    return min(1.0, max(0.0, best))


def sigma_sq_for(sensitivity: int, epsilon: float, delta: float, ceiling: float) -> float | None:
    """The smallest σ² (to a relative 1e-9, from above) at most ``ceiling`` whose certified δ
    is within ``delta``; None when the exact curve cannot be used here."""
    if not (MIN_DELTA <= delta < 1) or epsilon <= 0 or sensitivity <= 0:
        return None
    if delta_upper(ceiling, sensitivity, epsilon) > delta:
        return None
    hi = ceiling
    lo = ceiling / 4
    while delta_upper(lo, sensitivity, epsilon) <= delta:
        hi, lo = lo, lo / 4
        if lo < 1e-12:
            return None
    # δ decreases in σ²: bisect (in the log) for the boundary, keeping hi certified
    for _ in range(100):
        mid = math.sqrt(lo * hi)
        if delta_upper(mid, sensitivity, epsilon) <= delta:
            hi = mid
        else:
            lo = mid
        if hi / lo < 1 + 1e-9:
            break
    return hi


# ----------------------------------------------------------------------------- several cells


MAX_PATTERN_L1 = 16
MAX_PATTERNS = 64


@functools.lru_cache(maxsize=256)
def shift_patterns(l1: int, l2_sq: int, cells: int) -> tuple[tuple[int, ...], ...] | None:
    """The shifts one person can make to a vector of cells, up to order and sign, that no
    other such shift covers coordinate by coordinate: the integer vectors with L1 norm at
    most ``l1``, squared L2 norm at most ``l2_sq`` and at most ``cells`` non-zero entries
    (a superset of the real shifts, since l1 and l2 are the exact sensitivities).

    Independent discrete Gaussians on the cells make the privacy loss of a shift v the
    composition of one-dimensional losses at |v_i|, and a smaller |v_i| never costs more
    (gaussian.py), so these maximal shifts dominate every real one. None when there are too
    many to enumerate."""
    if l1 > MAX_PATTERN_L1 or l1 <= 0:
        return None
    found: list[tuple[int, ...]] = []

    def grow(prefix: tuple[int, ...], left1: int, left2: int) -> None:
        top = min(prefix[-1] if prefix else left1, left1, math.isqrt(left2))
        if len(prefix) == cells or top == 0:
            found.append(prefix)
            return
        for part in range(top, 0, -1):
            grow(prefix + (part,), left1 - part, left2 - part * part)
        found.append(prefix)

    grow((), l1, l2_sq)

    def covers(u: tuple[int, ...], t: tuple[int, ...]) -> bool:
        return len(u) >= len(t) and all(a >= b for a, b in zip(u, t, strict=False))

    maximal = sorted({t for t in found if t and not any(u != t and covers(u, t)
                                                         for u in found)}, reverse=True)
    if not maximal or len(maximal) > MAX_PATTERNS:
        return None
    return tuple(maximal)


MAX_CONVOLUTION_WORK = 20_000_000  # multiplications per evaluation; beyond it keep zCDP


def _box(sigma_sq: float, cells: int, delta_hint: float) -> tuple[int, float]:
    """A half-width B for each cell's law and a bound on the mass of the product law outside
    the box (Σ_{y>B} e^(-y²/2σ²) <= σ²/B·e^(-B²/2σ²), both sides, over √(2π)σ or 1)."""
    sigma = math.sqrt(sigma_sq)
    b = int(math.ceil(sigma * math.sqrt(2 * (math.log(1 / delta_hint) + 16 + math.log(cells)))))
    b = max(b, 2)
    out = 2 * sigma_sq / b * math.exp(-(b * b) / (2 * sigma_sq)) / max(1.0, _SQRT2PI * sigma)
    return b, cells * out


def pattern_delta_upper(sigma_sq: float, pattern: tuple[int, ...], epsilon: float,
                        delta_hint: float = 1e-12) -> float:
    """An upper bound on δ(ε) of independent N_Z(0, σ²) cells against the same shifted by
    ``pattern``. The privacy loss is (Σs² − 2T)/(2σ²) with T = Σ s_i·y_i an integer, so
    δ = Σ_t P(T = t)·(1 − e^(ε − L(t)))₊ over the law of T, built by direct (not FFT)
    convolution of the cells' laws on a box |y_i| <= B. Restricting P to the box and
    renormalising only raises each term, and what lies outside the box adds at most its mass
    (chosen about 1e-7·delta_hint, and added)."""
    import numpy as np

    bound, outside = _box(sigma_sq, len(pattern), delta_hint)
    y = np.arange(-bound, bound + 1, dtype=np.float64)
    w = np.exp(-(y * y) / (2 * sigma_sq))
    p = w / w.sum()
    law = np.ones(1)
    lowest = 0
    for s in pattern:
        spread = np.zeros(2 * bound * s + 1)
        spread[::s] = p
        law = np.convolve(law, spread)
        lowest -= bound * s
    t = lowest + np.arange(law.size, dtype=np.float64)
    loss = (sum(s * s for s in pattern) - 2 * t) / (2 * sigma_sq)
    gain = -np.expm1(np.minimum(0.0, epsilon - loss))  # (1 - e^(ε - L))₊
    return min(1.0, float((law * gain).sum()) * (1 + _SLACK) + outside + 1e-300)


def patterns_delta_upper(sigma_sq: float, patterns: tuple[tuple[int, ...], ...],
                         epsilon: float, delta_hint: float = 1e-12) -> float:
    return max(pattern_delta_upper(sigma_sq, pattern, epsilon, delta_hint)
               for pattern in patterns)


def multi_cell_sigma_sq_for(patterns: tuple[tuple[int, ...], ...], epsilon: float,
                            delta: float, ceiling: float) -> float | None:
    """The smallest σ² (from above, to a relative 1e-6) at most ``ceiling`` whose exact curve
    over every maximal shift stays within (ε, δ); None when it cannot be computed here."""
    if not (MIN_DELTA <= delta < 1) or epsilon <= 0:
        return None
    box, _ = _box(ceiling, max(len(p) for p in patterns), delta)
    work = 0
    for pattern in patterns:
        size = 1
        for s in pattern:
            work += size * (2 * box * s + 1)
            size += 2 * box * s
    if work > MAX_CONVOLUTION_WORK:
        return None

    def ok(sigma_sq: float) -> bool:
        return patterns_delta_upper(sigma_sq, patterns, epsilon, delta) <= delta

    if not ok(ceiling):
        return None
    hi, lo = ceiling, ceiling * 0.7  # the exact curve needs 5-9% less σ than zCDP
    while ok(lo):
        hi, lo = lo, lo * 0.7
        if lo < 1e-6:
            return None
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
        if hi / lo < 1 + 1e-6:
            break
    return hi
