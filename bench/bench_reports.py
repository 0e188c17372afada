"""Benchmarks for the report and the pre-charge checks; figures go to bench/results.md.

Measures: the report of a 1,000-statistic release (PDF and HTML), a full release of a plan with
100 statistics (once "row too high" after the charge), and a full release of a histogram over
100,000 declared categories (once ~110 s in the PDF's table); the latter two include the
pre-charge build of the report from placeholder values.
Run: python bench/bench_reports.py
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _results import write_section  # noqa: E402

MARK = "## Reports and the checks before the charge"


def release(queries: list[dict], frame) -> tuple[float, Path]:  # type: ignore[no-untyped-def]
    from planner_app.core.data.tables import Table
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.records.ledger import Ledger
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home

    plan = plan_from_dict({"format": "planner-app/plan@1", "dataset": {"name": "bench"},
                           "privacy_unit": {"kind": "row"},
                           "budget": {"epsilon": 1000, "delta": 0}, "queries": queries})
    folder = Path(tempfile.mkdtemp())
    home = app_home(folder / "home").ensure()
    Ledger(home.ledger_path).set_cap("bench", 1e6, 1e-5)
    out = folder / "b.zip"
    t0 = time.perf_counter()
    publish(plan, Table(frame, "bench.csv", "0" * 64, "csv"), out, home)
    return time.perf_counter() - t0, out


def main() -> None:
    import numpy as np
    import pandas as pd

    from planner_app.core.release.bundle import read_bundle
    from planner_app.core.release.report import report_html, report_pdf

    rng = np.random.default_rng(1)  # benchmark data only
    frame = pd.DataFrame({"x": rng.uniform(0, 10, 5000),
                          "c": rng.integers(0, 100_000, 5000).astype(str)})
    reason = "question 12 of the survey form allows answers from 0 to 10 only"
    means = [{"id": f"m{i}", "label": f"Mean number {i}", "kind": "mean", "column": "x",
              "lower": 0, "upper": 10, "epsilon": 0.01, "justification": {"bounds": reason}}
             for i in range(1000)]
    rows = []
    seconds, out = release(means[:100], frame)
    rows.append(("full release, 100 statistics (check, report before the charge, noise, "
                 "bundle)", seconds))
    seconds, out = release(means, frame)
    rows.append(("full release, 1,000 statistics", seconds))
    record = json.loads(read_bundle(out)["release.json"])
    t0 = time.perf_counter()
    pdf = report_pdf(record)
    rows.append((f"report.pdf of 1,000 statistics ({len(pdf) / 1e6:.1f} MB)",
                 time.perf_counter() - t0))
    t0 = time.perf_counter()
    report_html(record)
    rows.append(("report.html of 1,000 statistics", time.perf_counter() - t0))
    hist = [{"id": "h", "kind": "histogram", "column": "c",
             "categories": [str(i) for i in range(100_000)], "epsilon": 1,
             "justification": {"categories": "the code list"}}]
    seconds, out = release(hist, frame)
    rows.append(("full release, histogram over 100,000 declared categories", seconds))
    record = json.loads(read_bundle(out)["release.json"])
    t0 = time.perf_counter()
    report_pdf(record)
    rows.append(("its report.pdf (the 50 largest cells; all in results.csv)",
                 time.perf_counter() - t0))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [MARK, "",
             f"One run; machine: {platform.machine()}, CPython {platform.python_version()}, "
             f"{os.cpu_count()} CPUs, load average {load:.1f} when it ended (other jobs were "
             "running: read the figures as upper bounds). A release builds the report twice: "
             "once from placeholder values before the charge (so a report that cannot be "
             "built refuses with nothing spent) and once from the noised record.", "",
             "| measure | seconds |", "|---|---:|"]
    lines += [f"| {name} | {value:.1f} |" for name, value in rows]
    write_section(MARK, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
