"""The column the statistic is about and, for a count, which rows it counts (all rows, rows
where the column is present, or people: core Query.of)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QHBoxLayout, QLabel, QSizePolicy, QWidget

from ....core.kinds.params import counted_of
from ....core.kinds.shared_form import COUNT_OF
from ....core.model import Query
from ....core.support.words import people_option_words
from ...widgets.form_fields import column_box
from .common import NONE, name_controls


class ColumnPanel:
    def __init__(self) -> None:
        self.column = column_box()
        # a count counts all rows unless the owner wants the rows where a column is present
        self.count_present = QCheckBox("Only rows where")
        self.count_present_tail = QLabel("is present")
        self.count_words = QLabel()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.count_present)
        row.addWidget(self.column, 1)
        row.addWidget(self.count_present_tail)
        self.column_row = QWidget()
        self.column_row.setLayout(row)
        # one line high: spare height goes to the lists below, never around the column's name
        self.column_row.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        # under an id unit: count people (distinct ids) instead of rows (core: Query.of)
        self.count_people = QCheckBox()
        name_controls({
            self.column: ("Column", "The column the statistic is about"),
            self.count_present: ("Count only rows where a column is present",
                                 "Unticked, the count is of all rows (that meet the conditions "
                                 "below). Ticked, only rows where the column has a value."),
        })

    def add_rows(self, form: QFormLayout) -> None:
        form.addRow("Column", self.column_row)
        form.addRow("", self.count_words)
        form.addRow("", self.count_people)

    def load(self, q: Query, fields: frozenset[str]) -> None:
        self.column.setCurrentText(q.column or "")
        self.count_present.setChecked(COUNT_OF in fields and q.column is not None)
        self.count_people.setChecked(COUNT_OF in fields and counted_of(q) == "people")

    def chosen(self, fields: frozenset[str]) -> str | None:
        """The column of the statistic: none for a count of all rows."""
        column = self.column.currentText().strip()
        if not column or column == NONE or (COUNT_OF in fields
                                             and not self.count_present.isChecked()):
            return None
        return column

    def show(self, form: QFormLayout, fields: frozenset[str], id_column: str | None,
             label: str) -> None:
        count = COUNT_OF in fields
        for widget in (self.count_present, self.count_present_tail, self.count_words):
            widget.setVisible(count)
        self.count_people.setVisible(count and id_column is not None)
        if id_column is not None:
            self.count_people.setText(people_option_words(id_column))
        self.column.setEnabled(not count or self.count_present.isChecked())
        row_label = form.labelForField(self.column_row)
        if isinstance(row_label, QLabel):
            row_label.setText(label)
