"""The main window's actions, menus and toolbar, and their enabled state. A controller the
window composes (``window.menus``): each action calls the file controller, the launchers, the
session or the host (host.py); the window puts the menus on its bar and toolbar (``install``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QStyle, QToolBar

from ..session import Session
from ..signing import fill_sign_menu
from .files import FileController
from .launchers import Launchers

if TYPE_CHECKING:
    from .host import WindowHost

# what QAction.setShortcut takes
Shortcut = QKeySequence | QKeySequence.StandardKey | str | None


class MenuController:
    """Every QAction of the window; the menus and the toolbar are made by ``install``."""

    def __init__(self, host: WindowHost, session: Session, files: FileController,
                 launchers: Launchers) -> None:
        self.host = host
        self.session = session
        self.files = files
        SP = QStyle.StandardPixmap
        act = self._action
        self.new_action = act("&New plan", files.new_plan, QKeySequence.StandardKey.New,
                              "Start a new plan", SP.SP_FileIcon)
        self.open_data_action = act("Open &data…", files.open_table_dialog,
                                    QKeySequence("Ctrl+D"), "Open a table", SP.SP_DirOpenIcon)
        self.open_plan_action = act("&Open plan…", files.open_plan_dialog,
                                    QKeySequence.StandardKey.Open, "Open a plan file",
                                    SP.SP_DialogOpenButton)
        self.review_action = act("Open plan or &bundle to review…",
                                 launchers.open_review_dialog, None,
                                 "Read a plan or verify a release bundle")
        self.save_action = act("&Save plan", files.save_plan, QKeySequence.StandardKey.Save,
                               "Save the plan", SP.SP_DialogSaveButton)
        self.save_as_action = act("Save plan &as…", files.save_plan_as,
                                  QKeySequence.StandardKey.SaveAs)
        self.keys_action = act("&Keys…", launchers.open_keys_dialog, None,
                               "Your signing keys and the public keys you trust")
        self.quit_action = act("&Quit", host.close, QKeySequence.StandardKey.Quit)
        self.undo_action = act("&Undo", session.undo, QKeySequence.StandardKey.Undo,
                               "Undo the last edit", SP.SP_ArrowBack)
        self.redo_action = act("&Redo", session.redo, QKeySequence.StandardKey.Redo, "Redo",
                               SP.SP_ArrowForward)
        self.add_action = act("&Add statistic…", launchers.add_statistic,
                              QKeySequence("Ctrl+Shift+A"), "Add a statistic")
        self.relations_action = act("Re&lations between statistics…",
                                    launchers.edit_relations, None,
                                    "Which statistics add up to which, and the headline "
                                    "values")
        self.demo_action = act("Open the &demo", files.open_demo)
        self.release_action = act("&Release…", launchers.release, QKeySequence("Ctrl+R"),
                                  "Check, confirm, spend the budget and write a release bundle")
        self.review_plan_action = act("Re&view this plan…", launchers.review_current, None,
                                      "Approve or reject the plan as a privacy officer")
        self.require_action = act("Require &approval before release", self._toggle_require,
                                  None, "A release needs a reviewer's approval of this exact "
                                        "plan")
        self.require_action.setCheckable(True)
        self.policy_action = act("Organisation's &policy…", launchers.show_policy, None,
                                 "The policy installed in this app home (read-only)")
        # cal26: the calendar of releases, past and planned spending against each cap
        self.timeline_action = act("Spending over &time…", launchers.show_timeline, None,
                                   "Each dataset's past and planned lifetime spending "
                                   "against its cap")
        self.show_require()
        self.guide_action = act("&User guide", launchers.show_guide,
                                QKeySequence.StandardKey.HelpContents)
        self.about_action = act("&About planner_app", launchers.show_about)
        self.recent_menu = QMenu("Recent &files", host.dialog_parent())
        self.sign_menu = QMenu("&Sign releases with key", host.dialog_parent())  # a setting
        self.sign_menu.aboutToShow.connect(lambda: fill_sign_menu(self.sign_menu, session))
        fill_sign_menu(self.sign_menu, session)
        self.fill_recent()

    def _action(self, text: str, slot: Callable[[], object], shortcut: Shortcut = None,
                tip: str = "", icon: QStyle.StandardPixmap | None = None) -> QAction:
        parent = self.host.dialog_parent()
        action = QAction(text, parent)
        if icon is not None:
            action.setIcon(parent.style().standardIcon(icon))
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.setStatusTip(tip or text.replace("…", "").replace("&", ""))
        action.setToolTip(tip or text.replace("&", ""))
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def install(self, bar: QMenuBar, toolbar: QToolBar, tabs: list[str]) -> None:
        """The menus on the window's bar (View lists ``tabs``, the tabs' names) and the
        toolbar's buttons."""
        file_menu = bar.addMenu("&File")
        for a in (self.new_action, self.open_data_action, self.open_plan_action,
                  self.review_action, self.demo_action):
            file_menu.addAction(a)
        file_menu.addMenu(self.recent_menu)
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
        edit_menu.addAction(self.relations_action)
        release_menu = bar.addMenu("&Release")
        release_menu.addAction(self.release_action)
        release_menu.addAction(self.review_plan_action)
        release_menu.addSeparator()
        release_menu.addAction(self.require_action)
        release_menu.addAction(self.policy_action)
        release_menu.addAction(self.timeline_action)
        release_menu.addMenu(self.sign_menu)  # a setting (gui/signing)
        view_menu = bar.addMenu("&View")
        for i, name in enumerate(tabs):
            view_menu.addAction(self._action(name, partial(self.host.show_tab, i),
                                             QKeySequence(f"Ctrl+{i + 1}")))
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.guide_action)
        help_menu.addAction(self.about_action)

        for a in (self.new_action, self.open_data_action, self.open_plan_action,
                  self.save_action):
            toolbar.addAction(a)
        toolbar.addSeparator()
        toolbar.addAction(self.undo_action)
        toolbar.addAction(self.redo_action)
        toolbar.addSeparator()
        toolbar.addAction(self.add_action)

    def plan_changed(self) -> None:
        """Undo, redo and what needs a plan, as the session now stands."""
        s = self.session
        has_plan = s.plan is not None
        self.undo_action.setEnabled(s.can_undo)
        self.redo_action.setEnabled(s.can_redo)
        self.undo_action.setText(f"&Undo {s.undo_text}" if s.can_undo else "&Undo")
        self.redo_action.setText(f"&Redo {s.redo_text}" if s.can_redo else "&Redo")
        for a in (self.save_action, self.save_as_action, self.add_action, self.release_action,
                  self.review_plan_action, self.relations_action):
            a.setEnabled(has_plan)
        waiting = s.unit_unanswered()  # statistics wait for who one person is
        self.add_action.setEnabled(has_plan and waiting is None)
        self.add_action.setToolTip(waiting or "Add a statistic")

    def _toggle_require(self) -> None:
        if self.session.approval_locked_by is not None:  # the policy decides
            self.require_action.setChecked(True)
            return
        self.session.set_require_approval(self.require_action.isChecked())  # and saves it

    def show_require(self) -> None:
        """The "Require approval" tick: the setting, or on and locked when the organisation's
        policy requires approval (the owner cannot switch it off from the menu)."""
        locked = self.session.approval_locked_by
        self.require_action.setChecked(self.session.approval_required)
        self.require_action.setEnabled(locked is None)
        tip = (f"Required by {locked}: a release needs an approval signed by one of its officers"
               if locked else "A release needs a reviewer's approval of this exact plan")
        self.require_action.setToolTip(tip)
        self.require_action.setStatusTip(tip)

    def fill_recent(self) -> None:
        """File → Recent files, from the settings (again after each file remembered)."""
        self.recent_menu.clear()
        for text in self.session.settings.recent_files:
            path = Path(text)
            self.recent_menu.addAction(self._action(path.name,
                                                    partial(self.files.open_path, path),
                                                    tip=str(path)))
        self.recent_menu.setEnabled(bool(self.session.settings.recent_files))
