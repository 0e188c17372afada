"""What a release costs beyond its data (issue 24's targets, measured as one question): each
case's `planner-app release` against the same release of the same plan on the table's first
1,000 rows (the *floor*: what a release costs whatever its data, its report, bundle, ledger,
imports and engine start) and against the bare reference computing the same aggregates:

- DuckDB alone (bench/engine_ref_duckdb.py) as before: its window keeps a random choice of
  rows per person (``random()``, or an unkeyed hash of the position for Parquet);
- DuckDB alone with ``--same-key``: the window ordered by the release's own salted SHA-256
  key, so it keeps the same rows the release keeps (the target's "same bounding");
- bare pandas reading and counting the file, for the many-categories histogram.

Whole processes in turn (release, floor, references; ``--repeat`` rounds), CPU = user +
system from ``os.wait4``; ratios pair by pair, medians quoted.

    python bench/bench_floor.py                            # every case below 100M, writes
    python bench/bench_floor.py --cases hist10m --repeat 1 --print-only
    python bench/bench_floor.py --cases survey12-100m-parquet,hist100m --repeat 1
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_engine as be
import engine_data as data
from _results import write_section
from bench_many_cells import PANDAS_HIST

SECTION = "## What a release costs beyond its data: floor and references (issue 24, session 10)"
FLOOR_ROWS = 1_000


def survey(rows: int, fmt: str, statistics_: int) -> tuple[dict[str, Any], Path]:
    if statistics_ == 7:
        import scale

        plan = scale.scale_plan(rows)
    else:
        plan = data.survey_plan(rows)
    return plan, data.survey_table(be.DATA, rows, fmt)


CASES = {
    "survey12-1m-csv": lambda: survey(1_000_000, "csv", 12),
    "survey12-1m-parquet": lambda: survey(1_000_000, "parquet", 12),
    "survey12-10m-csv": lambda: survey(10_000_000, "csv", 12),
    "survey12-10m-parquet": lambda: survey(10_000_000, "parquet", 12),
    "survey7-10m-parquet": lambda: survey(10_000_000, "parquet", 7),
    "hist10m": lambda: (data.codes_plan(10_000_000, 100_000),
                        data.codes_table(be.DATA, 10_000_000, 100_000)),
    # on request (minutes each, GBs of disk)
    "survey12-100m-parquet": lambda: survey(100_000_000, "parquet", 12),
    "survey12-100m-csv": lambda: survey(100_000_000, "csv", 12),  # 4.7 GB
    "survey7-100m-parquet": lambda: survey(100_000_000, "parquet", 7),
    "hist100m": lambda: (data.codes_plan(100_000_000, 100_000),
                         data.codes_table(be.DATA, 100_000_000, 100_000)),
}
DEFAULT = "survey12-1m-csv,survey12-1m-parquet,survey12-10m-csv,survey12-10m-parquet," \
          "survey7-10m-parquet,hist10m"


def head_of(table: Path) -> Path:
    """The table's first FLOOR_ROWS rows, in the same format (written once)."""
    out = table.with_name(f"{table.stem}-head{FLOOR_ROWS}{table.suffix}")
    if not out.exists():
        reader = (f"read_parquet('{table}')" if table.suffix == ".parquet"
                  else f"read_csv('{table}', all_varchar = true)")
        data.write_table(f"SELECT * FROM {reader} LIMIT {FLOOR_ROWS}", out)
    return out


def release(plan: Path, table: Path, work: Path, tag: str) -> list[str]:
    home = work / f"home-{tag}"
    shutil.rmtree(home, ignore_errors=True)
    return [sys.executable, "-m", "planner_app", "--home", str(home), "release", str(plan),
            "--data", str(table), "--out", str(work / f"bundle-{tag}.zip"), "--force"]


def one_case(name: str, work: Path, repeat: int) -> dict[str, list[dict[str, Any]]]:
    plan_dict, table = CASES[name]()
    plan = data.write_plan(plan_dict, work / f"plan-{name}.json")
    small = head_of(table)
    person = plan_dict["privacy_unit"]["kind"] == "person"
    cmds = {"release": release(plan, table, work, name),
            "floor": release(plan, small, work, name + "-floor")}
    if person:
        cmds["duckdb"] = be.ref("engine_ref_duckdb.py", plan, table)
        cmds["keyed"] = [*be.ref("engine_ref_duckdb.py", plan, table), "--same-key"]
    else:
        cmds["duckdb"] = be.ref("engine_ref_duckdb.py", plan, table)
        cmds["pandas"] = [sys.executable, "-c", PANDAS_HIST, str(table)]
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in cmds}
    for _ in range(repeat):
        for key, cmd in cmds.items():
            if "--home" in cmd:  # a fresh ledger each release: the cap would run out
                shutil.rmtree(cmd[cmd.index("--home") + 1], ignore_errors=True)
            runs[key].append(be.measure(cmd, work / f"{name}-{key}.log",
                                        cwd=Path(tempfile.gettempdir())))
        print(name, {k: round(v[-1]["cpu"], 2) for k, v in runs.items()}, file=sys.stderr,
              flush=True)
    return runs


def med(rs: list[dict[str, Any]], key: str = "cpu") -> float:
    return statistics.median(r[key] for r in rs)


def pair(a: list[dict[str, Any]], b: list[dict[str, Any]], minus: list[dict[str, Any]] | None
         = None, key: str = "cpu") -> str:
    """Median over rounds of a / b (or (a - minus) / b); none against a failed run (its time
    is that of the failure: DuckDB alone's random() window runs out of memory on a 100M-row
    CSV)."""
    if any(r["rc"] for r in (*a, *b, *(minus or []))):
        return "-"
    got = [(x[key] - (m[key] if m else 0.0)) / y[key]
           for x, y, m in zip(a, b, minus or [None] * len(a), strict=True)]
    return f"{statistics.median(got):.2f}x"


def rows_of(name: str, runs: dict[str, list[dict[str, Any]]]) -> str:
    ref = "keyed" if "keyed" in runs else "pandas"
    failed = [f"{k} exit {r['rc']}" for k, rs in runs.items() for r in rs if r["rc"]]
    return (f"| {name}{' (' + ', '.join(failed) + ')' if failed else ''} | "
            f"{be.secs(med(runs['release']))} | {be.secs(med(runs['floor']))} | "
            f"{be.secs(med(runs['duckdb']))} | {be.secs(med(runs[ref]))} | "
            f"{pair(runs['release'], runs['duckdb'])} | {pair(runs['release'], runs[ref])} | "
            f"{pair(runs['release'], runs[ref], runs['floor'])} | "
            f"{be.mb(med(runs['release'], 'rss_mb'))} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=DEFAULT, help=f"comma-separated of {', '.join(CASES)}")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--print-only", action="store_true")
    ap.add_argument("--title", default=SECTION)
    args = ap.parse_args()
    be.ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    be.ENV["PYTHONPATH"] = str(be.ROOT)
    start = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()[0]
    lines = ["| case | release | floor (first 1,000 rows) | DuckDB alone | DuckDB alone, same "
             "key / bare pandas | release / DuckDB alone | release / same key or pandas | "
             "(release - floor) / same key or pandas | release peak RSS |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory(prefix="bench-floor-", dir=be.DATA) as tmp:
        work = Path(tmp)
        for name in [c.strip() for c in args.cases.split(",") if c.strip()]:
            lines.append(rows_of(name, one_case(name, work, args.repeat)))
    section = "\n".join([
        args.title, "",
        f"Machine: {be.machine()}; planner_app at {be.git_head()}; {start}, load average "
        f"{load:.1f} at the start. `python bench/bench_floor.py --cases {args.cases} --repeat "
        f"{args.repeat}`: whole processes in turn, CPU seconds (user + system), medians of "
        f"{args.repeat} round(s); ratios pair by pair. The floor is the same release of the "
        f"same plan on the table's first {FLOOR_ROWS:,} rows. For a person unit the fourth "
        "column is DuckDB alone keeping the release's own rows (its salted SHA-256 key, "
        "`engine_ref_duckdb.py --same-key`); for a rows unit (the histogram) it is bare pandas "
        "(`read_csv` + `value_counts`).", "", *lines, ""])
    print(section)
    if not args.print_only:
        write_section(args.title, section)


if __name__ == "__main__":
    main()
