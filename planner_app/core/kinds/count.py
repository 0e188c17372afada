"""The statistic kind ``count``: count of rows or of people."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..dp.accuracy import Accuracy, measurement_half_width
from ..dp.measure import Measurement
from ..dp.sensitivity import Component, describe_rows, people_component, present_text
from ..model import Plan, PrivacyUnit, Query
from ..model.reader import FieldReader
from ..support.words import count_words
from . import shared_form as form
from .base import StatisticKind
from .params import CountParams, params_of
from .results import Aggregate, QueryRelease
from .shared_data import AggregateDescription, RowCounts
from .shared_form import COUNT_COLUMN_LABEL, ONE_STATISTIC, FormWords, rows_fields
from .shared_release import (
    Illustration,
    NoiseDraw,
    count_release,
    count_value_problem,
)

# what a count counts: its rows, or its people (the distinct ids of an id unit; a person
# counts once in a cell if any of their kept rows is in it)
COUNT_OF = ("rows", "people")


def params(query: Query) -> CountParams:
    """The statistic's own fields, typed (shared_plan.CountParams)."""
    return params_of(query, CountParams)


class Count(StatisticKind):
    name = "count"
    adds_up_as = "count"
    params_type = CountParams
    own_keys = ("of",)
    title = "Count"
    words = "count"
    needs_column = False

    # --- plan fields -----------------------------------------------------------------------

    def read_of(self, r: FieldReader) -> str:
        of = r.choice("of", COUNT_OF, default="rows")
        assert of is not None
        return of

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        p = params(query)
        return {"of": p.of} if p.of != "rows" else {}

    def unit_problem(self, unit: PrivacyUnit, query: Query) -> tuple[str, str] | None:
        p = params(query)
        if p.of == "people" and unit.kind != "person":
            return (f"queries[{query.id}].of", "counts people by the unit's id column: it "
                    'needs a privacy_unit of kind "person" with an id_column')
        return None

    # --- DP ----------------------------------------------------------------------------------

    accuracy_unit = "count"

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        p = params(query)
        if p.of == "people":
            return [people_component(query, unit, relation, self.cell_count(query))]
        what = f"count of rows{present_text(query)}{describe_rows(query)}"
        return [self.row_component("count", 1, 1, 1.0, query, unit, relation, what)]

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        hw = measurement_half_width(measurements[0], confidence)
        return Accuracy(confidence, float(hw), "count", "per cell" if query.group_by else "")

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        p = params(query)
        return RowCounts(present_in=query.column, people=p.of == "people")

    # --- planning and release ----------------------------------------------------------------
    illustrated_by_rows = True
    line_from_zero = True

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        return count_release(query, aggregate, ms, draw, "count")

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        return count_value_problem(value, low, high, half)

    def missing_words(self, query: Query) -> list[str]:
        if query.column is None:
            return ["no column's value is read, so no cell can be missing"]
        if query.missing.policy == "impute":
            return [f"a row with an empty {query.column} cell is counted too"]
        return [f"a row with an empty {query.column} cell (or NA, NULL…) is not counted"]

    def illustration(self, query: Query, rows: float) -> Illustration:
        return rows, None, (0.0, 2 * rows), f"at {rows:,.0f} rows"

    def released_value_words(self, column: str) -> str:
        return "people or rows"

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        return []

    def describe(self, column: str | None, kind_name: str, imputed: bool = False,
                 id_column: str | None = None, max_rows: int = 1, people: bool = False) -> str:
        return count_words(column, imputed, id_column, max_rows, people)


    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.not_taken, self.asks_expected_count) | {form.COUNT_OF}

    def form_words(self) -> FormWords:
        return replace(ONE_STATISTIC, column_label=COUNT_COLUMN_LABEL)

    def list_name(self, query: Query) -> str:
        """Which rows it counts (the list's tooltip says it in full)."""
        p = params(query)
        if p.of == "people":
            return "Count of people"
        return "Count of rows" if query.column is None or query.missing.policy == "impute" \
            else f"Count, {query.column} present"

    def pane_heading(self, query: Query, id_column: str | None,
                     rows_per_unit: int) -> tuple[str, str | None]:
        p = params(query)
        return (count_words(query.column, query.missing.policy == "impute", id_column,
                            rows_per_unit, p.of == "people"), None)
