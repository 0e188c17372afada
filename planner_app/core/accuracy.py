"""Accuracy shown before release: the ± half-width that holds the noise with a confidence.

Counts, sums and histogram cells: exact for the discrete distributions (the smallest integer k
with P(|noise| > k) <= 1 - confidence). Means and variances: the widest interval of the exact
pivot in intervals.py, wherever the statistic lies, for a stated public approximate row
count. Quantiles: a bound on the rank error from the exponential mechanism's utility
guarantee. Randomized response: Hoeffding's bound on the debiased share. And the inverse:
the ε a target half-width needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .intervals import mean_half_width, mean_parts, variance_half_width
from .measure import Measurement, measurements_for
from .plan import Plan, Query
from .sensitivity import grid_for

DEFAULT_CONFIDENCE = 0.95


# ----------------------------------------------------------------------------- discrete laws


def discrete_laplace_tail(scale: float, k: int) -> float:
    """P(|X| > k) for P(x) proportional to exp(-|x|/scale)."""
    q = math.exp(-1 / scale)
    return 2 * math.exp(-(k + 1) / scale) / (1 + q)


def discrete_laplace_half_width(scale: float, confidence: float = DEFAULT_CONFIDENCE) -> int:
    """Smallest integer k with P(|X| > k) <= 1 - confidence."""
    alpha = 1 - confidence
    guess = math.ceil(scale * math.log(2 / (alpha * (1 + math.exp(-1 / scale)))) - 1)
    k = max(0, guess - 1)
    while discrete_laplace_tail(scale, k) > alpha:
        k += 1
    while k > 0 and discrete_laplace_tail(scale, k - 1) <= alpha:
        k -= 1
    return k


def discrete_gaussian_half_width(sigma_sq: float, confidence: float = DEFAULT_CONFIDENCE) -> int:
    """Smallest integer k with P(|X| > k) <= 1 - confidence for the discrete Gaussian."""
    alpha = 1 - confidence
    sigma = math.sqrt(sigma_sq)
    if sigma > 20_000:  # the rounded normal is then exact to far below a unit
        z = _normal_quantile(1 - alpha / 2)
        return math.ceil(z * sigma)
    import numpy as np

    top = int(math.ceil(sigma * 14)) + 2
    x = np.arange(0, top + 1, dtype=np.float64)
    w = np.exp(-(x * x) / (2 * sigma_sq))
    total = w[0] + 2 * w[1:].sum()
    # tail(k) = 2 * sum_{x > k} w / total
    tails = 2 * (w[::-1].cumsum()[::-1] - w) / total
    ok = np.flatnonzero(tails <= alpha)
    return int(ok[0]) if ok.size else top


def _normal_quantile(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


def measurement_half_width(m: Measurement, confidence: float) -> int:
    """Half-width in the measurement's integer steps."""
    if m.mechanism == "none":
        return 0
    if m.mechanism == "laplace":
        assert m.scale is not None
        return discrete_laplace_half_width(float(m.scale), confidence)
    if m.mechanism == "gaussian":
        assert m.sigma_sq is not None
        return discrete_gaussian_half_width(float(m.sigma_sq), confidence)
    raise ValueError(f"no integer half-width for {m.mechanism}")


# ----------------------------------------------------------------------------- per query


@dataclass(frozen=True)
class Accuracy:
    confidence: float
    half_width: float | None  # in the statistic's units (None: needs an expected row count)
    unit: str  # "value" | "count" | "rank" | "share"
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"confidence": self.confidence, "half_width": self.half_width, "unit": self.unit,
                "note": self.note}


def expected_count(query: Query, plan: Plan) -> float | None:
    """The public approximate row count per cell used for means, variances, quantiles."""
    if query.expected_count is not None:
        return query.expected_count
    if plan.dataset.expected_rows is None:
        return None
    groups = len(query.group_by.keys) if query.group_by is not None else 1
    return plan.dataset.expected_rows / groups


def ratio_error(hw_num: float, bound: float, hw_count: float, n: float) -> float:
    """Worst error of S~/N~ when |S/N| <= bound, |S~-S| <= hw_num, |N~-N| <= hw_count."""
    if n - hw_count <= 0:
        return math.inf
    return (hw_num + bound * hw_count) / (n - hw_count)


NEEDS_ROWS = "state dataset.expected_rows (a public approximate row count) to see this accuracy"


def accuracy_for(query: Query, plan: Plan, confidence: float = DEFAULT_CONFIDENCE,
                 measurements: list[Measurement] | None = None) -> Accuracy:
    ms = measurements if measurements is not None else measurements_for(query, plan)
    alpha = 1 - confidence
    if query.kind in ("count", "histogram"):
        hw = measurement_half_width(ms[0], confidence)
        note = "per cell" if query.kind == "histogram" or query.group_by else ""
        return Accuracy(confidence, float(hw), "count", note)
    if query.kind == "sum":
        m = ms[0]
        hw = measurement_half_width(m, confidence) * m.component.step
        return Accuracy(confidence, hw, "value", "per group" if query.group_by else "")
    n = expected_count(query, plan)
    if query.kind in ("mean", "variance"):
        grid = grid_for(query)
        if n is None:
            return Accuracy(confidence, None, "value", NEEDS_ROWS)
        parts = mean_parts(query, ms)
        if query.kind == "mean":
            cap = (grid.hi - grid.lo) * grid.step
            return Accuracy(confidence, min(mean_half_width(parts, n, alpha), cap), "value",
                            f"guaranteed bound for about {n:g} rows")
        radius = grid.radius * grid.step
        return Accuracy(confidence, min(variance_half_width(parts, n, alpha), radius * radius),
                        "value", f"guaranteed bound for about {n:g} rows")
    if query.kind == "quantile":
        m = ms[0]
        points = grid_for(query).points
        ranks = (2 * m.component.l1 / m.epsilon) * (math.log(points) + math.log(1 / alpha)) + 1
        note = "rank error"
        if n is not None:
            note += f" (about {100 * ranks / n:.3g}% of {n:g} rows)"
        return Accuracy(confidence, ranks, "rank", note)
    if query.kind == "randomized_response":
        m = ms[0]
        assert m.truth is not None
        if n is None:
            return Accuracy(confidence, None, "share", NEEDS_ROWS)
        hw = math.sqrt(math.log(2 / alpha) / (2 * n)) / float(m.truth)
        return Accuracy(confidence, hw, "share", f"Hoeffding bound for about {n:g} answers")
    raise ValueError(query.kind)


def epsilon_for_half_width(query: Query, plan: Plan, target: float,
                           confidence: float = DEFAULT_CONFIDENCE) -> float | None:
    """Smallest ε (rounded up to 3 significant digits) whose half-width is at most ``target``.

    None when no ε up to 1000 reaches the target (or accuracy needs a row count)."""

    def width(eps: float) -> float:
        q = replace(query, epsilon=eps)
        hw = accuracy_for(q, plan, confidence).half_width
        return math.inf if hw is None else hw

    hi = 1000.0
    if width(hi) > target:
        return None
    lo = 1e-6
    if width(lo) <= target:
        return lo
    for _ in range(80):
        mid = math.sqrt(lo * hi)
        if width(mid) <= target:
            hi = mid
        else:
            lo = mid
        if hi / lo < 1 + 1e-9:
            break
    digits = 3 - int(math.floor(math.log10(hi))) - 1
    rounded = math.ceil(hi * 10**digits) / 10**digits
    return rounded if width(rounded) <= target else hi
