"""Accuracy shown before release: the ± half-width that holds the noise with a confidence.

Counts, sums and histogram cells: exact for the discrete distributions (the smallest integer k
with P(|noise| > k) <= 1 - confidence). Means and variances: a guaranteed bound by the union
of the components' intervals, for a stated public approximate row count. Quantiles: a bound
on the rank error from the exponential mechanism's utility guarantee. Randomized response:
Hoeffding's bound on the debiased share plus the error of the noised number of answers. And
the inverse: the ε a target half-width needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from .errors import InputError
from .measure import Measurement, measurements_for, rr_refusal
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


def rr_half_width(answers: float, truth: float | Fraction, count: Measurement | None,
                  confidence: float) -> float:
    """Half-width of randomized response's debiased share from a file of ``answers`` published
    answers: Hoeffding's bound on their randomization, sqrt(ln(2/a) / 2n) / t, plus, when
    their number was noised, that count's half-width / n (the file then holds a random subset
    of the real answers or fair coins beyond them, which moves the share by at most
    |noise| / n). The confidence is split evenly between the two (union bound)."""
    alpha = 1 - confidence
    noisy = count is not None and count.mechanism != "none"
    a = alpha / 2 if noisy else alpha
    hw = math.sqrt(math.log(2 / a) / (2 * answers)) / float(truth)
    if noisy:
        assert count is not None
        hw += measurement_half_width(count, 1 - a) / answers
    return hw


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
        share = 1 - alpha / sum(1 for m in ms if m.mechanism != "none")
        hws = {m.component.name: measurement_half_width(m, share) * m.component.step for m in ms}
        radius = grid.radius * grid.step
        if n is None:
            return Accuracy(confidence, None, "value", NEEDS_ROWS)
        hw_n = hws["count"]
        e_mean = ratio_error(hws["sum"], radius, hw_n, n)
        if query.kind == "mean":
            cap = (grid.hi - grid.lo) * grid.step
            return Accuracy(confidence, min(e_mean, cap), "value",
                            f"guaranteed bound for about {n:g} rows")
        e_sq = ratio_error(hws["sumsq"], radius * radius, hw_n, n)
        cap = radius * radius
        return Accuracy(confidence, min(e_sq + 2 * radius * e_mean, cap), "value",
                        f"guaranteed bound for about {n:g} rows")
    if query.kind == "quantile":
        m = ms[0]
        points = grid_for(query).points
        ranks = (2 * m.component.l1 / m.epsilon) * (math.log(points) + math.log(1 / alpha)) + 1
        note = "rank error"
        if n is not None:
            note += f" (about {100 * ranks / n:.3g}% of {n:g} rows)"
        return Accuracy(confidence, ranks, "rank", note)
    if query.kind == "randomized_response":
        m = next(m for m in ms if m.component.name == "answers")
        count = next((m for m in ms if m.component.name == "count"), None)
        assert m.truth is not None
        refused = rr_refusal(query, ms)
        if refused is not None:
            return Accuracy(confidence, math.inf, "share", refused)
        if n is None:
            return Accuracy(confidence, None, "share", NEEDS_ROWS)
        hw = rr_half_width(n, m.truth, count, confidence)
        what = ("" if count is None or count.mechanism == "none"
                else " (with the error of their noised number)")
        return Accuracy(confidence, hw, "share",
                        f"Hoeffding bound for about {n:g} answers{what}")
    raise ValueError(query.kind)


def epsilon_for_half_width(query: Query, plan: Plan, target: float,
                           confidence: float = DEFAULT_CONFIDENCE) -> float | None:
    """Smallest ε (rounded up to 3 significant digits) whose half-width is at most ``target``.

    None when no ε up to 1000 reaches the target (or accuracy needs a row count)."""

    def width(eps: float) -> float:
        q = replace(query, epsilon=eps)
        try:
            hw = accuracy_for(q, plan, confidence).half_width
        except InputError:  # an ε the mechanism refuses (too small): no accuracy at all
            return math.inf
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
