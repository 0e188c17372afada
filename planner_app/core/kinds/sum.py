"""The statistic kind ``sum``: sum of a bounded numeric column."""

from __future__ import annotations

from typing import Any

from ..dp.accuracy import Accuracy, measurement_half_width
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, bounds_text, describe_rows
from ..model import Plan, PrivacyUnit, Query
from .base import StatisticKind
from .shared_data import AggregateDescription, GridSums
from .shared_plan import bounds_to_dict


class Sum(StatisticKind):
    name = "sum"
    title = "Sum"

    # --- plan fields -----------------------------------------------------------------------

    bounded = True

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        return bounds_to_dict(query)

    # --- DP ----------------------------------------------------------------------------------

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        grid = self.grid(query)
        what = f"sum of {bounds_text(query)}{describe_rows(query)}"
        return [self.row_component("sum", grid.lo, grid.hi, grid.step, query, unit, relation,
                                   what)]

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        m = measurements[0]
        hw = measurement_half_width(m, confidence) * m.component.step
        return Accuracy(confidence, hw, "value", "per group" if query.group_by else "")

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        assert query.column is not None and query.lower is not None \
            and query.upper is not None
        return GridSums(query.column, float(query.lower), float(query.upper),
                        self.grid(query), parts=("sum",), centred=False)

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
