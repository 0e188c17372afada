"""A synthetic table's columns, each with its declared domain (edited in the domain panel's
fields: the selected column's), and the rows to generate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ....core.kinds.params import synth_rows_of
from ....core.kinds.registry import make_query
from ....core.kinds.synthetic import synthetic_to_dict
from ....core.model import Query, SynthColumn
from .common import name_controls, number
from .domain import DomainPanel


class SyntheticPanel:
    def __init__(self, domain: DomainPanel, column: QComboBox) -> None:
        self._domain = domain  # the selected column's domain is edited there
        self._column = column  # and its name in the form's column box
        synth = QHBoxLayout()
        synth.setContentsMargins(0, 0, 0, 0)
        self.synth_list = QListWidget()
        self.synth_list.setMaximumHeight(110)
        buttons = QVBoxLayout()
        self.synth_add = QPushButton("Add a column")
        self.synth_remove = QPushButton("Remove the column")
        buttons.addWidget(self.synth_add)
        buttons.addWidget(self.synth_remove)
        buttons.addStretch(1)
        synth.addWidget(self.synth_list, 1)
        synth.addLayout(buttons)
        self.synth_row = QWidget()
        self.synth_row.setLayout(synth)
        self.synth_row.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.synth_rows = QLineEdit()
        self.synth_rows.setPlaceholderText("empty: as many as the noised counts say (no extra "
                                           "budget)")
        self.columns: list[dict[str, Any]] = []  # the plan JSON of each column, as typed
        self.at = -1  # the column shown in the domain's fields
        self.loading = False  # the fields are being filled from a column or the plan
        name_controls({
            self.synth_list: ("Columns of the synthetic table", "Each column with its declared "
                                                                "categories or bins; select one "
                                                                "to edit it below"),
            self.synth_add: ("Add a column", "Add a column of the table to the synthetic table"),
            self.synth_remove: ("Remove the column", "Leave the selected column out of the "
                                                     "synthetic table"),
            self.synth_rows: ("Rows to generate", "The rows of the synthetic table; empty: as "
                                                  "many as the noised counts say"),
        })

    def add_rows(self, form: QFormLayout) -> None:
        form.addRow("Columns of the table", self.synth_row)

    def add_more_rows(self, form: QFormLayout) -> None:
        # a synthetic table's own settings sit with its noise, below the columns' lists
        form.addRow("Rows to generate", self.synth_rows)

    def load(self, q: Query) -> None:
        columns: Any = synthetic_to_dict(q)["columns"]
        self.columns = [dict(c) for c in columns]
        rows = synth_rows_of(q)
        if rows is not None:
            self.synth_rows.setText(str(rows))
        self.at = -1
        self.refresh(0)

    def has(self, key: str) -> bool:
        """Some column declares ``key`` (categories or bins)."""
        return any(key in c for c in self.columns)

    def entry(self) -> dict[str, Any]:
        """The selected column's plan JSON as the domain's fields show it."""
        entry: dict[str, Any] = {"column": self._column.currentText().strip()}
        self._domain.write(entry)
        return entry

    @staticmethod
    def words(entry: dict[str, Any]) -> str:
        if "bins" in entry:
            n = max(len(entry["bins"]) - 1, 0)
            return f"{entry['column'] or '(no column)'} — {n} bin{'s' * (n != 1)}"
        n = len(entry.get("categories") or ())
        return f"{entry['column'] or '(no column)'} — {n} categor{'ies' if n != 1 else 'y'}"

    def store(self) -> None:
        """Keep the fields' edits in the selected column."""
        if self.loading or not 0 <= self.at < len(self.columns):
            return
        entry = self.entry()
        self.columns[self.at] = entry
        item = self.synth_list.item(self.at)
        if item is not None:
            item.setText(self.words(entry))

    def show(self, index: int) -> None:
        """Fill the domain's fields with column ``index``'s."""
        self.loading = True
        try:
            entry = self.columns[index]
            self._column.setCurrentText(entry["column"])
            self._domain.show_entry(entry)
        finally:
            self.loading = False

    def refresh(self, select: int) -> None:
        self.synth_list.blockSignals(True)
        self.synth_list.clear()
        for entry in self.columns:
            self.synth_list.addItem(self.words(entry))
        self.synth_list.blockSignals(False)
        self.at = -1
        if self.columns:
            self.synth_list.setCurrentRow(min(max(select, 0), len(self.columns) - 1))
        self.synth_remove.setEnabled(len(self.columns) > 1)

    def selected(self, row: int) -> None:
        self.store()
        self.at = row
        if 0 <= row < len(self.columns):
            self.show(row)

    def add_column(self, free: Callable[[set[str]], list[str]]) -> None:
        """A new column: the first of ``free(taken)`` (the table's columns not yet in it), with
        an empty list of categories to declare."""
        self.store()
        names = free({c["column"] for c in self.columns})
        self.columns.append({"column": names[0] if names else "", "categories": []})
        self.refresh(len(self.columns) - 1)

    def remove_column(self) -> None:
        at = self.synth_list.currentRow()
        if len(self.columns) > 1 and 0 <= at < len(self.columns):
            del self.columns[at]
            self.refresh(at)

    def write(self, doc: dict[str, Any]) -> None:
        """The columns and rows of the table's plan JSON into ``doc``."""
        doc["columns"] = [dict(c) for c in self.columns]

    def write_rows(self, doc: dict[str, Any]) -> None:
        rows = number(self.synth_rows.text())
        if rows is not None:
            doc["rows"] = rows

    def draft(self) -> Query:
        """The table as typed (its complete columns), checked by the core's rules as check
        and the release check it: copied_from_data and the table rule."""
        columns = []
        for c in self.columns:
            bins: list[Any] = c.get("bins") or []
            if not c.get("column"):
                continue
            if "categories" in c:
                columns.append(SynthColumn(c["column"], categories=tuple(c["categories"])))
            elif len(bins) > 1 and all(isinstance(b, (int, float)) for b in bins):
                columns.append(SynthColumn(c["column"], bins=tuple(float(b) for b in bins)))
        return make_query("synthetic", id="draft", epsilon=1.0, delta=1e-6,
                          columns=tuple(columns))
