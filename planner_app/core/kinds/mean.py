"""The statistic kind ``mean``: mean of a bounded numeric column."""

from __future__ import annotations

from typing import Any

from ..dp.accuracy import NEEDS_ROWS, Accuracy, expected_count, rows_basis
from ..dp.intervals import mean_half_width, mean_parts_on
from ..dp.measure import Measurement
from ..dp.sensitivity import Component
from ..model import Plan, PrivacyUnit, Query
from .base import StatisticKind
from .shared_data import AggregateDescription, GridSums
from .shared_plan import bounds_to_dict


class Mean(StatisticKind):
    name = "mean"
    title = "Mean"

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
        if query.lower is None or query.upper is None:
            return None
        return query.upper - query.lower, f"{query.lower:g} to {query.upper:g}"

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        assert query.column is not None and query.lower is not None \
            and query.upper is not None
        return GridSums(query.column, float(query.lower), float(query.upper),
                        self.grid(query), parts=("count", "sum"), centred=True)

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
