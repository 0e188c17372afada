"""Run as a script (tests/gui/test_windows_fit_screen.py starts it with a small screen and
QT_SCALE_FACTOR=2): opens every top-level window and dialog, prints each one's frame size
and the screen's available size as JSON lines."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget

from planner_app.core.support.resources import demo_plan_path, demo_table_path
from planner_app.gui.app import build_window
from planner_app.gui.dialogs.query_dialog import QueryDialog
from planner_app.gui.dialogs.release_wizard import ReleaseWizard
from planner_app.gui.dialogs.review_bundle import ReviewDialog


def report(name: str, widget: QWidget) -> None:
    widget.show()
    for _ in range(5):
        QApplication.processEvents()
    room = widget.screen().availableGeometry()
    frame = widget.frameGeometry()
    print(json.dumps({"name": name, "width": widget.width(), "height": widget.height(),
                      "room_width": room.width(), "room_height": room.height(),
                      "min_width": widget.minimumWidth(), "min_height": widget.minimumHeight(),
                      "frame_right": frame.right(), "frame_bottom": frame.bottom()}))
    widget.hide()


def main(home: str) -> None:
    app = QApplication([])
    window = build_window(home)
    report("main window (empty)", window)
    window.files.load_table(demo_table_path(), synchronous=True)
    window.files.open_plan(demo_plan_path(), confirmed=True)
    report("main window", window)
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        report(f"main window, tab {i}", window)
    session = window.session
    report("add statistic", QueryDialog(session, None, window))
    report("edit statistic", QueryDialog(session, session.plan.query("income_median"), window))
    report("release wizard", ReleaseWizard(session, window))
    report("keys", window.launchers.open_keys_dialog())
    report("plan review", ReviewDialog(session.plan, Path(demo_plan_path()), session.home,
                                       window))
    app.quit()


if __name__ == "__main__":
    main(sys.argv[1])
