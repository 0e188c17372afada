"""The statistic kind ``quantile``: a quantile of a bounded numeric column, by the exponential
mechanism."""

from __future__ import annotations

from .base import StatisticKind


class Quantile(StatisticKind):
    name = "quantile"
    title = "Quantile"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
