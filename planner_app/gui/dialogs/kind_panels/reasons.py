"""Where the public parameters come from: the reason for the bounds or bin edges, the reason
for a list (categories, group keys, yes/no values) and its declaration that the list is
public (core readiness asks for them). Their words follow the kind (``form_words()``: one
statistic's, or a synthetic table's for all its columns)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QLineEdit

from ....core.kinds.params import answers_declared
from ....core.kinds.shared_form import FormWords
from ....core.model import Query
from .common import name_controls


class ReasonsPanel:
    def __init__(self) -> None:
        self.bounds_reason = QLineEdit()
        self.list_reason = QLineEdit()
        self.declare = QCheckBox()
        name_controls({
            self.bounds_reason: ("Reason for the bounds", "Where the bounds come from"),
            self.list_reason: ("Reason for the list", "Where the list comes from"),
            self.declare: ("Declare the list public", "Confirm the list comes from knowledge "
                                                      "of the domain, not from this data"),
        })

    def add_bounds_row(self, form: QFormLayout) -> None:
        # the reason sits under what it explains: the bounds (the rows between are hidden
        # then) or the bin edges
        form.addRow("Why these bounds", self.bounds_reason)

    def add_list_rows(self, form: QFormLayout) -> None:
        form.addRow("Why this list", self.list_reason)
        form.addRow("", self.declare)

    def load(self, q: Query) -> None:
        j = q.justification or {}
        self.bounds_reason.setText(j.get("bounds", ""))
        self.list_reason.setText(j.get("categories", "") or j.get("keys", "")
                                 or j.get("values", ""))
        self.declare.setChecked(bool(j.get("categories") or j.get("keys") or j.get("values")
                                     or answers_declared(q)))

    def show_words(self, form: QFormLayout, words: FormWords, bins: bool) -> None:
        """The kind's words; ``bins``: the reason is the bin edges' (they need one too)."""
        reason_label = form.labelForField(self.bounds_reason)
        if isinstance(reason_label, QLabel):
            reason_label.setText(words.bins_reason_label if bins else words.bounds_reason_label)
        self.bounds_reason.setPlaceholderText(words.bins_reason_placeholder if bins
                                              else words.bounds_reason_placeholder)
        list_label = form.labelForField(self.list_reason)
        if isinstance(list_label, QLabel):
            list_label.setText(words.list_reason_label)
        self.declare.setText(words.declare)
        self.list_reason.setToolTip(words.list_reason_tip)
        self.bounds_reason.setToolTip(words.bounds_reason_tip)

    def enable_list(self, has_list: bool) -> None:
        """The list's reason and declaration stay in place, usable only with a list."""
        self.list_reason.setEnabled(has_list)
        self.declare.setEnabled(has_list)
        self.list_reason.setPlaceholderText(
            "Where does the list come from? e.g. the official list of regions" if has_list
            else "Only for a list: categories, group keys or yes / no values")

    def bounds(self) -> str:
        return self.bounds_reason.text().strip()

    def declared_list(self) -> str:
        """The list's reason, kept only with the declaration ticked ("" otherwise)."""
        reason = self.list_reason.text().strip()
        return reason if self.declare.isChecked() else ""

    def state(self) -> tuple[Any, ...]:
        return (self.bounds_reason.text(), self.list_reason.text(), self.declare.isChecked())
