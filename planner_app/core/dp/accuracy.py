"""Accuracy shown before release: the ± half-width that holds the noise with a confidence.

Counts, sums and histogram cells: exact for the discrete distributions (the smallest integer k
with P(|noise| > k) <= 1 - confidence). Means and variances: the widest interval of the exact
pivot in intervals.py, wherever the statistic lies, for a stated public approximate row
count. Quantiles: a bound on the rank error from the exponential mechanism's utility
guarantee. Randomized response: Hoeffding's bound on the debiased share plus the error of the
noised number of answers. And the inverse: the ε a target half-width needs.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any

from ..model import Plan, Query
from ..support.words import format_number
from .confidence import DEFAULT_CONFIDENCE as DEFAULT_CONFIDENCE  # re-exported: its old home
from .confidence import MAX_CONFIDENCE as MAX_CONFIDENCE
from .confidence import MIN_CONFIDENCE as MIN_CONFIDENCE
from .confidence import check_confidence as check_confidence
from .measure import Measurement

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
    import numpy as np  # numerics only here: the module is read at start (issue 24)

    top = int(math.ceil(sigma * 14)) + 2
    x = np.arange(0, top + 1, dtype=np.float64)
    w = np.exp(-(x * x) / (2 * sigma_sq))
    total = w[0] + 2 * w[1:].sum()
    # tail(k) = 2 * sum_{x > k} w / total
    tails = 2 * (w[::-1].cumsum()[::-1] - w) / total
    ok = np.flatnonzero(tails <= alpha)
    return int(ok[0]) if ok.size else top


def _normal_quantile(p: float) -> float:
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
    unit: str  # "value" | "squared" (a variance) | "count" | "rank" | "share"
    note: str = ""
    rows: float | None = None  # quantiles: the public approximate row count, if stated

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"confidence": self.confidence, "half_width": self.half_width,
                                  "unit": self.unit, "note": self.note}
        if self.rows is not None:
            out["rows"] = self.rows
        return out


def expected_count(query: Query, plan: Plan) -> float | None:
    """The public approximate row count per cell used for means, variances, quantiles."""
    if query.expected_count is not None:
        return query.expected_count
    if plan.dataset.expected_rows is None:
        return None
    groups = len(query.group_by.keys) if query.group_by is not None else 1
    return plan.dataset.expected_rows / groups




def rows_basis(query: Query, plan: Plan, n: float, noun: str = "rows") -> str:
    """What the row count behind a mean's, variance's or share's ± is of, after "for": the
    statistic's stated expected_count (for a group-by: the smallest group), or the table's
    expected_rows, then said plainly to count the rows a filter or a missing cell leaves out,
    and, split over a group-by's groups, to assume groups of equal size. Public parameters
    only: the words go into release.json."""
    count = f"about {format_number(n)} {noun}"
    if query.expected_count is not None:
        if query.group_by is not None:
            return (f"a group of {count}, the smallest group as the plan states it "
                    "(expected_count); a larger group's ± is smaller")
        return f"{count}, as the plan states them (expected_count)"
    left_out = []
    if query.where:
        left_out.append("rows its filter leaves out")
    if query.column is not None and query.missing.policy == "drop":
        left_out.append(f"rows where {query.column} is missing")
    counting = f", {' and '.join(left_out)} included" if left_out else ""
    rows = plan.dataset.expected_rows
    if query.group_by is not None:
        groups = len(query.group_by.keys)
        return (f"{count} a group (the table's about {format_number(rows or 0)} rows split "
                f"evenly over its {groups} groups{counting}). This assumes groups of equal "
                "size: a smaller group's ± is wider; state the smallest group's rows as "
                "expected_count")
    if not left_out:
        return f"{count} (the table's rows)"
    return (f"{count} (the table's rows{counting}: with fewer rows the ± is wider; state "
            "the rows it uses as expected_count)")


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
# a person unit whose rows per person are not stated yet: every ± depends on them, and one row
# per person would show an accuracy up to k times too good (the ``rows`` readiness rule asks)
NEEDS_PERSON_ROWS = ("say at most how many rows one person may have (“A person has up to” on "
                     "the Data tab) to see this accuracy")


def smallest_epsilon(width: Callable[[float], float], target: float) -> float | None:
    """Smallest ε (rounded up to 3 significant digits) whose ``width(ε)`` is at most
    ``target``, for a width that falls as ε grows (inf where there is no accuracy).

    None when no ε up to 1000 reaches the target."""
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


# ----------------------------------------------------------------------------- one unit per kind
#
# Every place that shows or reads a ± (the statistics table, the statistic pane's field and its
# target, the goal solver, the wizard, the report and the CLI) goes through these functions, so
# a share is always in percentage points and a quantile in percentiles of the data (ranks only
# when no row count is stated). Accuracy.half_width itself stays in the statistic's own scale
# (a share from 0 to 1, a quantile in ranks), as release.json records it.

UNIT_WORDS = {"count": "people or rows", "value": "in the column's units",
              "squared": "in squared units of the column (units²)",
              "share": "percentage points", "percentile": "percentiles of the data",
              "rank": "ranks (rows)"}


def _field(acc: Accuracy | dict[str, Any], name: str) -> object:
    return acc.get(name) if isinstance(acc, dict) else getattr(acc, name)


def number_field(acc: Accuracy | dict[str, Any], name: str) -> float | None:
    """A numeric field of an accuracy (an Accuracy, or its to_dict() read back from JSON)."""
    value = _field(acc, name)
    if value is None:
        return None
    if not isinstance(value, numbers.Real):
        raise TypeError(f"accuracy field {name!r} is not a number: {value!r}")
    return float(value)


def _confidence(acc: Accuracy | dict[str, Any]) -> float:
    confidence = number_field(acc, "confidence")
    if confidence is None:
        raise TypeError("accuracy has no confidence")
    return confidence


def shown_unit(acc: Accuracy | dict[str, Any]) -> str:
    """The unit a person reads and types this accuracy in."""
    unit = str(_field(acc, "unit"))
    if unit == "rank":
        return "percentile" if _field(acc, "rows") else "rank"
    return unit


def shown_scale(acc: Accuracy | dict[str, Any]) -> float:
    """Shown value = half_width × this."""
    unit = shown_unit(acc)
    if unit == "share":
        return 100.0
    if unit == "percentile":
        rows = number_field(acc, "rows")
        assert rows  # shown_unit says "percentile" only with a row count
        return 100.0 / rows
    return 1.0


def shown_half_width(acc: Accuracy | dict[str, Any]) -> float | None:
    hw = number_field(acc, "half_width")
    return None if hw is None else hw * shown_scale(acc)


def format_number_short(x: float) -> str:
    return format_number(x)


def format_half_width(acc: Accuracy | dict[str, Any]) -> str:
    """The ± for a table cell, in the shown unit: "± 12 points", "± 3.5 percentiles"."""
    hw = shown_half_width(acc)
    if hw is None:
        return ("needs rows per person" if _field(acc, "note") == NEEDS_PERSON_ROWS
                else "needs a row count")
    if not math.isfinite(hw):
        return "unbounded"
    unit = shown_unit(acc)
    if unit == "share" and hw > 100:
        # a share lies in 0-100%: "± 323.4 points" reads as an error, and any ± past 100
        # points says the same, that the interval is wider than the whole range of shares
        # (the number itself is in release.json and `check --json`); short for the list
        return "± over 100 points"
    suffix = {"share": " points", "percentile": " percentiles", "rank": " ranks",
              "squared": " units²"}.get(unit, "")
    return f"± {format_number_short(hw)}{suffix}"


def half_width_from_shown(acc: Accuracy | dict[str, Any], shown: float) -> float:
    """A target typed in the shown unit, in the statistic's own scale."""
    return shown / shown_scale(acc)


# ----------------------------------------------------------------------------- quantiles in words


def ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def quantile_name(q: float) -> str:
    if q == 0.5:
        return "median"
    pct = 100 * q
    return f"{ordinal(int(pct))} percentile" if float(pct).is_integer() else f"{pct:g}% quantile"


def quantile_words(acc: Accuracy | dict[str, Any], quantile: float) -> str:
    """"With 95% chance the released median lies between the 45th and 55th percentile of the
    data" — the rank bound turned into percentiles (outward-rounded), or into rows when no row
    count is stated."""
    confidence = _confidence(acc)
    name = quantile_name(quantile)
    chance = f"With {100 * confidence:g}% chance the released {name}"
    hw = shown_half_width(acc)
    if hw is None or not math.isfinite(hw):
        return f"{chance} can lie anywhere within the bounds."
    if shown_unit(acc) == "rank":
        return (f"{chance} lies within {format_number_short(hw)} rows of the true {name} in the "
                "sorted data (state the statistic's expected_count, or dataset.expected_rows "
                "when it has no filter or group-by, to read this in percentiles).")
    low = max(0.0, math.floor(100 * quantile - hw))
    high = min(100.0, math.ceil(100 * quantile + hw))
    if low <= 0 and high >= 100:
        return f"{chance} can lie anywhere in the data (0th to 100th percentile)."
    return (f"{chance} lies between the {ordinal(int(low))} and {ordinal(int(high))} percentile "
            "of the data.")


# ----------------------------------------------------------------------------- useless statistics

USELESS_SHARE = 0.5  # the ± reaches half the range: the interval from the middle covers it all


CENTRAL_HINT_POINTS = 5.0  # a randomized-response ± wider than this points to the central share


def useless_words(span: tuple[float, str] | None, acc: Accuracy | dict[str, Any]) -> str | None:
    """A plain sentence when the ± covers most of ``span`` (the width of the values a
    statistic can take, and how to say it; None: unbounded), else None. The rule behind
    ``kinds.shared_dp.useless_warning``."""
    hw = number_field(acc, "half_width")
    if hw is None or span is None:
        return None
    width, words = span
    if not (hw >= USELESS_SHARE * width):
        return None
    confidence = _confidence(acc)
    return (f"this statistic says almost nothing: at {100 * confidence:g}% confidence its "
            f"{format_half_width(acc)} covers most of what it can be ({words}). Give it a larger "
            "ε, or leave it out.")


# ----------------------------------------------------------------------------- quantile cost


def quantile_work_refusal(points: int, rows: int | None) -> str | None:
    """Why the quantile sampler would not finish in reasonable time over a grid of
    ``points`` points, from public parameters only: the grid's size and the plan's stated
    row count (``dataset.expected_rows``; None for "not stated", when only the grid counts),
    never the table's true row count: the release decides it before the table is read. None
    when it will finish."""
    from . import mechanisms  # the sampler's numpy, when a quantile is planned

    most = mechanisms.MAX_QUANTILE_WORK  # read when called: a test lowers it
    if mechanisms.quantile_work(points, rows) <= most:
        return None
    limit = (most - 1) // 2
    if rows is None:
        return (f"the quantile grid has {points:,} points; the release can only "
                f"run on a table of at most {limit:,} rows: state dataset.expected_rows "
                "(a public row count) or use a coarser grid_step")
    return (f"the quantile grid has {points:,} points and the table more than {limit:,} rows "
            f"(dataset.expected_rows); the sampler handles at most {limit:,} of the smaller of "
            "the two. Use a coarser grid_step (nothing was charged)")
