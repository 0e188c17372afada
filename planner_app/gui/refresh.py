"""Bring a view up to date from the session's notifications (``OpChanges``).

``watch(view, session, update, draw)``: ``update(changes)`` runs at once for every change (it
sets labels and fields, which is cheap, so what a view says is never stale); ``draw(changes)``,
for what is costly to paint (charts), runs at once while the view is shown, and while it is
hidden (a tab not shown) the changes are merged and ``draw`` runs once when it is shown."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

from ..core.planning.changes import OpChanges
from .session import Session

Update = Callable[[OpChanges], None]


class ViewUpdates(QObject):
    """Owned by the view (a child QObject): the connection ends with the view."""

    def __init__(self, view: QWidget, session: Session, update: Update | None = None,
                 draw: Update | None = None) -> None:
        super().__init__(view)
        self._view = view
        self._update = update
        self._draw = draw
        self.pending: OpChanges | None = None  # what ``draw`` has not seen yet
        session.changed.connect(self._changed)
        view.installEventFilter(self)

    def _changed(self, changes: OpChanges) -> None:
        if self._update is not None:
            self._update(changes)
        if self._draw is None:
            return
        if self._view.isVisible():
            self._draw(changes)
        else:
            self.pending = changes if self.pending is None else self.pending | changes

    def flush(self) -> None:
        if self.pending is not None and self._draw is not None:
            pending, self.pending = self.pending, None
            self._draw(pending)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self._view and event.type() == QEvent.Type.Show:
            self.flush()
        return False


def watch(view: QWidget, session: Session, update: Update | None = None,
          draw: Update | None = None) -> ViewUpdates:
    return ViewUpdates(view, session, update, draw)


def catch_up(root: QWidget) -> None:
    """Views built after the session's state was set (the planner, built when a table or
    plan is first opened, possibly while that change is being announced) hear it as one
    change of everything, as if they had been there all along."""
    everything = OpChanges.everything()
    for updates in root.findChildren(ViewUpdates):
        updates._changed(everything)
