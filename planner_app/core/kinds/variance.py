"""The statistic kind ``variance``: variance of a bounded numeric column."""

from __future__ import annotations

from .base import StatisticKind
from .shared_form import BOUNDS, rows_fields


class Variance(StatisticKind):
    name = "variance"
    title = "Variance"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.name) | {BOUNDS}
