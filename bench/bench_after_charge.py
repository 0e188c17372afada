"""CPU seconds of a release before and after its ledger charge, and where the time after the
charge goes, for one plan and table (issue 22: a 10^6-cell histogram spent ~20 s after the
charge). A script, not a test; it prints its figures (copy them to bench/results.md):

    python bench/make_many_cells.py /tmp/m6 --categories 1000000
    python bench/bench_after_charge.py /tmp/m6/plan.json /tmp/m6/table.csv

CPU time (time.process_time) of this process, so a loaded machine inflates wall time only.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import planner_app.core.release.publish as publish_module
from planner_app.core.data.tables import open_table
from planner_app.core.planfile import load_plan
from planner_app.core.records.ledger import Ledger
from planner_app.core.support.home import app_home

STEPS = ("privatize", "release_record", "save_pending", "_report_files", "results_csv",
         "json_bytes", "json_bytes_made", "zip_bytes", "atomic_write_bytes")


def main(plan_path: str, table_path: str) -> None:
    spent: dict[str, float] = {}
    phase = ["before the charge"]

    def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                key = f"{phase[0]}: {name}"
                spent[key] = spent.get(key, 0.0) + time.process_time() - start
        return run

    for name in STEPS:
        if hasattr(publish_module, name):  # json_bytes_made: not in older versions
            setattr(publish_module, name, timed(name, getattr(publish_module, name)))
    real_charge = Ledger.charge

    def charge(self: Ledger, **kwargs: Any) -> Any:
        state = real_charge(self, **kwargs)
        marks["charged"] = time.process_time()
        phase[0] = "after the charge"
        return state

    Ledger.charge = charge  # type: ignore[method-assign]
    marks: dict[str, float] = {"start": time.process_time()}
    plan = load_plan(plan_path)
    table = open_table(table_path)
    marks["read"] = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        home = app_home(Path(tmp) / "home").ensure()
        publish_module.publish(plan, table, Path(tmp) / "b.zip", home)
    marks["end"] = time.process_time()
    print(f"reading the plan and opening the table: {marks['read'] - marks['start']:.2f} s CPU")
    print(f"before the charge (check, aggregates, rehearsal): "
          f"{marks['charged'] - marks['read']:.2f} s CPU")
    print(f"after the charge (noise, record, bundle): {marks['end'] - marks['charged']:.2f} s CPU")
    for key, seconds in sorted(spent.items()):
        print(f"  {key}: {seconds:.2f} s")


if __name__ == "__main__":
    main(*sys.argv[1:3])
