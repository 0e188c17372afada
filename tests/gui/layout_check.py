"""Finding clipped text in a shown widget tree, for the screenshot tests.

A label, button or check box is clipped when the space the layout gave it is smaller than the
space its text needs: narrower than its size hint (one-line text) or shorter than the height
it needs at its width (word-wrapped text). A widget inside a scroll area is not clipped by
the scroll area (the user can scroll to it), only by its own geometry.

A table (QTableView) clips a cell when its column is narrower than the cell's text (the text is
elided) or, with word wrap, its row is shorter than the wrapped text; a header clips when its
section is narrower than its title. ``tables=False`` leaves tables out (a data preview that
scrolls sideways is fine); ``scrolled=True`` also reports columns that lie beyond the right
edge of the viewport (a table that must fit its window).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

#: Pixels of slack a style may take (rounding at fractional scale factors).
SLACK = 2
#: Rows of a table looked at (a data preview can have thousands).
MAX_ROWS = 60


def clipped_texts(root: QWidget, tables: bool = True, scrolled: bool = False) -> list[str]:
    """One line per clipped text under ``root`` (empty when nothing is cut off), and one per
    pair of widgets squeezed on top of each other."""
    found: list[str] = overlapping(root)
    for widget in [root, *root.findChildren(QWidget)]:
        if tables and isinstance(widget, QTableView) and widget.isVisible():
            found.extend(clipped_cells(widget, scrolled))
            continue
        if isinstance(widget, QLineEdit | QPlainTextEdit) and widget.isVisible() and not \
                isinstance(widget.parentWidget(), QAbstractSpinBox | QComboBox):
            found.extend(squeezed_field(widget))
            continue
        if not widget.isVisible() or not isinstance(widget, QLabel | QAbstractButton):
            continue
        text = widget.text()
        if not text.strip():
            continue
        size = widget.size()
        if isinstance(widget, QLabel) and widget.wordWrap():
            need_h = widget.heightForWidth(size.width())
            if need_h > size.height() + SLACK:
                found.append(f"{_name(widget)}: needs {need_h}px high, has {size.height()}px "
                             f"({text[:60]!r})")
            continue
        hint = widget.sizeHint()
        if hint.width() > size.width() + SLACK:
            found.append(f"{_name(widget)}: needs {hint.width()}px wide, has {size.width()}px "
                         f"({text[:60]!r})")
        elif hint.height() > size.height() + SLACK:
            found.append(f"{_name(widget)}: needs {hint.height()}px high, has {size.height()}px "
                         f"({text[:60]!r})")
    return found


def overlapping(root: QWidget) -> list[str]:
    """Visible sibling widgets laid out on top of each other: a layout squeezed below its
    minimum (a top-level window shorter than its content needs at its width)."""
    found: list[str] = []
    for parent in [root, *root.findChildren(QWidget)]:
        if not parent.isVisible() or parent.layout() is None:
            continue
        kids = [w for w in parent.children() if isinstance(w, QWidget) and w.isVisible()
                and not w.isWindow() and not w.objectName().startswith("qt_")]
        for i, a in enumerate(kids):
            for b in kids[i + 1:]:
                both = a.geometry().intersected(b.geometry())
                if both.width() > SLACK and both.height() > SLACK:
                    found.append(f"{_name(a)} and {_name(b)} overlap by {both.width()}x"
                                 f"{both.height()}px")
    return found


def _name(widget: QWidget) -> str:
    name = widget.objectName() or type(widget).__name__
    parent = widget.parentWidget()
    while parent is not None and not parent.objectName():
        parent = parent.parentWidget()
    return f"{parent.objectName()}/{name}" if parent is not None else name


def clipped_cells(view: QTableView, scrolled: bool = False) -> list[str]:
    """The cells and header sections of a table whose text does not fit its column (or, with
    word wrap, its row)."""
    found: list[str] = []
    model = view.model()
    if model is None:
        return found
    header = view.horizontalHeader()
    name = _name(view)
    delegate = view.itemDelegate()
    for col in range(model.columnCount()):
        if view.isColumnHidden(col):
            continue
        width = view.columnWidth(col)
        title = str(model.headerData(col, Qt.Orientation.Horizontal) or "")
        if header.isVisible() and title:
            need = header.sectionSizeFromContents(col).width()
            if need > width + SLACK:
                found.append(f"{name}: header {title!r} needs {need}px wide, has {width}px")
        if scrolled and header.sectionViewportPosition(col) + width > \
                view.viewport().width() + SLACK:
            found.append(f"{name}: column {title!r} lies beyond the right edge (scroll needed)")
        for row in range(min(model.rowCount(), MAX_ROWS)):
            if view.isRowHidden(row):
                continue
            index = model.index(row, col)
            text = str(index.data() or "")
            if not text.strip():
                continue
            option = QStyleOptionViewItem()
            option.initFrom(view)
            option.rect = QRect(0, 0, width, view.rowHeight(row))
            option.font = view.font()
            if view.wordWrap():
                option.features |= QStyleOptionViewItem.ViewItemFeature.WrapText
            hint = delegate.sizeHint(option, index)
            if view.wordWrap():
                # the text wrapped to the column's width: as high as the row?
                metrics = view.fontMetrics()
                inner = max(1, width - 2 * _cell_margin(view))
                need_h = metrics.boundingRect(QRect(0, 0, inner, 100_000),
                                              int(Qt.TextFlag.TextWordWrap), text).height()
                longest = max(metrics.horizontalAdvance(w) for w in text.split() or [""])
                if need_h > view.rowHeight(row) + SLACK or longest > inner + SLACK:
                    found.append(f"{name}: cell ({row}, {title!r}) needs {need_h}px high at "
                                 f"{width}px, has {view.rowHeight(row)}px ({text[:40]!r})")
            elif hint.width() > width + SLACK:
                found.append(f"{name}: cell ({row}, {title!r}) needs {hint.width()}px wide, "
                             f"has {width}px ({text[:40]!r})")
    return found


def squeezed_field(widget: QLineEdit | QPlainTextEdit) -> list[str]:
    """An empty one-line field narrower than its placeholder (a user sees "lowest pos"; typed
    text scrolls, so it is not looked at), or a text box with room for fewer than three lines."""
    metrics = widget.fontMetrics()
    if isinstance(widget, QLineEdit):
        text = "" if widget.text() else widget.placeholderText()
        room = widget.width() - 2 * widget.style().pixelMetric(
            widget.style().PixelMetric.PM_DefaultFrameWidth, None, widget) - 6
        need = metrics.horizontalAdvance(text)
        if widget.height() + SLACK < widget.minimumSizeHint().height():
            return [f"{_name(widget)}: field is {widget.height()}px high, needs "
                    f"{widget.minimumSizeHint().height()}px"]
        if text and need > room + SLACK:
            return [f"{_name(widget)}: field needs {need}px for {text[:40]!r}, has {room}px"]
        return []
    room_h = widget.viewport().height()
    if room_h + SLACK < 3 * metrics.lineSpacing():
        return [f"{_name(widget)}: text box has {room_h}px, less than three lines"]
    first = (widget.toPlainText() or widget.placeholderText()).split("\n")[0]
    longest = max((metrics.horizontalAdvance(w) for w in first.split()), default=0)
    if longest > widget.viewport().width() + SLACK:
        return [f"{_name(widget)}: text box narrower than the word in {first[:40]!r}"]
    return []


def _cell_margin(view: QTableView) -> int:
    from PySide6.QtWidgets import QStyle

    return view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1


