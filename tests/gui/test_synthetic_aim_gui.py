"""The desktop app and an AIM synthetic table (issue 25): the editor offers AIM beside MST,
keeps the plan's workload (pairs, triples) it does not edit, and the statistic pane shows
AIM's rounds from the core's preview."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

from planner_app.core.kinds.params import synth_workload_of
from planner_app.core.support.resources import demo_table_path
from planner_app.gui.dialogs.query_dialog import QueryDialog
from planner_app.gui.main_window import MainWindow
from tests.cli.test_synthetic_cli import PLAN

AIM_PLAN = copy.deepcopy(PLAN)
AIM_PLAN["budget"]["accountant"] = "zcdp"
AIM_PLAN["queries"][0].update({"method": "aim", "pairs": [["region", "age"],
                                                          ["age", "smoker"]],
                               "triples": [["region", "age", "smoker"]]})


def open_aim(window: MainWindow, tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(AIM_PLAN))
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(path, confirmed=True)


def test_the_editor_keeps_an_aim_table_and_its_workload(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_aim(window, tmp_path)
    query = window.session.plan.query("survey_synth")
    dialog = QueryDialog(window.session, query)
    qtbot.addWidget(dialog)
    assert dialog.mechanism.currentData() == "aim"
    labels = [dialog.mechanism.itemText(i) for i in range(dialog.mechanism.count())]
    assert labels == ["MST (noisy marginals)", "AIM (adaptive noisy marginals)"]
    dialog.checks.accept()
    assert dialog.error.text() == ""
    assert dialog.result_plan is not None
    again = dialog.result_plan.query("survey_synth")
    assert synth_workload_of(again) == ((("region", "age"), ("age", "smoker")),
                                        (("region", "age", "smoker"),))
    assert replace(again, label="") == replace(query, label="")


def test_switching_to_mst_drops_the_workload(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_aim(window, tmp_path)
    dialog = QueryDialog(window.session, window.session.plan.query("survey_synth"))
    qtbot.addWidget(dialog)
    dialog.mechanism.setCurrentIndex(dialog.mechanism.findData("mst"))
    dialog.checks.accept()
    assert dialog.error.text() == ""
    assert dialog.result_plan is not None
    again = dialog.result_plan.query("survey_synth")
    assert again.mechanism == "mst"
    assert synth_workload_of(again) == (None, ())


def test_the_pane_lists_aims_rounds_not_as_a_marginal(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The rounds were listed as a measured marginal of "48 cells" with one σ; they are up
    to 48 rounds whose σ and ε start there and anneal, and AIM's model is no tree."""
    open_aim(window, tmp_path)
    window.tabs.setCurrentWidget(window.statistic_pane)
    window.session.select("survey_synth")
    text = window.statistic_pane.synthetic.text()
    assert "48 cells" not in text
    assert "AIM's adaptive rounds: up to 48" in text
    assert "tree" not in text
