"""What the main window's parts (the FileOps and DialogLaunchers mixins, menus.py) use of the
window, declared once for the type checker (issue 23).

The parts pass the window as a QWidget parent to dialogs and message boxes, so its type must be a
QMainWindow, which a Protocol cannot be: this is an abstract QMainWindow instead. The mixins
take it as their base only while type checking (at run time their base stays ``object``);
menus.py takes it as the type of ``self``. mypy then checks every use in the parts against
these declarations, every definition in the mixins against them (an override), and that
MainWindow implements each abstract method (it could not be instantiated otherwise). The
attributes are assigned in MainWindow.__init__ and build_actions; tests/gui/test_window_host.py
checks that a real window has each of them.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QMainWindow,
    QMenu,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QStyle,
    QTabWidget,
)

from .session import Session
from .workers import WorkerSlot

if TYPE_CHECKING:
    from .dialogs.keys_dialog import KeysDialog
    from .dialogs.release_wizard import ReleaseWizard
    from .dialogs.review_bundle import BundleDialog

# what QAction.setShortcut takes (menus.make_action)
Shortcut = QKeySequence | QKeySequence.StandardKey | str | None


class WindowHost(QMainWindow):
    """The main window as its parts see it (MainWindow in main_window.py is the one host)."""

    # -- made in MainWindow.__init__ ----------------------------------------------------------
    session: Session
    workers: WorkerSlot
    stack: QStackedWidget
    tabs: QTabWidget
    progress: QProgressBar
    cancel_button: QPushButton

    # -- made in menus.build_actions --------------------------------------------------------
    new_action: QAction
    open_data_action: QAction
    open_plan_action: QAction
    review_action: QAction
    save_action: QAction
    save_as_action: QAction
    keys_action: QAction
    quit_action: QAction
    undo_action: QAction
    redo_action: QAction
    add_action: QAction
    demo_action: QAction
    release_action: QAction
    review_plan_action: QAction
    require_action: QAction
    policy_action: QAction
    guide_action: QAction
    about_action: QAction
    recent_menu: QMenu
    sign_menu: QMenu

    # -- MainWindow (main_window.py) ----------------------------------------------------------
    @abstractmethod
    def _action(self, text: str, slot: Callable[[], object], shortcut: Shortcut = None,
                tip: str = "", icon: QStyle.StandardPixmap | None = None) -> QAction: ...

    @abstractmethod
    def _remember(self, path: Path) -> None: ...

    @abstractmethod
    def _fill_recent(self) -> None: ...

    @abstractmethod
    def show_tab(self, index: int) -> None: ...

    @abstractmethod
    def show_unit_question(self) -> None: ...

    @abstractmethod
    def confirm_discard(self) -> bool: ...

    @abstractmethod
    def error(self, title: str, text: str) -> None: ...

    # -- FileOps (file_ops.py) ----------------------------------------------------------------
    @abstractmethod
    def open_path(self, path: Path) -> None: ...

    @abstractmethod
    def open_table_dialog(self) -> None: ...

    @abstractmethod
    def open_plan_dialog(self) -> None: ...

    @abstractmethod
    def open_demo(self, synchronous: bool = False) -> None: ...

    @abstractmethod
    def save_plan(self) -> bool: ...

    @abstractmethod
    def save_plan_as(self) -> bool: ...

    @abstractmethod
    def new_plan(self) -> None: ...

    # -- DialogLaunchers (launchers.py) -------------------------------------------------------
    @abstractmethod
    def open_review_dialog(self) -> None: ...

    @abstractmethod
    def review_current(self) -> None: ...

    @abstractmethod
    def open_keys_dialog(self) -> KeysDialog: ...

    @abstractmethod
    def _toggle_require(self) -> None: ...

    @abstractmethod
    def show_policy(self) -> None: ...

    @abstractmethod
    def release(self) -> ReleaseWizard | None: ...

    @abstractmethod
    def review_bundle(self, path: Path) -> BundleDialog: ...

    @abstractmethod
    def add_statistic(self) -> None: ...

    @abstractmethod
    def show_guide(self) -> None: ...

    @abstractmethod
    def show_about(self) -> None: ...
