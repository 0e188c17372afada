"""The statistic kind ``mean``: mean of a bounded numeric column."""

from __future__ import annotations

from .base import StatisticKind
from .shared_form import BOUNDS, rows_fields


class Mean(StatisticKind):
    name = "mean"
    title = "Mean"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.name) | {BOUNDS}
