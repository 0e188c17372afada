"""The GUI reads and shows each statistic in one unit, flags useless statistics and shows
quantile accuracy in words; screenshots for a look."""

from __future__ import annotations

import math

from PySide6.QtWidgets import QTableWidgetItem

from planner_app.core.kinds.shared_dp import accuracy_for

from .conftest import SHOTS


def points(plan, qid: str) -> float:  # type: ignore[no-untyped-def]
    return 100 * accuracy_for(plan.query(qid), plan).half_width


def test_a_share_target_typed_in_points(demo) -> None:  # type: ignore[no-untyped-def]
    session, pane = demo.session, demo.statistic_pane
    session.select("smokers")
    assert pane.accuracy_unit.text() == "percentage points"
    shown = float(pane.accuracy.text())
    assert shown == pytest_approx(points(session.plan, "smokers"))
    pane.accuracy.setText("10")
    pane.accuracy.setModified(True)
    pane.accuracy.editingFinished.emit()
    got = points(session.plan, "smokers")
    assert got <= 10 + 1e-9 and got > 9  # ± 10 points, not ± 994
    # the goal solver reads the same unit
    budget = demo.budget_pane
    row = [q.id for q in session.plan.queries].index("smokers")
    budget.table.setItem(row, 3, QTableWidgetItem("5"))
    budget.solve.click()
    budget.use.click()
    got = points(session.plan, "smokers")
    assert got <= 5 + 1e-9 and got > 4.5


def pytest_approx(x: float):  # type: ignore[no-untyped-def]
    import pytest

    return pytest.approx(x, rel=1e-5)


def test_useless_statistics_and_quantile_words(demo) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    session.set_epsilon("smokers", 0.02)
    session.select("income_median")
    pane = demo.statistic_pane
    assert "between the 45th and 55th percentile of the data" in pane.accuracy_note.text()
    assert pane.accuracy_unit.text() == "percentiles of the data"
    from planner_app.gui.models import StatisticsModel

    model = StatisticsModel(session)
    row = [q.id for q in session.plan.queries].index("smokers")
    text = model.data(model.index(row, 3))
    # a ± past the 0-100% range is said so (walk 2, finding 19), not as "± 323.4 points"
    assert "± over 100 points" in text and text.startswith("⚠")
    from PySide6.QtCore import Qt

    assert "says almost nothing" in model.data(model.index(row, 3), Qt.ItemDataRole.ToolTipRole)
    q_row = [q.id for q in session.plan.queries].index("income_median")
    assert "percentiles" in model.data(model.index(q_row, 3))
    SHOTS.mkdir(parents=True, exist_ok=True)
    demo.tabs.setCurrentWidget(pane)
    demo.grab().save(str(SHOTS / "50-words-quantile.png"))
    session.select("smokers")
    assert "says almost nothing" in pane.accuracy_note.text()
    demo.grab().save(str(SHOTS / "51-words-useless.png"))
    from planner_app.gui.dialogs.release_wizard import statistic_notes

    notes = statistic_notes(session)
    title = session.plan.query("smokers").title
    assert any(n.startswith(f"{title}: this statistic says almost nothing") for n in notes)
    assert math.isfinite(session.total().epsilon)


def test_risk_pane_reads_large_epsilon_with_enough_digits(demo) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    for q in session.plan.queries:
        session.set_epsilon(q.id, 8.0 if q.id == "responses" else 0.0001)
    risk = demo.risk_pane
    demo.tabs.setCurrentWidget(risk)
    risk.scope.setCurrentIndex(1)
    session.select("responses")
    risk.refresh()
    assert "99.967%" in risk.sentence.text()  # 1 - 1/(1 + e^8) = 99.9665%, rounded up
    assert "99.9%" not in risk.sentence.text()
    demo.grab().save(str(SHOTS / "52-words-risk.png"))


def test_the_wizard_checklist_names_a_useless_statistic(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    demo.session.set_epsilon("smokers", 0.02)
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    text = wizard.checklist.notes.text()
    title = demo.session.plan.query("smokers").title
    assert f"⚠ {title}: this statistic says almost nothing" in text
    wizard.grab().save(str(SHOTS / "53-words-wizard.png"))


def test_risk_pane_delta_sentence(demo) -> None:  # type: ignore[no-untyped-def]
    risk = demo.risk_pane
    demo.tabs.setCurrentWidget(risk)
    risk.scope.setCurrentIndex(0)  # the whole release: δ = 1e-06
    risk.refresh()
    text = risk.delta_text.text()
    assert "does not mean the bounds of ε alone fail only with a chance of δ" in text
    # the headline states the bound that holds with δ, in the same sentence
    assert "except with a chance of at most 1 in 500,000" in risk.sentence.text()
    demo.grab().save(str(SHOTS / "54-words-delta.png"))


def test_the_wizard_checklist_reads_the_stated_rows_not_the_tables(  # type: ignore[no-untyped-def]
        demo, qtbot, monkeypatch) -> None:
    """Issue 24: the quantile's work rule reads the plan's public dataset.expected_rows, as
    the release does, never the open table's own row count (3,808 rows in the demo table)."""
    import planner_app.core.dp.mechanisms as mech

    monkeypatch.setattr(mech, "MAX_QUANTILE_WORK", 4_001)  # at most 2,000 rows on a fine grid
    session = demo.session
    session.set_dataset(expected_rows=1_000)  # stated: 2,001 runs, within the limit
    title = session.plan.query("income_median").title
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    assert f"{title}: the quantile grid" not in wizard.checklist.notes.text()
    wizard.close()
    session.set_dataset(expected_rows=None)  # not stated: only the grid counts
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    text = wizard.checklist.notes.text()
    assert (f"⚠ {title}: the quantile grid has 6,251 points; the release can only run on a "
            "table of at most 2,000 rows: state “About how many rows (Data tab)”") in text
    wizard.grab().save(str(SHOTS / "55-words-wizard-quantile-rows.png"))
