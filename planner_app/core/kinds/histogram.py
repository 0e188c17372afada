"""The statistic kind ``histogram``: counts per declared category or bin."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..dp.accuracy import Accuracy, measurement_half_width
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, describe_rows
from ..model import Plan, PrivacyUnit, Query
from ..model.plan import MAX_LIST, Scalar
from ..model.reader import FieldReader, as_number
from ..model.values import canonical_key
from .base import StatisticKind
from .params import CellsParams, params_of
from .results import Aggregate, QueryRelease
from .shared_data import AggregateDescription, BinCounts, CategoryCounts
from .shared_form import DOMAIN, rows_fields
from .shared_release import (
    Illustration,
    NoiseDraw,
    count_release,
    count_value_problem,
    missing_cell_words,
    plan_number,
)


def params(query: Query) -> CellsParams:
    """The statistic's own fields, typed (shared_plan.CellsParams)."""
    return params_of(query, CellsParams)


class Histogram(StatisticKind):
    name = "histogram"
    adds_up_as = "count"
    cells_without_group_by = True
    params_type = CellsParams
    own_keys = ("categories", "bins")
    title = "Histogram"
    words = "histogram"

    # --- plan fields -----------------------------------------------------------------------

    def read_cells(self, r: FieldReader) -> tuple[tuple[Scalar, ...] | None,
                                                  tuple[float, ...] | None]:
        """Its public categories or its bin edges (exactly one of them)."""
        if r.has("categories") == r.has("bins"):
            r.fail(None, "a histogram needs exactly one of categories (a public list) or bins")
        if r.has("categories"):
            return r.scalars("categories", "categories"), None
        raw = r.obj["bins"]
        if not isinstance(raw, list) or len(raw) < 2:
            r.fail("bins", "must be a list of at least two bin edges")
        if len(raw) > MAX_LIST:
            r.fail("bins", f"has {len(raw)} edges; at most {MAX_LIST:,} are allowed")
        edges = [as_number(v, lambda p, i=i: r.fail(f"bins[{i}]", p))
                 for i, v in enumerate(raw)]
        for i in range(1, len(edges)):
            if not edges[i] > edges[i - 1]:
                r.fail(f"bins[{i}]", "bin edges must increase strictly")
        return None, tuple(edges)

    def read_impute(self, r: FieldReader, value: Scalar, got: Mapping[str, Any]) -> Scalar:
        """A bin's number, or one of the declared categories."""
        categories, bins = got["categories"], got["bins"]
        if bins is not None:
            value = as_number(value, lambda p: r.fail("missing.impute", p))
        if categories is not None:
            if canonical_key(value) not in {canonical_key(c) for c in categories}:
                r.fail("missing.impute", "must be one of the declared categories")
        return value

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        p = params(query)
        out: dict[str, Any] = {}
        if p.categories is not None:
            out["categories"] = list(p.categories)
        if p.bins is not None:
            out["bins"] = list(p.bins)
        return out

    # --- DP ----------------------------------------------------------------------------------

    accuracy_unit = "count"
    rows_outside_cells = True

    def value_cells(self, query: Query) -> int:
        p = params(query)
        return len(p.categories) if p.categories is not None else len(p.bins or ()) - 1

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        p = params(query)
        if p.categories is not None:
            what = f"counts of {query.column} over {len(p.categories)} declared categories"
        else:
            what = f"counts of {query.column} over {len(p.bins or ()) - 1} bins"
        return [self.row_component("cells", 1, 1, 1.0, query, unit, relation,
                                   what + describe_rows(query))]

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        hw = measurement_half_width(measurements[0], confidence)
        return Accuracy(confidence, float(hw), "count", "per cell")

    # --- data ----------------------------------------------------------------------------------

    def inner_labels(self, query: Query) -> list[Any]:
        return self.aggregate_of(query).inner_labels()

    def reads_numbers(self, query: Query) -> bool:
        p = params(query)
        return p.categories is None  # bins of a numeric column

    def aggregate_of(self, query: Query) -> AggregateDescription:
        p = params(query)
        assert query.column is not None
        if p.categories is not None:
            return CategoryCounts(query.column, p.categories)
        return BinCounts(query.column, tuple(p.bins or ()))

    # --- planning and release ----------------------------------------------------------------
    always_bars = True
    illustrated_by_rows = True

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        return count_release(query, aggregate, ms, draw, "cells")

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        return count_value_problem(value, low, high, half)

    def missing_words(self, query: Query) -> list[str]:
        p = params(query)
        assert query.column is not None
        parts = [missing_cell_words(query, query.column, p.bins is not None)]
        if p.categories is not None:
            parts.append(f"a value of {query.column} not among the categories is left out")
        else:
            edges = list(p.bins or ())
            parts.append(f"a value of {query.column} below {plan_number(edges[0])} or above "
                         f"{plan_number(edges[-1])} is left out (not clamped)")
        return parts

    def illustrative_per_cell(self, query: Query, per_group: float) -> float:
        p = params(query)
        inner = len(p.categories or ()) or max(len(p.bins or ()) - 1, 1)
        return per_group / inner

    def illustration(self, query: Query, rows: float) -> Illustration:
        return rows, None, (0.0, 2 * rows), f"at {rows:,.0f} rows"

    def released_value_words(self, column: str) -> str:
        return "people or rows"


    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.not_taken, self.asks_expected_count) | {DOMAIN}
