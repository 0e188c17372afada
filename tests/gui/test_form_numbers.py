"""The budget's ε and δ and the Data tab's row count are kept as typed: outside the core's
range they are refused with a red message naming the field and the range, and the plan keeps
its value (issue 22: spin boxes clamped to their range, or dropped keystrokes, silently)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from planner_app.core.model import MAX_EPSILON, MAX_EXPECTED_ROWS, Plan


def _budget(window: Any) -> tuple[Any, str, Callable[[Plan], object]]:
    return window.budget_pane, "budget_error", lambda p: p.budget


def _rows(window: Any) -> tuple[Any, str, Callable[[Plan], object]]:
    return window.data_pane, "rows_error", lambda p: p.dataset.expected_rows


# (the pane, its field, what is typed, the message's start, the allowed range in it)
REFUSED = [
    (_budget, "epsilon", "0", "Budget ε: ", f"above 0 and at most {MAX_EPSILON:g}"),
    (_budget, "epsilon", "2000", "Budget ε: ", f"above 0 and at most {MAX_EPSILON:g}"),
    (_budget, "delta", "1.5", "Budget δ: ", "[0, 1)"),
    (_budget, "delta", "1e-6x", "Budget δ: ", "must be a number"),
    (_rows, "expected_rows", "3000000000", "About how many rows: ",
     f"between 1 and {MAX_EXPECTED_ROWS:,}"),
    (_rows, "expected_rows", "0", "About how many rows: ", f"between 1 and {MAX_EXPECTED_ROWS:,}"),
]


def _type(qtbot: Any, field: QLineEdit, text: str) -> None:
    field.setFocus()
    field.selectAll()
    if text:
        qtbot.keyClicks(field, text)
    else:
        qtbot.keyClick(field, Qt.Key.Key_Delete)
    qtbot.keyClick(field, Qt.Key.Key_Return)


@pytest.mark.parametrize(("pane_of", "field", "typed", "start", "allowed"), REFUSED)
def test_a_number_out_of_range_is_refused_as_typed(  # type: ignore[no-untyped-def]
        demo, qtbot, pane_of, field: str, typed: str, start: str, allowed: str) -> None:
    pane, _message, value_of = pane_of(demo)
    demo.tabs.setCurrentWidget(pane)
    before = value_of(demo.session.plan)
    box = getattr(pane, field)
    _type(qtbot, box, typed)
    assert box.text() == typed  # kept as typed, not clamped, no keystroke dropped
    assert value_of(demo.session.plan) == before  # the plan keeps its value
    message = getattr(pane, _message).text()
    assert message.startswith(start) and allowed in message, message


def test_an_allowed_number_reaches_the_plan_exactly(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Below a spin box's smallest step (0.001 for the budget) and past its range's digits."""
    _type(qtbot, demo.budget_pane.epsilon, "0.0005")
    assert demo.session.plan.budget.epsilon == 0.0005
    assert demo.budget_pane.budget_error.text() == ""
    _type(qtbot, demo.data_pane.expected_rows, "12,345")  # a thousands separator is allowed
    assert demo.session.plan.dataset.expected_rows == 12345
    _type(qtbot, demo.data_pane.expected_rows, "")  # empty: not stated
    assert demo.session.plan.dataset.expected_rows is None
