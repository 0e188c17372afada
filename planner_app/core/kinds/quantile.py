"""The statistic kind ``quantile``: a quantile of a bounded numeric column, by the exponential
mechanism."""

from __future__ import annotations

from ..dp.accuracy import Accuracy, quantile_words
from ..model.plan import Query
from .base import StatisticKind
from .shared_form import BOUNDS, QUANTILE, rows_fields


class Quantile(StatisticKind):
    name = "quantile"
    title = "Quantile"

    # --- plan fields -----------------------------------------------------------------------

    # --- DP ----------------------------------------------------------------------------------

    # --- data ----------------------------------------------------------------------------------

    # --- planning and release ----------------------------------------------------------------

    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return rows_fields(self.name) | {BOUNDS, QUANTILE}

    def pane_accuracy_note(self, query: Query, acc: Accuracy) -> str:
        """In percentiles of the data: "the released median lies between the 45th and …"."""
        return acc.note if query.quantile is None else quantile_words(acc, query.quantile)
