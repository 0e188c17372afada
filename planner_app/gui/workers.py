"""One worker helper: a QRunnable with progress / finished / failed signals (superqt / Anki
QueryOp style). The work function gets ``progress(fraction, message)`` and ``cancel()``
callables and never touches a widget.

Lifetimes (issue 11's quit crash): a started worker is held here, on the GUI thread, until it
has returned from ``run`` and its result has been delivered, so letting go of a running worker
(a second table opened over a loading one, a window closed mid-load) never frees it under the
pool. Its signals object belongs to the application (a C++ parent on the GUI thread) and is
removed with ``deleteLater`` there: it is never deleted directly, nor from the pool's thread.
``wait_for_workers`` lets the app finish the running work before it quits."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, QTimer, Signal


class WorkerSignals(QObject):
    progress = Signal(float, str)
    finished = Signal(object)
    failed = Signal(object)


_LIVE: set[Worker] = set()  # started and not yet reaped, held by the GUI thread


def _reap() -> None:
    """Let go of the workers that have returned (on the GUI thread, after their result)."""
    waiting = False
    for worker in list(_LIVE):
        if worker.returned:
            _LIVE.discard(worker)
            worker.signals.deleteLater()  # in its own thread, after its queued events
        else:
            waiting = True
    if waiting and QCoreApplication.instance() is not None:
        QTimer.singleShot(50, _reap)


def live_workers() -> int:
    return len(_LIVE)


def wait_for_workers(timeout_ms: int = 30_000) -> bool:
    """Cancel nothing, wait for the running work to end (a release must finish what it
    charged); True when every worker returned."""
    done = QThreadPool.globalInstance().waitForDone(timeout_ms)
    if QCoreApplication.instance() is not None:
        QCoreApplication.processEvents()  # deliver their results while the views exist
    _reap()
    return done


class Worker(QRunnable):
    THROTTLE_S = 0.05

    def __init__(self, fn: Callable[[Callable[[float, str], None], Callable[[], bool]], Any]):
        super().__init__()
        self.setAutoDelete(False)  # held in _LIVE until reaped on the GUI thread
        self.fn = fn
        # a C++ parent on the GUI thread: the Python wrapper letting go never deletes it
        self.signals = WorkerSignals(QCoreApplication.instance())
        self.signals.finished.connect(lambda _result: _reap())
        self.signals.failed.connect(lambda _exc: _reap())
        self._cancelled = False
        self._last = 0.0
        self.returned = False

    def cancel(self) -> None:
        self._cancelled = True

    def is_cancelled(self) -> bool:
        return self._cancelled

    def _progress(self, fraction: float, message: str) -> None:
        now = time.monotonic()
        if fraction >= 1.0 or now - self._last >= self.THROTTLE_S:
            self._last = now
            self.signals.progress.emit(float(fraction), message)

    def start(self) -> Worker:
        _LIVE.add(self)
        QThreadPool.globalInstance().start(self)
        return self

    def run(self) -> None:
        try:
            result = self.fn(self._progress, self.is_cancelled)
        except BaseException as exc:  # reported to the window, never raised in the pool
            self.signals.failed.emit(exc)
        else:
            self.signals.finished.emit(result)
        finally:
            self.returned = True  # the last thing run does with this worker


class WorkerSlot:
    """Keeps the live worker of one window: starting a new task cancels the previous one."""

    def __init__(self) -> None:
        self.current: Worker | None = None

    def start(self, worker: Worker) -> Worker:
        if self.current is not None:
            self.current.cancel()
        self.current = worker
        return worker.start()
