"""Every error reaches the user as a dialog, and the work is kept.

Expected errors (a ``PlannerError``: bad input, a refused budget, a damaged ledger) carry a
one-line message made for a user; anything else is a defect. For both, the app shows a dialog,
keeps an unsaved plan in a recovery file, and writes the details for a bug report to
``errors.log`` in the app home (the owner's machine only), instead of dying.
"""

from __future__ import annotations

import os
import sys
import traceback
from datetime import datetime, timezone
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from ..core.support.errors import PlannerError
from ..core.support.field_words import on_screen
from ..core.support.private import private_folder

if TYPE_CHECKING:
    from .main_window import MainWindow


def _log(window: MainWindow, exc_type: type[BaseException], exc: BaseException,
         tb: TracebackType | None) -> str | None:
    path = window.session.home.data_dir / "errors.log"
    try:
        private_folder(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)  # owner only
        with open(fd, "a", encoding="utf-8") as fh:
            fh.write(f"--- {datetime.now(timezone.utc).isoformat(timespec='seconds')}\n")
            fh.write("".join(traceback.format_exception(exc_type, exc, tb)))
        return str(path)
    except OSError:
        return None


def show_error(window: MainWindow, exc_type: type[BaseException], exc: BaseException,
               tb: TracebackType | None) -> None:
    """The dialog for an error nothing else caught."""
    kept = window.session.keep_recovery_copy()
    logged = _log(window, exc_type, exc, tb)
    if isinstance(exc, PlannerError):
        # the control a plan path names, not the path (the command line keeps the paths)
        title = "This could not be done"
        first = on_screen(str(exc).splitlines()[0]) if str(exc) else ""
    else:
        title = "Something went wrong"
        first = (f"planner_app hit an unexpected problem ({exc_type.__name__}) and stopped "
                 "what it was doing. This is a bug; nothing was released because of it.")
    lines = [first[:500]]
    if kept is not None:
        lines.append(f"Your unsaved plan was kept in {kept}.")
    elif window.session.plan is not None:
        lines.append("Your plan is still open.")
    if logged is not None and not isinstance(exc, PlannerError):
        lines.append(f"Details for a bug report: {logged}")
    QMessageBox.critical(window, title, "\n\n".join(lines))


def install_error_dialogs(window: MainWindow) -> None:
    """Route uncaught exceptions (in slots, timers and event handlers) to ``show_error``."""
    def hook(exc_type: type[BaseException], exc: BaseException,
             tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        try:
            show_error(window, exc_type, exc, tb)
        except Exception:  # the dialog itself failed: fall back to the terminal, never die
            sys.__excepthook__(exc_type, exc, tb)

    sys.excepthook = hook
