"""What the main window's controllers use of the window they serve, and nothing more (issue 23).

A controller (files.py, launchers.py, menus.py) gets the Session and this host in its
constructor, never the window: it parents its dialogs on ``dialog_parent()``, speaks through
the status bar and message boxes, and asks for a page or tab to be shown. MainWindow
(main_window.py) is the one host; mypy checks that it is one where it builds its controllers.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QWidget


class WindowHost(Protocol):
    """The window as its controllers see it."""

    def dialog_parent(self) -> QWidget:
        """The widget a controller's dialogs and message boxes belong to (the window)."""
        ...

    def show_status(self, text: str, timeout: int = 0) -> None:
        """A line in the status bar (``timeout`` in ms; 0 keeps it)."""
        ...

    def clear_status(self) -> None: ...

    def show_busy(self, on: bool, message: str = "") -> None:
        """The status bar's progress and Cancel, shown while a table loads."""
        ...

    def show_progress(self, fraction: float, message: str) -> None: ...

    def error(self, title: str, text: str) -> None:
        """A warning box on the window."""
        ...

    def show_planner(self, data_tab: bool = False) -> None:
        """The planner page (not the welcome page); with ``data_tab`` its Data tab."""
        ...

    def show_tab(self, index: int) -> None: ...

    def show_unit_question(self) -> None:
        """The Data tab's "Who is one person?", where statistics wait for its answer."""
        ...

    def close(self) -> bool: ...
