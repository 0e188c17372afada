"""A plan of thousands of statistics opens without the statistics list measuring every row
(issue 22, session 2): past FIT_ALL_ROWS only the rows on screen get their height, and a row
scrolled into view gets it then. The test counts the model's data() calls, not time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from planner_app.gui.app import build_window
from planner_app.gui.models import StatisticsModel
from tests.conftest import ROWS_ARE_PEOPLE, plan_dict, with_reasons


def plan_file(folder: Path, n: int) -> Path:
    queries = [{"id": f"s{i:05d}", "label": f"Statistic {i}", "kind": "count",
                "epsilon": 1.0 / n} for i in range(n)]
    path = folder / f"plan{n}.json"
    path.write_text(json.dumps(with_reasons(plan_dict(privacy_unit=ROWS_ARE_PEOPLE,
                                                      queries=queries))), encoding="utf-8")
    return path


def data_calls(qtbot: Any, tmp_path: Path, monkeypatch: Any, n: int) -> int:
    table = tmp_path / "t.csv"
    pd.DataFrame({"a": range(50)}).to_csv(table, index=False)
    window = build_window(str(tmp_path / f"home{n}"))
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    window.files.load_table(table, synchronous=True)
    calls = [0]
    original = StatisticsModel.data

    def counted(self: StatisticsModel, *args: Any) -> Any:
        calls[0] += 1
        return original(self, *args)

    monkeypatch.setattr(StatisticsModel, "data", counted)
    window.files.open_plan(plan_file(tmp_path, n), confirmed=True)
    qtbot.wait(50)
    window.grab()
    monkeypatch.setattr(StatisticsModel, "data", original)
    assert window.session.plan is not None and len(window.session.plan.queries) == n
    view = window.statistics.view
    last = n - 1
    view.scrollToBottom()
    qtbot.wait(50)
    assert view.rowHeight(last) >= view.fontMetrics().height()  # fitted when shown
    window.close()
    return calls[0]


def test_opening_many_statistics_reads_the_rows_on_screen(qtbot, tmp_path: Path,
                                                          monkeypatch) -> None:  # type: ignore[no-untyped-def]
    fewer = data_calls(qtbot, tmp_path, monkeypatch, 2_000)
    more = data_calls(qtbot, tmp_path, monkeypatch, 6_000)
    assert more < 1.3 * fewer  # every row measured: about 3 times as many
