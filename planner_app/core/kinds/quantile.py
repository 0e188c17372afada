"""The statistic kind ``quantile``: a quantile of a bounded numeric column, by the exponential
mechanism."""

from __future__ import annotations

import math
from typing import Any

from ..dp.accuracy import Accuracy, expected_count, number_field, quantile_work_refusal
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, rank_component
from ..model import Plan, PrivacyUnit, Query
from ..model.grid import QUANTILE_GRID_BITS
from ..model.reader import FieldReader
from ..model.rules import quantile_problem
from ..support.words import format_number
from .base import StatisticKind
from .shared_data import AggregateDescription, GridStepCounts
from .shared_plan import bounds_to_dict


class Quantile(StatisticKind):
    name = "quantile"
    title = "Quantile"

    # --- plan fields -----------------------------------------------------------------------

    bounded = True

    def read_quantile(self, r: FieldReader) -> float | None:
        quantile = r.number("quantile")
        assert quantile is not None
        problem = quantile_problem(quantile)
        if problem:
            r.fail("quantile", problem)
        return quantile

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        out = bounds_to_dict(query)
        if query.quantile is not None:
            out["quantile"] = query.quantile
        return out

    # --- DP ----------------------------------------------------------------------------------

    grid_bits = QUANTILE_GRID_BITS
    accuracy_unit = "rank"

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        return [rank_component(query, unit, relation, self.cell_count(query))]

    def sampler_refusal(self, query: Query, rows: int | None) -> str | None:
        return quantile_work_refusal(self.grid(query).points, rows)

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        n = expected_count(query, plan)
        m = measurements[0]
        points = self.grid(query).points
        ranks = ((2 * m.component.l1 / m.epsilon)
                 * (math.log(points) + math.log(1 / (1 - confidence))) + 1)
        # percentiles need this statistic's own row count: the table's (or an even share of it
        # per group) says nothing about how many rows a filter or a group keeps
        if query.expected_count is None and (query.where or query.group_by is not None):
            n = None
        note = "rank error"
        if n is not None:
            note += f" (about {format_number(100 * ranks / n)}% of {format_number(n)} rows)"
        return Accuracy(confidence, ranks, "rank", note, rows=n)

    def possible_range(self, query: Query,
                       acc: Accuracy | dict[str, Any]) -> tuple[float, str] | None:
        rows = number_field(acc, "rows")
        return (rows, "the whole data") if rows else None

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        assert query.column is not None and query.lower is not None \
            and query.upper is not None
        return GridStepCounts(query.column, float(query.lower), float(query.upper),
                              self.grid(query))

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
