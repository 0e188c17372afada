"""What the statistic form's panels share: reading typed lists and numbers, naming controls
for screen readers, showing a form row with its label."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtWidgets import QFormLayout, QWidget

from ...widgets.form_fields import typed_number

NONE = "(none)"  # no group-by column
number = typed_number


def lines(text: str) -> list[Any]:
    """One value a line (numbers as numbers; a whole-number float keeps its typed text)."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            value = number(line)
            out.append(value if not isinstance(value, float) or "." in line else line)
    return out


def name_controls(names: dict[QWidget, tuple[str, str]]) -> None:
    """Accessible names and tooltips for screen readers and for the curious (a tooltip set
    before is kept)."""
    for widget, (name, tip) in names.items():
        widget.setAccessibleName(name)
        if not widget.toolTip():
            widget.setToolTip(tip)


def show_row(forms: Iterable[QFormLayout], widget: QWidget, show: bool) -> None:
    """Show or hide a form row: its field and its label (in whichever form holds it)."""
    widget.setVisible(show)
    for form in forms:
        label = form.labelForField(widget)
        if label is not None:
            label.setVisible(show)
            return
