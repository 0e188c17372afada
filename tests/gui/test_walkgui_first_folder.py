"""The first file dialog of a new app home (walk 2, finding 21: with an empty --home the first
Open dialog started in another walk's folder). It starts in the person's Documents folder, or
their home without one; never in the folder the app was started from, nor where Qt's own
dialog memory (QtProject.conf, outside the app home) points; that memory is kept in the app
home."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from planner_app.gui.app import build_window


def _first_dialog_folder(qtbot, home: Path) -> Path:  # type: ignore[no-untyped-def]
    window = build_window(str(home))
    qtbot.addWidget(window)
    window.show()
    seen: list[Path] = []

    def look() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QFileDialog) and widget.isVisible():
                seen.append(Path(widget.directory().absolutePath()))
                widget.reject()
                return
        QTimer.singleShot(50, look)

    QTimer.singleShot(50, look)
    window.files.open_table_dialog()
    assert seen, "no file dialog was shown"
    return seen[0]


@pytest.mark.parametrize("documents", [False, True])
def test_a_new_home_starts_in_documents_or_home_never_elsewhere(  # type: ignore[no-untyped-def]
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, documents: bool) -> None:
    person = tmp_path / "person"
    elsewhere = tmp_path / "another-walk"
    started_in = tmp_path / "started-here"
    for folder in (person / ".config", elsewhere, started_in):
        folder.mkdir(parents=True)
    if documents:
        (person / "Documents").mkdir()
    qt_memory = person / ".config" / "QtProject.conf"
    memory = (f"[FileDialog]\nlastVisited=file://{elsewhere}\nhistory=file://{elsewhere}\n")
    qt_memory.write_text(memory)
    monkeypatch.setenv("HOME", str(person))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_DOCUMENTS_DIR", raising=False)
    monkeypatch.chdir(started_in)
    home = tmp_path / "app-home"
    folder = _first_dialog_folder(qtbot, home)
    assert folder == (person / "Documents" if documents else person)
    assert qt_memory.read_text() == memory  # Qt's memory outside the app home is left alone
    assert list((home / "config" / "qt").rglob("QtProject.conf"))  # it is kept in the home
