"""An ε slider step at many statistics measures only the budget table's edited row (issue 24):
its columns were ResizeToContents, so Qt measured every row of every column after each step
(about 18 ms a step at 1,000 statistics, the pane shown or not). The test counts the cells
measured (the delegate's sizeHint calls), not time; a wider text still widens its column."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from PySide6.QtWidgets import QStyledItemDelegate

from planner_app.gui.app import build_window
from planner_app.gui.widgets.budget_pane import COL_NAME, COL_NOW
from tests.gui.test_many_statistics_list import plan_file

N = 300


class CountingDelegate(QStyledItemDelegate):
    """Qt's own delegate, counting the cells it is asked to measure."""

    def __init__(self) -> None:
        super().__init__()
        self.measured = 0

    def sizeHint(self, option: Any, index: Any) -> Any:  # noqa: N802
        self.measured += 1
        return super().sizeHint(option, index)


def test_a_slider_step_measures_the_edited_row_not_every_row(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = tmp_path / "t.csv"
    pd.DataFrame({"a": range(50)}).to_csv(table, index=False)
    window = build_window(str(tmp_path / "home"))
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    window.files.load_table(table, synchronous=True)
    window.files.open_plan(plan_file(tmp_path, N), confirmed=True)
    window.session.select("s00001")
    qtbot.wait(50)
    budget = window.budget_pane.table
    assert budget.rowCount() == N
    delegate = CountingDelegate()
    budget.setItemDelegate(delegate)
    slider = window.statistic_pane.slider
    for value in (slider.value() + 40, slider.value() + 80, slider.value() + 120):
        slider.setValue(value)
        qtbot.wait(30)
    # three steps, one edited row each: two columns of one row a step (every row: 3 × 300 × 5)
    assert 0 < delegate.measured <= 3 * 2 * 2
    assert window.session.plan is not None
    assert window.session.plan.query("s00001").epsilon != 1.0 / N  # the steps took effect

    # a text wider than its column still widens it
    window.session.set_epsilon("s00002", 1.23456789e-5)  # "ε 1.235e-05, ± …": a longer text
    qtbot.wait(30)
    for column in (COL_NAME, COL_NOW):
        assert budget.columnWidth(column) >= budget.sizeHintForColumn(column)
    window.close()
