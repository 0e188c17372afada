"""The statistic editor edits a statistic's expected_count (the rows a mean's, variance's,
quantile's or share's ± is computed from; for a group-by its smallest group): shown for those
kinds only, with a help line saying it is a public guess; kept as typed and refused by the
core's rule with the form's red message; the ± shown updates when it changes; and OK on a
statistic that has one keeps it (the editor dropped it)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from planner_app.core.planfile import plan_to_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.support.words import (
    EXPECTED_COUNT_GROUP_LABEL,
    EXPECTED_COUNT_HELP,
    EXPECTED_COUNT_LABEL,
)
from planner_app.gui.dialogs.query_dialog import QueryDialog


def _dialog(demo, qtbot, ident: str) -> QueryDialog:  # type: ignore[no-untyped-def]
    dialog = QueryDialog(demo.session, demo.session.plan.query(ident))
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def _label(dialog: QueryDialog) -> str:
    label = dialog._form.labelForField(dialog.expected_count_row)
    assert label is not None
    return label.text() if label.isVisible() else ""


@pytest.mark.parametrize(("ident", "shown", "label"), [
    ("hours_mean", True, EXPECTED_COUNT_LABEL), ("age_variance", True, EXPECTED_COUNT_LABEL),
    ("income_median", True, EXPECTED_COUNT_LABEL),
    ("smokers", True, EXPECTED_COUNT_LABEL),
    ("satisfaction_by_region", True, EXPECTED_COUNT_GROUP_LABEL),
    ("responses", False, ""), ("income_2025", False, ""), ("region_counts", False, "")])
def test_the_field_is_there_for_the_kinds_that_use_it(demo, qtbot, ident: str, shown: bool,  # type: ignore[no-untyped-def]
                                                      label: str) -> None:
    dialog = _dialog(demo, qtbot, ident)
    assert dialog.expected_count.isVisible() == shown
    assert _label(dialog) == label
    if shown:
        assert dialog.expected_count_help.isVisible()
        assert dialog.expected_count_help.text() == EXPECTED_COUNT_HELP
        assert "never read from the data" in EXPECTED_COUNT_HELP


def test_the_stated_rows_reach_the_plan_and_the_shown_accuracy(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    session.select("satisfaction_by_region")
    pane = demo.statistic_pane
    before = pane.accuracy.text()
    dialog = _dialog(demo, qtbot, "satisfaction_by_region")
    dialog.expected_count.setFocus()
    qtbot.keyClicks(dialog.expected_count, "40")
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(
        QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert dialog.result_plan is not None, dialog.error.text()
    new = dialog.result_plan.query("satisfaction_by_region")
    assert new.expected_count == 40
    session.replace_query(new, "satisfaction_by_region")
    session.select("satisfaction_by_region")
    # the independent answer: the core's pre-release check of the plan as it now stands
    acc = next(c.accuracy for c in check_plan(session.plan).queries
               if c.query.id == "satisfaction_by_region")
    assert float(pane.accuracy.text()) == pytest.approx(acc.half_width, rel=1e-5)
    assert pane.accuracy.text() != before  # 40 rows, not 3,800 split over the regions
    assert float(pane.accuracy.text()) > float(before)
    assert "about 40 rows" in pane.accuracy_note.text()


@pytest.mark.parametrize(("typed", "words"), [("0", "must be above 0, not 0"),
                                               ("-12", "must be above 0, not -12"),
                                               ("many", "must be a number")])
def test_a_wrong_count_is_refused_with_the_forms_red_line(demo, qtbot, typed: str,  # type: ignore[no-untyped-def]
                                                          words: str) -> None:
    before = plan_to_dict(demo.session.plan)
    dialog = _dialog(demo, qtbot, "hours_mean")
    dialog.expected_count.setFocus()
    qtbot.keyClicks(dialog.expected_count, typed)
    dialog.checks.accept()
    assert dialog.result_plan is None and dialog.isVisible()
    message = dialog.error.text()
    assert message.startswith(f"{EXPECTED_COUNT_LABEL}: ") and words in message, message
    assert "expected_count" not in message
    assert dialog.expected_count.text() == typed  # kept as typed
    assert plan_to_dict(demo.session.plan) == before


def test_ok_keeps_a_stated_count(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    session = demo.session
    session.replace_query(replace(session.plan.query("hours_mean"), expected_count=1234),
                          "hours_mean")
    dialog = _dialog(demo, qtbot, "hours_mean")
    assert dialog.expected_count.text() == "1234"
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    assert dialog.result_plan.query("hours_mean").expected_count == 1234
