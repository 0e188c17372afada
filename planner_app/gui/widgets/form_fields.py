"""Two pieces every form uses so that it never changes what was typed and never moves under
the cursor: a number field kept exactly as typed (a spin box clamps out-of-range input to its
range when it loses focus, silently; the form's rule refuses it instead), and a note area of a
fixed height (a hint or a warning that appears while typing moves no field and no button)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QComboBox, QFrame, QLabel, QLineEdit, QScrollArea, QWidget

RED = "color: #c0392b;"
AMBER = "color: #b9770e;"


def typed_number(text: str) -> Any:
    """The number typed (an int when written as one), None when empty, the text itself when
    it is not a number (the plan's validation then says "must be a number")."""
    text = text.strip()
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        return text
    if not math.isfinite(value):
        return text
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() \
        else value


def number_text(value: float) -> str:
    """``value`` as a field shows it, exactly (the shortest text that reads back the same)."""
    if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


class NumberField(QLineEdit):
    """A number kept as typed: nothing is clamped or rounded; ``value()`` is what was typed
    (see ``typed_number``) and the form's rule (the core's) decides whether it is allowed."""

    def __init__(self, value: float | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        if value is not None:
            self.setValue(value)

    def value(self) -> Any:
        return typed_number(self.text())

    def setValue(self, value: float) -> None:  # noqa: N802  (as a spin box is set)
        self.setText(number_text(value))


def number_problem(name: str, text: str, rule: Callable[[float], str | None],
                   empty: str | None = None) -> str | None:
    """The red line for a typed number (``name``: the control's label) or None when the core's
    ``rule`` allows it; empty text is allowed when ``empty`` is None, else refused with it."""
    value = typed_number(text)
    if value is None:
        return f"{name}: {empty}" if empty else None
    if isinstance(value, str):
        return f"{name}: must be a number, not “{value}”"
    problem = rule(value)
    return f"{name}: {problem}" if problem else None


class NoteArea(QScrollArea):
    """A note (hint, warning, refusal) in a space of ``lines`` lines reserved whether or not it
    has text: what it says never moves a field or a button; a longer note scrolls."""

    def __init__(self, lines: int, style: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if style:
            self.label.setStyleSheet(style)
        self.setWidget(self.label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # no background of its own: an empty note is the panel it sits on, not a grey bar
        # (its space stays reserved, so nothing moves when a note appears)
        self.setAutoFillBackground(False)
        self.viewport().setAutoFillBackground(False)
        self.label.setAutoFillBackground(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFixedHeight(self.fontMetrics().lineSpacing() * lines + 4)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    def text(self) -> str:
        return self.label.text()

    def setText(self, text: str) -> None:  # noqa: N802  (as a label is set)
        self.label.setText(text)


class _SelectAllOnFocus(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.FocusIn and isinstance(watched, QComboBox):
            line = watched.lineEdit()  # the box holds the focus and passes it on to its text
            if line is not None:  # after the click that gave the focus placed the cursor
                QTimer.singleShot(0, line.selectAll)
        return False


def column_box(names: list[str] | None = None) -> QComboBox:
    """An editable box of column names whose text is selected when it takes the focus: what
    is typed replaces the name shown (typed after it, "member_no" became "member_noincome").
    It stays editable for a plan whose table is not open (no names to choose from)."""
    box = QComboBox()
    box.setEditable(True)
    box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    if names:
        box.addItems(names)
    box.installEventFilter(_SelectAllOnFocus(box))
    return box
