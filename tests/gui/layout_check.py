"""Finding clipped text in a shown widget tree, for the screenshot tests.

A label, button or check box is clipped when the space the layout gave it is smaller than the
space its text needs: narrower than its size hint (one-line text) or shorter than the height
it needs at its width (word-wrapped text). A widget inside a scroll area is not clipped by
the scroll area (the user can scroll to it), only by its own geometry.
"""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget

#: Pixels of slack a style may take (rounding at fractional scale factors).
SLACK = 2


def clipped_texts(root: QWidget) -> list[str]:
    """One line per clipped text under ``root`` (empty when nothing is cut off)."""
    found: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
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


def _name(widget: QWidget) -> str:
    name = widget.objectName() or type(widget).__name__
    parent = widget.parentWidget()
    while parent is not None and not parent.objectName():
        parent = parent.parentWidget()
    return f"{parent.objectName()}/{name}" if parent is not None else name
