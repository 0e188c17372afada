"""Quitting while work runs in the background: no object is deleted from the wrong side.

The quit crash of issue 11 ("QObject: shared QObject was deleted directly", then signal 11):
a worker's signals object was owned by the Python Worker, so dropping the last reference to a
worker that was still running (a second table opened over a loading one, a window closed
mid-load) deleted the QObject directly, from whichever thread let go of it, while the pool
thread was still emitting from it. Each scenario runs in a subprocess, as a person would run
the app, and must exit with 0 and print no Qt or PySide warning."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

BAD = ("QObject:", "Signal source has been deleted", "Error calling Python override",
       "Fatal Python error", "Segmentation fault", "Traceback")

PRELUDE = """
import faulthandler, gc, os, sys, time
faulthandler.enable()
from pathlib import Path
from PySide6.QtCore import QTimer, QThreadPool
from PySide6.QtWidgets import QApplication, QMessageBox
app = QApplication([])
QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
QMessageBox.warning = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Ok)
"""


def run_script(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "scenario.py"
    script.write_text(PRELUDE + textwrap.dedent(body), encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PLANNER_APP_TMP": str(tmp_path)}
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=Path(__file__).resolve().parents[2])


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    noise = [line for line in result.stderr.splitlines() if any(b in line for b in BAD)]
    assert result.returncode == 0 and not noise, (result.returncode, result.stderr[-3000:])
    assert "finished cleanly" in result.stdout


@pytest.mark.subprocess
def test_quitting_while_workers_run(tmp_path: Path) -> None:
    """The app quits (Ctrl+Q) while background work still runs: ``run`` returns only when it
    has ended, so nothing is torn down under a pool thread."""
    result = run_script("""
        from planner_app.gui import app as gui_app
        from planner_app.gui.workers import Worker

        results = []
        def work(progress, cancel):  # ignores cancel(), as a long read between checks does
            for i in range(30):
                time.sleep(0.01)
                progress(i / 30, "working")
                [object() for _ in range(1000)]
            return 1

        def scenario():
            (window,) = [w for w in app.topLevelWidgets() if hasattr(w, "workers")]
            for i in range(12):  # each start lets go of the previous, still running, worker
                w = Worker(work)
                w.signals.finished.connect(results.append)
                window.workers.start(w)
                del w
                gc.collect()
            QTimer.singleShot(300, window.menus.quit_action.trigger)

        QTimer.singleShot(0, scenario)
        code = gui_app.run(home=os.environ["PLANNER_APP_TMP"] + "/home")
        print("finished cleanly", code, flush=True)
    """, tmp_path)
    assert_clean(result)


@pytest.mark.subprocess
def test_closing_the_window_while_a_table_loads(tmp_path: Path) -> None:
    result = run_script("""
        from planner_app.gui import app as gui_app
        from planner_app.core.support.resources import demo_plan_path, demo_table_path

        tmp = Path(os.environ["PLANNER_APP_TMP"])
        big = tmp / "big.csv"
        big.write_text("id,v\\n" + "".join(f"{i},{i % 9}\\n" for i in range(300_000)))

        def scenario():
            (w,) = [w for w in app.topLevelWidgets() if hasattr(w, "workers")]
            w.files.load_table(demo_table_path(), synchronous=True)
            w.files.open_plan(demo_plan_path(), confirmed=True)
            for i in range(w.tabs.count()):  # every pane and chart drawn once
                w.show_tab(i)
                app.processEvents()
            w.session.set_epsilon(w.session.plan.queries[0].id, 0.9)
            w.session.undo()
            w.files.load_table(big, ask=False)
            w.files.load_table(big, ask=False)  # the first load is let go of while it runs
            QTimer.singleShot(30, w.close)

        QTimer.singleShot(0, scenario)
        code = gui_app.run(home=str(tmp / "home"))
        print("finished cleanly", code, flush=True)
    """, tmp_path)
    assert_clean(result)
