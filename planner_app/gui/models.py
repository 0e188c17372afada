"""Table models. They only map roles: the data comes display-ready from the core or from the
frame cell by cell (a million-row preview builds no strings up front)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from ..core.dp.accuracy import format_half_width, useless_warning
from ..core.planning.changes import OpChanges
from ..core.support.words import KIND_NAMES, confidence_percent, statistic_words
from .session import Session

if TYPE_CHECKING:  # pandas is imported when a table is first shown, not at start
    import pandas as pd

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
        self._rows: list[ColumnInfo] = []
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
        self._ids: list[str] = []
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
                if q.kind == "count":  # which rows it counts (the tooltip says it in full)
                    return "Count of rows" if q.column is None or q.missing.policy == "impute" \
                        else f"Count, {q.column} present"
                return KIND_NAMES.get(q.kind, q.kind)
            if col == 2:
                return f"{q.epsilon:.4g}"
            if col == 3:
                acc = self.session.accuracy(q)
                text = format_half_width(acc)
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
            if col == 3:
                useless = useless_warning(q, self.session.accuracy(q))
                return f"{useless[0].upper()}{useless[1:]}" if useless else (
                    "Half-width of the interval that holds the noise with "
                    f"{confidence_percent(self.session.confidence)} confidence")
            if col == 1:
                return statistic_words(q.kind, q.column, KIND_NAMES.get(q.kind, q.kind),
                                       q.missing.policy == "impute")
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
