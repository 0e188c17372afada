"""The statistic kind ``quantile``: a quantile of a bounded numeric column, by the exponential
mechanism."""

from __future__ import annotations

from ..dp.sensitivity import grid_for
from ..model import Query
from .base import StatisticKind
from .shared_data import AggregateDescription, GridStepCounts


class Quantile(StatisticKind):
    name = "quantile"
    title = "Quantile"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        assert query.column is not None and query.lower is not None \
            and query.upper is not None
        return GridStepCounts(query.column, float(query.lower), float(query.upper),
                              grid_for(query))

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
