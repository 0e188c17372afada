"""A bounded scalar's public bounds (sum, mean, variance, quantile)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QLineEdit, QWidget

from ....core.kinds.params import bounds_of
from ....core.model import Query
from .common import name_controls, number


class BoundsPanel:
    def __init__(self) -> None:
        bounds = QHBoxLayout()
        bounds.setContentsMargins(0, 0, 0, 0)  # the row's own margins squeezed the fields
        self.lower = QLineEdit()
        self.upper = QLineEdit()
        self.lower.setPlaceholderText("lowest possible value")
        self.upper.setPlaceholderText("highest possible value")
        bounds.addWidget(self.lower)
        bounds.addWidget(QLabel("to"))
        bounds.addWidget(self.upper)
        self.bounds_row = QWidget()
        self.bounds_row.setLayout(bounds)
        name_controls({
            self.lower: ("Lower bound", "The lowest value possible, from knowledge of the data"),
            self.upper: ("Upper bound", "The highest value possible, from knowledge of the "
                                        "data"),
        })

    def add_rows(self, form: QFormLayout) -> None:
        form.addRow("Bounds", self.bounds_row)

    def load(self, q: Query) -> None:
        bounds = bounds_of(q)
        if bounds is not None:
            self.lower.setText(f"{bounds[0]:g}")
            self.upper.setText(f"{bounds[1]:g}")

    def write(self, doc: dict[str, Any]) -> None:
        doc["lower"] = number(self.lower.text())
        doc["upper"] = number(self.upper.text())
