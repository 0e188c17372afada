"""Open the demo table with a synthetic plan in the main window, and its table's editor: the
steps the synthetic GUI tests share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planner_app.core.support.resources import demo_table_path
from planner_app.gui.dialogs.query_dialog import QueryDialog
from planner_app.gui.main_window import MainWindow
from tests.cli.test_synthetic_cli import PLAN


def open_synthetic_plan(window: MainWindow, tmp_path: Path,
                        doc: dict[str, Any] | None = None) -> None:
    """Open the demo table, then ``doc`` (the CLI tests' synthetic plan by default)."""
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN if doc is None else doc))
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(path, confirmed=True)


def synthetic_editor(window: MainWindow, qtbot: Any, shown: bool = True) -> QueryDialog:
    """The editor of the open plan's synthetic table (its id in ``PLAN``)."""
    dialog = QueryDialog(window.session, window.session.plan.query("survey_synth"))
    qtbot.addWidget(dialog)
    if shown:
        dialog.show()
        qtbot.wait(10)
    return dialog
