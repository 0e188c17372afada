"""The first start in the app (issue 22): a plan and table named on the command line, the
demo opening unmodified, file dialogs that start in the last folder used, and Qt's own
platform failure turned into one line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from planner_app.core.planfile import load_plan
from planner_app.gui.app import build_window
from planner_app.gui.main_window import MainWindow
from tests.conftest import DEMO_PLAN, DEMO_TABLE


def test_gui_plan_and_data_open_that_plan_on_that_table(window: MainWindow, tmp_path: Path,
                                                         qtbot) -> None:  # type: ignore[no-untyped-def]
    plan = tmp_path / "plans" / "survey-plan.json"
    plan.parent.mkdir()
    shutil.copy(DEMO_PLAN, plan)
    table = tmp_path / "tables" / "survey-2026.csv"  # not the plan's own table
    table.parent.mkdir()
    shutil.copy(DEMO_TABLE, table)
    window.files.open_start_files(plan, table, synchronous=True)
    session = window.session
    assert session.path == plan
    assert session.table_path == table
    assert session.table is not None and session.table.name == "survey-2026.csv"
    assert session.plan == load_plan(plan)  # opened as it is: not edited, not modified
    assert not session.dirty and not window.isWindowModified()


def test_gui_plan_alone_opens_the_plans_own_table(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.files.open_start_files(DEMO_PLAN, None)
    qtbot.waitUntil(lambda: window.session.table is not None, timeout=30_000)
    assert window.session.path == DEMO_PLAN
    assert window.session.table_path == DEMO_TABLE.resolve()


def test_the_demo_opens_unmodified_and_never_as_a_starter_plan(window: MainWindow, dialogs,
                                                               qtbot) -> None:  # type: ignore[no-untyped-def]
    titles: list[str] = []
    window.windowTitleChanged.connect(titles.append)
    names: list[str] = []
    window.session.changed.connect(
        lambda _c: names.append(window.session.plan.dataset.name if window.session.plan
                                else ""))
    window.files.open_demo()
    qtbot.waitUntil(lambda: window.session.path is not None, timeout=30_000)
    assert not window.session.dirty and not window.isWindowModified()
    # no unsaved starter plan named after the table ("survey*") on the way
    assert not any(t.startswith("survey[*]") for t in titles), titles
    assert "survey" not in names
    window.files.open_demo(synchronous=True)  # nothing to save: no question
    assert [d for d in dialogs.shown if d[0] == "question"] == []


def _answer_file_dialog(choose: Path | None, seen: list[str]) -> None:
    """When the app's file dialog is up (Qt's own under offscreen): note where it started,
    then choose ``choose`` (or cancel)."""
    def poke() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            QTimer.singleShot(20, poke)
            return
        seen.append(dialog.directory().absolutePath())
        if choose is None:
            dialog.reject()
        else:
            dialog.selectFile(str(choose))
            dialog.accept()
    QTimer.singleShot(20, poke)


def test_file_dialogs_start_in_the_last_folder_used(qtbot, tmp_path: Path,
                                                     monkeypatch) -> None:  # type: ignore[no-untyped-def]
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    monkeypatch.chdir(checkout)  # where the app was started from: never a dialog's start
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    (tmp_path / "me").mkdir()
    data = tmp_path / "data"
    data.mkdir()
    table = data / "survey.csv"
    shutil.copy(DEMO_TABLE, table)
    home = tmp_path / "home"

    window = build_window(str(home))
    qtbot.addWidget(window)
    window.show()
    seen: list[str] = []
    _answer_file_dialog(table, seen)
    window.files.open_table_dialog()
    qtbot.waitUntil(lambda: window.session.table is not None, timeout=30_000)
    assert seen == [str(tmp_path / "me")]  # the first time: the person's home folder

    _answer_file_dialog(None, seen)  # the next dialog, another kind: where the table was
    window.files.open_plan_dialog()
    assert seen[-1] == str(data)
    window.session.load_plan(window.session.plan)  # nothing to save
    window.close()

    again = build_window(str(home))  # after a restart, too
    qtbot.addWidget(again)
    again.show()
    _answer_file_dialog(None, seen)
    again.launchers.open_review_dialog()
    assert seen[-1] == str(data)
    assert str(checkout) not in seen


@pytest.mark.subprocess
def test_a_platform_plugin_qt_cannot_start_is_one_line(tmp_path: Path) -> None:
    """Past the probe (here: a plugin that does not exist), Qt aborts with its own text;
    the app says one line instead, exit 2."""
    env = dict(os.environ, QT_QPA_PLATFORM="no-such-plugin",
               PLANNER_APP_HOME=str(tmp_path / "home"))
    code = "from planner_app.gui.app import run; run()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "planner-app: error: the desktop app could not start Qt's platform plugin "
        "'no-such-plugin': run it again with QT_DEBUG_PLUGINS=1 to see why (often a missing "
        "system library), or set QT_QPA_PLATFORM=wayland or xcb to try the other display "
        "system"]
