"""The statistic kind ``quantile``: a quantile of a bounded numeric column, by the exponential
mechanism."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dp.accuracy import quantile_words
from ..dp.measure import Measurement
from ..dp.mechanisms import exponential_quantile
from ..dp.sensitivity import grid_for
from ..model import Plan, Query
from ..support.words import confidence_percent, format_number
from .base import StatisticKind
from .results import Aggregate, QueryRelease
from .shared_release import (
    NoiseDraw,
    ValueRows,
    bounded_missing_words,
    on_grid,
    range_problem,
)


class Quantile(StatisticKind):
    name = "quantile"
    title = "Quantile"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------
    gives_interval = False

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        m = ms[0]
        grid = grid_for(query)
        assert query.quantile is not None
        rows = ValueRows(query, aggregate, draw.confidence)
        per_cell: list[tuple[np.ndarray | None, tuple[np.ndarray, np.ndarray] | None]]
        if aggregate.step_counts is not None:  # an engine's counts per grid step
            per_cell = [(None, sc) for sc in aggregate.step_counts]
        else:
            assert aggregate.sorted_values is not None
            per_cell = [(sv, None) for sv in aggregate.sorted_values]
        for i, (sorted_steps, step_counts) in enumerate(per_cell):
            point = exponential_quantile(draw.source, sorted_steps, grid.lo, grid.hi,
                                         query.quantile, m.epsilon, m.component.l1,
                                         step_counts)
            rows.add(i, float(point * grid.step), None, None, "exponential",
                     "interval not given in value units: see the rank accuracy")
        return QueryRelease(query.id, rows.values)

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        assert query.lower is not None and query.upper is not None
        problem = range_problem(value, query.lower, query.upper)
        if problem is None and not on_grid(value, grid_for(query).step):
            return "the value is not on the grid"
        return problem

    def missing_words(self, query: Query) -> list[str]:
        return bounded_missing_words(query)

    def released_span(self, lower: float | None, upper: float | None
                      ) -> tuple[float, float] | None:
        return (lower, upper) if lower is not None and upper is not None else None

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        return [quantile_words(accuracy, query.quantile)] if query.quantile is not None else []


    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        acc = record_query["accuracy"]
        hw: Any = acc.get("half_width")
        return ("The value is a grid point chosen by the exponential mechanism. "
                + (quantile_words(acc, query.quantile) if query is not None and
                   query.quantile is not None else
                   f"With {confidence_percent(confidence)} confidence its rank is within "
                   f"about {format_number(hw)} of the target rank."))

    # --- the app's form ------------------------------------------------------------------------
