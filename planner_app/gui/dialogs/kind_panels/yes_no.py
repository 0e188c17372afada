"""A yes/no share's lists: the cell values read as yes and as no, filled from the column's
values on request, with how the column reads as typed (owner-only, never exported)."""

from __future__ import annotations

from typing import Any, Literal

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QWidget

from ....core.kinds.params import answers_of
from ....core.model import FIXED_YES_NO, Query, yes_no
from ....core.support.words import CENTRAL_SHARE_HINT
from ...session import Session
from ...widgets.form_fields import NoteArea
from .common import lines, name_controls


class YesNoPanel:
    def __init__(self) -> None:
        self.kind_help = QLabel(CENTRAL_SHARE_HINT)  # under the kind
        self.kind_help.setWordWrap(True)
        yes_no_row = QHBoxLayout()
        yes_no_row.setContentsMargins(0, 0, 0, 0)
        self.yes_values = QPlainTextEdit()
        self.yes_values.setPlaceholderText("Values that mean yes, one per line")
        self.no_values = QPlainTextEdit()
        self.no_values.setPlaceholderText("Values that mean no, one per line")
        for box in (self.yes_values, self.no_values):
            box.setMaximumHeight(70)
            yes_no_row.addWidget(box, 1)
        self.suggest = QPushButton("Suggest from the data")
        yes_no_row.addWidget(self.suggest, 0, Qt.AlignmentFlag.AlignTop)
        self.yes_no_row = QWidget()
        self.yes_no_row.setLayout(yes_no_row)
        # the hint comes and goes as the lists are typed: its space is kept (the fields
        # below never move under the cursor)
        self.yes_no_hint = NoteArea(3)
        self.other_values: list[str] = []  # the column's values in neither list
        name_controls({
            self.yes_values: ("Values that mean yes", "The cell values read as yes, one per "
                                                      "line (exact text)"),
            self.no_values: ("Values that mean no", "The cell values read as no, one per line "
                                                    "(exact text)"),
            self.suggest: ("Suggest yes and no values", "Fill the lists from the column's "
                                                        "values; you confirm them"),
        })

    def add_help_row(self, form: QFormLayout) -> None:
        form.addRow("", self.kind_help)

    def add_rows(self, form: QFormLayout) -> None:
        form.addRow("Yes / no values", self.yes_no_row)
        form.addRow("", self.yes_no_hint)

    def load(self, q: Query) -> None:
        declared = answers_of(q)
        if declared is not None and declared.yes is not None:
            self.yes_values.setPlainText("\n".join(str(v) for v in declared.yes))
            self.no_values.setPlainText("\n".join(str(v) for v in declared.no or ()))

    def write(self, doc: dict[str, Any]) -> None:
        for key, box in (("yes", self.yes_values), ("no", self.no_values)):
            values = lines(box.toPlainText())
            if values:
                doc[key] = values

    def typed(self, key: Literal["yes", "no"]) -> tuple[Any, ...] | None:
        box = self.yes_values if key == "yes" else self.no_values
        return tuple(lines(box.toPlainText())) or None

    def update_hint(self, column: str, tally: Any) -> None:
        """How the column reads with the lists as typed (owner-only, never exported)."""
        parts = []
        typed = {str(v) for box in (self.yes_values, self.no_values)
                 for v in lines(box.toPlainText())}
        pending = [v for v in self.other_values if v not in typed]
        if pending:
            parts.append(f"Also in {column}: {', '.join(pending)}. Put each "
                         "under yes or no, or leave it out (it then counts as missing); then "
                         "confirm the lists below.")
        elif not self.yes_values.toPlainText().strip():
            parts.append(f"Without lists the column may hold only {FIXED_YES_NO}. Declare the "
                         "values if it uses other codes (such as M and F).")
        if tally is not None and tally.neither and self.yes_values.toPlainText().strip():
            parts.append(f"For you only (never exported): {tally.neither:,} cells are in "
                         "neither list; they count as missing.")
        self.yes_no_hint.setText(" ".join(parts))

    def suggest_from(self, session: Session, column: str) -> Literal["filled", "waiting",
                                                                     "no table"]:
        """Fill the lists from the column's distinct values: the fixed vocabulary goes to its
        list, every other value is named for the owner to place. The owner must confirm."""
        table = session.table
        if table is None or column not in table.columns:
            self.yes_no_hint.setText("Open the table to see the values of this column.")
            return "no table"
        values = session.ask_column_values(column)
        if values is None:  # a large table: read on a worker, filled in when it answers
            self.yes_no_hint.setText(f"Reading the values of {column}…")
            return "waiting"
        self.yes_values.setPlainText("\n".join(v for v in values if yes_no(v) is True))
        self.no_values.setPlainText("\n".join(v for v in values if yes_no(v) is False))
        self.other_values = [v for v in values if yes_no(v) is None]
        return "filled"
