"""Start the desktop app (``planner-app``, ``planner-app --demo``, ``planner-app gui
--smoke-test``)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from PySide6.QtCore import QTimer, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from .. import __version__
from ..core.planning.settings import load_settings
from ..core.support.home import app_home
from ..core.support.resources import demo_plan_path, demo_table_path
from .collector import collect_on_gui_thread
from .errors import install_error_dialogs
from .file_dialogs import keep_qt_settings_in
from .main_window import MainWindow
from .session import Session
from .workers import wait_for_workers


def app_icon():  # type: ignore[no-untyped-def]
    """The icon at several sizes, so it stays sharp on high-DPI screens."""
    from PySide6.QtGui import QIcon

    from ..core.support.resources import resource_path

    icon = QIcon()
    for size in (32, 256, 512):
        icon.addFile(str(resource_path("icons", f"planner-app-{size}.png")))
    return icon


def build_window(home_dir: str | None = None) -> MainWindow:
    from .glossary import install

    install()  # plain tooltips for the technical words on screen
    home = app_home(home_dir).ensure()
    keep_qt_settings_in(home.config_dir / "qt")
    session = Session(home, load_settings(home.settings_path))
    return MainWindow(session)


def run_smoke_test(window: MainWindow) -> bool:
    """Open the demo, make a plan edit, render every pane; True when all of it worked."""
    app = QApplication.instance()
    assert app is not None
    window.files.load_table(demo_table_path(), synchronous=True)
    if not window.files.open_plan(demo_plan_path(), confirmed=True):
        return False
    session = window.session
    first = session.plan.queries[0] if session.plan else None
    if first is None:
        return False
    session.select(first.id)
    session.set_epsilon(first.id, first.epsilon * 2)
    edited = session.plan is not None and session.plan.queries[0].epsilon == first.epsilon * 2
    shots = []
    for i in range(window.tabs.count()):
        window.show_tab(i)
        app.processEvents()
        shots.append(window.grab())
    session.undo()
    undone = session.plan is not None and session.plan.queries[0].epsilon == first.epsilon
    if session.plan is not None:
        session.load_plan(session.plan)  # nothing to save in a smoke test
    return edited and undone and all(not s.isNull() for s in shots)


class _PlatformFailure:
    """Qt aborts the process (qFatal) when no platform plugin starts; its own text names
    libxcb-cursor0 whatever is missing. While the QApplication is created, Qt's messages are
    held, and a fatal one ends the process with the one line of core/support/desktop.py and
    exit 2 instead (the probe before Qt catches the known cases; this is the rest)."""

    def __init__(self) -> None:
        self.held: list[str] = []

    def __call__(self, kind, _context, message: str) -> None:  # type: ignore[no-untyped-def]
        from PySide6.QtCore import QtMsgType

        if kind != QtMsgType.QtFatalMsg:
            self.held.append(message)
            return
        from ..core.support.desktop import plugin_failure_line

        plugin = os.environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0]
        found = re.search(r'platform plugin "([^"]+)"', " ".join(self.held + [message]))
        print(plugin_failure_line(found.group(1) if found else plugin), file=sys.stderr,
              flush=True)
        os._exit(2)  # Qt cannot go on; nothing is open or half-written yet


def start_application() -> QApplication:
    """The QApplication, created with Qt's fatal platform errors turned into one line."""
    existing = QApplication.instance()
    if existing is not None:
        assert isinstance(existing, QApplication)
        return existing
    catcher = _PlatformFailure()
    previous = qInstallMessageHandler(catcher)
    try:
        app = QApplication(sys.argv[:1])
    finally:
        qInstallMessageHandler(previous)
    for message in catcher.held:  # what Qt said while starting, as it would have said it
        print(message, file=sys.stderr)
    return app


def run(demo: bool = False, smoke_test: bool = False, home: str | None = None,
        plan: Path | None = None, data: Path | None = None) -> int:
    """The desktop app; ``plan`` and ``data`` (checked by the command line) open at once."""
    smoke = smoke_test
    if smoke:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = start_application()
    app.setApplicationName("planner-app")
    app.setApplicationVersion(__version__)
    app.setWindowIcon(app_icon())
    collect_on_gui_thread()
    window = build_window(home)
    install_error_dialogs(window)
    window.show()
    if smoke:
        ok = run_smoke_test(window)
        print("smoke test:", "ok" if ok else "FAILED")
        window.close()
        wait_for_workers()
        return 0 if ok else 1
    if demo:
        QTimer.singleShot(0, window.files.open_demo)
    elif plan is not None or data is not None:
        QTimer.singleShot(0, lambda: window.files.open_start_files(plan, data))
    code = app.exec()
    # background work (a load, a release finishing what it charged) ends before Python tears
    # down the objects it uses: quitting mid-work never frees them under a pool thread
    wait_for_workers()
    return code
