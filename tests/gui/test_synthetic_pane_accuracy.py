"""The statistic pane's ± for a synthetic table says what it applies to: a cell of a one-way
count, with the same confidence on a measured pair's cell beside it."""

from __future__ import annotations

import re
from pathlib import Path

from planner_app.core.kinds.synthetic import table_preview as preview
from planner_app.gui.main_window import MainWindow
from tests.gui.synthetic_editing import open_synthetic_plan


def test_the_accuracy_says_one_way_and_gives_the_pairs(window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_synthetic_plan(window, tmp_path)
    window.session.select("survey_synth")
    pane = window.statistic_pane
    pane.refresh()
    text = pane.accuracy_unit.text()
    assert "one-way" in text and "people or rows" not in text
    shown = float(pane.accuracy.text())
    q = window.session.plan.query("survey_synth")
    one = next(m.sigma for m in preview(q, window.session.plan).measurements
               if m.name.startswith("oneway:"))
    two = next(m.sigma for m in preview(q, window.session.plan).measurements
               if m.name.startswith("twoway:"))
    found = re.search(r"± ([0-9.,]+) a cell of a measured pair", text)
    assert found is not None, text
    pair = float(found.group(1).replace(",", ""))
    assert abs(pair - shown * two / one) <= 0.01 * shown * two / one


def test_a_count_keeps_its_words(window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import copy

    from tests.cli.test_synthetic_cli import PLAN
    doc = copy.deepcopy(PLAN)
    doc["queries"].append({"id": "n", "kind": "count", "epsilon": 0.5})
    open_synthetic_plan(window, tmp_path, doc)
    window.session.select("n")
    window.statistic_pane.refresh()
    assert window.statistic_pane.accuracy_unit.text() == "people or rows"
