"""Cycles are collected on the GUI thread, never in a worker (a collection in the pool's
thread freed Qt objects of earlier windows and crashed the GUI suite with a segfault)."""

from __future__ import annotations

import gc
import threading
from typing import Any

from planner_app.gui.collector import collect_on_gui_thread
from planner_app.gui.workers import Worker


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cycle collector frees it


def test_a_worker_that_allocates_cycles_never_collects_them(qtbot: Any) -> None:
    collect_on_gui_thread()
    threads: list[int] = []

    def note(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            threads.append(threading.get_ident())

    def work(_progress: Any, _cancel: Any) -> int:
        for _ in range(20):
            [Node() for _ in range(5_000)]  # far past generation 0's threshold (700)
        return threading.get_ident()

    gc.callbacks.append(note)
    try:
        worker = Worker(work)
        with qtbot.waitSignal(worker.signals.finished, timeout=60_000) as done:
            worker.start()
        worker_thread = done.args[0]
        qtbot.waitUntil(lambda: len(threads) > 0, timeout=10_000)  # the GUI's timer collects
    finally:
        gc.callbacks.remove(note)
    assert worker_thread != threading.get_ident()
    assert worker_thread not in threads
    assert set(threads) == {threading.get_ident()}
