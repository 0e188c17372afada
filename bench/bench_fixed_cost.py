"""Fixed cost per release (issue 24): this checkout against an earlier one, whole processes.

Each command runs as a user runs it (``python -m planner_app ...``), once with this checkout
and once with an earlier checkout given by ``--before`` (a copy made with ``git archive REV |
tar -x -C DIR``), in turn (A B A B ...), and DuckDB alone (bench/engine_ref_duckdb.py) beside
the releases. CPU seconds (user + system of the process and the children it waited for) are
the main figure: on a machine shared with other work the wall seconds move with the load.
Ratios are taken pair by pair and the median quoted.

Both checkouts run with their compiled modules cached (PYTHONPYCACHEPREFIX, one folder each,
warmed by one run first; PYTHONDONTWRITEBYTECODE is removed): an installed app has its
bytecode, and a process that compiles the planner's modules again pays about 0.4 s that no user
pays.

    python bench/bench_fixed_cost.py --before /tmp/before              # 1M and 10M rows
    python bench/bench_fixed_cost.py --before /tmp/before --rows 1m,10m,100m
    python bench/bench_fixed_cost.py --before /tmp/before --quick      # small, writes nothing
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

import bench_engine as engine
import engine_data as data
from _results import write_section

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SECTION = "## Fixed cost per release (issue 24, session 6)"
ROWS = {"1m": 1_000_000, "10m": 10_000_000, "100m": 100_000_000}
QUICK_ROWS = {"1m": 50_000, "10m": 200_000, "100m": 500_000}


def env_for(tree: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=str(cache))
    return env


def run(cmd: list[str], env: dict[str, str], log: Path) -> dict[str, Any]:
    """``bench_engine.measure`` with this environment, from a neutral folder (python -m puts
    the working folder first on the path)."""
    engine.ENV = env
    return engine.measure(cmd, log, cwd=Path(tempfile.gettempdir()))


def median(rs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in rs)


def ratio(a: list[dict[str, Any]], b: list[dict[str, Any]], key: str) -> float:
    return statistics.median(x[key] / y[key] for x, y in zip(a, b, strict=True))


def commands(work: Path, demo_bundle: Path) -> dict[str, list[str]]:
    from planner_app.core.support.resources import demo_plan_path

    plan = demo_plan_path()
    table = plan.with_name("survey.csv")
    py = [sys.executable, "-m", "planner_app"]
    return {
        "`planner-app --help`": [*py, "--help"],
        "`planner-app check` (demo plan, no data)": [*py, "check", str(plan)],
        "`planner-app release` (demo plan and table)": [
            *py, "--home", str(work / "home-demo"), "release", str(plan), "--data", str(table),
            "--out", str(demo_bundle), "--force"],
        "`planner-app verify` (the demo bundle)": [*py, "verify", str(demo_bundle)],
    }


def part_commands(trees: dict[str, Path], caches: dict[str, Path], work: Path,
                  repeat: int) -> list[str]:
    lines = ["| process | before: CPU | after: CPU | after / before (CPU) | before: wall | "
             "after: wall |", "|---|---:|---:|---:|---:|---:|"]
    for name, cmd in commands(work, work / "demo.zip").items():
        runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
        for _ in range(repeat):
            for side in ("after", "before"):
                if "verify" in cmd:  # a bundle of this side's own release
                    release = commands(work, work / f"demo-{side}.zip")[
                        "`planner-app release` (demo plan and table)"]
                    shutil.rmtree(work / "home-demo", ignore_errors=True)
                    run(release, env_for(trees[side], caches[side]), work / "setup.log")
                    cmd = [*cmd[:-1], str(work / f"demo-{side}.zip")]
                shutil.rmtree(work / "home-demo", ignore_errors=True)
                runs[side].append(run(cmd, env_for(trees[side], caches[side]),
                                      work / f"{side}.log"))
        b, a = runs["before"], runs["after"]
        failed = [f"{s} exit {r['rc']}" for s, rs in runs.items() for r in rs if r["rc"]]
        lines.append(f"| {name}{' (' + ', '.join(failed) + ')' if failed else ''} | "
                     f"{engine.secs(median(b, 'cpu'))} | {engine.secs(median(a, 'cpu'))} | "
                     f"{ratio(a, b, 'cpu'):.2f}x | {engine.secs(median(b, 'wall'))} | "
                     f"{engine.secs(median(a, 'wall'))} |")
    return lines


def part_rows(label: str, rows: int, trees: dict[str, Path], caches: dict[str, Path],
              work: Path, repeat: int, folder: Path,
              formats: tuple[str, ...] = ("csv", "parquet")) -> list[str]:
    plan = data.write_plan(data.survey_plan(rows), work / f"plan12-{rows}.json")
    lines = [f"### {rows:,} rows: the 12-statistic plan of bench/engine_data.py", "",
             f"Median of {repeat} run(s) of each, in turn.", "",
             "| file | process | CPU | wall | peak RSS | release / DuckDB alone (CPU) | "
             "(wall) |", "|---|---|---:|---:|---:|---:|---:|"]
    for fmt in formats:
        table = data.survey_table(folder, rows, fmt)
        runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": [], "duckdb": []}
        for i in range(repeat):
            for side in ("after", "before"):
                home = work / f"home-{label}-{fmt}-{side}-{i}"
                cmd = [sys.executable, "-m", "planner_app", "--home", str(home), "release",
                       str(plan), "--data", str(table), "--out",
                       str(work / f"b-{label}-{side}.zip"), "--force"]
                runs[side].append(run(cmd, env_for(trees[side], caches[side]),
                                      work / f"{side}-{label}.log"))
                shutil.rmtree(home, ignore_errors=True)
            runs["duckdb"].append(run(engine.ref("engine_ref_duckdb.py", plan, table),
                                      env_for(trees["after"], caches["after"]),
                                      work / "duckdb.log"))
        names = {"before": "`planner-app release`, before", "after": "`planner-app release`, "
                 "after", "duckdb": "DuckDB alone"}
        for key, rs in runs.items():
            cells = ("-", "-") if key == "duckdb" else (
                f"{ratio(rs, runs['duckdb'], 'cpu'):.2f}x",
                f"{ratio(rs, runs['duckdb'], 'wall'):.2f}x")
            failed = [r["rc"] for r in rs if r["rc"]]
            lines.append(f"| {fmt} | {names[key]}{f' (exit {failed[0]})' if failed else ''} | "
                         f"{engine.secs(median(rs, 'cpu'))} | {engine.secs(median(rs, 'wall'))}"
                         f" | {engine.mb(median(rs, 'rss_mb'))} | {cells[0]} | {cells[1]} |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True,
                        help="an earlier checkout (git archive REV | tar -x -C DIR)")
    parser.add_argument("--after", type=Path, default=ROOT,
                        help="the checkout measured as 'after' (default: this one; a copy lets "
                             "the work tree change while the benchmark runs)")
    parser.add_argument("--rows", default="1m,10m",
                        help="comma-separated of 1m, 10m, 100m (100m: hours and 10 GB)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each command (the row parts above 1M: one)")
    parser.add_argument("--formats", default="csv,parquet",
                        help="the files of the row parts: csv, parquet or both")
    parser.add_argument("--quick", action="store_true", help="small tables; writes nothing")
    parser.add_argument("--title", default=SECTION, help="the results.md section to write")
    args = parser.parse_args()
    sizes = QUICK_ROWS if args.quick else ROWS
    folder = engine.DATA / ("quick" if args.quick else "")
    folder.mkdir(parents=True, exist_ok=True)
    engine.DATA = folder
    trees = {"after": args.after.resolve(), "before": args.before.resolve()}
    head = engine.git_head()
    with tempfile.TemporaryDirectory(prefix="bench-fixed-", dir=folder) as tmp:
        work = Path(tmp)
        caches = {side: work / f"pycache-{side}" for side in trees}
        for side in trees:  # warm each side's bytecode cache (and check it runs)
            run(commands(work, work / "warm.zip")["`planner-app release` (demo plan and table)"],
                env_for(trees[side], caches[side]), work / "warm.log")
            shutil.rmtree(work / "home-demo", ignore_errors=True)
        body = [f"Machine: {engine.machine()}; after = planner_app at {head} "
                f"({args.after.name}), before = {args.before.name}; "
                f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
                f"load average {os.getloadavg()[0]:.1f} at the start (the machine was shared: "
                "read CPU seconds, the wall seconds moved with the load). Whole processes; "
                "CPU = user + system.", "",
                f"### Every process: start-up and the demo plan ({args.repeat} runs each, in "
                "turn)", "", *part_commands(trees, caches, work, args.repeat), ""]
        for label in [x.strip() for x in args.rows.split(",") if x.strip()]:
            print(f"[{label}]", file=sys.stderr)
            body += part_rows(label, sizes[label], trees, caches, work,
                              args.repeat if sizes[label] <= 1_000_000 else 1, folder,
                              tuple(f.strip() for f in args.formats.split(",") if f.strip()))
    section = "\n".join([args.title, "", *body])
    print(section)
    if not args.quick:
        write_section(args.title, section)


if __name__ == "__main__":
    main()
