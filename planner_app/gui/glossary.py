"""Plain tooltips for the technical words on screen, from the core's glossary
(core.words.GLOSSARY).

One application-wide event filter answers every tooltip request: a label, button, check box,
group box or table header that shows a technical term (ε, δ, sensitivity, noise scale, PLD…)
gets the glossary's explanation, after its own tooltip if it has one. Texts set later (a pane's
sentences, a dialog's rows) are covered without any view having to ask."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QGroupBox,
    QHeaderView,
    QLabel,
    QToolTip,
    QWidget,
)

from ..core.support.words import glossary_tip


def shown_text(widget: QWidget) -> str:
    """The text a label, button or group box shows ("" for other widgets)."""
    if isinstance(widget, QLabel | QAbstractButton):
        return widget.text()
    if isinstance(widget, QGroupBox):
        return widget.title()
    return ""


def header_tip(header: QHeaderView, section: int) -> str:
    """The tooltip of a header section: the model's own, then the glossary's."""
    model = header.model()
    if model is None or section < 0:
        return ""
    text = model.headerData(section, header.orientation(), Qt.ItemDataRole.DisplayRole)
    own = model.headerData(section, header.orientation(), Qt.ItemDataRole.ToolTipRole)
    return glossary_tip(str(text or ""), str(own or ""))


def tip_for(widget: QWidget) -> str:
    """The tooltip shown for ``widget``: its own, then the glossary's for the terms it shows
    (for a form's label, the terms of the label)."""
    return glossary_tip(shown_text(widget), widget.toolTip())


class GlossaryTips(QObject):
    """The event filter; install once with ``install``."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QEvent.Type.ToolTip or not isinstance(obj, QWidget):
            return False
        pos: QPoint = event.pos()  # type: ignore[attr-defined]
        header = obj.parentWidget()
        if isinstance(header, QHeaderView):  # a header's tooltips come to its viewport
            text = header_tip(header, header.logicalIndexAt(pos))
        else:
            if not shown_text(obj):
                return False
            text = tip_for(obj)
        if not text or text == obj.toolTip():
            return False  # Qt shows the widget's own tooltip
        QToolTip.showText(event.globalPos(), text, obj)  # type: ignore[attr-defined]
        return True


_installed: list[GlossaryTips] = []


def install(app: QApplication | None = None) -> None:
    """Answer tooltip requests with the glossary everywhere in the app (once per process)."""
    app = app or QApplication.instance()  # type: ignore[assignment]
    if app is None or _installed:
        return
    tips = GlossaryTips(app)
    app.installEventFilter(tips)
    _installed.append(tips)
