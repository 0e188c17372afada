"""The main window: the welcome page or the planner, the budget meter and a status bar with
progress and Cancel. It wires views to the session and to its controllers (controllers/:
opening and saving in ``files``, the dialogs it opens in ``launchers``, its actions and
menus in ``menus``); it holds no privacy logic."""

from __future__ import annotations

import base64
from pathlib import Path

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from .. import __version__
from ..core.planning.changes import OpChanges
from ..core.records.released import released_line
from .controllers.files import FileController
from .controllers.launchers import Launchers
from .controllers.menus import MenuController
from .session import Session
from .widgets.budget_pane import BudgetPane
from .widgets.data_pane import DataPane
from .widgets.meter import BudgetMeter
from .widgets.risk_pane import RiskPane
from .widgets.screen_fit import ScrollingTabs, fit_to_screen
from .widgets.statistic_pane import StatisticPane
from .widgets.statistics_pane import StatisticsPane
from .widgets.welcome import WelcomePage
from .workers import WorkerSlot


class MainWindow(QMainWindow):
    """The window: its views, and the controllers it composes (``files``, ``launchers``,
    ``menus``; each sees the window only as a host, controllers/host.py)."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.workers = WorkerSlot()
        self.setWindowTitle(f"planner_app {__version__}")
        self.setAcceptDrops(True)
        fit_to_screen(self, 1280, 820)

        self.stack = QStackedWidget()
        self.welcome = WelcomePage()
        self.stack.addWidget(self.welcome)
        planner = QWidget()
        planner_layout = QVBoxLayout(planner)
        planner_layout.setContentsMargins(4, 4, 4, 0)
        # this exact plan was released before (core rule: records/released.py): when, where
        self.released_banner = QLabel()
        self.released_banner.setWordWrap(True)
        self.released_banner.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        self.released_banner.setStyleSheet("QLabel { background: #eaf2f8; border: 1px solid "
                                           "#aed6f1; border-radius: 3px; padding: 4px; }")
        self.released_banner.setAccessibleName("This plan's earlier releases")
        self.released_banner.hide()
        planner_layout.addWidget(self.released_banner)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.statistics = StatisticsPane(session)
        split.addWidget(self.statistics)
        self.tabs = ScrollingTabs()  # a tab scrolls on a small screen, never collapses
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

        self.files = FileController(self, session, self.workers)
        self.launchers = Launchers(self, session, self.files)
        self.menus = MenuController(self, session, self.files, self.launchers)
        toolbar = self.addToolBar("Main")
        toolbar.setObjectName("main-toolbar")
        self.menus.install(self.menuBar(), toolbar,
                           [self.tabs.tabText(i).split("  ", 1)[-1]
                            for i in range(self.tabs.count())])
        self.cancel_button.clicked.connect(self.files.cancel)
        self.files.remembered.connect(self.menus.fill_recent)
        self.files.bundleChosen.connect(self.launchers.review_bundle)
        self.welcome.openTable.connect(self.files.open_table_dialog)
        self.welcome.openDemo.connect(self.files.open_demo)
        self.welcome.openReview.connect(self.launchers.open_review_dialog)
        self.statistics.addRequested.connect(self.launchers.add_statistic)
        self.statistics.editRequested.connect(self.launchers.edit_statistic)
        self.statistics.duplicateRequested.connect(self.launchers.duplicate_statistic)
        self.statistics.removeRequested.connect(self.launchers.remove_statistic)
        self.statistics.questionRequested.connect(self.show_unit_question)
        self.statistic_pane.edit_button.clicked.connect(
            lambda: self.launchers.edit_statistic(self.session.selected or ""))
        session.changed.connect(self._changed)
        # a large table's fit, from a worker
        session.dataAnswered.connect(self.files.fit_answered)
        session.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self._restore_window()
        fit_to_screen(self)  # a size kept from a larger screen or scale
        self._plan_changed()

    # -- what the controllers use of the window (controllers/host.py) ------------------------

    def dialog_parent(self) -> QWidget:
        return self

    def show_status(self, text: str, timeout: int = 0) -> None:
        self.statusBar().showMessage(text, timeout)

    def clear_status(self) -> None:
        self.statusBar().clearMessage()

    def show_busy(self, on: bool, message: str = "") -> None:
        self.progress.setVisible(on)
        self.cancel_button.setVisible(on)
        self.progress.setValue(0)
        if message:
            self.statusBar().showMessage(message)
        elif not on:
            self.statusBar().clearMessage()

    def show_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.statusBar().showMessage(message)

    def show_planner(self, data_tab: bool = False) -> None:
        self.stack.setCurrentIndex(1)
        if data_tab:
            self.tabs.setCurrentIndex(self.tabs.indexOf(self.data_pane))

    def error(self, title: str, text: str) -> None:
        QMessageBox.warning(self, title, text)

    def show_tab(self, index: int) -> None:
        self.stack.setCurrentIndex(1)
        self.tabs.setCurrentIndex(index)

    def show_unit_question(self) -> None:
        """The Data tab's "Who is one person?", where statistics wait for its answer."""
        self.show_tab(self.tabs.indexOf(self.data_pane))
        self.data_pane.ask_who()

    # -- state ------------------------------------------------------------------------------

    def _changed(self, changes: OpChanges) -> None:
        if changes.plan or changes.history or changes.table or changes.ledger:
            self._plan_changed()
        if changes.settings or changes.ledger:
            self.menus.show_require()

    def _plan_changed(self) -> None:
        s = self.session
        has_plan = s.plan is not None
        self.stack.setCurrentIndex(1 if has_plan or s.table is not None else 0)
        self.menus.plan_changed()
        name = s.path.name if s.path else (s.plan.dataset.name if s.plan else "")
        line = released_line(s.earlier_releases())
        self.released_banner.setText(line or "")
        self.released_banner.setVisible(line is not None)
        released = " (released)" if line is not None else ""
        self.setWindowTitle(f"{name}[*]{released} — planner_app {__version__}"
                            if name else f"planner_app {__version__}[*]")
        self.setWindowModified(s.dirty)

    def _restore_window(self) -> None:
        s = self.session.settings
        if s.window_geometry:
            self.restoreGeometry(QByteArray(base64.b64decode(s.window_geometry)))
        if s.window_state:
            self.restoreState(QByteArray(base64.b64decode(s.window_state)))

    def _save_settings(self) -> None:
        self.session.keep_window(
            base64.b64encode(bytes(self.saveGeometry().data())).decode(),
            base64.b64encode(bytes(self.saveState().data())).decode())
        self.session.save_settings()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self.files.confirm_discard():
            event.ignore()
            return
        self.files.cancel()
        self.session.mark_welcome_seen()
        self._save_settings()
        event.accept()

    # -- drag and drop ----------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        urls = event.mimeData().urls()
        if urls and all(u.isLocalFile() for u in urls):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        for url in event.mimeData().urls():
            self.files.open_path(Path(url.toLocalFile()))
        event.acceptProposedAction()

