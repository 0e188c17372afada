"""The main window: menus, toolbar, the welcome page or the planner, the budget meter and a
status bar with progress and Cancel. It wires views to the session; it holds no privacy
logic."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (QDialog, QFileDialog, QInputDialog, QMainWindow,
                               QMessageBox, QProgressBar, QPushButton, QSplitter,
                               QStackedWidget, QStyle, QTabWidget, QTextBrowser, QVBoxLayout,
                               QWidget)

from .. import __version__
from ..core.editing import add_query, duplicate_query, remove_query, replace_query
from ..core.errors import InputError, PlannerError
from ..core.plan import load_plan, plan_from_dict, plan_to_dict, save_plan
from ..core.resources import demo_plan_path, demo_table_path, resource_path
from ..core.settings import save_settings
from ..core.tables import describe_columns, load_table
from .dialogs.query_dialog import QueryDialog
from .dialogs.release_wizard import ReleaseWizard
from .dialogs.review_bundle import BundleDialog, ReviewDialog
from .session import Session
from .table_link import (ATTACH, NEW, ask_new_or_attach, attached, plans_table, problems_text,
                         table_path_text)
from .widgets.budget_pane import BudgetPane
from .widgets.data_pane import DataPane
from .widgets.meter import BudgetMeter
from .widgets.risk_pane import RiskPane
from .widgets.statistic_pane import StatisticPane
from .widgets.statistics_pane import StatisticsPane
from .widgets.welcome import WelcomePage
from .workers import Worker, WorkerSlot

TABLE_FILTER = "Tables (*.csv *.tsv *.txt *.xlsx *.parquet);;All files (*)"
PLAN_FILTER = "Plans (*.json);;All files (*)"
REVIEW_FILTER = "Plans and bundles (*.json *.zip);;All files (*)"
TABLE_SUFFIXES = {".csv", ".tsv", ".txt", ".tab", ".xlsx", ".xlsm", ".parquet", ".pq"}


class MainWindow(QMainWindow):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.workers = WorkerSlot()
        self.setWindowTitle(f"planner_app {__version__}")
        self.setAcceptDrops(True)
        self.resize(1280, 820)

        self.stack = QStackedWidget()
        self.welcome = WelcomePage()
        self.stack.addWidget(self.welcome)
        planner = QWidget()
        planner_layout = QVBoxLayout(planner)
        planner_layout.setContentsMargins(4, 4, 4, 0)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.statistics = StatisticsPane(session)
        split.addWidget(self.statistics)
        self.tabs = QTabWidget()
        self.data_pane = DataPane(session)
        self.statistic_pane = StatisticPane(session)
        self.budget_pane = BudgetPane(session)
        self.risk_pane = RiskPane(session)
        self.tabs.addTab(self.data_pane, "1  Data")
        self.tabs.addTab(self.statistic_pane, "2  Statistic")
        self.tabs.addTab(self.budget_pane, "3  Budget")
        self.tabs.addTab(self.risk_pane, "4  What it means")
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 1)
        split.setSizes([420, 860])
        planner_layout.addWidget(split, 1)
        self.meter = BudgetMeter(session)
        planner_layout.addWidget(self.meter)
        self.stack.addWidget(planner)
        self.setCentralWidget(self.stack)

        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setRange(0, 1000)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop loading")
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()
        self.cancel_button.clicked.connect(self._cancel)

        self._build_actions()
        self.welcome.openTable.connect(self.open_table_dialog)
        self.welcome.openDemo.connect(self.open_demo)
        self.welcome.openReview.connect(self.open_review_dialog)
        self.statistics.addRequested.connect(self.add_statistic)
        self.statistics.editRequested.connect(self.edit_statistic)
        self.statistics.duplicateRequested.connect(self.duplicate_statistic)
        self.statistics.removeRequested.connect(self.remove_statistic)
        self.statistic_pane.edit_button.clicked.connect(
            lambda: self.edit_statistic(self.session.selected or ""))
        session.planChanged.connect(self._plan_changed)
        session.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self._restore_window()
        self._plan_changed()

    # -- actions and menus ------------------------------------------------------------------

    def _action(self, text: str, slot: Callable[[], object], shortcut: object = None,
                tip: str = "", icon: QStyle.StandardPixmap | None = None) -> QAction:
        action = QAction(text, self)
        if icon is not None:
            action.setIcon(self.style().standardIcon(icon))
        if shortcut is not None:
            action.setShortcut(shortcut)  # type: ignore[arg-type]
        action.setStatusTip(tip or text.replace("…", "").replace("&", ""))
        action.setToolTip(tip or text.replace("&", ""))
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _build_actions(self) -> None:
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
        self.quit_action = self._action("&Quit", self.close, QKeySequence.StandardKey.Quit)
        self.undo_action = self._action("&Undo", self.session.doc.undo,
                                        QKeySequence.StandardKey.Undo, "Undo the last edit",
                                        SP.SP_ArrowBack)
        self.redo_action = self._action("&Redo", self.session.doc.redo,
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
        self.require_action.setChecked(self.session.settings.require_approval)
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
        view_menu = bar.addMenu("&View")
        for i in range(self.tabs.count()):
            name = self.tabs.tabText(i).split("  ", 1)[-1]
            view_menu.addAction(self._action(name, lambda i=i: self.show_tab(i),
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

    def show_tab(self, index: int) -> None:
        self.stack.setCurrentIndex(1)
        self.tabs.setCurrentIndex(index)

    # -- state ------------------------------------------------------------------------------

    def _plan_changed(self) -> None:
        doc = self.session.doc
        has_plan = doc.plan is not None
        self.stack.setCurrentIndex(1 if has_plan or self.session.table is not None else 0)
        self.undo_action.setEnabled(doc.can_undo)
        self.redo_action.setEnabled(doc.can_redo)
        self.undo_action.setText(f"&Undo {doc.undo_text}" if doc.can_undo else "&Undo")
        self.redo_action.setText(f"&Redo {doc.redo_text}" if doc.can_redo else "&Redo")
        for a in (self.save_action, self.save_as_action, self.add_action, self.release_action,
                  self.review_plan_action):
            a.setEnabled(has_plan)
        name = doc.path.name if doc.path else (doc.plan.dataset.name if doc.plan else "")
        self.setWindowTitle(f"{name}[*] — planner_app {__version__}"
                            if name else f"planner_app {__version__}[*]")
        self.setWindowModified(doc.dirty)

    def _restore_window(self) -> None:
        s = self.session.settings
        if s.window_geometry:
            self.restoreGeometry(QByteArray(base64.b64decode(s.window_geometry)))
        if s.window_state:
            self.restoreState(QByteArray(base64.b64decode(s.window_state)))

    def _save_settings(self) -> None:
        s = self.session.settings
        s.window_geometry = base64.b64encode(bytes(self.saveGeometry().data())).decode()
        s.window_state = base64.b64encode(bytes(self.saveState().data())).decode()
        try:
            save_settings(s, self.session.home.settings_path)
        except OSError:
            pass

    def _remember(self, path: Path) -> None:
        self.session.settings.add_recent(path)
        self._fill_recent()
        self._save_settings()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for text in self.session.settings.recent_files:
            path = Path(text)
            self.recent_menu.addAction(self._action(path.name, lambda p=path: self.open_path(p),
                                                    tip=str(path)))
        self.recent_menu.setEnabled(bool(self.session.settings.recent_files))

    def confirm_discard(self) -> bool:
        """Ask before losing unsaved changes; True when it is fine to go on."""
        if not self.session.doc.dirty:
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", "The plan has changes that are not saved. Save them?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save_plan()
        return answer == QMessageBox.StandardButton.Discard

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self.confirm_discard():
            event.ignore()
            return
        if self.workers.current is not None:
            self.workers.current.cancel()
        self.session.settings.welcome_seen = True
        self._save_settings()
        event.accept()

    def error(self, title: str, text: str) -> None:
        QMessageBox.warning(self, title, text)

    # -- files ------------------------------------------------------------------------------

    def open_path(self, path: Path) -> None:
        suffix = path.suffix.lower()
        if suffix in TABLE_SUFFIXES:
            self.load_table(path)
        elif suffix == ".zip":
            self.review_bundle(path)
        else:
            self.open_plan(path)

    def open_table_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open a table", "", TABLE_FILTER)
        if name:
            self.load_table(Path(name))

    def open_plan_dialog(self) -> None:
        if not self.confirm_discard():
            return
        name, _ = QFileDialog.getOpenFileName(self, "Open a plan", "", PLAN_FILTER)
        if name:
            self.open_plan(Path(name), confirmed=True)

    def open_review_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open a plan or bundle", "", REVIEW_FILTER)
        if name:
            path = Path(name)
            if path.suffix.lower() == ".json":
                self.review_plan_file(path)
            else:
                self.open_path(path)

    def review_plan_file(self, path: Path) -> ReviewDialog | None:
        """The officer's read-only review of a plan file; no data needed."""
        try:
            plan = load_plan(path)
            dialog = ReviewDialog(plan, path, self.session.home, self,
                                  confidence=self.session.settings.confidence)
        except InputError as exc:
            self.error("This plan cannot be opened", str(exc))
            return None
        dialog.show()
        return dialog

    def review_current(self) -> None:
        if self.session.plan is None:
            return
        if self.session.doc.dirty or self.session.doc.path is None:
            QMessageBox.information(self, "Save the plan first", "A review is bound to the "
                                    "saved plan file: save it, then review it.")
            if not self.save_plan():
                return
        path = self.session.doc.path
        assert path is not None
        dialog = self.review_plan_file(path)
        if dialog is not None:
            dialog.finished.connect(lambda _r: self._reload_reviewed(path))

    def _reload_reviewed(self, path: Path) -> None:
        if self.session.doc.path == path and not self.session.doc.dirty:
            self.session.doc.load(load_plan(path), path)

    def _toggle_require(self) -> None:
        self.session.settings.require_approval = self.require_action.isChecked()
        self._save_settings()

    def release(self) -> ReleaseWizard | None:
        if self.session.plan is None:
            return None
        wizard = ReleaseWizard(self.session, self)
        wizard.show()
        return wizard

    def load_table(self, path: Path, then: Callable[[], None] | None = None,
                   synchronous: bool = False, ask: bool = True) -> None:
        """Load a table; with a plan open (and ``ask``), first ask: new plan or attach."""
        def work(progress, cancel):  # type: ignore[no-untyped-def]
            table = load_table(path, progress=progress, cancel=cancel)
            return table, describe_columns(table)

        def done(result: object) -> None:
            table, columns = result  # type: ignore[misc]
            self._busy(False)
            plan = self.session.plan
            choice = None
            if ask and plan is not None and Path(plan.dataset.path or "").name != path.name:
                choice = self.ask_new_or_attach(path.name)
                if choice is None or choice == NEW and not self.confirm_discard():
                    self.statusBar().showMessage(f"{path.name} was not opened", 8000)
                    return
            self.session.set_table(table, path, columns)
            if self.session.plan is None or choice == NEW:
                self.session.new_plan(path.stem)
            elif choice == ATTACH:
                self.attach_plan_to_table(path)
            self.stack.setCurrentIndex(1)
            self.statusBar().showMessage(f"Loaded {table.n_rows:,} rows from {path.name}", 8000)
            self._remember(path)
            if then is not None:
                then()

        if synchronous:
            done(work(lambda *_: None, lambda: False))
            return
        worker = Worker(work)
        worker.signals.progress.connect(self._progress)
        worker.signals.finished.connect(done)
        worker.signals.failed.connect(self._load_failed)
        self._busy(True, f"Loading {path.name}…")
        self.workers.start(worker)

    def _load_failed(self, exc: object) -> None:
        self._busy(False)
        from ..core.errors import Cancelled

        if isinstance(exc, Cancelled):
            self.statusBar().showMessage("Loading cancelled", 5000)
            return
        if isinstance(exc, PlannerError):
            self.error("Cannot open the table", f"{exc}\n\nCheck that the file is a CSV, TSV, "
                                                ".xlsx or Parquet table.")
        else:
            self.error("Cannot open the table", f"Something went wrong ({type(exc).__name__}).")

    def _busy(self, on: bool, message: str = "") -> None:
        self.progress.setVisible(on)
        self.cancel_button.setVisible(on)
        self.progress.setValue(0)
        if message:
            self.statusBar().showMessage(message)
        elif not on:
            self.statusBar().clearMessage()

    def _progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.statusBar().showMessage(message)

    def _cancel(self) -> None:
        if self.workers.current is not None:
            self.workers.current.cancel()

    def open_plan(self, path: Path, confirmed: bool = False) -> bool:
        if not confirmed and not self.confirm_discard():
            return False
        try:
            plan = load_plan(path)
        except InputError as exc:
            self.error("This plan cannot be opened", f"{exc}\n\nFix the field it names (see "
                                                     "Help → User guide) and open it again.")
            return False
        self.session.doc.load(plan, path)
        self.stack.setCurrentIndex(1)
        self._remember(path)
        self._find_plans_table(path)
        return True

    # -- the table and the plan belong together (see table_link.py) ---------------------------

    def ask_new_or_attach(self, table_name: str) -> str | None:
        assert self.session.plan is not None
        return ask_new_or_attach(self, table_name, self.session.plan)

    def attach_plan_to_table(self, path: Path) -> None:
        """Point the open plan at this table (an undoable edit), then show what does not fit."""
        plan = self.session.plan
        if plan is None:
            return
        new = attached(plan, table_path_text(path, self.session.doc.path))
        if new is not None:
            self.session.apply(f"Use the plan with {path.name}", new)
        self.show_fit_problems()

    def show_fit_problems(self) -> bool:
        """Name every way the plan does not fit the loaded table; True when it fits."""
        problems = self.session.fit_problems()
        if problems and self.session.table is not None:
            self.error("The plan does not fit the table",
                       problems_text(self.session.table.name, problems))
        return not problems

    def _find_plans_table(self, plan_path: Path) -> None:
        """Open a saved plan's own table, or say it is missing and offer to locate it."""
        plan = self.session.plan
        assert plan is not None
        wanted = plans_table(plan, plan_path)
        table = self.session.table
        if wanted is None or table is not None and table.name == wanted.name:
            self.show_fit_problems()
            return
        if wanted.is_file():
            self.load_table(wanted, then=self.show_fit_problems, ask=False)
            return
        now = (f"\n\nUntil then the plan is checked against {table.name}, which is open."
               if table is not None else "")
        answer = QMessageBox.question(
            self, "The plan's table was not found",
            f"The plan's table {wanted.name} was not found in {wanted.parent}. Locate it?{now}",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Ignore,
            QMessageBox.StandardButton.Open)
        if answer == QMessageBox.StandardButton.Open:
            name, _ = QFileDialog.getOpenFileName(self, f"Locate {wanted.name}",
                                                  str(plan_path.parent), TABLE_FILTER)
            if name:
                self.load_table(Path(name), ask=False,
                                then=lambda: self.attach_plan_to_table(Path(name)))
                return
        if table is not None:
            self.show_fit_problems()

    def open_demo(self) -> None:
        if not self.confirm_discard():
            return
        self.load_table(demo_table_path(), ask=False,
                        then=lambda: self.open_plan(demo_plan_path(), confirmed=True))

    def review_bundle(self, path: Path) -> BundleDialog:
        """The bundle viewer, at once in its "Verifying…" state; the worker fills it in."""
        dialog = BundleDialog(path, self)
        dialog.unusable.connect(self.error)
        self.bundle_dialog = dialog
        dialog.show()
        dialog.verify()
        return dialog

    def save_plan(self) -> bool:
        if self.session.doc.path is None:
            return self.save_plan_as()
        return self._write_plan(self.session.doc.path)

    def save_plan_as(self) -> bool:
        plan = self.session.plan
        if plan is None:
            return False
        suggested = f"{plan.dataset.name}-plan.json"
        name, _ = QFileDialog.getSaveFileName(self, "Save the plan", suggested, PLAN_FILTER)
        if not name:
            return False
        path = Path(name)
        if path.suffix.lower() != ".json":
            path = path.with_suffix(".json")
        return self._write_plan(path)

    def _write_plan(self, path: Path) -> bool:
        plan = self.session.plan
        assert plan is not None
        try:
            plan_from_dict(plan_to_dict(plan), path.name)  # the saved file must be valid
            save_plan(plan, path)
        except InputError as exc:
            self.error("The plan is not complete", f"{exc}\n\nThe plan was not saved.")
            return False
        except OSError as exc:
            self.error("Cannot save the plan", f"{path}: {exc.strerror}")
            return False
        self.session.doc.mark_saved(path)
        self._remember(path)
        self.statusBar().showMessage(f"Saved {path.name}", 5000)
        return True

    def new_plan(self) -> None:
        if not self.confirm_discard():
            return
        default = self.session.table_path.stem if self.session.table_path else "my-dataset"
        name, ok = QInputDialog.getText(self, "New plan", "Name of the dataset (the budget "
                                        "ledger keeps its budget under this name):",
                                        text=default)
        if ok and name.strip():
            self.session.new_plan(name.strip())
            self.stack.setCurrentIndex(1)

    # -- statistics -------------------------------------------------------------------------

    def _run_query_dialog(self, query=None) -> None:  # type: ignore[no-untyped-def]
        dialog = QueryDialog(self.session, query, self)
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.result_plan is not None:
            new = dialog.result_plan.query(dialog.result_id or "")
            plan = self.session.plan
            assert plan is not None
            if query is None:
                self.session.apply(f"Add {new.title!r}", add_query(plan, new))
            else:
                self.session.apply(f"Edit {new.title!r}", replace_query(plan, new, query.id))
            self.session.select(new.id)

    def add_statistic(self) -> None:
        if self.session.plan is not None:
            self._run_query_dialog(None)

    def edit_statistic(self, query_id: str) -> None:
        if self.session.plan is not None and query_id:
            self._run_query_dialog(self.session.plan.query(query_id))

    def duplicate_statistic(self, query_id: str) -> None:
        plan = self.session.plan
        if plan is not None and query_id:
            new_plan, new_id = duplicate_query(plan, query_id)
            self.session.apply(f"Duplicate {plan.query(query_id).title!r}", new_plan)
            self.session.select(new_id)

    def remove_statistic(self, query_id: str) -> None:
        plan = self.session.plan
        if plan is not None and query_id:
            self.session.apply(f"Remove {plan.query(query_id).title!r}",
                               remove_query(plan, query_id))

    # -- help -------------------------------------------------------------------------------

    def show_guide(self) -> None:
        dialog = QDialog(self)
        dialog.setWindowTitle("planner_app user guide")
        dialog.resize(760, 640)
        layout = QVBoxLayout(dialog)
        browser = QTextBrowser()
        browser.setMarkdown(resource_path("user-guide.md").read_text(encoding="utf-8"))
        layout.addWidget(browser)
        dialog.exec()

    def show_about(self) -> None:
        QMessageBox.about(self, "About planner_app",
                          f"<b>planner_app {__version__}</b><p>Plan, explain and release "
                          "statistics about people under differential privacy.</p><p>Exact "
                          "discrete noise from the operating system's secure random source; "
                          "composition with Google's dp-accounting.</p>")

    # -- drag and drop ----------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        urls = event.mimeData().urls()
        if urls and all(u.isLocalFile() for u in urls):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        for url in event.mimeData().urls():
            self.open_path(Path(url.toLocalFile()))
        event.acceptProposedAction()

