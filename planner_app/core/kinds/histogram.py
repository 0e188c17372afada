"""The statistic kind ``histogram``: counts per declared category or bin."""

from __future__ import annotations

from .base import StatisticKind
from .shared_form import DOMAIN, rows_fields


class Histogram(StatisticKind):
    name = "histogram"
    title = "Histogram"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.name) | {DOMAIN}
