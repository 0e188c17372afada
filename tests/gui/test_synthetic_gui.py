"""The desktop app and a synthetic table (issue 14): the statistic editor opens, edits and
adds one (each column's domain in the histogram's own widgets, the same warnings and
reasons); the statistic pane shows the core's preview; the release goes through the wizard."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

from planner_app.core.support.resources import demo_table_path
from planner_app.gui.dialogs.query_dialog import QueryDialog
from planner_app.gui.main_window import MainWindow
from tests.cli.test_synthetic_cli import PLAN


def open_synthetic(window: MainWindow, tmp_path: Path, plan: dict | None = None) -> None:  # type: ignore[type-arg]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan or PLAN))
    window.load_table(demo_table_path(), synchronous=True)
    assert window.open_plan(path, confirmed=True)


def test_edit_opens_on_a_synthetic_table_and_keeps_it(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_synthetic(window, tmp_path)
    query = window.session.plan.query("survey_synth")
    dialog = QueryDialog(window.session, query)  # raised ValueError: no "synthetic" kind
    qtbot.addWidget(dialog)
    assert dialog.kind.currentData() == "synthetic"
    dialog._accept()
    assert dialog.error.text() == ""
    assert dialog.result_plan is not None
    again = dialog.result_plan.query("survey_synth")
    # unchanged: the form read every field back as the plan had it (the label shown is the
    # title, as for every kind)
    assert replace(again, label="") == replace(query, label="")
    assert again.title == query.title


def test_add_a_synthetic_table_in_the_histogram_fields(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_synthetic(window, tmp_path)
    dialog = QueryDialog(window.session)
    qtbot.addWidget(dialog)
    dialog.label.setText("Synthetic two")
    dialog.kind.setCurrentIndex(dialog.kind.findData("synthetic"))
    assert dialog.mechanism.currentData() == "mst" and dialog.delta.isVisibleTo(dialog)
    assert not dialog.categories.isHidden() and dialog.synth_list.count() == 1
    dialog.column.setCurrentText("region")
    # the histogram's warning, exactly: the list is the values present in the data
    dialog.categories.setPlainText("North\nSouth\nEast\nWest")
    assert "exactly the values present in the data" in dialog.warning.text()
    dialog.categories.setPlainText("North\nSouth\nEast\nWest\nIslands")
    assert dialog.warning.text() == ""
    dialog.add_synth_column()
    assert dialog.synth_list.count() == 2
    dialog.column.setCurrentText("age")
    dialog.use_bins.setChecked(True)
    dialog.bins.setText("16, 40, 65, 100")
    assert "age — 3 bins" in dialog.synth_list.item(1).text()
    dialog.synth_list.setCurrentRow(0)  # back to the first: its own fields again
    assert dialog.column.currentText() == "region" and not dialog.use_bins.isChecked()
    assert dialog.categories.toPlainText().splitlines()[-1] == "Islands"
    dialog.bounds_reason.setText("reporting age bands")
    dialog.list_reason.setText("official regions")
    dialog.declare.setChecked(True)
    dialog.synth_rows.setText("500")
    dialog.epsilon.setValue(0.5)
    dialog.delta.setText("")  # the core's rule: a synthetic table needs a delta
    dialog._accept()
    assert dialog.result_plan is None and dialog.error.text().startswith("δ:")
    dialog.delta.setText("1e-7")
    dialog._accept()
    assert dialog.result_plan is not None, dialog.error.text()
    q = dialog.result_plan.query(dialog.result_id)
    assert q.kind == "synthetic" and q.rows == 500 and q.delta == 1e-7
    assert [(c.column, c.categories, c.bins) for c in q.synth_columns] == [
        ("region", ("North", "South", "East", "West", "Islands"), None),
        ("age", None, (16.0, 40.0, 65.0, 100.0))]
    assert q.justification == {"bounds": "reporting age bands", "categories": "official regions"}


def test_a_column_not_in_the_table_is_refused(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plan = copy.deepcopy(PLAN)
    plan["queries"][0]["columns"][2]["column"] = "smokes"  # not a column of the demo table
    open_synthetic(window, tmp_path, plan)
    dialog = QueryDialog(window.session, window.session.plan.query("survey_synth"))
    qtbot.addWidget(dialog)
    dialog._accept()
    assert dialog.result_plan is None and "smokes" in dialog.error.text()
