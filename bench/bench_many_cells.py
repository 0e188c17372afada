"""Many released cells (issue 24, "Many categories"; issue 22's 10^4 keys x 200 categories):
``planner-app release`` of one histogram with many declared cells against bare pandas reading
the same file and counting it, whole processes measured from outside (``os.wait4``: CPU
seconds of the process, its peak RSS), paired in one run. Figures go to bench/results.md.

    python bench/bench_many_cells.py                       # this checkout, both cases
    python bench/bench_many_cells.py --code /tmp/before    # another planner_app tree (before)
    python bench/bench_many_cells.py --label before --no-write
    python bench/bench_many_cells.py --before /tmp/before --only hist,hist6 --write
        # before and after paired in one run, per case: before, pandas, after, pandas;
        # writes the '## Many categories: ... (issue 24, cats24)' section of results.md

Cases (tables generated once with DuckDB's COPY into $PLANNER_BENCH_DATA, default
/tmp/bench-data):
  hist   one histogram of 10^5 declared categories over 10,000,000 rows (integer codes);
         pandas: read_csv + value_counts
  hist6  the same with 10^6 declared categories (and codes)
  groups one histogram of 200 categories by 10^4 group keys (2*10^6 cells) over 2,000,000
         rows; pandas: read_csv + groupby(["k", "g"]).size()
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import bench_engine as be
import engine_data as data

PANDAS_HIST = ("import sys, pandas as pd; "
               "print(pd.read_csv(sys.argv[1], usecols=['code'])['code'].value_counts().size)")
PANDAS_GROUPS = ("import sys, pandas as pd; "
                 "print(pd.read_csv(sys.argv[1], usecols=['k', 'g']).groupby(['k', 'g'])"
                 ".size().size)")


def hist_plan(rows: int, k: int) -> dict[str, Any]:
    """bench/engine_data.py's code histogram (its rows recorded as different people)."""
    return data.codes_plan(rows, k)


def groups_table(rows: int, keys: int, cats: int) -> Path:
    path = be.DATA / f"groups-{rows}-{keys}-{cats}.csv"
    if not path.exists():
        data.write_table(f"SELECT CAST(hash(i, 7, 'k') % {keys} AS BIGINT) AS k, "
                         f"CAST(hash(i, 7, 'g') % {cats} AS BIGINT) AS g "
                         f"FROM range({rows}) t(i)", path)
    return path


def groups_plan(rows: int, keys: int, cats: int) -> dict[str, Any]:
    return {
        "format": "planner-app/plan@1",
        "dataset": {"name": f"bench-groups-{keys}x{cats}", "expected_rows": rows},
        "privacy_unit": {"kind": "row", "rows_are_people": {"reason": "a bench table"}},
        "budget": {"epsilon": 1.0, "delta": 1e-6},
        "queries": [{"id": "codes", "kind": "histogram", "column": "g",
                     "categories": list(range(cats)), "epsilon": 1.0,
                     "group_by": {"column": "k", "keys": list(range(keys))},
                     "justification": {"categories": "the published code list",
                                       "keys": "the published key list"}}],
    }


def one(name: str, plan: Path, table: Path, reference: str, work: Path,
        code: Path) -> dict[str, Any]:
    home = work / f"home-{name}"
    shutil.rmtree(home, ignore_errors=True)
    out = work / f"bundle-{name}.zip"
    out.unlink(missing_ok=True)
    be.ENV["PYTHONPATH"] = str(code)
    rel = be.measure([sys.executable, "-m", "planner_app", "--home", str(home), "release",
                      str(plan), "--data", str(table), "--out", str(out), "--force"],
                     work / f"release-{name}.log")
    bare = be.measure([sys.executable, "-c", reference, str(table)])
    record = 0
    if out.exists():
        import zipfile

        with zipfile.ZipFile(out) as zf:
            record = zf.getinfo("release.json").file_size
    return {"release": rel, "pandas": bare, "record_bytes": record}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--code", type=Path, default=be.ROOT, help="the planner_app tree to run")
    ap.add_argument("--label", default="after")
    ap.add_argument("--table", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                    help="print the markdown rows of two runs' figures.json and stop")
    ap.add_argument("--only", default="hist,groups")
    ap.add_argument("--before", type=Path, help="another planner_app tree: run it and this "
                    "checkout side by side, case by case, in this one run")
    ap.add_argument("--write", action="store_true", help="with --before: write the section")
    ap.add_argument("--title", default=PAIRED_TITLE,
                    help="with --before: the results.md section to write")
    args = ap.parse_args()
    if args.before:
        paired(args.before, args.code, args.only.split(","), args.write, args.title)
        return
    if args.table:
        print(table_rows(*(json.loads(p.read_text()) for p in args.table)))
        return
    work = be.DATA / f"many-cells-{args.label}"
    work.mkdir(parents=True, exist_ok=True)
    cases = {
        "hist": lambda: (data.write_plan(hist_plan(10_000_000, 100_000),
                                         work / "hist-plan.json"),
                         data.codes_table(be.DATA, 10_000_000, 100_000), PANDAS_HIST),
        "hist6": lambda: (data.write_plan(hist_plan(10_000_000, 1_000_000),
                                          work / "hist6-plan.json"),
                          data.codes_table(be.DATA, 10_000_000, 1_000_000), PANDAS_HIST),
        "groups": lambda: (data.write_plan(groups_plan(2_000_000, 10_000, 200),
                                           work / "groups-plan.json"),
                           groups_table(2_000_000, 10_000, 200), PANDAS_GROUPS),
    }
    got = {}
    for name in args.only.split(","):
        plan, table, ref = cases[name]()
        got[name] = one(name, plan, table, ref, work, args.code)
        print(name, json.dumps({k: v if not isinstance(v, dict) else
                                {x: v[x] for x in ("cpu", "wall", "rss_mb", "rc")}
                                for k, v in got[name].items()}), flush=True)
    (work / "figures.json").write_text(json.dumps(got, default=str))
    print(f"figures: {work / 'figures.json'}")


PAIRED_TITLE = "## Many categories: a release vs bare pandas, before and after (issue 24, cats24)"


def paired(before_code: Path, after_code: Path, names: list[str], write: bool,
           title: str = PAIRED_TITLE) -> None:
    """Each case with the old tree, then the new one, each followed by its own bare-pandas
    run (so each ratio is of two processes that ran back to back)."""
    import os
    import platform
    import subprocess
    from datetime import datetime, timezone

    from _results import write_section

    work = be.DATA / "many-cells-paired"
    work.mkdir(parents=True, exist_ok=True)
    cases = {
        "hist": (hist_plan(10_000_000, 100_000), 100_000),
        "hist6": (hist_plan(10_000_000, 1_000_000), 1_000_000),
    }
    runs: dict[str, dict[str, Any]] = {"before": {}, "after": {}}
    load = os.getloadavg()[0]
    for name in names:
        plan_doc, k = cases[name]
        plan = data.write_plan(plan_doc, work / f"{name}-plan.json")
        table = data.codes_table(be.DATA, 10_000_000, k)
        for label, code in (("before", before_code), ("after", after_code)):
            runs[label][name] = one(f"{name}-{label}", plan, table, PANDAS_HIST, work, code)
            print(name, label, json.dumps({x: runs[label][name]["release"][x]
                                           for x in ("cpu", "wall", "rss_mb", "rc")}),
                  flush=True)
    (work / "figures.json").write_text(json.dumps(runs, default=str))
    rev = subprocess.run(["git", "-C", str(be.ROOT), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    section = "\n".join([
        title, "",
        f"Machine: {os.cpu_count()} cores, shared with other developers' sessions (load "
        f"average {load:.1f} at the start: wall times are inflated by the load, read CPU), "
        f"CPython {platform.python_version()}; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} "
        f"UTC. `python bench/bench_many_cells.py --before DIR --only {','.join(names)} "
        f"--write`: before = the tree in DIR (a `git archive` of the branch's start), after "
        f"= {rev}; per case, before then after, each release followed by its own bare-pandas "
        "run (`read_csv(usecols=['code'])` + `value_counts()`), whole processes measured "
        "with `os.wait4` (CPU = user + system, peak RSS). One histogram over 10,000,000 rows "
        "(CSV, integer codes, row unit); hist: 10^5 declared categories, hist6: 10^6. "
        "Target: release ≤ 3x bare pandas (CPU).", "",
        table_rows(runs["before"], runs["after"]), ""])
    print(section)
    if write:
        write_section(title, section)


def table_rows(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The results.md rows: per case, before and after, release and pandas, and the ratio."""
    lines = ["| case | code | release CPU | release wall | release peak RSS | pandas CPU | "
             "pandas peak RSS | release / pandas (CPU) | release.json |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name in after:
        for label, runs in (("before", before), ("after", after)):
            if name not in runs:
                continue
            r, p = runs[name]["release"], runs[name]["pandas"]
            lines.append(f"| {name} | {label} | {r['cpu']:.1f} s | {r['wall']:.1f} s | "
                         f"{r['rss_mb']:,.0f} MB | {p['cpu']:.1f} s | {p['rss_mb']:,.0f} MB | "
                         f"{r['cpu'] / p['cpu']:.2f}x | "
                         f"{runs[name]['record_bytes'] / 2**20:,.1f} MiB |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
