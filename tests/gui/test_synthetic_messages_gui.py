"""The app's statistic pane on a synthetic table: the core's copied-from-data warning covers
its declared lists (the same rule as ``check --data``), on the window's thread and from a
worker; and its table problems name the plan's own field."""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import pytest

from planner_app.core.support.resources import demo_table_path
from planner_app.gui.main_window import MainWindow
from tests.cli.test_synthetic_cli import PLAN
from tests.gui.synthetic_editing import open_synthetic_plan, synthetic_editor

WARNING = "The categories of region are exactly the values present in the data"


def _open(window: MainWindow, tmp_path: Path, categories: list[str]) -> None:
    doc = copy.deepcopy(PLAN)
    doc["queries"][0]["columns"][0] = {"column": "region", "categories": categories}
    open_synthetic_plan(window, tmp_path, doc)


def _present() -> list[str]:  # read with pandas here, not with the app's engine
    return sorted(pd.read_csv(demo_table_path())["region"].dropna().unique())


@pytest.mark.parametrize("on_worker", [False, True])
def test_the_pane_warns_when_a_synthetic_list_is_the_values_present(
        window, qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
        on_worker: bool) -> None:
    session = window.session
    if on_worker:  # the demo table answers from a worker, as a large table would
        monkeypatch.setattr(type(session), "ASYNC_ROWS", 1)
    _open(window, tmp_path, _present())
    window.show_tab(1)
    if on_worker:
        with qtbot.waitSignal(session.dataAnswered, timeout=60_000,
                              check_params_cb=lambda k: k == "query"):
            session.select("survey_synth")
            window.statistic_pane.refresh()
    else:
        session.select("survey_synth")
    checks = session.ask_query_checks(session.plan.query("survey_synth"))
    assert checks is not None and any(WARNING.lower() in n.lower() for n in checks.notes)
    assert WARNING in window.statistic_pane.warnings.text()


def test_no_warning_when_the_list_holds_a_value_the_data_does_not(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _open(window, tmp_path, [*_present(), "Islands"])
    window.session.select("survey_synth")
    assert WARNING not in window.statistic_pane.warnings.text()


def test_the_apps_fit_problems_name_the_synthetic_column(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc = copy.deepcopy(PLAN)
    doc["queries"][0]["columns"][0] = {"column": "regionx", "categories": ["a"]}
    open_synthetic_plan(window, tmp_path, doc)
    problems = window.session.fit_problems()
    assert [p.where for p in problems] == ["queries[survey_synth].columns[0].column"]


def test_the_editor_names_the_synthetic_column_it_refuses(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]

    doc = copy.deepcopy(PLAN)
    doc["queries"][0]["columns"][2]["column"] = "smokes"  # not a column of the demo table
    open_synthetic_plan(window, tmp_path, doc)
    dialog = synthetic_editor(window, qtbot, shown=False)
    dialog.checks.accept()
    assert dialog.result_plan is None
    # the plan's own field, as check and the release name it (not a histogram draft's)
    assert dialog.error.text().splitlines() == [
        "Columns of the table → smokes → Column: no column 'smokes' in survey.csv"]


def test_the_editor_warns_of_bins_spanning_the_datas_range_and_bins_on_text(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:

    _open(window, tmp_path, ["North", "South", "East", "West", "Islands"])
    ages = pd.read_csv(demo_table_path())["age"]  # independently: the column's range
    dialog = synthetic_editor(window, qtbot, shown=False)
    dialog.synth_list.setCurrentRow(1)  # age
    dialog.bins.setText(f"{ages.min():g}, 40, {ages.max():g}")
    assert "The outer bin edges of age equal the data's own minimum and maximum" \
        in dialog.warning.text()
    dialog.bins.setText(f"{ages.min() - 1:g}, 40, {ages.max():g}")
    assert "minimum and maximum" not in dialog.warning.text()
    dialog.synth_list.setCurrentRow(0)  # region, as bins: a text column
    dialog.use_bins.setChecked(True)
    dialog.bins.setText("0, 1, 2")
    assert "'region' in survey.csv holds text, not numbers: bins need a column of numbers" \
        in dialog.warning.text()


def test_the_unit_cannot_become_a_column_of_a_synthetic_table(  # type: ignore[no-untyped-def]
        window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Choosing a synthetic table's column (smoker) as the id of a person is refused with a
    dialog naming the table's field, and the plan keeps its unit (a plan that could no longer
    be saved, nor its recovery copy opened, is never made)."""
    from PySide6.QtWidgets import QMessageBox

    from planner_app.core.planfile import plan_from_dict, plan_to_dict

    open_synthetic_plan(window, tmp_path)
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text, *a, **k: shown.append(text))
    before = window.session.plan.privacy_unit
    pane = window.data_pane
    pane.id_column.setCurrentText("smoker")
    assert window.session.plan.privacy_unit == before
    # the controls, not the plan's paths (queries[survey_synth].columns[2].column)
    assert len(shown) == 1 and "Columns of the table → Column of statistic “survey_synth”" \
        in shown[0] and "queries[" not in shown[0] and "privacy_unit." not in shown[0], shown
    assert pane.id_column.currentText() == before.id_column  # the pane shows the plan's unit
    plan_from_dict(plan_to_dict(window.session.plan))  # still a valid plan
