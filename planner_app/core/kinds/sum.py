"""The statistic kind ``sum``: sum of a bounded numeric column."""

from __future__ import annotations

from ..dp.sensitivity import grid_for
from ..model import Query
from .base import StatisticKind
from .shared_data import AggregateDescription, GridSums


class Sum(StatisticKind):
    name = "sum"
    title = "Sum"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        assert query.column is not None and query.lower is not None \
            and query.upper is not None
        return GridSums(query.column, float(query.lower), float(query.upper),
                        grid_for(query), parts=("sum",), centred=False)

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
