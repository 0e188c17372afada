"""The statistic kind ``sum``: sum of a bounded numeric column."""

from __future__ import annotations

from .base import StatisticKind


class Sum(StatisticKind):
    name = "sum"
    title = "Sum"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
