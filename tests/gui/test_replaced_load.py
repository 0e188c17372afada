"""A table load the person replaced (opened another table before it finished) or cancelled is
never applied, even when it finishes after the newer one."""

from __future__ import annotations

import threading
from pathlib import Path

import pandas as pd


def test_a_replaced_load_is_never_applied(window, qtbot, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import planner_app.gui.controllers.files as file_ops

    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    for p in (first, second):
        pd.DataFrame({"age": [30, 40, 50]}).to_csv(p, index=False)
    gate = threading.Event()
    real = file_ops.open_table

    def slow_first(path, progress=None, cancel=None):  # type: ignore[no-untyped-def]
        if Path(path).name == "first.csv":
            gate.wait(20)  # finishes after the second load, past its cancel checks
            return real(path)
        return real(path, progress=progress, cancel=cancel)

    monkeypatch.setattr(file_ops, "open_table", slow_first)
    window.files.load_table(first, ask=False)
    window.files.load_table(second, ask=False)
    qtbot.waitUntil(lambda: window.session.table_path == second, timeout=20_000)
    gate.set()
    qtbot.wait(500)  # let the first load finish and deliver its result
    from planner_app.gui.workers import wait_for_workers

    assert wait_for_workers(10_000)
    qtbot.wait(200)
    assert window.session.table_path == second
    assert not window.progress.isVisible()
