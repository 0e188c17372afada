"""The placeholder main window: shows the demo plan through the core; the smoke test passes."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from planner_app.core.plan import load_plan  # noqa: E402
from planner_app.core.resources import demo_plan_path  # noqa: E402
from planner_app.gui.app import MainWindow, run  # noqa: E402


def test_main_window_shows_every_statistic(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plan = load_plan(demo_plan_path())
    window = MainWindow(plan)
    qtbot.addWidget(window)
    window.show()
    assert window.table.rowCount() == len(plan.queries)
    labels = [window.table.item(r, 0).text() for r in range(window.table.rowCount())]
    assert labels[0] == plan.queries[0].label
    assert "at most" in window.summary.text()
    shot = tmp_path / "main_window.png"
    assert window.grab().save(str(shot)) and shot.stat().st_size > 1000


def test_empty_window_invites_to_open_something(qtbot) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow()
    qtbot.addWidget(window)
    assert "planner-app --demo" in window.summary.text()


def test_smoke_test_exits_0(qtbot) -> None:  # type: ignore[no-untyped-def]
    assert run(smoke_test=True) == 0
