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
"""

from __future__ import annotations

import math

import numpy as np

DIRECT_SIGMA = 256.0  # below: sum the law term by term; above: integral bounds
MIN_DELTA = 1e-200  # below this δ the floating-point tails are not trusted: use zCDP
_SLACK = 1e-9  # relative margin for floating-point error in exp, erfc and sums
_SQRT2PI = math.sqrt(2 * math.pi)


def _direct_tails(sigma_sq: float, ms: list[int]) -> tuple[list[float], list[float]]:
    """Upper and lower bounds on P[Y >= m] for each m >= 0, by summing the law.

    Terms beyond 40σ after m weigh less than e^-800 of the first one (far below the slack);
    the normaliser summed over |y| <= 40σ + 2 is a lower bound on the true one, and exceeds
    it by less than e^-800 relatively."""
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
    up = [u if t >= 0 else 1 - lo for t, u, lo in zip(ms, ups, los)]
    low = [lo if t >= 0 else 1 - u for t, u, lo in zip(ms, ups, los)]
    e_eps = math.exp(epsilon) * (1 - _SLACK)
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
