"""Every open and save dialog of the app, through one helper: it starts in the folder of the
last file opened or saved (kept in the settings, so also after a restart), else in the
person's Documents folder or home, never in the folder the app happened to be started from
nor where Qt's own dialog memory (kept outside the app home) points."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

from .session import Session


def _session_of(widget: QWidget | None) -> Session | None:
    """The app's session, from the widget or the nearest parent window that holds one."""
    while widget is not None:
        session = getattr(widget, "session", None)
        if isinstance(session, Session):
            return session
        widget = widget.parentWidget()
    return None


def start_folder(parent: QWidget | None, folder: Path | None = None) -> Path:
    """Where a dialog starts: the folder asked for (a plan's own folder), else the last one
    used (the app home's settings), else the person's Documents folder, else their home."""
    if folder is not None and folder.is_dir():
        return folder
    session = _session_of(parent)
    last = session.last_folder if session is not None else None
    return last if last is not None else first_folder()


def first_folder() -> Path:
    """Where the first dialog of a new app home starts: Documents when there is one."""
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    if documents and Path(documents).is_dir():
        return Path(documents)
    return Path.home()


def keep_qt_settings_in(folder: Path) -> None:
    """Qt's own settings (its file dialog's history and last folder, QtProject.conf) go into
    the app home instead of the person's ~/.config, shared by every app home and user of Qt:
    a new home starts with none (walk 2: a first dialog showed another walk's folder)."""
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(folder))


def _ask(parent: QWidget | None, caption: str, start: Path, name_filter: str,
         save: bool) -> Path | None:
    """The static dialogs: native where the platform has one (Qt's own under offscreen)."""
    if save:
        name, _ = QFileDialog.getSaveFileName(parent, caption, str(start), name_filter)
    else:
        name, _ = QFileDialog.getOpenFileName(parent, caption, str(start), name_filter)
    if not name:
        return None
    chosen = Path(name)
    session = _session_of(parent)
    if session is not None:
        session.remember_folder(chosen.parent)
    return chosen


def ask_open_file(parent: QWidget | None, caption: str, name_filter: str,
                  folder: Path | None = None) -> Path | None:
    """The file the person chose to open, or None."""
    return _ask(parent, caption, start_folder(parent, folder), name_filter, save=False)


def ask_save_file(parent: QWidget | None, caption: str, suggested: str | Path,
                  name_filter: str) -> Path | None:
    """The file the person chose to write, or None. ``suggested``: a file name (the dialog
    starts in the last folder) or a whole path (it starts there)."""
    path = Path(suggested)
    folder = path.parent if path.is_absolute() else None
    return _ask(parent, caption, start_folder(parent, folder) / path.name, name_filter,
                save=True)


def ask_save_bundle(parent: QWidget | None, caption: str, suggested: str | Path) -> str | None:
    """The release bundle the person chose to write (``.zip`` added when left off), or
    None: the release wizard's and the discovery dialog's one question."""
    chosen = ask_save_file(parent, caption, suggested, "Release bundles (*.zip)")
    if chosen is None:
        return None
    name = str(chosen)
    return name if name.endswith(".zip") else name + ".zip"
