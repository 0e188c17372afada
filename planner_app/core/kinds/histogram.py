"""The statistic kind ``histogram``: counts per declared category or bin."""

from __future__ import annotations

from ..dp.measure import Measurement
from ..model import Query
from .base import StatisticKind
from .results import Aggregate, QueryRelease
from .shared_release import (
    Illustration,
    NoiseDraw,
    count_release,
    interval_problem,
    missing_cell_words,
    plan_number,
)


class Histogram(StatisticKind):
    name = "histogram"
    title = "Histogram"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------
    always_bars = True
    illustrated_by_rows = True

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        return count_release(query, aggregate, ms, draw, "cells")

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        problem = interval_problem(value, low, high, half)
        if problem is None and not float(value).is_integer():
            return "a count is not a whole number"
        return problem

    def missing_words(self, query: Query) -> list[str]:
        assert query.column is not None
        parts = [missing_cell_words(query, query.column, query.bins is not None)]
        if query.categories is not None:
            parts.append(f"a value of {query.column} not among the categories is left out")
        else:
            edges = list(query.bins or ())
            parts.append(f"a value of {query.column} below {plan_number(edges[0])} or above "
                         f"{plan_number(edges[-1])} is left out (not clamped)")
        return parts

    def illustrative_per_cell(self, query: Query, per_group: float) -> float:
        inner = len(query.categories or ()) or max(len(query.bins or ()) - 1, 1)
        return per_group / inner

    def illustration(self, query: Query, rows: float) -> Illustration:
        return rows, None, (0.0, 2 * rows), f"at {rows:,.0f} rows"

    def released_value_words(self, column: str) -> str:
        return "people or rows"


    # --- the app's form ------------------------------------------------------------------------
