"""The statistic kind ``mean``: mean of a bounded numeric column."""

from __future__ import annotations

from .base import StatisticKind


class Mean(StatisticKind):
    name = "mean"
    title = "Mean"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
