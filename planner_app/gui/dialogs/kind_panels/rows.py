"""The rows a statistic reads: group-by with its public keys, conditions ("only rows
where…"), and what a missing or unreadable cell does (the kind says which it takes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from ....core.model import OPS, GroupBy, Query
from ...widgets.form_fields import column_box
from .common import NONE, lines, name_controls, number


class RowsPanel:
    def __init__(self, columns: Callable[[], list[str]], edited: Callable[..., None]) -> None:
        self._columns = columns  # the table's columns, as the session has them now
        self._edited = edited  # a condition's column or operator was changed
        group = QHBoxLayout()
        self.group_column = QComboBox()
        self.group_keys = QPlainTextEdit()
        self.group_keys.setPlaceholderText("One group key per line, the full public list")
        self.group_keys.setMaximumHeight(90)
        self.group_keys.setMinimumHeight(self.group_keys.fontMetrics().lineSpacing() * 3 + 14)
        group.addWidget(self.group_column, 0, Qt.AlignmentFlag.AlignTop)
        group.addWidget(self.group_keys, 1)
        self.group_layout = group

        self.conditions_box = QGroupBox("Only rows where… (all must hold)")
        cond_layout = QVBoxLayout(self.conditions_box)
        self.conditions = QTableWidget(0, 3)
        self.conditions.setHorizontalHeaderLabels(["Column", "Operator", "Value"])
        self.conditions.setMaximumHeight(110)
        self.conditions.horizontalHeader().setStretchLastSection(True)
        cond_buttons = QHBoxLayout()
        add_cond = QPushButton("Add condition")
        remove_cond = QPushButton("Remove condition")
        cond_buttons.addWidget(add_cond)
        cond_buttons.addWidget(remove_cond)
        cond_buttons.addStretch(1)
        cond_layout.addWidget(self.conditions)
        cond_layout.addLayout(cond_buttons)
        # clicked passes its checked flag: never let it stand for the column's name
        add_cond.clicked.connect(lambda: self.add_condition())
        remove_cond.clicked.connect(lambda: self.conditions.removeRow(
            self.conditions.currentRow()))

        missing = QHBoxLayout()
        self.missing = QComboBox()
        self.missing.addItems(["Leave the row out", "Use this value:"])
        self.impute = QLineEdit()
        missing.addWidget(self.missing)
        missing.addWidget(self.impute, 1)
        self.impute.setEnabled(False)  # only with "Use this value:"
        self.missing.currentIndexChanged.connect(
            lambda i: self.impute.setEnabled(i == 1))
        self.missing_layout = missing
        self.group_column.addItems([NONE, *columns()])
        name_controls({
            self.group_column: ("Group by column", "Publish the statistic for each group"),
            self.group_keys: ("Group keys", "The full public list of groups, one per line"),
            self.conditions: ("Conditions", "Only rows where all conditions hold"),
            self.missing: ("Missing values", "Leave rows with a missing value out, or use a "
                                             "value"),
            self.impute: ("Value for missing cells", "Used when the cell is missing"),
        })

    def add_group_rows(self, form: QFormLayout) -> None:
        form.addRow("Group by", self.group_layout)

    def add_missing_rows(self, form: QFormLayout) -> None:
        form.addRow("Missing or unreadable cells", self.missing_layout)

    def add_condition(self, column: str = "", op: str = "==", value: str = "") -> None:
        row = self.conditions.rowCount()
        self.conditions.insertRow(row)
        col = column_box(self._columns())
        if column:
            col.setCurrentText(column)
        ops = QComboBox()
        ops.addItems(OPS)
        ops.setCurrentText(op)
        for box in (col, ops):
            box.activated.connect(self._edited)
            box.editTextChanged.connect(self._edited)
        self.conditions.setCellWidget(row, 0, col)
        self.conditions.setCellWidget(row, 1, ops)
        self.conditions.setItem(row, 2, QTableWidgetItem(value))

    def load(self, q: Query) -> None:
        if q.group_by is not None:
            self.group_column.setCurrentText(q.group_by.column)
            self.group_keys.setPlainText("\n".join(str(k) for k in q.group_by.keys))
        for c in q.where:
            value = ", ".join(str(v) for v in c.value) if c.op == "in" else str(c.value)
            self.add_condition(c.column, c.op, value)
        if q.missing.policy == "impute":
            self.missing.setCurrentIndex(1)
            self.impute.setText(str(q.missing.value))

    def grouped(self) -> bool:
        """A group column is chosen (the kind must take group_by too)."""
        return self.group_column.currentText() not in ("", NONE)

    def group_by(self) -> GroupBy:
        return GroupBy(self.group_column.currentText(),
                       tuple(lines(self.group_keys.toPlainText())))

    def write_groups(self, doc: dict[str, Any]) -> None:
        doc["group_by"] = {"column": self.group_column.currentText(),
                           "keys": lines(self.group_keys.toPlainText())}

    def where(self) -> list[dict[str, Any]]:
        """The conditions' plan JSON, as typed."""
        where = []
        for row in range(self.conditions.rowCount()):
            col_box = self.conditions.cellWidget(row, 0)
            op_box = self.conditions.cellWidget(row, 1)
            if not isinstance(col_box, QComboBox) or not isinstance(op_box, QComboBox):
                continue  # a row without its choices holds no condition
            col, op = col_box.currentText(), op_box.currentText()
            item = self.conditions.item(row, 2)
            text = item.text() if item is not None else ""
            value: Any = [number(v) for v in text.split(",") if v.strip()] if op == "in" \
                else number(text)
            where.append({"column": col, "op": op, "value": value})
        return where

    def write_missing(self, doc: dict[str, Any]) -> None:
        if self.missing.currentIndex() == 1:
            doc["missing"] = {"impute": number(self.impute.text())}
