"""What the editor reuses between slider steps (each statistic's measurements and accuracy,
taken from the last walk when it is the very same statistic) never gives a stale number: after
each edit the total is the one composed from nothing, and every ± the one computed from
nothing, from the plan as it now is."""

from __future__ import annotations

from planner_app.core.dp import accounting
from planner_app.core.kinds.shared_dp import accuracy_for, measurements_for
from planner_app.core.model import Plan
from planner_app.gui.main_window import MainWindow


def _fresh_total(plan: Plan) -> accounting.Total:
    """The plan's total from measurements made again and a new composition tree: nothing of
    the session's caches (the tree's totals do not depend on what it composed before)."""
    ms = [m for q in plan.queries for m in measurements_for(q, plan)]
    saved = accounting._TREE
    accounting._TREE = accounting.PldTree()
    try:
        return accounting.compose(ms, plan.budget.delta, plan.budget.accountant)
    finally:
        accounting._TREE = saved


def _check(window: MainWindow) -> None:
    session = window.session
    plan = session.plan
    assert plan is not None
    assert session.total() == _fresh_total(plan)
    confidence = session.settings.confidence
    shown = session.plans.all_accuracies(plan)  # what the release rules and the list read
    for q in plan.queries:
        fresh = accuracy_for(q, plan, confidence, measurements_for(q, plan))
        assert session.accuracy(q) == fresh
        assert shown[q.id] == fresh


def test_each_edit_gives_the_total_composed_from_nothing(demo: MainWindow) -> None:
    session = demo.session
    plan = session.plan
    assert plan is not None
    first, second = plan.queries[0].id, plan.queries[1].id
    _check(demo)
    for qid, eps in ((first, 0.07), (second, 0.031), (first, 0.2), (first, 0.07)):
        session.set_epsilon(qid, eps)
        assert session.plan.query(qid).epsilon == eps
        _check(demo)
    session.set_confidence(0.9)  # every ± changes, no statistic does
    _check(demo)
    session.undo()
    _check(demo)
    assert demo.session.plans._walked is not None  # the reuse was exercised


def _needs(window: MainWindow) -> list[str]:
    table = window.budget_pane.table
    return [item.text() if (item := table.item(row, 4)) is not None else ""
            for row in range(table.rowCount())]


def test_an_edit_still_empties_the_goals_needs_column(demo: MainWindow) -> None:
    """A slider step no longer walks every row to empty the "Needs" column when nothing is in
    it; when something is (a goal solved, or kept through a refresh), an edit still empties
    it, since the ε found no longer describe the plan."""
    from PySide6.QtWidgets import QTableWidgetItem

    session, pane = demo.session, demo.budget_pane
    plan = session.plan
    assert plan is not None
    row = [q.id for q in plan.queries].index("responses")
    pane.table.setItem(row, 3, QTableWidgetItem("40"))
    pane.solve.click()
    assert _needs(demo)[row]
    session.set_epsilon("income_2025", 0.2)
    assert not any(_needs(demo))
    pane.solve.click()
    assert _needs(demo)[row]
    session.set_held("responses", True)  # a refresh of the table keeps what was found
    assert _needs(demo)[row]
    session.set_epsilon("income_2025", 0.3)
    assert not any(_needs(demo))
