"""The statistic kind ``count``: count of rows or of people."""

from __future__ import annotations

from typing import Any

from ..dp.accuracy import Accuracy, measurement_half_width
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, describe_rows, people_component, present_text
from ..model import Plan, PrivacyUnit, Query
from ..model.plan import COUNT_OF
from ..model.reader import FieldReader
from .base import StatisticKind
from .shared_data import AggregateDescription, RowCounts


class Count(StatisticKind):
    name = "count"
    title = "Count"

    # --- plan fields -----------------------------------------------------------------------

    def read_of(self, r: FieldReader) -> str:
        of = r.choice("of", COUNT_OF, default="rows")
        assert of is not None
        return of

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        return {"of": query.of} if query.of != "rows" else {}

    # --- DP ----------------------------------------------------------------------------------

    accuracy_unit = "count"

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        if query.of == "people":
            return [people_component(query, unit, relation, self.cell_count(query))]
        what = f"count of rows{present_text(query)}{describe_rows(query)}"
        return [self.row_component("count", 1, 1, 1.0, query, unit, relation, what)]

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        hw = measurement_half_width(measurements[0], confidence)
        return Accuracy(confidence, float(hw), "count", "per cell" if query.group_by else "")

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        return RowCounts(present_in=query.column, people=query.of == "people")

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
