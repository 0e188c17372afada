"""The statistic kind ``sum``: sum of a bounded numeric column."""

from __future__ import annotations

from typing import Any

from ..dp.accuracy import Accuracy, measurement_half_width
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, bounds_text, describe_rows
from ..model import Plan, PrivacyUnit, Query
from .base import StatisticKind
from .params import BoundedParams, params_of
from .results import Aggregate, QueryRelease, ReleasedValues
from .shared_data import AggregateDescription, GridSums
from .shared_form import BOUNDS, rows_fields
from .shared_plan import bounds_to_dict
from .shared_release import (
    AT_ZERO,
    Illustration,
    NoiseDraw,
    ValueRows,
    bounded_missing_words,
    interval_problem,
    noisy_parts,
    on_grid,
    sum_columns,
)


def params(query: Query) -> BoundedParams:
    """The statistic's own fields, typed (shared_plan.BoundedParams)."""
    return params_of(query, BoundedParams)


class Sum(StatisticKind):
    name = "sum"
    adds_up_as = "sum"
    params_type = BoundedParams
    own_keys = ("lower", "upper", "grid_step")
    title = "Sum"
    words = "sum"

    # --- plan fields -----------------------------------------------------------------------

    bounded = True

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        return bounds_to_dict(query)

    # --- DP ----------------------------------------------------------------------------------

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        grid = self.grid(query)
        p = params(query)
        what = f"sum of {bounds_text(query.column, p.lower, p.upper)}{describe_rows(query)}"
        return [self.row_component("sum", grid.lo, grid.hi, grid.step, query, unit, relation,
                                   what)]

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        m = measurements[0]
        hw = measurement_half_width(m, confidence) * m.component.step
        return Accuracy(confidence, hw, "value", "per group" if query.group_by else "")

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        p = params(query)
        assert query.column is not None and p.lower is not None \
            and p.upper is not None
        return GridSums(query.column, float(p.lower), float(p.upper),
                        self.grid(query), parts=("sum",), centred=False)

    # --- planning and release ----------------------------------------------------------------
    illustrated_by_rows = True
    line_from_zero = True

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        noisy = noisy_parts(aggregate, ms, draw.source)
        hws = {m.component.name: measurement_half_width(m, draw.confidence) for m in ms}
        m = ms[0]
        step = m.component.step
        hw = hws["sum"]
        sums = sum_columns(noisy["sum"], hw, step)
        if sums is not None:
            return QueryRelease(query.id, ReleasedValues(query.id, query.title, aggregate.cells,
                                                         *sums, draw.confidence, m.mechanism,
                                                         ""))
        rows = ValueRows(query, aggregate, draw.confidence)
        for i, v in enumerate(noisy["sum"].tolist()):
            rows.add(i, float(v * step), float((v - hw) * step), float((v + hw) * step),
                     m.mechanism)
        return QueryRelease(query.id, rows.values)

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        problem = interval_problem(value, low, high, half)
        if problem is None and not on_grid(value, self.grid(query).step):
            return "the value is not on the query's grid"
        return problem

    def missing_words(self, query: Query) -> list[str]:
        return bounded_missing_words(query)

    def illustration(self, query: Query, rows: float) -> Illustration:
        p = params(query)
        lo, hi = p.lower, p.upper
        if lo is None or hi is None:  # not a valid plan; draw around 0
            return AT_ZERO
        return (rows * (lo + hi) / 2, None, (rows * lo, rows * hi),
                f"as {rows:,.0f} rows at the middle of the bounds")


    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.not_taken, self.asks_expected_count) | {BOUNDS}
