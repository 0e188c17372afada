"""Table models. They only map roles: the data comes display-ready from the core or from the
frame cell by cell (a million-row preview builds no strings up front)."""

from __future__ import annotations

import atexit
import math
import queue
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor

from ..core.dp.accuracy import format_half_width
from ..core.kinds import kind_of
from ..core.kinds.params import counted_of
from ..core.kinds.shared_dp import useless_warning
from ..core.planning.changes import OpChanges
from ..core.support.words import confidence_percent
from .session import Session

if TYPE_CHECKING:  # pandas is imported when a table is first shown, not at start
    import pandas as pd

    from ..core.data.source import TableSource
    from ..core.data.tables import ColumnInfo

Index = QModelIndex | QPersistentModelIndex
TYPES = ("number", "yes/no", "text")


def _missing() -> QBrush:
    """A faint grey that reads on light and dark palettes alike."""
    return QBrush(QColor(128, 128, 128, 70))


class DataFrameModel(QAbstractTableModel):
    """A read-only, virtual view of a DataFrame: each cell is formatted when Qt asks."""

    def __init__(self, frame: pd.DataFrame | None = None) -> None:
        super().__init__()
        self._frame = frame  # None: no table

    def set_frame(self, frame: pd.DataFrame | None) -> None:
        self.beginResetModel()
        self._frame = frame
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self._frame is None else len(self._frame)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self._frame is None else len(self._frame.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self._frame is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            import pandas as pd

            value = self._frame.iat[index.row(), index.column()]
            if value is None or (isinstance(value, float) and math.isnan(value)) or \
                    value is pd.NA:
                return "" if role == Qt.ItemDataRole.DisplayRole else "missing"
            if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
                return str(int(value))
            return str(value)
        if role == Qt.ItemDataRole.BackgroundRole:
            value = self._frame.iat[index.row(), index.column()]
            if value is None or (isinstance(value, float) and math.isnan(value)):
                return _missing()
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return str(self._frame.columns[section]) if self._frame is not None and \
                section < len(self._frame.columns) \
                else None
        return str(section + 1)


def _is_missing(value: Any) -> bool:
    import pandas as pd

    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _cell_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


_READERS: dict[threading.Thread, queue.Queue[tuple[int, TableSource | None]]] = {}


@atexit.register
def _stop_readers() -> None:
    """Close the preview readers' engine connections before the interpreter goes."""
    for requests in list(_READERS.values()):
        requests.put((-1, None))
    for thread in list(_READERS):
        thread.join(2.0)


class SourcePreviewModel(QAbstractTableModel):
    """A read-only, virtual view of a table the engine reads in place (a file of any size):
    the row count is the engine's, and rows are fetched ``PAGE`` at a time when the view
    shows them — on a background thread that keeps one engine connection, so scrolling to
    the end of a 100-million-row file never blocks the window. A few pages are cached; a
    cell of a page not yet fetched shows "…"."""

    PAGE = 200
    CACHE_PAGES = 12
    #: Qt's views measure in int pixels: 100M rows of 22 px overflow them. Beyond this many
    #: rows the preview shows the first and the last half of it (the row numbers say which).
    MAX_ROWS = 10_000_000
    PENDING = 4  # pages waiting to be read; older requests (scrolled past) are dropped
    page_ready = Signal(int, int, object)  # generation, page number, rows (a DataFrame)
    LOADING = "…"

    def __init__(self) -> None:
        super().__init__()
        self._source: TableSource | None = None
        self._columns: list[str] = []
        self._rows = 0
        self._shown = 0
        self._pages: OrderedDict[int, pd.DataFrame] = OrderedDict()
        self._wanted: list[int] = []
        self._generation = 0
        self._lock = threading.Lock()
        self._requests: queue.Queue[tuple[int, TableSource | None]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.page_ready.connect(self._page_ready)
        self.failed: str | None = None

    # -- the source ---------------------------------------------------------------------

    def set_source(self, source: TableSource | None, rows: int = 0) -> None:
        """Show ``source`` (``rows`` from the engine's count), or nothing."""
        self.beginResetModel()
        with self._lock:
            self._generation += 1
            self._wanted.clear()
        self._pages.clear()
        self._source = source
        self._columns = list(source.columns) if source is not None else []
        self._rows = rows if source is not None else 0
        self._shown = min(self._rows, self.MAX_ROWS)
        self.failed = None
        self.endResetModel()
        if self._thread is not None:
            self._requests.put((-1, None))  # the old reader closes its connection and ends
            self._thread = None
        if source is not None and source.frame is None:
            self._requests = queue.Queue()  # the new reader's own
            self._thread = threading.Thread(target=self._read, args=(source, self._requests),
                                            daemon=True, name="preview-pages")
            _READERS[self._thread] = self._requests
            self._thread.start()

    def close(self) -> None:
        self.set_source(None)

    def _read(self, source: TableSource,
              requests: queue.Queue[tuple[int, TableSource | None]]) -> None:
        """The background reader: one connection, the most recent request first."""
        con = None
        try:
            while True:
                generation, _ = requests.get()
                if generation == -1:
                    return
                with self._lock:
                    if generation != self._generation or not self._wanted:
                        continue
                    page = self._wanted.pop()
                if con is None:
                    con = source.connect()
                try:
                    rows = source.page(page * self.PAGE, self.PAGE, con)
                except Exception as exc:  # noqa: BLE001 - shown in the view, never raised
                    from ..core.data.source import engine_problem

                    problem = engine_problem(source, exc) if not isinstance(exc, ValueError) \
                        else exc
                    self.page_ready.emit(generation, page, str(problem))
                    continue
                self.page_ready.emit(generation, page, rows)
        finally:
            if con is not None:
                con.close()
            _READERS.pop(threading.current_thread(), None)

    def _page_ready(self, generation: int, page: int, rows: pd.DataFrame | str) -> None:
        if generation != self._generation:
            return
        if isinstance(rows, str):
            self.failed = rows
            return
        self._pages[page] = rows
        while len(self._pages) > self.CACHE_PAGES:
            self._pages.popitem(last=False)
        first = page * self.PAGE
        last = min(first + len(rows), self._rows) - 1
        shown = [r for r in (self.view_row(f) for f in range(first, last + 1)) if r is not None]
        if shown and self._columns:
            self.dataChanged.emit(self.index(min(shown), 0),
                                  self.index(max(shown), len(self._columns) - 1))

    @property
    def clipped(self) -> bool:
        """True when the table has more rows than the preview shows (first and last half)."""
        return self._rows > self._shown

    def file_row(self, row: int) -> int:
        """The table's row shown at the view's ``row``."""
        half = self._shown // 2
        return row if not self.clipped or row < half else self._rows - self._shown + row

    def view_row(self, file_row: int) -> int | None:
        """The view's row showing the table's ``file_row`` (None when it is not shown)."""
        if not self.clipped or file_row < self._shown // 2:
            return file_row
        row = file_row - (self._rows - self._shown)
        return row if row >= self._shown // 2 else None

    def _value(self, row: int, col: int) -> tuple[bool, Any]:
        """(fetched, the cell) — asking for a page the cache lacks requests it."""
        row = self.file_row(row)
        page = row // self.PAGE
        rows = self._pages.get(page)
        if rows is None and self._source is not None and self._source.frame is not None:
            rows = self._source.page(page * self.PAGE, self.PAGE)
            self._pages[page] = rows
            while len(self._pages) > self.CACHE_PAGES:
                self._pages.popitem(last=False)
        if rows is None:
            self._request(page)
            return False, None
        self._pages.move_to_end(page)
        offset = row - page * self.PAGE
        if offset >= len(rows) or col >= len(rows.columns):
            return True, None
        return True, rows.iat[offset, col]

    def _request(self, page: int) -> None:
        if self.failed is not None:
            return
        with self._lock:
            if page in self._wanted:
                return
            self._wanted.append(page)
            del self._wanted[:-self.PENDING]
            generation = self._generation
        self._requests.put((generation, None))

    def is_fetched(self, row: int) -> bool:
        return self.file_row(row) // self.PAGE in self._pages

    # -- the model ----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._shown

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            fetched, value = self._value(index.row(), index.column())
            if not fetched:
                return self.LOADING if role == Qt.ItemDataRole.DisplayRole else \
                    "Reading these rows from the file…"
            if _is_missing(value):
                return "" if role == Qt.ItemDataRole.DisplayRole else "missing"
            return _cell_text(value)
        if role == Qt.ItemDataRole.BackgroundRole:
            fetched, value = self._value(index.row(), index.column())
            if fetched and _is_missing(value):
                return _missing()
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self._columns[section] if section < len(self._columns) else None
        return f"{self.file_row(section) + 1:,}"


class HeaderedModel(QAbstractTableModel):
    """A flat table model with fixed column headers."""

    HEADERS: tuple[str, ...] = ()

    def _row_count(self) -> int:
        raise NotImplementedError

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._row_count()

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None


class ColumnsModel(HeaderedModel):
    """The table's columns: name, type (editable: the owner can override it), missing cells."""

    HEADERS = ("Column", "Type", "Missing cells")

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        # what is open now: the planner's views are built when a table or plan first opens
        self._rows: list[ColumnInfo] = list(session.columns)
        session.changed.connect(self._changed)

    def _changed(self, changes: OpChanges) -> None:
        if changes.table:
            self.refresh()
        elif changes.column_types and self._rows:
            self.dataChanged.emit(self.index(0, 1), self.index(len(self._rows) - 1, 1))

    def refresh(self) -> None:
        self.beginResetModel()
        self._rows = list(self.session.columns)
        self.endResetModel()

    def _row_count(self) -> int:
        return len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        info = self._rows[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if col == 0:
                return info.name
            if col == 1:
                return self.session.column_types.get(info.name, info.detected_type)
            return f"{info.missing:,}"
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 1:
                return (f"Detected as {info.detected_type}; double-click to change. The type "
                        "only guides which statistics the form offers.")
            if col == 2:
                return "Empty or unreadable cells; shown to you only, never exported."
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if index.isValid() and index.column() == 1 and role == Qt.ItemDataRole.EditRole \
                and value in TYPES:
            self.session.set_column_type(self._rows[index.row()].name, str(value))
            return True
        return False

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        if index.isValid() and index.column() == 1:
            return base | Qt.ItemFlag.ItemIsEditable
        return base




def format_accuracy(half_width: float | None, unit: str, rows: float | None = None) -> str:
    """The core's one format for a ± (percentage points for shares, percentiles for
    quantiles with a row count)."""
    return format_half_width({"half_width": half_width, "unit": unit, "rows": rows})


class StatisticsModel(HeaderedModel):
    """The plan's statistics with their ε, accuracy and whether their ε is held."""

    HEADERS = ("Statistic", "Kind", "ε", "Accuracy (95%)", "Hold")

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self._ids: list[str] = [q.id for q in self._queries()]  # the plan open now, if any
        session.changed.connect(self._changed)

    def _changed(self, changes: OpChanges) -> None:
        """Repaint what changed: the rows of edited statistics; every row when what all of
        them depend on changed (who one person is, the row count, the confidence); nothing
        for a budget or a reason alone (no column shows them)."""
        if changes.settings:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 3, 3)
        if changes.plan_replaced or changes.statistic_list or changes.unit \
                or changes.dataset or changes.settings:
            self.refresh()
            return
        for qid in changes.statistics:
            if qid in self._ids:
                row = self._ids.index(qid)
                self.dataChanged.emit(self.index(row, 0),
                                      self.index(row, len(self.HEADERS) - 1))
        if changes.held and self._ids:
            self.dataChanged.emit(self.index(0, 4), self.index(len(self._ids) - 1, 4),
                                  [Qt.ItemDataRole.CheckStateRole])

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal \
                and section == 3:
            return f"Accuracy ({confidence_percent(self.session.confidence)})"
        return super().headerData(section, orientation, role)

    def refresh(self) -> None:
        ids = [q.id for q in self._queries()]
        if ids == self._ids and ids:
            # the same statistics: repaint the values, keep the selection
            self.dataChanged.emit(self.index(0, 0), self.index(len(ids) - 1, len(self.HEADERS) - 1))
            return
        self.beginResetModel()
        self._ids = ids
        self.endResetModel()

    def _queries(self) -> tuple:
        plan = self.session.plan
        return plan.queries if plan is not None else ()

    def query_at(self, row: int) -> str | None:
        queries = self._queries()
        return queries[row].id if 0 <= row < len(queries) else None

    def row_of(self, query_id: str) -> int:
        for i, q in enumerate(self._queries()):
            if q.id == query_id:
                return i
        return -1

    def _row_count(self) -> int:
        return len(self._queries())

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        queries = self._queries()
        if index.row() >= len(queries):
            return None
        q = queries[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return q.title
            if col == 1:
                # a count says which rows it counts (the tooltip says it in full)
                return kind_of(q).list_name(q)
            if col == 2:
                return f"{q.epsilon:.4g}"
            if col == 3:
                acc = self.session.accuracy(q)
                plan = self.session.plan
                assert plan is not None  # a row is a statistic of the plan
                text = kind_of(q).accuracy_cell(q, plan, acc)  # a discovery: what it finds
                # the sentence is in the tooltip and the statistic pane; the mark keeps the
                # column narrow enough for the statistics' names
                return f"⚠ {text}" if useless_warning(q, acc) else text
            return None
        if role == Qt.ItemDataRole.ForegroundRole and col == 3 and \
                useless_warning(q, self.session.accuracy(q)):
            return QBrush(QColor("#b9770e"))
        if role == Qt.ItemDataRole.CheckStateRole and col == 4:
            return Qt.CheckState.Checked if q.id in self.session.held else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 4:
                return "Hold this statistic's ε when the budget is split among the others"
            if col == 3 and kind_of(q).is_discovery:  # gui25: its threshold, in words
                return kind_of(q).pane_accuracy_note(q, self.session.accuracy(q))
            if col == 3:
                useless = useless_warning(q, self.session.accuracy(q))
                return f"{useless[0].upper()}{useless[1:]}" if useless else (
                    "Half-width of the interval that holds the noise with "
                    f"{confidence_percent(self.session.confidence)} confidence")
            if col == 1:
                plan = self.session.plan
                unit = plan.privacy_unit if plan is not None else None
                return kind_of(q).describe(q.column, kind_of(q).title,
                                       q.missing.policy == "impute",
                                       unit.id_column if unit else None,
                                       unit.rows_per_unit if unit else 1, counted_of(q) == "people")
            return q.id
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (2, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if index.isValid() and index.column() == 4 and role == Qt.ItemDataRole.CheckStateRole:
            qid = self._queries()[index.row()].id
            checked = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(
                value, bool) else value
            self.session.set_held(qid, checked)  # the session tells every view
            return True
        return False

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        if index.isValid() and index.column() == 4:
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base
