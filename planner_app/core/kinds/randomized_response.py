"""The statistic kind ``randomized_response``: the share of yes answers, each answer noised on
its own (the local model)."""

from __future__ import annotations

from .base import StatisticKind
from .shared_form import SHARE_HINT, YES_NO, rows_fields


class RandomizedResponse(StatisticKind):
    name = "randomized_response"
    title = "Randomized response"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.name) | {YES_NO, SHARE_HINT}
