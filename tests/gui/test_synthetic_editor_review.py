"""A newcomer's walk through the synthetic table editor: a typed reason for the lists is never
dropped silently, the empty-list error names its column, the privacy unit's id column is not
offered as a column of the table, and the Noise item is readable whole."""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

from planner_app.core.support.resources import demo_table_path
from planner_app.gui.dialogs.query_dialog import QueryDialog
from planner_app.gui.main_window import MainWindow
from tests.cli.test_synthetic_cli import PLAN
from tests.gui.synthetic_editing import open_synthetic_plan, synthetic_editor

REASON = "the official list of regions"


def _without_list_reason() -> dict:  # type: ignore[type-arg]
    doc = copy.deepcopy(PLAN)
    doc["queries"][0]["justification"] = {"bounds": "standard reporting age bands"}
    return doc


def test_a_typed_list_reason_without_the_tick_is_refused_not_dropped(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    open_synthetic_plan(window, tmp_path, _without_list_reason())
    dialog = synthetic_editor(window, qtbot)
    dialog.declare.setChecked(False)
    dialog.list_reason.setText(REASON)
    dialog.checks.accept()
    assert dialog.result_plan is None  # the editor stays open with what was typed
    lines = dialog.error.text().splitlines()
    assert len(lines) == 1 and "tick" in lines[0] and "declare" in lines[0].lower()
    assert dialog.list_reason.text() == REASON
    dialog.declare.setChecked(True)  # ticked, the reason reaches the plan
    dialog.checks.accept()
    assert dialog.result_plan is not None
    assert dialog.result_plan.query("survey_synth").justification["categories"] == REASON


def test_a_histograms_typed_list_reason_without_the_tick_is_refused(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    doc = copy.deepcopy(PLAN)
    doc["queries"] = [{"id": "by_region", "kind": "histogram", "column": "region",
                       "categories": ["North", "South", "East", "West"], "epsilon": 1.0}]
    open_synthetic_plan(window, tmp_path, doc)
    dialog = QueryDialog(window.session, window.session.plan.query("by_region"))
    qtbot.addWidget(dialog)
    dialog.declare.setChecked(False)
    dialog.list_reason.setText(REASON)
    dialog.checks.accept()
    assert dialog.result_plan is None
    assert "tick" in dialog.error.text()


def test_no_reason_and_no_tick_is_left_to_the_readiness_check(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    open_synthetic_plan(window, tmp_path, _without_list_reason())
    dialog = synthetic_editor(window, qtbot)
    dialog.declare.setChecked(False)
    dialog.list_reason.setText("")
    dialog.checks.accept()
    assert dialog.result_plan is not None  # nothing typed, nothing lost


def test_the_empty_list_error_names_its_column(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    open_synthetic_plan(window, tmp_path)
    dialog = synthetic_editor(window, qtbot)
    dialog.synth_list.setCurrentRow(2)
    assert dialog.column.currentText() == "smoker"
    dialog.categories.setPlainText("")  # the list of the third column emptied
    dialog.checks.accept()
    assert dialog.result_plan is None
    text = dialog.error.text()
    assert "smoker" in text and "empty" in text, text


def test_the_id_column_is_not_offered_as_a_column_of_the_table(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    open_synthetic_plan(window, tmp_path)
    dialog = synthetic_editor(window, qtbot)
    offered = [dialog.column.itemText(i) for i in range(dialog.column.count())]
    columns = list(pd.read_csv(demo_table_path(), nrows=1).columns)
    assert "person_id" in columns
    assert offered == [c for c in columns if c != "person_id"]
    dialog.add_synth_column()
    assert dialog.checks.synth_columns[-1]["column"] not in ("person_id", "region", "age", "smoker")
    assert dialog.checks.synth_columns[-1]["column"] in columns


def test_the_noise_item_is_shown_whole(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_synthetic_plan(window, tmp_path)
    dialog = QueryDialog(window.session)  # a new statistic, made a synthetic table
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.wait(10)  # shown as a count first, as the app opens it
    dialog.kind.setCurrentIndex(dialog.kind.findData("synthetic"))
    qtbot.wait(10)
    combo = dialog.mechanism
    assert combo.currentData() == "mst"
    needed = combo.fontMetrics().horizontalAdvance(combo.currentText())
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    room = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo).width()
    assert needed <= room, (combo.currentText(), needed, combo.width())


def test_a_new_synthetic_tables_first_column_is_not_the_id_column(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    open_synthetic_plan(window, tmp_path)
    dialog = QueryDialog(window.session)
    qtbot.addWidget(dialog)
    dialog.column.setCurrentText("person_id")  # as a count over the first column stood
    dialog.kind.setCurrentIndex(dialog.kind.findData("synthetic"))
    assert dialog.checks.synth_columns[0]["column"] != "person_id"
    columns = pd.read_csv(demo_table_path(), nrows=1).columns
    assert dialog.checks.synth_columns[0]["column"] in columns


def test_a_reason_for_no_list_is_neither_refused_nor_asked_to_be_declared(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    """A share of yes with no yes/no lists typed: there is no list the reason could belong to,
    so the box is not demanded (ticking it would keep nothing)."""
    doc = copy.deepcopy(PLAN)
    doc["queries"] = [{"id": "smk", "kind": "randomized_response", "column": "smoker",
                       "epsilon": 1.0}]
    open_synthetic_plan(window, tmp_path, doc)
    dialog = QueryDialog(window.session, window.session.plan.query("smk"))
    qtbot.addWidget(dialog)
    dialog.declare.setChecked(False)
    dialog.list_reason.setText("the form's answers")
    dialog.checks.accept()
    assert "tick" not in dialog.error.text()


def test_the_refusal_shows_the_box_it_asks_to_tick(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    """Typed on a column of categories, then a column of bins selected (which hides the
    lists' reason and box): the refusal brings a column of categories back into view."""
    open_synthetic_plan(window, tmp_path, _without_list_reason())
    dialog = synthetic_editor(window, qtbot)
    dialog.declare.setChecked(False)
    dialog.list_reason.setText(REASON)
    dialog.synth_list.setCurrentRow(1)  # age: bins
    qtbot.wait(10)
    assert not dialog.declare.isVisible()
    dialog.checks.accept()
    assert "tick" in dialog.error.text()
    assert dialog.declare.isVisible() and dialog.list_reason.text() == REASON
