"""Issue 24 (cold start): the planner page (the statistics list, the four tabs, the meter) is
built when a table or plan is first opened, during the very notification that says so. Its
views must show what is open then, whichever came first, as the views built with the window
did."""

from __future__ import annotations

import csv

from planner_app.core.planfile import load_plan
from planner_app.core.support.resources import demo_plan_path, demo_table_path


def _table_columns() -> list[str]:
    with open(demo_table_path(), newline="", encoding="utf-8") as f:
        return next(csv.reader(f))


def _shown(model, column: int = 0) -> list[str]:  # type: ignore[no-untyped-def]
    return [model.index(r, column).data() for r in range(model.rowCount())]


def test_a_plan_opened_first_is_listed(window) -> None:  # type: ignore[no-untyped-def]
    assert window._planner is None  # the welcome page only
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    titles = [q.title for q in load_plan(demo_plan_path()).queries]
    assert _shown(window.statistics.model) == titles
    assert window.stack.currentWidget() is window.planner.page


def test_a_table_opened_first_shows_its_columns_and_rows(window) -> None:  # type: ignore[no-untyped-def]
    assert window._planner is None
    window.files.load_table(demo_table_path(), synchronous=True)
    assert _shown(window.data_pane.columns_model) == _table_columns()
    assert window.data_pane.preview_model.columnCount() == len(_table_columns())
    assert "survey.csv" in window.data_pane.file_label.text()
    # then the plan: the list fills, the columns stay
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    assert window.statistics.model.rowCount() == len(load_plan(demo_plan_path()).queries)
    assert _shown(window.data_pane.columns_model) == _table_columns()
