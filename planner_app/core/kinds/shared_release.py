"""What several kinds share for planning and release: the noise draw and its post-processing
helpers (release/noise.py calls ``StatisticKind.release``), the words of public parameters
(planning/parameters.py), the placement of an illustrative mark (planning/preview.py) and the
checks verify repeats on a released row (release/verify_release.py).

Only the kind modules and the layers above import it; it imports no kind (the kinds are
siblings that never import each other), only dp, model and support.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..dp.accuracy import discrete_gaussian_half_width, measurement_half_width, rr_half_width
from ..dp.measure import Measurement
from ..dp.sampler_params import RandomSource
from ..dp.sensitivity import Grid
from ..model import Query, Scalar, SynthColumn
from ..support.words import confidence_percent, format_number
from .params import (
    BoundedParams,
    answers_of,
    bounded_of,
    bounds_of,
    cells_of,
    params_of,
    quantile_level,
)
from .results import Aggregate, QueryRelease, ReleasedValue, ReleasedValues

if TYPE_CHECKING:
    import numpy as np

# The noise and its column-wise post-processing import numpy and the samplers when a release
# draws, not with the module: planning reads it, and the app's start reads planning (issue 24).

# ----------------------------------------------------------------------------- the noise

#: A synthetic table's measurement (release/synthetic.measure_synthetic), handed down by the
#: release: it returns the released marginal cells (marginal, cell, value, half-width, note)
#: and the payload saved with the record.
Synthesise = Callable[[Query, Aggregate, list[Measurement], RandomSource, float, bool],
                      tuple[list[tuple[str, Any, int, int, str]], dict[str, Any]]]


@dataclass(frozen=True)
class NoiseDraw:
    """What a kind's ``release`` draws with: the random source (the OS CSPRNG in a release),
    the intervals' confidence, whether counts below 0 are shown as 0 (--clamp-counts), and
    the synthetic table's measurement, which lives with the release (release/synthetic.py)."""

    source: RandomSource
    confidence: float
    clamp_counts: bool
    synthesise: Synthesise


def noise_for(m: Measurement, size: int, source: RandomSource) -> np.ndarray:
    """``size`` draws of a measurement's noise (zeros when it is public without noise)."""
    import numpy as np

    from ..dp.mechanisms import discrete_gaussian, discrete_laplace

    if m.mechanism == "none":
        return np.zeros(size, dtype=np.int64)
    if m.mechanism == "laplace":
        assert m.scale is not None
        return discrete_laplace(source, m.scale, size)
    if m.mechanism == "gaussian":
        assert m.sigma_sq is not None
        return discrete_gaussian(source, m.sigma_sq, size)
    raise ValueError(m.mechanism)


RR_STEP = 2.0**-20


def snap(value: float, step: float) -> float:
    """Round to the nearest multiple of a power-of-two step (exact in binary floating point)."""
    return float(round(value / step) * step)


def snap_down(value: float, step: float) -> float:
    """The largest multiple of a power-of-two step at or below ``value``."""
    return float(math.floor(value / step) * step)


def snap_up(value: float, step: float) -> float:
    """The smallest multiple of a power-of-two step at or above ``value``."""
    return float(math.ceil(value / step) * step)


def named(ms: list[Measurement], name: str) -> Measurement:
    """The measurement of the component called ``name``."""
    return next(m for m in ms if m.component.name == name)


def randomized_response_estimate(yes: int, n: int, truth: Fraction, confidence: float,
                                 count: Measurement | None = None) -> tuple[float, float, float]:
    """The debiased share of yes p = (A - (1-t)/2)/t from a published answer file of ``n``
    answers with ``yes`` of them yes, kept in [0, 1], with its interval (Hoeffding plus the
    noised count's error, rr_half_width); on a 2^-20 grid, the interval rounded outwards.
    A post-processing of the published file and public parameters only."""
    share_yes = Fraction(yes, n)
    p_hat = float((share_yes - (1 - truth) / 2) / truth)
    hw = rr_half_width(n, truth, count, confidence)
    low = math.floor(max(0.0, p_hat - hw) / RR_STEP) * RR_STEP
    high = math.ceil(min(1.0, p_hat + hw) / RR_STEP) * RR_STEP
    return snap(min(1.0, max(0.0, p_hat)), RR_STEP), float(low), float(high)


def rr_answer_file(source: RandomSource, answers: np.ndarray, truth: Fraction,
                   count: Measurement) -> np.ndarray:
    """Randomized response's published answer file: its length is the number of answers
    plus the count measurement's noise (exact only where the relation makes the number of
    answers public), never below 0; see mechanisms.randomized_answer_file and the privacy
    argument in docs/engine.md."""
    from ..dp.mechanisms import randomized_answer_file

    length = max(0, int(answers.size) + int(noise_for(count, 1, source)[0]))
    return randomized_answer_file(source, answers, truth, length)


def noisy_parts(aggregate: Aggregate, ms: list[Measurement],
                source: RandomSource) -> dict[str, np.ndarray]:
    """Each measured part of the aggregate plus its noise, drawn in the measurements' order."""
    out = {}
    for m in ms:
        true = aggregate.parts[m.component.name]
        out[m.component.name] = true + noise_for(m, true.size, source)
    return out


class ValueRows:
    """The released values of one statistic, made one cell at a time (``add``)."""

    def __init__(self, query: Query, aggregate: Aggregate, confidence: float) -> None:
        self.query, self.aggregate, self.confidence = query, aggregate, confidence
        self.values: list[ReleasedValue] = []

    def add(self, i: int, value: Any, low: Any, high: Any, mechanism: str,
            note: str = "") -> None:
        group, cell = self.aggregate.cells[i]
        self.values.append(ReleasedValue(self.query.id, self.query.title, group, cell, value,
                                         low, high, self.confidence, mechanism, note))


# the column-wise forms below compute in int64 and float64 what the per-cell loops compute
# in Python ints and floats: the same numbers while every noisy value and interval end stays
# below 2^52 in magnitude (int64 exact, every int exactly a float64); beyond, the loops run
_EXACT = 1 << 52


def _fits(noisy: np.ndarray, hw: Any) -> bool:
    import numpy as np

    return (type(hw) is int and noisy.dtype.kind in "iu" and abs(hw) < _EXACT
            and (noisy.size == 0 or int(np.abs(noisy).max()) < _EXACT - abs(hw)))


def count_columns(noisy: np.ndarray, hw: Any, mechanism: str, clamp_counts: bool
                  ) -> tuple[list[int], list[int], list[int], str | list[str]] | None:
    """A count's or histogram's values, interval ends and notes for every cell at once: the
    per-cell loop of ``count_release`` column-wise (None: out of ``_fits``' range)."""
    import numpy as np

    if not _fits(noisy, hw):
        return None
    v = noisy.astype(np.int64)
    note: str | list[str] = "released without noise: public under replace-one" \
        if mechanism == "none" else ""
    if clamp_counts:
        negative = v < 0
        if negative.any():
            v = np.where(negative, 0, v)
            note = np.where(negative, "clamped at 0 (post-processing)", note).tolist()
    return v.tolist(), (v - hw).tolist(), (v + hw).tolist(), note


def sum_columns(noisy: np.ndarray, hw: Any, step: Any
                ) -> tuple[list[float], list[float], list[float]] | None:
    """A sum's values and interval ends for every cell at once, as float(v * step) and
    float((v -/+ hw) * step) per cell (None: out of ``_fits``' range)."""
    import numpy as np

    if not _fits(noisy, hw):
        return None
    v = noisy.astype(np.int64)
    if type(step) is int and abs(step) < 1 << 10:  # int products, exact in int64
        return ((v * step).astype(np.float64).tolist(),
                ((v - hw) * step).astype(np.float64).tolist(),
                ((v + hw) * step).astype(np.float64).tolist())
    if type(step) is not float:
        return None
    return ((v.astype(np.float64) * step).tolist(),
            ((v - hw).astype(np.float64) * step).tolist(),
            ((v + hw).astype(np.float64) * step).tolist())


def count_release(query: Query, aggregate: Aggregate, ms: list[Measurement], draw: NoiseDraw,
                  name: str) -> QueryRelease:
    """A count's or a histogram's cells (the component ``name``): noisy counts with their
    ± (a count without noise is public under replace-one; --clamp-counts shows negatives as
    0)."""
    noisy = noisy_parts(aggregate, ms, draw.source)
    m = ms[0]
    hw = {x.component.name: measurement_half_width(x, draw.confidence) for x in ms}[name]
    columns = count_columns(noisy[name], hw, m.mechanism, draw.clamp_counts)
    if columns is not None:
        return QueryRelease(query.id, ReleasedValues(query.id, query.title, aggregate.cells,
                                                     *columns[:3], draw.confidence,
                                                     m.mechanism, columns[3]))
    rows = ValueRows(query, aggregate, draw.confidence)
    for i, v in enumerate(noisy[name].tolist()):
        note = "released without noise: public under replace-one" \
            if m.mechanism == "none" else ""
        if draw.clamp_counts and v < 0:
            v, note = 0, "clamped at 0 (post-processing)"
        rows.add(i, int(v), int(v - hw), int(v + hw), m.mechanism, note)
    return QueryRelease(query.id, rows.values)


@dataclass(frozen=True)
class MomentCell:
    """One cell of a mean or a variance after the noise: its noisy count and (centred) sums,
    and the centred mean kept within the bounds' radius."""

    i: int
    n_noisy: float
    n_pos: float  # a divisor: the noisy count, at least 1
    mean_c: float
    note: str  # "" or the warning of a noisy count below 1


def moment_cells(grid: Grid, query: Query, aggregate: Aggregate, ms: list[Measurement],
                 draw: NoiseDraw) -> tuple[dict[str, np.ndarray], list[MomentCell]]:
    """A mean's or a variance's noisy parts and, per cell, what both post-process: the noisy
    count (at least 1 as a divisor) and the centred mean kept within the bounds' radius."""
    noisy = noisy_parts(aggregate, ms, draw.source)
    radius = grid.radius * grid.step
    cells = []
    for i in range(len(aggregate.cells)):
        n_noisy = float(noisy["count"][i])
        n_pos = max(n_noisy, 1.0)
        s1 = float(noisy["sum"][i]) * grid.step
        mean_c = min(radius, max(-radius, s1 / n_pos))
        note = "" if n_noisy >= 1 else "the noisy count is below 1: the estimate is unreliable"
        cells.append(MomentCell(i, n_noisy, n_pos, mean_c, note))
    return noisy, cells


# ----------------------------------------------------------------------------- parameters

MAX_LISTED_VALUES = 12  # values of one list named in a line; the plan has every one

NOISE_WORDS = {"laplace": "discrete Laplace", "gaussian": "discrete Gaussian",
               "exponential": "exponential mechanism", "randomized_response":
               "randomized response"}


def plan_number(x: float) -> str:
    """A public parameter as written in the plan (no rounding: it is exact)."""
    return f"{x:g}" if abs(x) < 1e15 else f"{x:.15g}"


def values_text(values: Sequence[Scalar], limit: int = MAX_LISTED_VALUES) -> str:
    """A declared list, its first ``limit`` values quoted as written and how many more."""
    shown = ", ".join(str(v) for v in values[:limit])
    more = len(values) - limit
    return shown + (f" and {more:,} more" if more > 0 else "")


def edges_text(edges: Sequence[float]) -> str:
    """Bin edges, with what the last bin includes."""
    return (f"{len(edges) - 1} bins with edges {values_text([plan_number(e) for e in edges])} "
            "(each bin includes its lower edge; the last also its upper edge)")


def column_domain(c: SynthColumn) -> str:
    """A synthetic table's column and its declared values, in a few words."""
    if c.categories is not None:
        return f"{c.column}: {len(c.categories)} categories ({values_text(c.categories)})"
    return f"{c.column}: {edges_text(list(c.bins or ()))}"


def condition_words(column: str, op: str, value: object) -> str:
    """One ``where`` condition as a person reads it."""
    if op == "in" and isinstance(value, (list, tuple)):
        return f"{column} is one of {values_text(list(value))}"
    words = {"==": "is", "!=": "is not", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}
    return f"{column} {words.get(op, op)} {value}"


def statistic_parameters(q: Query) -> list[tuple[str, str]]:
    """(name, value) of the public parameters of a statistic over one column (every kind but
    the synthetic table), as a person reads them."""
    out: list[tuple[str, str]] = []
    bounded, bounds, level = bounded_of(q), bounds_of(q), quantile_level(q)
    cells, answers = cells_of(q), answers_of(q)
    if q.column is not None:
        out.append(("Column", q.column))
    if bounds is not None:
        out.append(("Bounds", f"{plan_number(bounds[0])} to {plan_number(bounds[1])}"))
    if level is not None:
        out.append(("Quantile", f"{plan_number(level)}"
                    + (" (the median)" if level == 0.5 else "")))
    if cells is not None and cells.categories is not None:
        out.append(("Categories", f"{len(cells.categories)}: {values_text(cells.categories)}"))
    if cells is not None and cells.bins is not None:
        out.append(("Bins", edges_text(list(cells.bins))))
    if q.group_by is not None:
        out.append(("Grouped by", f"{q.group_by.column}, {len(q.group_by.keys)} keys: "
                    f"{values_text(q.group_by.keys)}"))
    if answers is not None and answers.yes is not None:
        out.append(("Read as yes", values_text(answers.yes)))
    if answers is not None and answers.no is not None:
        out.append(("Read as no", values_text(answers.no)))
    if q.where:
        out.append(("Only rows where", " and ".join(condition_words(c.column, c.op, c.value)
                                                     for c in q.where)))
    if bounded is not None and bounded.grid_step is not None:
        out.append(("Grid step", plan_number(bounded.grid_step)))
    if q.expected_count is not None:
        out.append(("Expected rows", format_number(q.expected_count)))
    out.append(("Noise", NOISE_WORDS.get(q.mechanism, q.mechanism.replace("_", " "))))
    return out + found_privately(q)


#: the start of the reason ``plan apply-discovery`` writes (release/discovery.py)
FOUND_PRIVATELY = "found privately in release "


def found_privately(q: Query) -> list[tuple[str, str]]:
    """(name, value) for each list or bounds of the statistic found privately (issue 25):
    where they come from, for the officer's review, check and the report."""
    names = {"categories": "Categories found", "keys": "Group keys found",
             "bounds": "Bounds found"}
    out = []
    for field, name in names.items():
        reason = (q.justification or {}).get(field) or ""
        if reason.startswith(FOUND_PRIVATELY):
            out.append((name, "privately, in release " + reason[len(FOUND_PRIVATELY):]
                        .split(";")[0]))
    return out


def plan_value(v: Scalar | None) -> str:
    """A value from the plan: a number as written (5, not 5.0), a text as it is."""
    return plan_number(v) if isinstance(v, (int, float)) and not isinstance(v, bool) \
        else str(v)


def missing_cell_words(q: Query, column: str, numeric: bool) -> str:
    """What happens to a row whose ``column`` cell is missing (or, for a number, unreadable)."""
    cell = f"an empty {column} cell (or NA, NULL…)" + (" or one that is not a number"
                                                      if numeric else "")
    if q.missing.policy == "impute":
        return f"{cell} is read as {plan_value(q.missing.value)}"
    return f"a row with {cell} is left out"


def bounded_missing_words(q: Query) -> list[str]:
    """The missing values of a bounded number (sum, mean, variance, quantile): missing cells,
    clamping into the bounds, and the grid."""
    p = params_of(q, BoundedParams)
    assert q.column is not None and p.lower is not None and p.upper is not None
    grid = (f"a step of {plan_number(p.grid_step)}" if p.grid_step is not None else
            "a fine grid (far finer than the noise)")
    return [missing_cell_words(q, q.column, True),
            f"a value below {plan_number(p.lower)} counts as {plan_number(p.lower)} and one "
            f"above {plan_number(p.upper)} as {plan_number(p.upper)} (clamped), then it is "
            f"rounded to {grid}"]


# ----------------------------------------------------------------------------- preview

#: An illustrative mark: where it is drawn, the values it can take (None: unbounded), the
#: range a number line shows around it, and the words for where it is.
Illustration = tuple[float, tuple[float, float] | None, tuple[float, float], str]

AT_ZERO: Illustration = (0.0, None, (0.0, 0.0), "at 0")


# ----------------------------------------------------------------------------- verify

REL = 1e-9


def close_enough(a: Any, b: Any) -> bool:
    """Two released numbers agree (both None, or equal within a relative 1e-9)."""
    if a is None or b is None:
        return a is b
    return math.isclose(float(a), float(b), rel_tol=REL, abs_tol=1e-12)


def on_grid(value: float, step: float) -> bool:
    """``value`` is a whole multiple of ``step``."""
    return float(Fraction(value) / Fraction(step)).is_integer()


def count_value_problem(value: float, low: float | None, high: float | None,
                        half: float | None) -> str | None:
    """A released count (or a histogram's cell) is a whole number, its interval its value ±
    the stated accuracy."""
    problem = interval_problem(value, low, high, half)
    if problem is None and not float(value).is_integer():
        return "a count is not a whole number"
    return problem


def interval_problem(value: float, low: float | None, high: float | None,
                     half: float | None) -> str | None:
    """A count's or sum's released interval is its value ± the stated accuracy."""
    if low is None or high is None or half is None:
        return "has no interval"
    if not (close_enough(value - low, half) and close_enough(high - value, half)):
        return (f"the interval is {value - low:g} below and {high - value:g} above the "
                f"value, but the stated accuracy is ±{half:g}")
    return None


def range_problem(value: float, lo_b: float, hi_b: float) -> str | None:
    """A bounded statistic's released value lies within the values it can take."""
    if not lo_b - 1e-12 <= value <= hi_b + 1e-12:
        return f"the value lies outside [{lo_b:g}, {hi_b:g}]"
    return None


def grid_point_problem(value: float, lo_b: float, hi_b: float, step: float) -> str | None:
    """A value drawn as a point of a grid (a quantile, a bound found privately) lies within
    the declared bounds and on the grid."""
    problem = range_problem(value, lo_b, hi_b)
    if problem is None and not on_grid(value, step):
        return "the value is not on the grid"
    return problem


def inside_problem(value: float, low: float | None, high: float | None) -> str | None:
    """A released value lies inside its interval."""
    if low is None or high is None or not low <= value <= high:
        return "the value is not inside its interval"
    return None


# ----------------------------------------------------------------------------- check


def row_count_lines(accuracy: dict[str, Any]) -> list[str]:
    """``check``'s line saying what a ± for a stated row count is of (mean, variance, share)."""
    if accuracy.get("half_width") is None:
        return []
    return [f"the ± is a {accuracy['note']}"]


# ----------------------------------------------------------------------------- report words


def noise_meaning(accuracy: dict[str, Any], confidence: float) -> str:
    """The report's words for a released value with a ± of noise (a count, a sum, cells)."""
    hw: Any = accuracy.get("half_width")
    return (f"With {confidence_percent(confidence)} confidence the noise added is at most "
            f"± {format_number(hw)}, so the true value lies in the interval.")


def moments_meaning(confidence: float) -> str:
    """The report's words for a mean's or a variance's interval."""
    return (f"Computed from a noisy sum and a noisy count; the interval is a guaranteed bound "
            f"with at least {confidence_percent(confidence)} confidence.")


def synthetic_noise_words(q: dict[str, Any], confidence: float) -> str:
    """What the noise of a synthetic table's counts is at most, for its one-way cells and for
    its measured pairs' cells, each from its own σ (the larger σ of each kind)."""
    level = confidence_percent(confidence)
    bounds = []
    for kind, words in (("oneway", "each cell of a one-way count"),
                        ("twoway", "each cell of a measured pair's two-way count")):
        found = [_sigma_sq(c) for c in q.get("components") or ()
                 if isinstance(c, dict) and str(c.get("name", "")).startswith(kind + ":")]
        sq = [v for v in found if v is not None]
        if sq:
            bounds.append(f"± {format_number(discrete_gaussian_half_width(max(sq), confidence))} "
                          f"on {words}")
    if not bounds:
        return "The counts it was fitted to are noised; see its parameters below."
    return (f"With {level} confidence the noise added to the counts it was fitted to is at "
            f"most {' and '.join(bounds)}.")


def _sigma_sq(c: dict[str, Any]) -> float | None:
    steps, step = c.get("sigma_sq_steps"), c.get("step") or 1
    if isinstance(steps, str):
        try:
            return float(Fraction(steps)) * float(step) ** 2
        except (ValueError, ZeroDivisionError):
            return None
    sigma = c.get("sigma")
    return float(sigma) ** 2 if isinstance(sigma, (int, float)) else None




def rr_file_sentence(query: dict[str, Any]) -> str:
    """What randomized response's published answer file holds (from the record's public
    measurements)."""
    exact = any(m["name"] == "count" and m["mechanism"] == "none"
                for m in query.get("measurements", []))
    if exact:
        return ("The answer file holds every answer: every row answers, so their number is "
                "public under replace-one.")
    return ("The number of answers in the answer file is noised: fair coins fill the extra "
            "places, or a random subset of the answers is left out, and the interval includes "
            "that error. The true number of answers, of missing answers and of rows dropped to "
            "bound each person's contribution is not published.")
