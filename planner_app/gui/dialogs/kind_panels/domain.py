"""A declared domain: the full public list of categories, or numeric bin edges (a histogram;
the selected column of a synthetic table)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QFormLayout, QLineEdit, QPlainTextEdit

from ....core.kinds.params import cells_of
from ....core.model import Query
from .common import lines, name_controls, number


class DomainPanel:
    def __init__(self) -> None:
        self.use_bins = QCheckBox("Numeric bins instead of categories")
        self.categories = QPlainTextEdit()
        self.categories.setPlaceholderText("One category per line, the full public list")
        self.categories.setMaximumHeight(90)
        self.bins = QLineEdit()
        self.bins.setPlaceholderText("Bin edges, e.g. 0, 18, 30, 65, 120")
        name_controls({
            self.use_bins: ("Use numeric bins", "Count values in numeric bins instead of "
                                                "categories"),
            self.categories: ("Categories", "The full public list, one per line"),
            self.bins: ("Bin edges", "Increasing numbers separated by commas"),
        })

    def add_rows(self, form: QFormLayout) -> None:
        form.addRow("", self.use_bins)
        form.addRow("Categories", self.categories)
        form.addRow("Bins", self.bins)

    def load(self, q: Query) -> None:
        cells = cells_of(q)
        if cells is not None and cells.bins is not None:
            self.use_bins.setChecked(True)
            self.bins.setText(", ".join(f"{b:g}" for b in cells.bins))
        if cells is not None and cells.categories is not None:
            self.categories.setPlainText("\n".join(str(c) for c in cells.categories))

    def write(self, doc: dict[str, Any]) -> None:
        """The domain's plan JSON (``bins`` or ``categories``) into ``doc``."""
        if self.use_bins.isChecked():
            doc["bins"] = [number(x) for x in self.bins.text().split(",") if x.strip()]
        else:
            doc["categories"] = lines(self.categories.toPlainText())

    def show_entry(self, entry: dict[str, Any]) -> None:
        """A synthetic table's column's domain in the fields."""
        self.use_bins.setChecked("bins" in entry)
        self.bins.setText(", ".join(
            str(int(b)) if isinstance(b, float) and b.is_integer() else str(b)
            for b in entry.get("bins") or ()))
        self.categories.setPlainText("\n".join(str(c) for c in entry.get("categories") or ()))
