"""An undo from the toolbar while a field still has the focus: the field shows the plan's
value again, and leaving the field does not re-apply the undone value (which also lost the
redo step)."""

from __future__ import annotations

import pytest

DATA_TAB, BUDGET_TAB = 0, 2  # the tabs' order, as in test_state.py


def _focus(qtbot, window, widget) -> None:  # type: ignore[no-untyped-def]
    window.activateWindow()
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=5_000)


def test_undo_shows_in_a_focused_row_count(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    demo.show_tab(DATA_TAB)
    pane, session = demo.data_pane, demo.session
    before = session.plan.dataset.expected_rows
    field = pane.expected_rows
    _focus(qtbot, demo, field)
    field.setValue(5000)
    field.editingFinished.emit()  # Enter
    assert session.plan.dataset.expected_rows == 5000
    session.undo()  # the toolbar's Undo: the focus stays in the field
    assert session.plan.dataset.expected_rows == before
    assert field.value() == before
    demo.statistics.setFocus()  # leaving the field
    field.editingFinished.emit()
    assert session.plan.dataset.expected_rows == before
    assert session.can_redo


def test_undo_shows_in_a_focused_delta(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    demo.show_tab(BUDGET_TAB)
    pane, session = demo.budget_pane, demo.session
    before = session.plan.budget.delta
    _focus(qtbot, demo, pane.delta)
    pane.delta.setText("2e-06")
    pane.delta.setModified(True)  # typed
    pane.delta.editingFinished.emit()
    assert session.plan.budget.delta == pytest.approx(2e-6)
    session.undo()
    assert float(pane.delta.text()) == before
    pane.delta.editingFinished.emit()
    assert session.plan.budget.delta == before and session.can_redo
