"""The Statistic tab's ε, the rows per person and the people in a group are kept as typed:
outside the core's range they are refused with a red line naming the field and the range,
and the plan (or the sentences) keep their value (issue 22: spin boxes clamped on focus-out,
silently, or dropped the keystroke)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from planner_app.core.model import MAX_EPSILON, MAX_ROWS_PER_PERSON


def _epsilon(window: Any) -> tuple[Any, str, str, Callable[[Any], object]]:
    return (window.statistic_pane, "spin", "epsilon_error",
            lambda w: w.session.selected_query.epsilon)


def _group(window: Any) -> tuple[Any, str, str, Callable[[Any], object]]:
    return window.risk_pane, "group", "group_error", lambda w: w.risk_pane.group_text.text()


def _rows(window: Any) -> tuple[Any, str, str, Callable[[Any], object]]:
    return window.data_pane, "max_rows", "max_rows_error", lambda w: w.session.plan.privacy_unit


# (the pane, what is typed, the message's start, the allowed range in it)
REFUSED = [
    (_epsilon, "1500", "ε: ", f"above 0 and at most {MAX_EPSILON:g}"),
    (_epsilon, "0", "ε: ", f"above 0 and at most {MAX_EPSILON:g}"),
    (_epsilon, "0.5x", "ε: ", "must be a number"),
    (_group, "51", "People in a group: ", "between 1 and 50"),
    (_group, "0", "People in a group: ", "between 1 and 50"),
    (_group, "2.5", "People in a group: ", "whole number"),
    (_rows, "2000000", "Rows per person: ", f"between 1 and {MAX_ROWS_PER_PERSON:,}"),
    (_rows, "0", "Rows per person: ", f"between 1 and {MAX_ROWS_PER_PERSON:,}"),
    (_rows, "2.5", "Rows per person: ", "whole number"),
]


def _type(qtbot: Any, field: QLineEdit, text: str) -> None:
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    field.clearFocus()  # a spin box clamps when it loses focus


@pytest.mark.parametrize(("pane_of", "typed", "start", "allowed"), REFUSED)
def test_a_number_out_of_range_is_refused_as_typed(  # type: ignore[no-untyped-def]
        demo, qtbot, pane_of, typed: str, start: str, allowed: str) -> None:
    pane, field, message, value_of = pane_of(demo)
    demo.tabs.setCurrentWidget(pane)
    before = value_of(demo)
    box = getattr(pane, field)
    _type(qtbot, box, typed)
    assert box.text() == typed  # kept as typed, not clamped, no keystroke dropped
    assert value_of(demo) == before  # the plan (the sentences) keep their value
    shown = getattr(pane, message).text()
    assert shown.startswith(start) and allowed in shown, shown


def test_an_allowed_number_is_used(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Below the old box's smallest step (0.0001), a group of 3, 7 rows per person."""
    _type(qtbot, demo.statistic_pane.spin, "0.00005")
    assert demo.session.selected_query.epsilon == 0.00005
    assert demo.statistic_pane.epsilon_error.text() == ""
    demo.tabs.setCurrentWidget(demo.risk_pane)
    _type(qtbot, demo.risk_pane.group, "3")
    assert "3" in demo.risk_pane.group_text.text()
    assert demo.risk_pane.group_error.text() == ""
    demo.tabs.setCurrentWidget(demo.data_pane)
    _type(qtbot, demo.data_pane.max_rows, "7")
    assert demo.session.plan.privacy_unit.max_rows == 7
    assert demo.data_pane.max_rows_unit.text() == "rows"
    assert demo.data_pane.max_rows_error.text() == ""
    _type(qtbot, demo.data_pane.max_rows, "1")
    assert demo.session.plan.privacy_unit.max_rows == 1
    assert demo.data_pane.max_rows_unit.text() == "row"
