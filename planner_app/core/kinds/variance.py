"""The statistic kind ``variance``: variance of a bounded numeric column."""

from __future__ import annotations

from .base import StatisticKind


class Variance(StatisticKind):
    name = "variance"
    title = "Variance"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
