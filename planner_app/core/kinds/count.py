"""The statistic kind ``count``: count of rows or of people."""

from __future__ import annotations

from .base import StatisticKind


class Count(StatisticKind):
    name = "count"
    title = "Count"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
