"""Nothing goes stale: every pane shows the session's state after each edit, undo and new plan,
and an edit in one place never resets what another pane holds (issue 11)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidgetItem

from planner_app.core.dp.risk import posterior_max, posterior_min
from planner_app.core.kinds.shared_dp import accuracy_for
from planner_app.core.planning.editing import HARM_PRESETS

BUDGET_TAB, RISK_TAB, STAT_TAB = 2, 3, 1


def _row(pane, qid: str) -> int:  # type: ignore[no-untyped-def]
    return [q.id for q in pane.session.plan.queries].index(qid)


def _solve(demo, target: str = "40") -> None:  # type: ignore[no-untyped-def]
    pane = demo.budget_pane
    pane.table.setItem(_row(pane, "responses"), 3, QTableWidgetItem(target))
    pane.solve.click()


def test_goal_verdict_follows_the_budget_and_a_new_plan(demo) -> None:  # type: ignore[no-untyped-def]
    demo.show_tab(BUDGET_TAB)
    pane = demo.budget_pane
    _solve(demo)
    assert pane.goal_text.text().endswith("it fits.")
    needed = pane._goal.total.epsilon
    # a budget below what the targets need: the verdict must change with it
    pane.epsilon.setValue(needed / 2)
    pane.epsilon.editingFinished.emit()
    assert demo.session.plan.budget.epsilon == pytest.approx(needed / 2, rel=1e-3)
    assert "it fits." not in pane.goal_text.text()
    assert needed / 2 < needed  # the independent verdict: it cannot fit
    # a new plan: nothing of the old goal is left
    demo.session.new_plan("another")
    assert pane.goal_text.text() == ""
    assert not pane.use.isEnabled()


def test_preset_label_shows_the_budget_it_names(demo) -> None:  # type: ignore[no-untyped-def]
    demo.show_tab(BUDGET_TAB)
    pane = demo.budget_pane
    preset = HARM_PRESETS[1]
    pane.preset.setCurrentIndex(2)
    pane.preset.activated.emit(2)
    assert pane.preset.currentIndex() == 2 and pane.preset_reason.text() == preset.reason
    pane.epsilon.setValue(preset.epsilon * 2.5)  # no preset has this budget
    pane.epsilon.editingFinished.emit()
    assert pane.preset.currentIndex() == 0
    assert pane.preset_reason.text() == ""
    demo.session.undo()  # back to the preset's budget
    assert (demo.session.plan.budget.epsilon, demo.session.plan.budget.delta) == \
        (preset.epsilon, preset.delta)
    assert pane.preset.currentIndex() == 2 and pane.preset_reason.text() == preset.reason
    demo.session.undo()  # the demo's own budget matches no preset
    assert pane.preset.currentIndex() == 0


def test_hold_ticked_in_the_list_shows_everywhere_and_resets_nothing(demo) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    session.select("responses")
    demo.show_tab(BUDGET_TAB)
    budget = demo.budget_pane
    _solve(demo)
    needs = budget.table.item(_row(budget, "responses"), 4).text()
    verdict = budget.goal_text.text()
    assert needs and verdict
    model = demo.statistics.model
    index = model.index(model.row_of("responses"), 4)
    assert model.setData(index, Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert "responses" in session.held
    now = budget.table.item(_row(budget, "responses"), 1).text()
    assert "(held)" in now
    # what the owner typed and found is still there
    assert budget.table.item(_row(budget, "responses"), 4).text() == needs
    assert budget.table.item(_row(budget, "responses"), 3).text() == "40"
    assert budget.goal_text.text() == verdict
    demo.show_tab(STAT_TAB)
    assert demo.statistic_pane.hold.isChecked()
    # and back from the statistic pane: the list follows
    demo.statistic_pane.hold.setChecked(False)
    assert "responses" not in session.held
    assert model.data(index, Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked
    demo.show_tab(BUDGET_TAB)
    assert budget.table.item(_row(budget, "responses"), 4).text() == needs
    assert "(held)" not in budget.table.item(_row(budget, "responses"), 1).text()


def test_risk_text_and_chart_show_one_value(demo) -> None:  # type: ignore[no-untyped-def]
    demo.show_tab(RISK_TAB)
    pane = demo.risk_pane
    session = demo.session
    session.select("hours_mean")
    pane.scope.setCurrentIndex(1)
    for group in (1, 2, 3):
        pane.group.setValue(group)  # typed, then Enter
        pane.group.editingFinished.emit()
        for prior in (10, 50, 71):
            pane.prior.setValue(prior)
            eps = session.query_epsilon(session.plan.query("hours_mean")) * group
            p = prior / 100
            hi, lo = posterior_max(p, eps), posterior_min(p, eps)
            x, y = pane.chart.point_hi.get_data()
            assert (x[0], y[0]) == pytest.approx((p, hi), rel=1e-12)
            assert pane.chart.point_lo.get_data()[1][0] == pytest.approx(lo, rel=1e-12)
            # the percentage in the sentence is the one on the chart
            shown = pane.sentence.text().split("at most ")[1].split(" sure")[0]
            assert shown in pane.chart.note.get_text()


def test_release_uses_the_confidence_the_screen_shows(demo, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    session.set_confidence(0.9)
    count = session.plan.query("responses")
    shown = session.accuracy(count)
    assert shown.half_width == accuracy_for(count, session.plan, 0.9).half_width
    assert shown.half_width != accuracy_for(count, session.plan, 0.95).half_width
    demo.show_tab(STAT_TAB)
    session.select("responses")
    model = demo.statistics.model
    assert "90%" in model.headerData(3, Qt.Orientation.Horizontal)
    from tests.gui.conftest import release_with_wizard

    wizard = release_with_wizard(demo, qtbot, tmp_path / "r.zip")
    values = [v for r in wizard.result.releases for v in r.values]
    assert {v.confidence for v in values} == {0.9}
    (released,) = [v for r in wizard.result.releases if r.query_id == "responses"
                   for v in r.values]
    assert released.high - released.value == pytest.approx(shown.half_width, abs=1)
    assert released.value - released.low == pytest.approx(shown.half_width, abs=1)
    header = wizard.results.table.horizontalHeaderItem(3).text()
    assert "90%" in header
    # the results chart: one chart per released statistic, on its own axis, at the level
    # released (it said "95% intervals" whatever the confidence, with a count and a mean on
    # one axis)
    page = wizard.results
    released_ids = [r.query_id for r in wizard.result.releases]
    titles = [page.chart_choice.itemText(i) for i in range(page.chart_choice.count())]
    assert titles == [session.plan.query(i).title for i in released_ids]
    axes_labels = set()
    for i, qid in enumerate(released_ids):
        page.chart_choice.setCurrentIndex(i)
        drawn = page._charts[i][1]
        if any(m.low is not None for m in drawn.marks):  # a quantile's error is in ranks
            assert "90%" in page.chart_caption.text(), page.chart_caption.text()
        assert "95%" not in page.chart_caption.text()
        (ax,) = page.figure.axes
        axes_labels.add(ax.get_xlabel() or ax.get_ylabel())
        values = [v for r in wizard.result.releases if r.query_id == qid for v in r.values]
        assert len(drawn.marks) == min(len(values), len(drawn.marks))
        for mark, v in zip(drawn.marks, values, strict=False):
            if v.low is not None and session.plan.query(qid).kind != "randomized_response":
                assert (mark.low, mark.high) == (pytest.approx(v.low), pytest.approx(v.high))
    assert len(axes_labels) > 1  # not every statistic on one axis
    # what is published says the same: the record, and so the report and the review, read it
    import json
    import zipfile

    with zipfile.ZipFile(tmp_path / "r.zip") as bundle:
        record = json.loads(bundle.read("release.json"))
    assert record["confidence"] == 0.9


def test_notifications_say_what_changed_and_hidden_charts_draw_when_shown(demo) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    seen = []
    session.changed.connect(seen.append)
    session.set_epsilon("hours_mean", 0.7)
    (one,) = seen
    assert one.statistics == {"hours_mean"} and not one.budget and not one.held
    seen.clear()
    session.undo()  # an undo says the same
    assert seen[0].statistics == {"hours_mean"} and seen[0].history
    seen.clear()
    session.set_held("responses", True)
    assert [c.held for c in seen] == [True] and not seen[0].plan
    seen.clear()
    session.set_budget(epsilon=5.0)
    assert seen[0].budget and not seen[0].statistics
    # the risk chart is drawn when its tab is shown, from the value its sentence says
    demo.show_tab(0)
    note = demo.risk_pane.chart.note.get_text()
    session.set_epsilon("hours_mean", 3.0)
    shown = demo.risk_pane.sentence.text().split("at most ")[1].split(" sure")[0]
    assert shown not in note and demo.risk_pane.chart.note.get_text() == note
    demo.show_tab(RISK_TAB)
    assert shown in demo.risk_pane.chart.note.get_text()


def test_the_prior_reads_the_same_on_the_slider_the_sentence_and_the_chart(demo) -> None:  # type: ignore[no-untyped-def]
    demo.show_tab(RISK_TAB)
    pane = demo.risk_pane
    for percent in range(1, 100):  # 0.71 is 0.70999… in binary: never shown as 70.9%
        pane.prior.setValue(percent)
        said = f"{percent}%"
        assert pane.prior_label.text() == said
        assert pane.sentence.text().startswith(f"An attacker who was {said} sure")
        assert pane.chart.note.get_text().split("from ")[1].startswith(f"{said} to")
        x = pane.chart.guide.get_xdata()[0]
        assert x == percent / 100


def test_settings_change_only_through_the_session(window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A view cannot change the settings behind the session's back (what it reads is a copy),
    and the session's setting changes reach settings.json at once."""
    from planner_app.core.planning.settings import load_settings

    session = window.session
    copy = session.settings
    copy.require_approval = not copy.require_approval
    assert session.settings.require_approval != copy.require_approval  # a copy: no effect
    session.set_require_approval(True)
    assert load_settings(session.home.settings_path).require_approval is True
    session.set_confidence(0.9)
    assert load_settings(session.home.settings_path).confidence == 0.9
    session.remember_file(tmp_path / "plan.json")
    assert str((tmp_path / "plan.json").resolve()) in load_settings(
        session.home.settings_path).recent_files


def test_the_list_repaints_only_the_edited_statistic(demo) -> None:  # type: ignore[no-untyped-def]
    """An ε edit of one statistic repaints its row, not the whole list; a budget edit
    repaints nothing (no column shows the budget)."""
    model = demo.statistics.model
    painted: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda a, b, *_: painted.append((a.row(), b.row())))
    model.modelReset.connect(lambda: painted.append((-1, -1)))
    session = demo.session
    q = session.plan.queries[2]
    session.set_epsilon(q.id, q.epsilon * 2, False)
    assert painted == [(2, 2)]
    painted.clear()
    session.set_budget(epsilon=session.plan.budget.epsilon + 1)
    assert painted == []


def test_the_budget_table_updates_the_edited_row_in_place(demo) -> None:  # type: ignore[no-untyped-def]
    """An ε edit updates that statistic's "Now" cell and keeps every other row (and what the
    person typed in it) as it was, instead of rebuilding the table."""
    demo.show_tab(BUDGET_TAB)
    pane, session = demo.budget_pane, demo.session
    from planner_app.gui.widgets.budget_pane import COL_NOW, COL_TARGET

    pane.table.item(0, COL_TARGET).setText("25")  # a typed target in another row
    items = [pane.table.item(r, COL_NOW) for r in range(pane.table.rowCount())]
    q = session.plan.queries[2]
    session.set_epsilon(q.id, q.epsilon * 2, False)
    after = [pane.table.item(r, COL_NOW) for r in range(pane.table.rowCount())]
    assert all(a is b for a, b in zip(items, after, strict=True))  # updated in place
    acc = session.accuracy(session.plan.queries[2])
    assert f"ε {q.epsilon * 2:.4g}" in after[2].text()
    from planner_app.gui.models import format_accuracy

    assert format_accuracy(acc.half_width, acc.unit, acc.rows) in after[2].text()
    assert pane.table.item(0, COL_TARGET).text() == "25"
