"""The statistic kind ``quantile``: a quantile of a bounded numeric column, by the exponential
mechanism."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..dp.accuracy import (
    Accuracy,
    expected_count,
    number_field,
    quantile_words,
    quantile_work_refusal,
)
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, rank_component
from ..model import Plan, PrivacyUnit, Query
from ..model.grid import QUANTILE_GRID_BITS
from ..model.reader import FieldReader
from ..model.rules import quantile_problem
from ..support.words import confidence_percent, format_number
from .base import StatisticKind
from .params import QuantileParams, bounds_of, params_of
from .results import Aggregate, QueryRelease

if TYPE_CHECKING:
    import numpy as np
from .shared_data import AggregateDescription, GridStepCounts
from .shared_form import BOUNDS, QUANTILE, rows_fields
from .shared_plan import bounds_to_dict
from .shared_release import (
    NoiseDraw,
    ValueRows,
    bounded_missing_words,
    grid_point_problem,
)


def params(query: Query) -> QuantileParams:
    """The statistic's own fields, typed (shared_plan.QuantileParams)."""
    return params_of(query, QuantileParams)


class Quantile(StatisticKind):
    name = "quantile"
    params_type = QuantileParams
    own_keys = ("lower", "upper", "grid_step", "quantile")
    title = "Quantile"
    words = "quantile"
    mechanisms = ("exponential",)
    asks_expected_count = True

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
        p = params(query)
        out = bounds_to_dict(query)
        if p.quantile is not None:
            out["quantile"] = p.quantile
        return out

    # --- DP ----------------------------------------------------------------------------------

    grid_bits = QUANTILE_GRID_BITS
    accuracy_unit = "rank"

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        return [rank_component(query, unit, relation, self.cell_count(query),
                               bounds_of(query) or (0.0, 0.0))]

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
        p = params(query)
        assert query.column is not None and p.lower is not None \
            and p.upper is not None
        return GridStepCounts(query.column, float(p.lower), float(p.upper),
                              self.grid(query))

    # --- planning and release ----------------------------------------------------------------
    gives_interval = False

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        from ..dp.mechanisms import exponential_quantile  # the sampler (numpy), at release

        p = params(query)
        m = ms[0]
        grid = self.grid(query)
        assert p.quantile is not None
        rows = ValueRows(query, aggregate, draw.confidence)
        per_cell: list[tuple[np.ndarray | None, tuple[np.ndarray, np.ndarray] | None]]
        if aggregate.step_counts is not None:  # an engine's counts per grid step
            per_cell = [(None, sc) for sc in aggregate.step_counts]
        else:
            assert aggregate.sorted_values is not None
            per_cell = [(sv, None) for sv in aggregate.sorted_values]
        for i, (sorted_steps, step_counts) in enumerate(per_cell):
            point = exponential_quantile(draw.source, sorted_steps, grid.lo, grid.hi,
                                         p.quantile, m.epsilon, m.component.l1,
                                         step_counts)
            rows.add(i, float(point * grid.step), None, None, "exponential",
                     "interval not given in value units: see the rank accuracy")
        return QueryRelease(query.id, rows.values)

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        p = params(query)
        assert p.lower is not None and p.upper is not None
        return grid_point_problem(value, p.lower, p.upper, self.grid(query).step)

    def missing_words(self, query: Query) -> list[str]:
        return bounded_missing_words(query)

    def released_span(self, lower: float | None, upper: float | None
                      ) -> tuple[float, float] | None:
        return (lower, upper) if lower is not None and upper is not None else None

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        p = params(query)
        level = p.quantile
        return [quantile_words(accuracy, level)] if level is not None else []

    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        level = params(query).quantile if query is not None else None
        acc = record_query["accuracy"]
        hw: Any = acc.get("half_width")
        return ("The value is a grid point chosen by the exponential mechanism. "
                + (quantile_words(acc, level) if level is not None else
                   f"With {confidence_percent(confidence)} confidence its rank is within "
                   f"about {format_number(hw)} of the target rank."))

    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.not_taken, self.asks_expected_count) | {BOUNDS, QUANTILE}

    def pane_accuracy_note(self, query: Query, acc: Accuracy) -> str:
        """In percentiles of the data: "the released median lies between the 45th and …"."""
        p = params(query)
        level = p.quantile
        return acc.note if level is None else quantile_words(acc, level)
