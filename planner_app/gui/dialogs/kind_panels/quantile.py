"""A quantile's level."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFormLayout

from ....core.kinds.params import quantile_level
from ....core.model import Query
from ...widgets.form_fields import NumberField
from .common import name_controls


class QuantilePanel:
    def __init__(self) -> None:
        # kept as typed: the plan's rule refuses a level outside [0, 1] (a spin box clamped
        # 1.5 to 1, the median silently became the maximum)
        self.quantile = NumberField(0.5)
        self.quantile.setPlaceholderText("from 0 to 1: 0.5 is the median, 0.9 the 90th "
                                         "percentile")
        name_controls({self.quantile: ("Quantile level", "From 0 to 1: 0.5 is the median")})

    def add_rows(self, form: QFormLayout) -> None:
        form.addRow("Quantile level", self.quantile)

    def load(self, q: Query) -> None:
        level = quantile_level(q)
        if level is not None:
            self.quantile.setValue(level)

    def write(self, doc: dict[str, Any]) -> None:
        doc["quantile"] = self.quantile.value()
