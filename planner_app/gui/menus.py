"""The main window's actions, menus and toolbar (moved out of main_window.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QStyle

from .signing import fill_sign_menu

if TYPE_CHECKING:  # the window these build for (main_window imports this module)
    from .window_host import Shortcut
    from .window_host import WindowHost as MainWindow


def make_action(self: MainWindow, text: str, slot: Callable[[], object],
                shortcut: Shortcut = None, tip: str = "",
                icon: QStyle.StandardPixmap | None = None) -> QAction:
    action = QAction(text, self)
    if icon is not None:
        action.setIcon(self.style().standardIcon(icon))
    if shortcut is not None:
        action.setShortcut(shortcut)
    action.setStatusTip(tip or text.replace("…", "").replace("&", ""))
    action.setToolTip(tip or text.replace("&", ""))
    action.triggered.connect(lambda _checked=False: slot())
    return action


def build_actions(self: MainWindow) -> None:
    """Every QAction of the window, its menus and its toolbar."""
    SP = QStyle.StandardPixmap
    self.new_action = self._action("&New plan", self.new_plan, QKeySequence.StandardKey.New,
                                   "Start a new plan", SP.SP_FileIcon)
    self.open_data_action = self._action("Open &data…", self.open_table_dialog,
                                         QKeySequence("Ctrl+D"), "Open a table",
                                         SP.SP_DirOpenIcon)
    self.open_plan_action = self._action("&Open plan…", self.open_plan_dialog,
                                         QKeySequence.StandardKey.Open, "Open a plan file",
                                         SP.SP_DialogOpenButton)
    self.review_action = self._action("Open plan or &bundle to review…",
                                      self.open_review_dialog, None,
                                      "Read a plan or verify a release bundle")
    self.save_action = self._action("&Save plan", self.save_plan,
                                    QKeySequence.StandardKey.Save, "Save the plan",
                                    SP.SP_DialogSaveButton)
    self.save_as_action = self._action("Save plan &as…", self.save_plan_as,
                                       QKeySequence.StandardKey.SaveAs)
    self.keys_action = self._action("&Keys…", self.open_keys_dialog, None,
                                    "Your signing keys and the public keys you trust")
    self.quit_action = self._action("&Quit", self.close, QKeySequence.StandardKey.Quit)
    self.undo_action = self._action("&Undo", self.session.undo,
                                    QKeySequence.StandardKey.Undo, "Undo the last edit",
                                    SP.SP_ArrowBack)
    self.redo_action = self._action("&Redo", self.session.redo,
                                    QKeySequence.StandardKey.Redo, "Redo", SP.SP_ArrowForward)
    self.add_action = self._action("&Add statistic…", self.add_statistic,
                                   QKeySequence("Ctrl+Shift+A"), "Add a statistic")
    self.demo_action = self._action("Open the &demo", self.open_demo)
    self.release_action = self._action("&Release…", self.release, QKeySequence("Ctrl+R"),
                                       "Check, confirm, spend the budget and write a "
                                       "release bundle")
    self.review_plan_action = self._action("Re&view this plan…", self.review_current,
                                           None, "Approve or reject the plan as a "
                                           "privacy officer")
    self.require_action = self._action("Require &approval before release",
                                       self._toggle_require, None,
                                       "A release needs a reviewer's approval of this "
                                       "exact plan")
    self.require_action.setCheckable(True)
    self.policy_action = self._action("Organisation's &policy…", self.show_policy, None,
                                      "The policy installed in this app home (read-only)")
    show_require(self)
    self.guide_action = self._action("&User guide", self.show_guide,
                                     QKeySequence.StandardKey.HelpContents)
    self.about_action = self._action("&About planner_app", self.show_about)

    bar = self.menuBar()
    file_menu = bar.addMenu("&File")
    for a in (self.new_action, self.open_data_action, self.open_plan_action,
              self.review_action, self.demo_action):
        file_menu.addAction(a)
    self.recent_menu = file_menu.addMenu("Recent &files")
    file_menu.addSeparator()
    file_menu.addAction(self.save_action)
    file_menu.addAction(self.save_as_action)
    file_menu.addSeparator()
    file_menu.addAction(self.keys_action)
    file_menu.addSeparator()
    file_menu.addAction(self.quit_action)
    edit_menu = bar.addMenu("&Edit")
    edit_menu.addAction(self.undo_action)
    edit_menu.addAction(self.redo_action)
    edit_menu.addSeparator()
    edit_menu.addAction(self.add_action)
    release_menu = bar.addMenu("&Release")
    release_menu.addAction(self.release_action)
    release_menu.addAction(self.review_plan_action)
    release_menu.addSeparator()
    release_menu.addAction(self.require_action)
    release_menu.addAction(self.policy_action)
    self.sign_menu = release_menu.addMenu("&Sign releases with key")  # a setting (gui/signing)
    self.sign_menu.aboutToShow.connect(lambda: fill_sign_menu(self.sign_menu, self.session))
    fill_sign_menu(self.sign_menu, self.session)
    view_menu = bar.addMenu("&View")
    for i in range(self.tabs.count()):
        name = self.tabs.tabText(i).split("  ", 1)[-1]
        view_menu.addAction(self._action(name, partial(self.show_tab, i),
                                         QKeySequence(f"Ctrl+{i + 1}")))
    help_menu = bar.addMenu("&Help")
    help_menu.addAction(self.guide_action)
    help_menu.addAction(self.about_action)

    toolbar = self.addToolBar("Main")
    toolbar.setObjectName("main-toolbar")
    for a in (self.new_action, self.open_data_action, self.open_plan_action,
              self.save_action):
        toolbar.addAction(a)
    toolbar.addSeparator()
    toolbar.addAction(self.undo_action)
    toolbar.addAction(self.redo_action)
    toolbar.addSeparator()
    toolbar.addAction(self.add_action)
    self._fill_recent()


def show_require(self: MainWindow) -> None:
    """The "Require approval" tick: the setting, or on and locked when the organisation's
    policy requires approval (the owner cannot switch it off from the menu)."""
    locked = self.session.approval_locked_by
    self.require_action.setChecked(self.session.approval_required)
    self.require_action.setEnabled(locked is None)
    tip = (f"Required by {locked}: a release needs an approval signed by one of its officers"
           if locked else "A release needs a reviewer's approval of this exact plan")
    self.require_action.setToolTip(tip)
    self.require_action.setStatusTip(tip)


def fill_recent(self: MainWindow) -> None:
    self.recent_menu.clear()
    for text in self.session.settings.recent_files:
        path = Path(text)
        self.recent_menu.addAction(self._action(path.name, partial(self.open_path, path),
                                                tip=str(path)))
    self.recent_menu.setEnabled(bool(self.session.settings.recent_files))
