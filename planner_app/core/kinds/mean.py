"""The statistic kind ``mean``: mean of a bounded numeric column."""

from __future__ import annotations

from typing import Any

from ..dp.accuracy import NEEDS_ROWS, Accuracy, expected_count, rows_basis
from ..dp.intervals import mean_half_width, mean_interval, mean_parts_on
from ..dp.measure import Measurement
from ..dp.sensitivity import Component
from ..model import Plan, PrivacyUnit, Query
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


class Mean(StatisticKind):
    name = "mean"
    params_type = BoundedParams
    own_keys = ("lower", "upper", "grid_step")
    title = "Mean"
    words = "mean"
    asks_expected_count = True

    # --- plan fields -----------------------------------------------------------------------

    bounded = True

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        return bounds_to_dict(query)

    # --- DP ----------------------------------------------------------------------------------

    accuracy_needs_rows = True

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        return self.centred_components(query, unit, relation)

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        n = expected_count(query, plan)
        grid = self.grid(query)
        if n is None:
            return Accuracy(confidence, None, "value", NEEDS_ROWS)
        parts = mean_parts_on(grid, measurements)
        cap = (grid.hi - grid.lo) * grid.step
        return Accuracy(confidence, min(mean_half_width(parts, n, 1 - confidence), cap),
                        "value", f"guaranteed bound for {rows_basis(query, plan, n)}")

    def possible_range(self, query: Query,
                       acc: Accuracy | dict[str, Any]) -> tuple[float, str] | None:
        p = params(query)
        if p.lower is None or p.upper is None:
            return None
        assert p.lower is not None and p.upper is not None
        return p.upper - p.lower, f"{p.lower:g} to {p.upper:g}"

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        p = params(query)
        assert query.column is not None and p.lower is not None \
            and p.upper is not None
        return GridSums(query.column, float(p.lower), float(p.upper),
                        self.grid(query), parts=("count", "sum"), centred=True)

    # --- planning and release ----------------------------------------------------------------
    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        # post-processing of a noisy (centred) sum and a noisy count; the interval comes
        # from the exact pivot of intervals.py
        p = params(query)
        noisy, cells = moment_cells(self.grid(query), query, aggregate, ms, draw)
        grid = self.grid(query)
        assert p.lower is not None and p.upper is not None
        centre = grid.centre * grid.step
        alpha = 1 - draw.confidence
        parts = mean_parts_on(self.grid(query), ms)
        mechanism = next(m.mechanism for m in ms if m.mechanism != "none")
        rows = ValueRows(query, aggregate, draw.confidence)
        for c in cells:
            value = snap(min(p.upper, max(p.lower, centre + c.mean_c)),
                         grid.step)
            a, b = mean_interval(parts, float(noisy["sum"][c.i]), c.n_noisy, alpha)
            low = min(value, max(p.lower, snap_down(centre + a, grid.step)))
            high = max(value, min(p.upper, snap_up(centre + b, grid.step)))
            rows.add(c.i, value, low, high, mechanism,
                     c.note or "kept within the declared bounds (post-processing)")
        return QueryRelease(query.id, rows.values)

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        p = params(query)
        assert p.lower is not None and p.upper is not None
        return (range_problem(value, p.lower, p.upper)
                or inside_problem(value, low, high))

    def missing_words(self, query: Query) -> list[str]:
        return bounded_missing_words(query)

    def illustration(self, query: Query, rows: float) -> Illustration:
        p = params(query)
        lo, hi = p.lower, p.upper
        if lo is None or hi is None:  # not a valid plan; draw around 0
            return AT_ZERO
        return (lo + hi) / 2, (lo, hi), (lo, hi), "at the middle of the bounds"

    def released_span(self, lower: float | None, upper: float | None
                      ) -> tuple[float, float] | None:
        return (lower, upper) if lower is not None and upper is not None else None

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        return row_count_lines(accuracy)


    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        return moments_meaning(confidence)

    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.not_taken, self.asks_expected_count) | {BOUNDS}
