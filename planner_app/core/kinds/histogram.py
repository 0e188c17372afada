"""The statistic kind ``histogram``: counts per declared category or bin."""

from __future__ import annotations

from ..model import Query
from .base import StatisticKind
from .shared_data import AggregateDescription, BinCounts, CategoryCounts


class Histogram(StatisticKind):
    name = "histogram"
    title = "Histogram"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        assert query.column is not None
        if query.categories is not None:
            return CategoryCounts(query.column, query.categories)
        return BinCounts(query.column, tuple(query.bins or ()))

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
