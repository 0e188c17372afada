"""The statistic kind ``standard_deviation``: the standard deviation of a bounded numeric
column, the square root of a variance.

It measures exactly what a variance measures (a noisy count, a noisy centred sum and a noisy
sum of squares, the same sensitivity components and the same ε split) and post-processes the
released variance: the value and its interval are the square roots of the variance's, so it
costs no privacy beyond the variance's. Its ± before release is the square root of the
variance's: for any two variances a and b, |√a − √b| ≤ √|a − b|.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ..dp.accuracy import Accuracy
from ..dp.measure import Measurement
from ..model import Plan, Query
from .params import BoundedParams, params_of
from .results import Aggregate, QueryRelease
from .shared_release import (
    AT_ZERO,
    Illustration,
    NoiseDraw,
    inside_problem,
    moments_meaning,
    range_problem,
    snap,
    snap_down,
    snap_up,
)
from .variance import Variance


def params(query: Query) -> BoundedParams:
    """The statistic's own fields, typed (shared_plan.BoundedParams)."""
    return params_of(query, BoundedParams)


class StandardDeviation(Variance):
    name = "standard_deviation"
    title = "Standard deviation"
    words = "standard deviation"

    # --- plan fields: a variance's (bounds, grid step, group-by, conditions, missing) -------

    # --- DP: a variance's measurements; its ± is the square root of the variance's ---------

    accuracy_unit = "value"

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        var = super().accuracy(query, plan, measurements, confidence)
        if var.half_width is None:
            return replace(var, unit="value")
        radius = self.grid(query).radius * self.grid(query).step
        return replace(var, half_width=min(math.sqrt(var.half_width), radius), unit="value")

    def possible_range(self, query: Query,
                       acc: Accuracy | dict[str, Any]) -> tuple[float, str] | None:
        p = params(query)
        if p.lower is None or p.upper is None:
            return None
        top = (p.upper - p.lower) / 2
        return top, f"0 to {top:g}, the largest standard deviation its bounds allow"

    # --- data: a variance's aggregate (count, centred sum, sum of squares) -----------------

    # --- planning and release ----------------------------------------------------------------

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        # the variance's release, then the square root of its value and interval ends
        # (post-processing of released numbers only)
        variances = super().release(query, aggregate, ms, draw)
        grid = self.grid(query)
        step, radius = grid.step, grid.radius * grid.step
        values, lows, highs, cells = [], [], [], []
        for v in variances.values:
            assert v.value is not None and v.low is not None and v.high is not None
            value = min(snap(math.sqrt(v.value), step), radius)
            values.append(value)
            lows.append(min(value, snap_down(math.sqrt(v.low), step)))
            highs.append(max(value, min(snap_up(math.sqrt(v.high), step), snap(radius, step))))
            cells.append(v)
        out = [replace(v, value=value, low=low, high=high,
                       note=v.note.replace("[0, ((upper-lower)/2)^2]", "[0, (upper-lower)/2]")
                       .replace("post-processing)", "post-processing; the square root of "
                                "a noised variance)"))
               for v, value, low, high in zip(cells, values, lows, highs, strict=True)]
        return QueryRelease(query.id, out)

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        p = params(query)
        assert p.lower is not None and p.upper is not None
        return (range_problem(value, 0.0, (p.upper - p.lower) / 2)
                or inside_problem(value, low, high))

    def illustration(self, query: Query, rows: float) -> Illustration:
        p = params(query)
        lo, hi = p.lower, p.upper
        if lo is None or hi is None:  # not a valid plan; draw around 0
            return AT_ZERO
        top = (hi - lo) / 2
        return (top / 2, (0.0, top), (0.0, top),
                "at half the largest standard deviation the bounds allow")

    def value_words(self, column: str) -> str:
        return f"standard deviation of {column}"

    def released_span(self, lower: float | None, upper: float | None
                      ) -> tuple[float, float] | None:
        if lower is None or upper is None:
            return None
        return 0.0, (upper - lower) / 2

    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        return (moments_meaning(confidence)
                + " A standard deviation is the square root of a noised variance; its "
                  "interval is the square roots of the variance's interval.")

    # --- the app's form: a variance's fields ------------------------------------------------
