"""Every message the app shows names the control, not the plan's JSON path (issue 22: "state
dataset.expected_rows …" on screen). One message from each place the app shows the core's
words: the error dialog, the editor's red message, the release checklist, the statistic pane."""

from __future__ import annotations

import json
from pathlib import Path

from planner_app.core.model import MAX_EXPECTED_ROWS
from planner_app.core.support.errors import InputError
from planner_app.core.support.resources import demo_plan_path
from planner_app.gui.dialogs.query_dialog import QueryDialog
from planner_app.gui.dialogs.release_wizard import checklist

PATHS = ("queries[", "dataset.", "privacy_unit.", "budget.")


def _no_path(text: str) -> None:
    assert text and not any(p in text for p in PATHS), text


def test_the_error_dialog_names_the_control(demo, dialogs) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.errors import show_error

    exc = InputError("plan", "dataset.expected_rows", f"must be between 1 and "
                     f"{MAX_EXPECTED_ROWS:,}")
    show_error(demo, type(exc), exc, None)
    text = dialogs.shown[-1][2]
    _no_path(text)
    assert "About how many rows (Data tab): must be between 1" in text


def test_the_editors_red_message_names_the_field(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    dialog = QueryDialog(demo.session, demo.session.plan.query("hours_mean"))
    qtbot.addWidget(dialog)
    dialog.column.setCurrentText("hours_worked")  # not a column of the table
    dialog.checks.accept()
    assert dialog.result_plan is None
    _no_path(dialog.error.text())
    assert dialog.error.text().startswith("Column: no column 'hours_worked'")


def test_the_release_checklist_names_the_statistic_and_field(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.support.resources import demo_table_path

    doc = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    doc["queries"][2]["column"] = "hours_worked"  # hours_mean: not a column of the table
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(path, confirmed=True)
    lines = [text for ok, text in checklist(window.session) if not ok]
    fit = next(t for t in lines if "does not fit" in t)
    _no_path(fit)
    assert "(Column of statistic “hours_mean”)" in fit, fit


def test_the_statistic_pane_names_the_data_tabs_field(demo) -> None:  # type: ignore[no-untyped-def]
    pane = demo.data_pane
    pane.expected_rows.setText("")  # not stated: a mean's ± cannot be shown
    pane.expected_rows.editingFinished.emit()
    demo.session.select("hours_mean")
    note = demo.statistic_pane.accuracy_note.text()
    _no_path(note)
    assert "“About how many rows (Data tab)”" in note, note
