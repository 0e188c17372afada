"""The statistic kind ``randomized_response``: the share of yes answers, each answer noised on
its own (the local model)."""

from __future__ import annotations

from ..model import Query
from .base import StatisticKind
from .shared_data import AggregateDescription, YesNoAnswers


class RandomizedResponse(StatisticKind):
    name = "randomized_response"
    title = "Randomized response"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        assert query.column is not None
        return YesNoAnswers(query.column)

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
