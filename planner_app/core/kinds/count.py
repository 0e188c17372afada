"""The statistic kind ``count``: count of rows or of people."""

from __future__ import annotations

from ..model import Query
from .base import StatisticKind
from .shared_data import AggregateDescription, RowCounts


class Count(StatisticKind):
    name = "count"
    title = "Count"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        return RowCounts(present_in=query.column, people=query.of == "people")

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
