"""The rows a mean's, variance's, quantile's or share's ± is computed from (the plan's
expected_count): a public guess, kept as typed; the core's rule (model.expected_count_problem)
refuses it at OK, named by this label."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

from ....core.model import Query
from ....core.support.words import (
    EXPECTED_COUNT_GROUP_LABEL,
    EXPECTED_COUNT_HELP,
    EXPECTED_COUNT_LABEL,
)
from ...widgets.form_fields import NumberField


class ExpectedCountPanel:
    def __init__(self) -> None:
        self.expected_count_row = QWidget()
        counted = QVBoxLayout(self.expected_count_row)
        counted.setContentsMargins(0, 0, 0, 0)
        self.expected_count = NumberField()
        self.expected_count.setPlaceholderText("not stated: the table's rows (Data tab)")
        chars = self.expected_count_row.fontMetrics().averageCharWidth()
        self.expected_count.setMaximumWidth(chars * 42)
        self.expected_count.setAccessibleName(EXPECTED_COUNT_LABEL)
        self.expected_count.setToolTip(EXPECTED_COUNT_HELP)
        self.expected_count_help = QLabel(EXPECTED_COUNT_HELP)
        self.expected_count_help.setWordWrap(True)
        # wraps to the form's width: never widens the fields past the dialog's edge
        self.expected_count_help.setMinimumWidth(chars * 20)
        counted.addWidget(self.expected_count)
        counted.addWidget(self.expected_count_help)

    def add_rows(self, form: QFormLayout) -> None:
        form.addRow(EXPECTED_COUNT_LABEL, self.expected_count_row)

    def load(self, q: Query) -> None:
        if q.expected_count is not None:
            self.expected_count.setValue(q.expected_count)

    def write(self, doc: dict[str, Any]) -> None:
        if self.expected_count.value() is not None:
            doc["expected_count"] = self.expected_count.value()

    def show_label(self, form: QFormLayout, grouped: bool) -> None:
        """A group-by's ± is for its smallest group."""
        label = form.labelForField(self.expected_count_row)
        if isinstance(label, QLabel):
            label.setText(EXPECTED_COUNT_GROUP_LABEL if grouped else EXPECTED_COUNT_LABEL)
