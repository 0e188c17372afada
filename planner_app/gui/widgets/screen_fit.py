"""Windows that open within the screen, and tabs that scroll rather than collapse.

One rule for every top-level window and dialog (walk 2, finding 20: at 200% on a 1400 × 1000
screen the main window opened at 2560 × 1640 and the release wizard's Next / Cancel were
off-screen): the size a window asks for, or less on a smaller screen.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QScrollArea, QTabWidget, QWidget

#: Room kept free around a window: its frame, and a task bar the available geometry misses.
MARGIN_WIDTH = 40
MARGIN_HEIGHT = 60


def screen_room(window: QWidget) -> tuple[int, int] | None:
    """The largest size a window can open at on its screen (None: no screen)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return None
    room = screen.availableGeometry()
    return max(room.width() - MARGIN_WIDTH, 200), max(room.height() - MARGIN_HEIGHT, 150)


def _cap(window: QWidget) -> None:
    """Bring ``window`` and its minimum size within its screen (the content scrolls or
    squeezes instead of reaching off-screen)."""
    room = screen_room(window)
    if room is None:
        return
    minimum = window.minimumSize().expandedTo(window.minimumSizeHint())
    if minimum.width() > room[0] or minimum.height() > room[1]:
        window.setMinimumSize(min(minimum.width(), room[0]), min(minimum.height(), room[1]))
    if window.width() > room[0] or window.height() > room[1]:
        window.resize(min(window.width(), room[0]), min(window.height(), room[1]))
    if window.isVisible():
        _keep_on_screen(window)


def _keep_on_screen(window: QWidget) -> None:
    """Move a shown window whose frame reaches past its screen's edge back onto it."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return
    room, frame = screen.availableGeometry(), window.frameGeometry()
    x = max(room.left(), min(frame.left(), room.right() - frame.width()))
    y = max(room.top(), min(frame.top(), room.bottom() - frame.height()))
    if (x, y) != (frame.left(), frame.top()):
        window.move(x, y)


class _FitOnShow(QObject):
    """Caps a window again when it is shown: its layout has set its minimum size by then."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget):
            _cap(watched)
        return False


def fit_to_screen(window: QWidget, width: int | None = None, height: int | None = None) -> None:
    """Resize ``window`` to ``width`` × ``height`` (default: its present size), or less on a
    smaller screen, and keep it within the screen when it is shown."""
    if width is not None or height is not None:
        window.resize(window.width() if width is None else width,
                      window.height() if height is None else height)
    _cap(window)
    if window.findChild(_FitOnShow, "fit_on_show") is None:
        keeper = _FitOnShow(window)
        keeper.setObjectName("fit_on_show")
        window.installEventFilter(keeper)


def scrolled(widget: QWidget) -> QScrollArea:
    """``widget`` in a frameless scroll area that keeps its minimum size (it scrolls on a
    small screen instead of squeezing its fields to nothing)."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(widget)
    area.setAccessibleName(widget.accessibleName())
    return area


class ScrollingTabs(QTabWidget):
    """A tab widget whose pages scroll. ``widget``, ``currentWidget``, ``indexOf`` and
    ``setCurrentWidget`` speak of the pages themselves, not of their scroll areas."""

    def addTab(self, page: QWidget, label: str) -> int:  # type: ignore[override]  # noqa: N802
        return super().addTab(scrolled(page), label)

    @staticmethod
    def _page(area: QWidget | None) -> QWidget | None:
        return area.widget() if isinstance(area, QScrollArea) else area

    def widget(self, index: int) -> QWidget:
        return self._page(super().widget(index))  # type: ignore[return-value]

    def currentWidget(self) -> QWidget:  # noqa: N802
        return self._page(super().currentWidget())  # type: ignore[return-value]

    def indexOf(self, page: QWidget) -> int:  # noqa: N802
        for i in range(self.count()):
            if self.widget(i) is page:
                return i
        return super().indexOf(page)

    def setCurrentWidget(self, page: QWidget) -> None:  # noqa: N802
        index = self.indexOf(page)
        if index >= 0:
            self.setCurrentIndex(index)


__all__ = ["ScrollingTabs", "fit_to_screen", "screen_room", "scrolled"]
