"""One worker helper: a QRunnable with progress / finished / failed signals (superqt / Anki
QueryOp style). The work function gets ``progress(fraction, message)`` and ``cancel()``
callables and never touches a widget."""

from __future__ import annotations

import time
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class WorkerSignals(QObject):
    progress = Signal(float, str)
    finished = Signal(object)
    failed = Signal(object)


class Worker(QRunnable):
    THROTTLE_S = 0.05

    def __init__(self, fn: Callable[[Callable[[float, str], None], Callable[[], bool]], Any]):
        super().__init__()
        self.setAutoDelete(False)
        self.fn = fn
        self.signals = WorkerSignals()
        self._cancelled = False
        self._last = 0.0

    def cancel(self) -> None:
        self._cancelled = True

    def is_cancelled(self) -> bool:
        return self._cancelled

    def _progress(self, fraction: float, message: str) -> None:
        now = time.monotonic()
        if fraction >= 1.0 or now - self._last >= self.THROTTLE_S:
            self._last = now
            self.signals.progress.emit(float(fraction), message)

    def run(self) -> None:
        try:
            result = self.fn(self._progress, self.is_cancelled)
        except BaseException as exc:  # reported to the window, never raised in the pool
            self.signals.failed.emit(exc)
        else:
            self.signals.finished.emit(result)


class WorkerSlot:
    """Keeps the live worker of one window: starting a new task cancels the previous one."""

    def __init__(self) -> None:
        self.current: Worker | None = None

    def start(self, worker: Worker) -> Worker:
        if self.current is not None:
            self.current.cancel()
        self.current = worker
        QThreadPool.globalInstance().start(worker)
        return worker
