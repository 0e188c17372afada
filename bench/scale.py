"""Any size: a 7-statistic plan released from 300 million or a billion rows, against DuckDB
alone computing the same aggregates with the same bounding (issue 24). Runnable on a bigger
machine as it is: it generates its table, says which machine gave each figure (cores, memory,
disk) and writes its section of bench/results.md.

    python bench/scale.py                         # 300M rows, Parquet, one paired run
    python bench/scale.py --rows 300m,1b          # both sizes (1B rows: about 30 GB of Parquet)
    python bench/scale.py --rows 1m --print-only  # a small trial; prints, writes nothing

The table is bench/engine_data.py's seeded survey (one row per person and wave; a person has
1 to 5 rows, the unit bounds it at 3), written once with DuckDB's COPY into
$PLANNER_BENCH_DATA (default /tmp/bench-data), so no row passes through Python. The plan is
the one the issue quotes: a count, a plain income sum with bounds 0 to 200,000 and no
grid_step (id ``inc``), a mean, a variance, a histogram of four regions, a median income and
a sum by region; ``dataset.expected_rows`` states the rows, as an owner would.

Every figure is a whole process (``planner-app release`` as a user runs it; DuckDB alone as
bench/engine_ref_duckdb.py, once with its random window and once with ``--same-key``, the
release's own salted key, which keeps the same rows), from the operating system's accounting
of the finished process (bench/bench_engine.py's ``measure``); runs alternate release, DuckDB,
DuckDB with the key, release … and the ratios are taken pair by pair.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_engine as be
import engine_data as data
from _results import write_section

SECTION = "## Engine: scale, 300M rows and more (bench/scale.py)"
KINDS = ["count", "sum", "mean", "variance", "histogram_categories", "quantile", "group_sum"]


def rows_of(text: str) -> int:
    """'300m' -> 300,000,000; '1b' -> 10^9; '5000' -> 5,000."""
    text = text.strip().lower().replace("_", "").replace(",", "")
    scale = {"k": 10**3, "m": 10**6, "b": 10**9}.get(text[-1:], 1)
    return int(float(text.rstrip("kmb")) * scale)


def scale_plan(rows: int) -> dict[str, Any]:
    """The 7-statistic plan, ε 1 each; the sum's id is ``inc`` as in the issue."""
    plan = data.survey_plan(rows, statistics=len(KINDS), total_epsilon=7.0)
    queries = [data._query(kind, n, 1.0) for n, kind in enumerate(KINDS)]
    queries[1]["id"] = "inc"
    plan["queries"] = queries
    plan["dataset"]["name"] = f"bench-scale-{len(KINDS)}"
    return plan


def memory_gb() -> float:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30


def part(rows: int, fmt: str, repeat: int, work: Path) -> tuple[list[str], list[str]]:
    table = data.survey_table(be.DATA, rows, fmt)
    size = table.stat().st_size / 2**30
    plan = data.write_plan(scale_plan(rows), work / f"plan-scale-{rows}.json")
    release = be.Release(work)
    runs: dict[str, list[dict[str, Any]]] = {"release": [], "duckdb": [], "keyed": []}
    for _ in range(repeat):
        runs["release"].append(release.run(plan, table))
        runs["duckdb"].append(be.measure(be.ref("engine_ref_duckdb.py", plan, table)))
        runs["keyed"].append(be.measure([*be.ref("engine_ref_duckdb.py", plan, table),
                                         "--same-key"]))
    lines = []
    for key, name in (("release", "`planner-app release`"), ("duckdb", "DuckDB alone"),
                      ("keyed", "DuckDB alone, the release's key (the same rows kept)")):
        rs = runs[key]
        # no ratio against a process that failed (DuckDB alone ran out of memory at 300M
        # rows on 24 GB): its time is that of the failure, not of the work
        failed_any = any(r["rc"] != 0 for r in (*rs, *runs["release"]))
        ratios = ("-", "-") if key == "release" or failed_any else (
            f"{be.ratio(runs['release'], rs, 'wall'):.2f}x",
            f"{be.ratio(runs['release'], rs, 'cpu'):.2f}x")
        lines.append(f"| {rows:,} | {fmt} ({size:,.1f} GB) | {name}{be.out_of(rs[-1])} | "
                     f"{be.secs(be.median_of(rs, 'wall'))} | "
                     f"{be.secs(be.median_of(rs, 'cpu'))} | "
                     f"{be.mb(be.median_of(rs, 'rss_mb'))} | {ratios[0]} | {ratios[1]} |")
    failed = [f"{rows:,} rows, {fmt}, {k}: {r.get('error', '')}"
              for k, rs in runs.items() for r in rs if r["rc"] != 0]
    verified = be.verify(runs["release"][-1].get("bundle"))
    notes = [f"{rows:,} rows, {fmt}: bundle verified: {'yes' if verified else 'NO'}",
             *(f"failed: {f}" for f in failed)]
    return lines, notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="300m",
                        help="comma-separated sizes, e.g. 300m,1b (default 300m)")
    parser.add_argument("--formats", default="parquet", help="parquet and/or csv")
    parser.add_argument("--repeat", type=int, default=1, help="paired runs per size")
    parser.add_argument("--print-only", action="store_true",
                        help="print the section; do not write bench/results.md")
    args = parser.parse_args()
    sizes = [rows_of(r) for r in args.rows.split(",") if r.strip()]
    be.DATA.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(be.DATA).free / 2**30
    where = (f"{be.machine()}, {memory_gb():,.0f} GB memory, {free:,.0f} GB free disk at "
             f"{be.DATA}")
    print(where, file=sys.stderr)
    body = [f"Machine: {where}; planner_app at {be.git_head()}; "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Whole processes; "
            f"median of {args.repeat} paired run{'s' if args.repeat > 1 else ''}.", "",
            f"Plan: {len(KINDS)} statistics ({', '.join(KINDS)}), ε 1 each, person-level "
            f"unit (at most {data.MAX_ROWS} rows per person); the income sum `inc` has "
            "bounds 0 to 200,000 and no grid_step.", "",
            "| rows | file | process | wall | CPU | peak RSS | release / it (wall) | (CPU) |",
            "|---:|---|---|---:|---:|---:|---:|---:|"]
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-", dir=be.DATA) as tmp:
        for rows in sizes:
            for fmt in args.formats.split(","):
                print(f"[{rows:,} rows, {fmt}]", file=sys.stderr)
                table, said = part(rows, fmt.strip(), args.repeat, Path(tmp))
                body += table
                notes += said
    section = "\n".join([SECTION, "", *body, "", *(f"- {n}" for n in notes), ""])
    print(section)
    if not args.print_only:
        write_section(SECTION, section)


if __name__ == "__main__":
    main()
