"""Opening a plan of many statistics in the desktop app, offscreen (issue 22, session 2):
seconds from the window's creation to its first paint with the table loaded and the plan
open, and for one more repaint after selecting the last statistic. A script, not a test:

    python bench/make_many_cells.py DIR --statistics 10000
    python bench/bench_many_statistics_gui.py DIR/plan.json DIR/table.csv [--shot OUT.png]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("plan", type=Path)
    p.add_argument("table", type=Path)
    p.add_argument("--shot", type=Path)
    a = p.parse_args()
    t0 = time.perf_counter()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from planner_app.gui.app import build_window

    with tempfile.TemporaryDirectory() as home:
        window = build_window(home)
        window.resize(1400, 900)
        window.show()
        window.files.load_table(a.table, synchronous=True)
        t1 = time.perf_counter()
        window.files.open_plan(a.plan, confirmed=True)
        app.processEvents()
        shot = window.grab()  # a paint of the whole window
        t2 = time.perf_counter()
        last = window.session.plan.queries[-1].id
        window.session.select(last)
        app.processEvents()
        window.grab()
        t3 = time.perf_counter()
        if a.shot is not None:
            shot.save(str(a.shot))
        print(f"statistics: {len(window.session.plan.queries):,}")
        print(f"start + table: {t1 - t0:.2f} s; open plan to first paint: {t2 - t1:.2f} s; "
              f"select the last statistic and repaint: {t3 - t2:.2f} s")
        window.close()


if __name__ == "__main__":
    main()
