"""The statistic kind ``histogram``: counts per declared category or bin."""

from __future__ import annotations

from .base import StatisticKind


class Histogram(StatisticKind):
    name = "histogram"
    title = "Histogram"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
