"""The list of statistics with add, edit, duplicate and remove."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...core.planning.changes import OpChanges
from ..models import StatisticsModel
from ..refresh import watch
from ..session import Session

ADD_TIP = "Add a statistic"

#: Up to this many statistics every row's height is fitted at once; past it, the rows shown.
FIT_ALL_ROWS = 1_000


class StatisticsPane(QWidget):
    addRequested = Signal()
    editRequested = Signal(str)
    duplicateRequested = Signal(str)
    removeRequested = Signal(str)
    questionRequested = Signal()  # the Data tab's "Who is one person?", still unanswered

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        layout = QVBoxLayout(self)
        title = QLabel("<b>Statistics to publish</b>")
        layout.addWidget(title)
        self.model = StatisticsModel(session)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().setVisible(False)
        # rows as high as their wrapped titles (a long title is never cut to "Number of …") and
        # columns as wide as their texts, measured here for the rows that change: Qt's
        # ResizeToContents measures every row at any change (0.3 s an ε slider step at 1,000
        # statistics)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.model.modelReset.connect(self._fit_all)
        self.model.rowsInserted.connect(self._fit_all)
        self.model.headerDataChanged.connect(self._fit_all)
        self.model.dataChanged.connect(self._fit_rows)
        self.view.viewport().installEventFilter(self)  # a new width wraps the titles anew
        self.view.verticalScrollBar().valueChanged.connect(self._fit_heights)
        self._fit_all()
        self.view.setAccessibleName("Statistics to publish")
        self.view.setToolTip("Select a statistic to set its ε and see its accuracy and risk; "
                             "double-click to edit it")
        layout.addWidget(self.view, 1)
        # statistics wait for who one person is (their accuracy and protection depend on it):
        # the reason, where the Add button is, with the way to the question
        self.waiting = QLabel()
        self.waiting.setWordWrap(True)
        self.waiting.setAccessibleName("Why no statistic can be added yet")
        self.waiting.linkActivated.connect(lambda _link: self.questionRequested.emit())
        self.waiting.hide()
        layout.addWidget(self.waiting)
        buttons = QHBoxLayout()
        self.add = QPushButton("Add…")
        self.edit = QPushButton("Edit…")
        self.duplicate = QPushButton("Duplicate")
        self.remove = QPushButton("Remove")
        tips = (ADD_TIP, "Edit the selected statistic", "Copy the selected statistic",
                "Remove the selected statistic")
        for b, tip in zip((self.add, self.edit, self.duplicate, self.remove), tips,
                          strict=True):
            b.setToolTip(tip)
            buttons.addWidget(b)
        layout.addLayout(buttons)

        self.add.clicked.connect(self.addRequested)
        self.edit.clicked.connect(lambda: self._emit(self.editRequested))
        self.duplicate.clicked.connect(lambda: self._emit(self.duplicateRequested))
        self.remove.clicked.connect(lambda: self._emit(self.removeRequested))
        self.view.doubleClicked.connect(lambda _i: self._emit(self.editRequested))
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.model.modelReset.connect(self._restore_selection)
        session.selectionChanged.connect(lambda _qid: self._restore_selection())
        self.updates = watch(self, session, self._update_for)
        self._restore_selection()

    def _update_for(self, changes: OpChanges) -> None:
        if changes.plan or changes.table:
            self._restore_selection()

    def _fit_all(self, *_args: object) -> None:
        for column in range(1, self.model.columnCount()):  # Qt measures at most 1,000 rows
            self.view.resizeColumnToContents(column)
        self._fit_heights()

    def _fit_heights(self, *_args: object) -> None:
        """Every row's height, or past FIT_ALL_ROWS only the rows on screen (and a page
        beyond), fitted again as they scroll into view: measuring 10,000 rows at each
        reset and resize took seconds (issue 22)."""
        n = self.model.rowCount()
        if n <= FIT_ALL_ROWS:
            self.view.resizeRowsToContents()
            return
        first = max(self.view.rowAt(0), 0)
        shown = self.view.viewport().height() // max(self.view.verticalHeader()
                                                      .minimumSectionSize(), 1)
        for row in range(first, min(n, first + 2 * shown + 1)):
            self.view.resizeRowToContents(row)

    def _fit_rows(self, top, bottom, *_roles: object) -> None:  # type: ignore[no-untyped-def]
        """Rows that changed get their height; a column grows to a wider text (never shrinks
        while editing, so a slider drag does not make the table jump)."""
        rows = range(top.row(), bottom.row() + 1)
        for column in range(max(1, top.column()), bottom.column() + 1):
            grid = 1 if self.view.showGrid() else 0
            wanted = max(self.view.sizeHintForIndex(self.model.index(row, column)).width()
                         for row in rows) + grid
            if wanted > self.view.columnWidth(column):
                self.view.setColumnWidth(column, wanted)
                rows = range(self.model.rowCount())  # the titles' column narrowed
        for row in rows:
            self.view.resizeRowToContents(row)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_heights()
        return super().eventFilter(watched, event)

    def _emit(self, signal) -> None:  # type: ignore[no-untyped-def]
        if self.session.selected:
            signal.emit(self.session.selected)

    def _selection_changed(self, *_args: object) -> None:
        rows = self.view.selectionModel().selectedRows()
        if rows:
            self.session.select(self.model.query_at(rows[0].row()))

    def _restore_selection(self) -> None:
        has_plan = self.session.plan is not None
        waiting = self.session.unit_unanswered()
        self.add.setEnabled(has_plan and waiting is None)
        self.add.setToolTip(waiting or ADD_TIP)
        self.waiting.setText(f"{escape(waiting)} <a href=\"data\">Answer it now</a>"
                             if waiting else "")
        self.waiting.setVisible(waiting is not None)
        for b in (self.edit, self.duplicate, self.remove):
            b.setEnabled(bool(self.session.selected))
        if not self.session.selected:
            return
        row = self.model.row_of(self.session.selected)
        if row < 0:
            return
        index = self.model.index(row, 0)
        selection = self.view.selectionModel()
        if not selection.isRowSelected(row, index.parent()):
            selection.select(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                             | QItemSelectionModel.SelectionFlag.Rows)

