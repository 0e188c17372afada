"""The bundle viewer's "Synthetic tables" tab names each table by its label, and in a small
window its rows keep most of the height (the words above them scroll)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner_app.core.planfile import plan_from_dict
from planner_app.gui.main_window import MainWindow
from tests.cli.test_synthetic_cli import PLAN
from tests.gui.test_synthetic_compare_viewer import bundle, open_viewer  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _labelled() -> dict:  # type: ignore[type-arg]
    return PLAN


def test_the_tab_names_the_table_and_gives_its_rows_the_room(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, bundle: Path) -> None:  # noqa: F811
    from PySide6.QtWidgets import QLabel, QTableWidget

    viewer = open_viewer(window, qtbot, bundle)
    viewer.resize(700, 440)
    viewer.show()
    qtbot.wait(50)
    page = viewer.tabs.currentWidget()
    title = plan_from_dict(PLAN).query("survey_synth").title
    texts = [w.text() for w in page.findChildren(QLabel)]
    assert any(f"Synthetic table “{title}”" in t for t in texts), texts
    table = page.findChildren(QTableWidget)[0]
    assert table.height() >= 0.5 * page.height(), (table.height(), page.height())
