"""GUI fixtures: a main window in a temporary app home, offscreen."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from planner_app.core.support.resources import demo_plan_path, demo_table_path  # noqa: E402
from planner_app.gui.app import build_window  # noqa: E402
from planner_app.gui.collector import collect_on_gui_thread  # noqa: E402
from planner_app.gui.main_window import MainWindow  # noqa: E402

SHOTS = Path(os.environ.get("PLANNER_APP_SCREENSHOTS",
                            Path(__file__).resolve().parents[1] / "_screenshots"))


def offscreen_screen(folder: Path, scale: str, width: int = 1400, height: int = 1000) -> str:
    """QT_QPA_PLATFORM for a subprocess: an offscreen screen of ``width`` x ``height`` logical
    pixels at ``scale`` (the offscreen default, 800x800, is 400x400 at 2x, and windows and
    dialogs are fitted to the screen: widgets/screen_fit.py)."""
    import json

    config = folder / f"screen-{scale}x.json"
    config.write_text(json.dumps({"screens": [{
        "name": "screen", "x": 0, "y": 0, "width": width * int(scale),
        "height": height * int(scale), "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    return f"offscreen:configfile={config}"


@pytest.fixture(autouse=True)
def collector_on_gui_thread(qapp):  # type: ignore[no-untyped-def]
    """As the app does (gui/app.py): cycles are collected on the GUI thread only, never in a
    worker that happens to allocate (a worker's collection freed Qt objects and crashed).
    Turned back on after each test, so the tests after the GUI's run as they always did."""
    import gc

    collector = collect_on_gui_thread()
    gc.disable()
    yield collector
    gc.enable()


class Dialogs:
    """Records the message boxes the app shows and answers them like a user would."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str, str]] = []
        self.answer = None  # for question(): None means "Discard"

    def record(self, kind: str):  # type: ignore[no-untyped-def]
        from PySide6.QtWidgets import QMessageBox

        def show(_parent, title, text, *args, **kwargs):  # type: ignore[no-untyped-def]
            self.shown.append((kind, title, text))
            if kind == "question":
                return self.answer or QMessageBox.StandardButton.Discard
            return QMessageBox.StandardButton.Ok

        return show


@pytest.fixture(autouse=True)
def dialogs(monkeypatch: pytest.MonkeyPatch) -> Dialogs:
    """No test can hang on a modal message box."""
    from PySide6.QtWidgets import QMessageBox

    recorder = Dialogs()
    for kind in ("question", "warning", "information", "critical", "about"):
        monkeypatch.setattr(QMessageBox, kind, staticmethod(recorder.record(kind)))
    return recorder


@pytest.fixture
def window(qtbot, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    w = build_window(str(tmp_path / "home"))
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    return w


@pytest.fixture
def demo(window: MainWindow) -> MainWindow:
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    return window


def release_with_wizard(window: MainWindow, qtbot, out: Path):  # type: ignore[no-untyped-def]
    """Release the open plan through the wizard as a person does (confirm the unit, name
    the bundle, spend) and return the wizard on its results page."""
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    wizard.next()
    wizard.confirm.path.setText(str(out))
    wizard.next()
    qtbot.waitUntil(lambda: wizard.result is not None, timeout=60_000)
    qtbot.waitUntil(lambda: wizard.currentPage() is wizard.results, timeout=10_000)
    return wizard
