"""Python's cycle collector runs on the GUI thread only.

CPython collects cycles in whichever thread happens to allocate past the threshold. When that
is a worker (verifying a bundle, building a report), the collection can free Qt objects made
on the GUI thread — dialogs and widgets from earlier windows — from the pool's thread, which
crashes Qt (a segmentation fault "Garbage-collecting" in a worker, seen in the GUI tests).
pyqtgraph's ``GarbageCollector`` answers it this way: automatic collection is turned off and a
timer on the GUI thread collects each generation once its count passes its threshold."""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer


class MainThreadCollector(QObject):
    INTERVAL_MS = 500

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(self.INTERVAL_MS)

    def check(self) -> None:
        """Collect the oldest generation whose count passed its threshold (on this thread)."""
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self.threshold[generation]:
                gc.collect(generation)
                return


_INSTALLED: list[MainThreadCollector] = []


def collect_on_gui_thread() -> MainThreadCollector:
    """Install the collector once for the application (call on the GUI thread)."""
    if not _INSTALLED:
        _INSTALLED.append(MainThreadCollector(QCoreApplication.instance()))
    return _INSTALLED[0]
