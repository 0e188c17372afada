"""The statistic kind ``variance``: variance of a bounded numeric column."""

from __future__ import annotations

from typing import Any

from ..dp.accuracy import NEEDS_ROWS, Accuracy, expected_count, format_half_width, rows_basis
from ..dp.intervals import mean_parts_on, variance_half_width, variance_interval
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, describe_rows
from ..model import Plan, PrivacyUnit, Query
from ..support.words import squared_unit_words
from .base import StatisticKind
from .params import BoundedParams, params_of
from .results import Aggregate, QueryRelease
from .shared_data import AggregateDescription, GridSums
from .shared_form import BOUNDS, rows_fields
from .shared_plan import bounds_to_dict
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


def params(query: Query) -> BoundedParams:
    """The statistic's own fields, typed (shared_plan.BoundedParams)."""
    return params_of(query, BoundedParams)


class Variance(StatisticKind):
    name = "variance"
    params_type = BoundedParams
    own_keys = ("lower", "upper", "grid_step")
    title = "Variance"
    words = "variance"
    asks_expected_count = True

    # --- plan fields -----------------------------------------------------------------------

    bounded = True

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        return bounds_to_dict(query)

    # --- DP ----------------------------------------------------------------------------------

    accuracy_unit = "squared"
    accuracy_needs_rows = True

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        grid = self.grid(query)
        r = grid.radius
        return [*self.centred_components(query, unit, relation),
                self.row_component("sumsq", 0, r * r, grid.step * grid.step, query, unit,
                                   relation, "sum of squared distances to the midpoint"
                                             f"{describe_rows(query)}")]

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        n = expected_count(query, plan)
        grid = self.grid(query)
        if n is None:
            return Accuracy(confidence, None, "value", NEEDS_ROWS)
        parts = mean_parts_on(grid, measurements)
        radius = grid.radius * grid.step
        return Accuracy(confidence,
                        min(variance_half_width(parts, n, 1 - confidence), radius * radius),
                        "squared", f"guaranteed bound for {rows_basis(query, plan, n)}")

    def possible_range(self, query: Query,
                       acc: Accuracy | dict[str, Any]) -> tuple[float, str] | None:
        p = params(query)
        if p.lower is None or p.upper is None:
            return None
        top = (p.upper - p.lower) ** 2 / 4
        return top, f"0 to {top:g}, the largest variance its bounds allow"

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        p = params(query)
        assert query.column is not None and p.lower is not None \
            and p.upper is not None
        return GridSums(query.column, float(p.lower), float(p.upper),
                        self.grid(query), parts=("count", "sum", "sumsq"), centred=True)

    # --- planning and release ----------------------------------------------------------------
    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        # post-processing of noisy centred sums (of values and their squares) and a noisy
        # count; the interval comes from the exact pivot of intervals.py
        p = params(query)
        noisy, cells = moment_cells(self.grid(query), query, aggregate, ms, draw)
        grid = self.grid(query)
        assert p.lower is not None and p.upper is not None
        radius = grid.radius * grid.step
        alpha = 1 - draw.confidence
        parts = mean_parts_on(self.grid(query), ms)
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
        p = params(query)
        assert p.lower is not None and p.upper is not None
        return (range_problem(value, 0.0, ((p.upper - p.lower) / 2) ** 2)
                or inside_problem(value, low, high))

    def missing_words(self, query: Query) -> list[str]:
        return bounded_missing_words(query)

    def illustration(self, query: Query, rows: float) -> Illustration:
        p = params(query)
        lo, hi = p.lower, p.upper
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
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.not_taken, self.asks_expected_count) | {BOUNDS}
