"""The statistic kind ``variance``: variance of a bounded numeric column."""

from __future__ import annotations

from typing import Any

from ..dp.accuracy import format_half_width
from ..dp.intervals import mean_parts, variance_interval
from ..dp.measure import Measurement
from ..dp.sensitivity import grid_for
from ..model import Plan, Query
from ..support.words import squared_unit_words
from .base import StatisticKind
from .results import Aggregate, QueryRelease
from .shared_release import (
    AT_ZERO,
    Illustration,
    NoiseDraw,
    ValueRows,
    bounded_missing_words,
    inside_problem,
    moment_cells,
    moments_meaning,
    range_problem,
    row_count_lines,
    snap,
    snap_down,
    snap_up,
)


class Variance(StatisticKind):
    name = "variance"
    title = "Variance"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------
    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        # post-processing of noisy centred sums (of values and their squares) and a noisy
        # count; the interval comes from the exact pivot of intervals.py
        noisy, cells = moment_cells(query, aggregate, ms, draw)
        grid = grid_for(query)
        assert query.lower is not None and query.upper is not None
        radius = grid.radius * grid.step
        alpha = 1 - draw.confidence
        parts = mean_parts(query, ms)
        mechanism = next(m.mechanism for m in ms if m.mechanism != "none")
        rows = ValueRows(query, aggregate, draw.confidence)
        sq_step = grid.step * grid.step
        for c in cells:
            s2 = float(noisy["sumsq"][c.i]) * sq_step
            var = min(radius * radius, max(0.0, s2 / c.n_pos - c.mean_c * c.mean_c))
            value = snap(var, sq_step)
            a, b = variance_interval(parts, float(noisy["sum"][c.i]),
                                     float(noisy["sumsq"][c.i]), c.n_noisy, alpha)
            low = min(value, max(0.0, snap_down(a, sq_step)))
            high = max(value, min(snap(radius * radius, sq_step), snap_up(b, sq_step)))
            rows.add(c.i, value, low, high, mechanism,
                     c.note or "kept within [0, ((upper-lower)/2)^2] (post-processing)")
        return QueryRelease(query.id, rows.values)

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        assert query.lower is not None and query.upper is not None
        return (range_problem(value, 0.0, ((query.upper - query.lower) / 2) ** 2)
                or inside_problem(value, low, high))

    def missing_words(self, query: Query) -> list[str]:
        return bounded_missing_words(query)

    def illustration(self, query: Query, rows: float) -> Illustration:
        lo, hi = query.lower, query.upper
        if lo is None or hi is None:  # not a valid plan; draw around 0
            return AT_ZERO
        top = (hi - lo) ** 2 / 4
        return top / 2, (0.0, top), (0.0, top), "at half the largest variance the bounds allow"

    def value_words(self, column: str) -> str:
        return f"variance of {column} (squared units)"

    def released_span(self, lower: float | None, upper: float | None
                      ) -> tuple[float, float] | None:
        if lower is None or upper is None:
            return None
        return 0.0, (upper - lower) ** 2 / 4

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        return row_count_lines(accuracy)


    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        # its accuracy too is in the column's unit squared
        return (moments_meaning(confidence)
                + f" A variance is in {squared_unit_words(record_query.get('column'))}: "
                  f"so is its interval, {format_half_width(record_query['accuracy'])}.")

    # --- the app's form ------------------------------------------------------------------------
