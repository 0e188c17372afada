"""The statistic kind ``count``: count of rows or of people."""

from __future__ import annotations

from dataclasses import replace

from ..model.plan import Query
from ..support.words import count_words
from .base import StatisticKind
from .shared_form import COUNT_COLUMN_LABEL, COUNT_OF, ONE_STATISTIC, FormWords, rows_fields


class Count(StatisticKind):
    name = "count"
    title = "Count"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.name) | {COUNT_OF}

    def form_words(self) -> FormWords:
        return replace(ONE_STATISTIC, column_label=COUNT_COLUMN_LABEL)

    def list_name(self, query: Query) -> str:
        """Which rows it counts (the list's tooltip says it in full)."""
        if query.of == "people":
            return "Count of people"
        return "Count of rows" if query.column is None or query.missing.policy == "impute" \
            else f"Count, {query.column} present"

    def pane_heading(self, query: Query, id_column: str | None,
                     rows_per_unit: int) -> tuple[str, str | None]:
        return (count_words(query.column, query.missing.policy == "impute", id_column,
                            rows_per_unit, query.of == "people"), None)
