"""Issue 22 part 3: the ± box beside ε always shows the core's accuracy for the ε the plan
holds now, whichever way ε changed (slider, ε box, the budget's split, undo/redo, the
smallest ε for a target), even while the ± box keeps the keyboard focus; a new plan leaves
no old plan's ε or ± on the Statistic tab."""

from __future__ import annotations

import math

import pytest
from PySide6.QtWidgets import QTableWidgetItem

from planner_app.core.dp.accuracy import shown_half_width
from planner_app.core.kinds.shared_dp import accuracy_for, measurements_for
from planner_app.core.planning.starters import empty_plan

STATISTIC_TAB, BUDGET_TAB = 1, 2


def _expected(window) -> float:  # type: ignore[no-untyped-def]
    """The independent answer: the core's accuracy of the selected statistic as the plan
    now holds it (not the session's cache)."""
    plan = window.session.plan
    q = plan.query(window.session.selected)
    acc = accuracy_for(q, plan, window.session.confidence, measurements_for(q, plan))
    shown = shown_half_width(acc)
    assert shown is not None and math.isfinite(shown)
    return shown


def _shown(window) -> float:  # type: ignore[no-untyped-def]
    return float(window.statistic_pane.accuracy.text())


def _focus_accuracy(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """A person typed a target into the ± box and pressed Enter: the focus stays there."""
    pane = window.statistic_pane
    window.show_tab(STATISTIC_TAB)
    window.activateWindow()
    pane.accuracy.setFocus()
    qtbot.waitUntil(pane.accuracy.hasFocus, timeout=5_000)
    pane.accuracy.setText(f"{_shown(window) * 1.5:.6g}")
    pane.accuracy.setModified(True)
    pane.accuracy.editingFinished.emit()  # Enter: ε found for the target
    assert pane.accuracy.hasFocus()


def _check(window, eps: float | None = None) -> None:  # type: ignore[no-untyped-def]
    q = window.session.selected_query
    if eps is not None:
        assert q.epsilon == pytest.approx(eps, rel=1e-5)
    assert window.statistic_pane.spin.value() == pytest.approx(q.epsilon, abs=1e-4)
    assert _shown(window) == pytest.approx(_expected(window), rel=1e-5)


def test_the_box_follows_the_epsilon_box(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    _focus_accuracy(qtbot, demo)
    for eps in (6.5, 8.0):
        demo.statistic_pane.spin.setValue(eps)  # typed, then Enter
        demo.statistic_pane.spin.setModified(True)
        demo.statistic_pane.spin.editingFinished.emit()
        _check(demo, eps)


def test_the_box_follows_the_slider(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    _focus_accuracy(qtbot, demo)
    demo.statistic_pane.slider.setValue(900)
    _check(demo)


def test_the_box_follows_undo_and_redo(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    _focus_accuracy(qtbot, demo)
    demo.session.set_epsilon(demo.session.selected, 6.5)
    _check(demo, 6.5)
    demo.menus.undo_action.trigger()
    _check(demo)
    demo.menus.redo_action.trigger()
    _check(demo, 6.5)


def test_the_box_follows_the_split(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    _focus_accuracy(qtbot, demo)
    before = demo.session.selected_query.epsilon
    demo.session.set_budget(epsilon=demo.session.plan.budget.epsilon * 3)
    demo.budget_pane.split_even.click()
    assert demo.session.selected_query.epsilon != pytest.approx(before)
    _check(demo)


def test_the_box_follows_the_smallest_epsilon(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    _focus_accuracy(qtbot, demo)
    pane, plan = demo.budget_pane, demo.session.plan
    row = [q.id for q in plan.queries].index(demo.session.selected)
    target = _expected(demo) / 2
    pane.table.setItem(row, 3, QTableWidgetItem(f"{target:.6g}"))
    assert pane.targets() == {demo.session.selected: pytest.approx(target)}
    pane.solve.click()
    pane.use.click()
    _check(demo)
    assert _shown(demo) <= target * (1 + 1e-6)


def test_a_new_plan_leaves_no_old_numbers(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    pane = demo.statistic_pane
    demo.session.set_epsilon(demo.session.selected, 6.5)
    assert pane.accuracy.text()
    demo.session.load_plan(empty_plan("other", None, ()), None, saved=False)
    assert demo.session.selected_query is None
    assert pane.accuracy.text() == ""
    assert not pane.spin.isEnabled()
    assert pane.spin.text() == ""
    assert pane.accuracy_unit.text() == ""
    assert pane.sentence.text() == ""
