"""Benchmark of the statistic pane's picture of the release, written to bench/results.md:

* one redraw of the picture alone for a new ε: the core preview (preview.py, from the
  accuracy), the artists moved (charts.ChartDrawing) and a full Agg draw of the canvas;
* one step of the ε slider with the Statistic tab shown: every pane refreshes and the
  picture is painted within the step.

Run: python bench/bench_preview.py   (offscreen; needs no display)
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from dataclasses import replace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from _results import write_section  # noqa: E402

MARK = "## Statistic pane: picture of the release"
STATISTICS = ("region_counts", "hours_mean", "satisfaction_by_region")


def measure(steps: int = 60) -> dict[str, tuple[list[float], list[float]]]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from planner_app.core.planning.preview import preview_for
    from planner_app.core.support.resources import demo_plan_path, demo_table_path
    from planner_app.gui.app import build_window

    out: dict[str, tuple[list[float], list[float]]] = {}
    with tempfile.TemporaryDirectory() as home:
        window = build_window(home)
        window.resize(1280, 820)
        window.show()
        window.files.load_table(demo_table_path(), synchronous=True)
        window.files.open_plan(demo_plan_path(), confirmed=True)
        window.tabs.setCurrentWidget(window.statistic_pane)
        pane = window.statistic_pane
        for qid in STATISTICS:
            window.session.select(qid)
            app.processEvents()
            query = window.session.plan.query(qid)
            alone = []
            for i in range(steps):
                q = replace(query, epsilon=0.05 + 0.02 * i)
                t0 = time.perf_counter()
                chart = preview_for(q, window.session.plan, window.session.accuracy(q))
                pane.preview.show_chart(chart, now=True)
                alone.append(time.perf_counter() - t0)
            step = []
            start = pane.slider.value()
            for i in range(steps):
                t0 = time.perf_counter()
                pane.slider.setValue(start - 150 + (i * 5) % 300)
                app.processEvents()  # the picture is painted within the step
                step.append(time.perf_counter() - t0)
            out[qid] = (alone[5:], step[5:])  # the first steps fill caches
        window.session.doc.load(window.session.plan)
        window.close()
    return out


def main() -> None:
    results = measure()
    lines = [
        MARK, "",
        "Offscreen Qt, 1280x820, demo plan. *Picture alone*: the preview for a new ε is built "
        "from the accuracy, its bars or interval moved and the canvas fully drawn (Agg). "
        "*Slider step*: the ε slider moves one step with the Statistic tab shown; every pane "
        "refreshes and the picture is painted before the step ends.", "",
        "| statistic | picture alone, median | slider step, median | slider step, 90th pct |"
        " target |", "|---|---:|---:|---:|---:|",
    ]
    for qid, (alone, step) in results.items():
        a = [1000 * t for t in alone]
        s = [1000 * t for t in step]
        lines.append(f"| {qid} | {statistics.median(a):.1f} ms | {statistics.median(s):.1f} ms"
                     f" | {sorted(s)[int(0.9 * len(s))]:.1f} ms | 50 ms |")
    lines.append("")
    section = "\n".join(lines)
    write_section(MARK, section)
    print(section)


if __name__ == "__main__":
    main()
