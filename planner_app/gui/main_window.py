"""The main window: the welcome page or the planner, the budget meter and a status bar with
progress and Cancel. It wires views to the session and to its controllers (controllers/:
opening and saving in ``files``, the dialogs it opens in ``launchers``, its actions and
menus in ``menus``); it holds no privacy logic."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import TYPE_CHECKING

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
from .refresh import catch_up
from .session import Session
from .widgets.screen_fit import ScrollingTabs, fit_to_screen
from .widgets.welcome import WelcomePage
from .workers import WorkerSlot

if TYPE_CHECKING:
    from .widgets.budget_pane import BudgetPane
    from .widgets.data_pane import DataPane
    from .widgets.meter import BudgetMeter
    from .widgets.risk_pane import RiskPane
    from .widgets.statistic_pane import StatisticPane
    from .widgets.statistics_pane import StatisticsPane

#: the planner's tabs, in order: their labels and the names the View menu gives them
TABS = (("1  Data", "Data"), ("2  Statistic", "Statistic"), ("3  Budget", "Budget"),
        ("4  What it means", "What it means"))


class _Planner:
    """The planner page: the list of statistics, the four tabs and the budget meter, with
    the banner of this plan's earlier releases. Built on first use (``MainWindow.planner``)."""

    def __init__(self, session: Session) -> None:
        # the panes' modules import the charts and the core's preview and risk code
        from .widgets.budget_pane import BudgetPane
        from .widgets.data_pane import DataPane
        from .widgets.meter import BudgetMeter
        from .widgets.risk_pane import RiskPane
        from .widgets.statistic_pane import StatisticPane
        from .widgets.statistics_pane import StatisticsPane

        self.page = QWidget()
        layout = QVBoxLayout(self.page)
        layout.setContentsMargins(4, 4, 4, 0)
        # this exact plan was released before (core rule: records/released.py): when, where
        self.released_banner = QLabel()
        self.released_banner.setWordWrap(True)
        self.released_banner.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        self.released_banner.setStyleSheet("QLabel { background: #eaf2f8; border: 1px solid "
                                           "#aed6f1; border-radius: 3px; padding: 4px; }")
        self.released_banner.setAccessibleName("This plan's earlier releases")
        self.released_banner.hide()
        layout.addWidget(self.released_banner)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.statistics = StatisticsPane(session)
        split.addWidget(self.statistics)
        self.tabs = ScrollingTabs()  # a tab scrolls on a small screen, never collapses
        self.data_pane = DataPane(session)
        self.statistic_pane = StatisticPane(session)
        self.budget_pane = BudgetPane(session)
        self.risk_pane = RiskPane(session)
        for pane, (label, _name) in zip((self.data_pane, self.statistic_pane,
                                         self.budget_pane, self.risk_pane), TABS, strict=True):
            self.tabs.addTab(pane, label)
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 1)
        split.setSizes([420, 860])
        layout.addWidget(split, 1)
        self.meter = BudgetMeter(session)
        layout.addWidget(self.meter)


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
        self.setCentralWidget(self.stack)
        # the planner (its panes, their charts and the core they read) is built when a table
        # or plan is first opened, not to show the welcome page (issue 24: the cold start)
        self._planner: _Planner | None = None

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
        self.menus.install(self.menuBar(), toolbar, [name for _, name in TABS])
        self.cancel_button.clicked.connect(self.files.cancel)
        self.files.remembered.connect(self.menus.fill_recent)
        self.files.bundleChosen.connect(self.launchers.review_bundle)
        self.welcome.openTable.connect(self.files.open_table_dialog)
        self.welcome.openDemo.connect(self.files.open_demo)
        self.welcome.openReview.connect(self.launchers.open_review_dialog)
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
        self.stack.setCurrentWidget(self.planner.page)
        if data_tab:
            self.tabs.setCurrentIndex(self.tabs.indexOf(self.data_pane))

    def error(self, title: str, text: str) -> None:
        QMessageBox.warning(self, title, text)

    def show_tab(self, index: int) -> None:
        self.stack.setCurrentWidget(self.planner.page)
        self.tabs.setCurrentIndex(index)

    def show_unit_question(self) -> None:
        """The Data tab's "Who is one person?", where statistics wait for its answer."""
        self.show_tab(self.tabs.indexOf(self.data_pane))
        self.data_pane.ask_who()

    # -- the planner, built on first use -----------------------------------------------------

    @property
    def planner(self) -> _Planner:
        if self._planner is None:
            self._planner = planner = _Planner(self.session)
            self.stack.addWidget(planner.page)
            planner.statistics.addRequested.connect(self.launchers.add_statistic)
            planner.statistics.editRequested.connect(self.launchers.edit_statistic)
            planner.statistics.duplicateRequested.connect(self.launchers.duplicate_statistic)
            planner.statistics.removeRequested.connect(self.launchers.remove_statistic)
            planner.statistics.questionRequested.connect(self.show_unit_question)
            planner.statistic_pane.edit_button.clicked.connect(
                lambda: self.launchers.edit_statistic(self.session.selected or ""))
            self._show_released(released_line(self.session.earlier_releases()))
            catch_up(planner.page)
        return self._planner

    @property
    def released_banner(self) -> QLabel:
        return self.planner.released_banner

    @property
    def statistics(self) -> StatisticsPane:
        return self.planner.statistics

    @property
    def tabs(self) -> ScrollingTabs:
        return self.planner.tabs

    @property
    def data_pane(self) -> DataPane:
        return self.planner.data_pane

    @property
    def statistic_pane(self) -> StatisticPane:
        return self.planner.statistic_pane

    @property
    def budget_pane(self) -> BudgetPane:
        return self.planner.budget_pane

    @property
    def risk_pane(self) -> RiskPane:
        return self.planner.risk_pane

    @property
    def meter(self) -> BudgetMeter:
        return self.planner.meter

    def _show_released(self, line: str | None) -> None:
        if self._planner is not None:
            self._planner.released_banner.setText(line or "")
            self._planner.released_banner.setVisible(line is not None)

    # -- state ------------------------------------------------------------------------------

    def _changed(self, changes: OpChanges) -> None:
        if changes.plan or changes.history or changes.table or changes.ledger:
            self._plan_changed()
        if changes.settings or changes.ledger:
            self.menus.show_require()

    def _plan_changed(self) -> None:
        s = self.session
        has_plan = s.plan is not None
        self.stack.setCurrentWidget(self.planner.page if has_plan or s.table is not None
                                    else self.welcome)
        self.menus.plan_changed()
        name = s.path.name if s.path else (s.plan.dataset.name if s.plan else "")
        line = released_line(s.earlier_releases())
        self._show_released(line)
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

