"""Benchmarks of the release engine on large tables; figures go to bench/results.md.

Every figure is a whole process (``planner-app release`` as a user runs it, and the bare
references as separate Python processes), timed from outside: wall seconds, CPU seconds (user +
system of the process and the children it waited for) and peak RSS (the largest single
process), from the operating system's accounting of the finished process (``os.wait4``, what
``/usr/bin/time -v`` prints). Ratios are taken pair by pair within one run (A, B, C, A, B, C…)
and the median quoted.

The tables are the seeded census/survey-like tables of bench/engine_data.py (generated once
with DuckDB's COPY into $PLANNER_BENCH_DATA, default /tmp/bench-data, outside the repository;
the 100M-row CSV is about 5 GB).

    python bench/bench_engine.py                      # every part (hours on 2 cores)
    python bench/bench_engine.py --only 1m,10m        # some parts: 1m 10m hist stats 100m spark
    python bench/bench_engine.py --quick              # small sizes, prints, writes nothing
    python bench/bench_engine.py --only 10m --profile # also profile one release (cProfile)

Parts:
  1m, 10m  the 12-statistic plan of every kind, person-level unit (k = 3 rows of 1 to 5), CSV
           and Parquet: release vs DuckDB alone (target ≤ 1.5x) vs bare pandas
  100m     100M rows, Parquet and CSV: one release each, peak RSS ≤ 4 GB
  hist     one histogram of 10^5 and 10^6 declared categories: release ≤ 3x bare pandas
           reading and counting the same file
  stats    1, 10, 100, 1,000 statistics on 1M rows: time, peak RSS, the bundle verified
  spark    release --engine spark on 10M rows: time, and the true aggregates equal DuckDB's
           (bench/bench_spark.py when present)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import engine_data as data
from _results import write_section

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = Path(os.environ.get("PLANNER_BENCH_DATA", "/tmp/bench-data"))
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

FULL = {"1m": 1_000_000, "10m": 10_000_000, "100m": 100_000_000, "hist": 10_000_000,
        "stats": 1_000_000, "spark": 10_000_000}
QUICK = {"1m": 100_000, "10m": 300_000, "100m": 1_000_000, "hist": 300_000,
         "stats": 100_000, "spark": 300_000}
PARTS = ["1m", "10m", "hist", "stats", "100m", "spark"]
MEMORY_TARGET_MB = 4096


# -- measuring whole processes -------------------------------------------------------------

def _descendants(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text().split()
            kids += [int(k) for k in text]
    except OSError:
        return []
    return kids + [d for k in kids for d in _descendants(k)]


def _sample(pid: int) -> tuple[float, float] | None:
    """(CPU seconds, peak RSS MB) of a live process, from /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    hwm = next((int(line.split()[1]) for line in status.splitlines()
                if line.startswith("VmHWM:")), 0)
    return (int(stat[11]) + int(stat[12])) / ticks, hwm / 1024


def measure(cmd: list[str], log: Path | None = None, cwd: Path | None = None,
            tree: bool = False) -> dict[str, Any]:
    """Run ``cmd`` to its end; its wall and CPU seconds, peak RSS and exit code (and, when it
    failed, the last lines it printed). ``tree``: also sample the descendants it starts (a
    JVM that is never waited for is not in the process's own accounting): their CPU seconds
    and largest peak RSS as last seen in /proc, every 0.2 s."""
    if log is None:
        fd, name = tempfile.mkstemp(prefix="bench-", suffix=".log", dir=DATA)
        os.close(fd)
        r = measure(cmd, Path(name), cwd, tree)
        Path(name).unlink()
        return r
    out = open(log, "ab")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out, stderr=out, env=ENV, cwd=cwd)
    seen: dict[int, tuple[float, float]] = {}
    if tree:
        import threading

        stop = threading.Event()

        def poll() -> None:
            while not stop.is_set():
                for kid in _descendants(proc.pid):
                    got = _sample(kid)
                    if got is not None:  # a zombie has its CPU but no memory figures left
                        old = seen.get(kid, (0.0, 0.0))
                        seen[kid] = (max(old[0], got[0]), max(old[1], got[1]))
                stop.wait(0.2)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
    _, status, usage = os.wait4(proc.pid, 0)
    if tree:
        stop.set()
        poller.join()
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    out.close()
    r = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime,
         "sys": usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024, "rc": proc.returncode,
         "kids_cpu": sum(c for c, _ in seen.values()),
         "kids_rss_mb": max((m for _, m in seen.values()), default=0.0)}
    if proc.returncode != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-2:]
        r["error"] = " / ".join(line.strip()[:300] for line in tail)
        print(f"  failed (exit {proc.returncode}): {' '.join(cmd[1:3])}…: {r['error']}",
              file=sys.stderr)
    return r


def median_of(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def ratio(a: list[dict[str, Any]], b: list[dict[str, Any]], key: str) -> float:
    return statistics.median(x[key] / y[key] for x, y in zip(a, b, strict=True))


def engine_flag(engine: str) -> list[str]:
    """``--engine NAME`` when this checkout's release has the option (else the default)."""
    helptext = subprocess.run([sys.executable, "-m", "planner_app", "release", "--help"],
                              capture_output=True, text=True, env=ENV).stdout
    return ["--engine", engine] if "--engine" in helptext else []


class Release:
    """``planner-app release`` into a fresh app home each run (so no run sees another's
    ledger), its output kept in a log; the bundle kept for ``verify``."""

    def __init__(self, work: Path, engine: str = "duckdb") -> None:
        self.work = work
        self.flag = engine_flag(engine)
        self.runs = 0

    def cmd(self, plan: Path, table: Path) -> tuple[list[str], Path]:
        self.runs += 1
        home = self.work / f"home-{self.runs}"
        shutil.rmtree(home, ignore_errors=True)
        out = self.work / f"bundle-{self.runs}.zip"
        return ([sys.executable, "-m", "planner_app", "--home", str(home), "release", str(plan),
                 "--data", str(table), "--out", str(out), "--force", *self.flag], out)

    def run(self, plan: Path, table: Path, tree: bool = False) -> dict[str, Any]:
        cmd, out = self.cmd(plan, table)
        log = self.work / f"release-{self.runs}.log"
        log.unlink(missing_ok=True)
        r = measure(cmd, log, tree=tree)
        r["bundle"] = out if out.exists() else None
        return r


def verify(bundle: Path | None) -> bool:
    if bundle is None:
        return False
    done = subprocess.run([sys.executable, "-m", "planner_app", "verify", str(bundle)],
                          capture_output=True, text=True, env=ENV)
    return done.returncode == 0


def ref(script: str, plan: Path, table: Path) -> list[str]:
    return [sys.executable, str(HERE / script), str(plan), str(table)]


def secs(x: float) -> str:
    return f"{x:.2f} s" if x < 100 else f"{x:.0f} s"


def mb(x: float) -> str:
    return f"{x:,.0f} MB"


def machine() -> str:
    import duckdb
    import pandas

    return (f"{platform.machine()}, {os.cpu_count()} cores, CPython "
            f"{platform.python_version()}, DuckDB {duckdb.__version__}, pandas "
            f"{pandas.__version__}")


def git_head() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, cwd=ROOT).stdout.strip()


def out_of(r: dict[str, Any]) -> str:
    return "" if r["rc"] == 0 else f" (exit {r['rc']})"


# -- parts ----------------------------------------------------------------------------------

def part_scale(label: str, rows: int, repeat: int, work: Path,
               profile: bool) -> list[str]:
    """The 12-statistic plan: release vs DuckDB alone vs bare pandas, CSV and Parquet."""
    plan = data.write_plan(data.survey_plan(rows), work / f"plan12-{rows}.json")
    release = Release(work)
    lines = [f"Plan: 12 statistics, one of every kind (bench/engine_data.py: count, count "
             f"with a condition, sum, mean, variance, histogram of categories, histogram of "
             f"bins, median, mean by group, sum by group, randomized response, Gaussian count), "
             f"person-level unit with at most {data.MAX_ROWS} of each person's 1 to 5 rows. "
             f"Median of {repeat} paired run{'s' if repeat > 1 else ''}; ratios pair by pair.",
             "",
             "| file | process | wall | CPU | peak RSS | release / it (wall) | (CPU) |",
             "|---|---|---:|---:|---:|---:|---:|"]
    summary: list[str] = []
    failures: list[str] = []
    profiles: list[str] = []
    for fmt in ("csv", "parquet"):
        table = data.survey_table(DATA, rows, fmt)
        size = table.stat().st_size / 2**20
        runs: dict[str, list[dict[str, Any]]] = {"release": [], "aggregates": [],
                                                 "duckdb": [], "pandas": []}
        for _ in range(repeat):
            runs["release"].append(release.run(plan, table))
            runs["aggregates"].append(measure([sys.executable, str(Path(__file__)),
                                               "--aggregate-only", str(plan), str(table)]))
            runs["duckdb"].append(measure(ref("engine_ref_duckdb.py", plan, table)))
            runs["pandas"].append(measure(ref("engine_ref_pandas.py", plan, table)))
        names = {"release": "`planner-app release`",
                 "aggregates": "the release's aggregation alone (open in place, bound, 12 "
                               "aggregates; no check, noise or bundle)",
                 "duckdb": "DuckDB alone",
                 "pandas": "bare pandas"}
        for key, rs in runs.items():
            rel = runs["release"]
            cells = ("-", "-") if key == "release" else (
                f"{ratio(rel, rs, 'wall'):.2f}x", f"{ratio(rel, rs, 'cpu'):.2f}x")
            lines.append(f"| {fmt} ({size:,.0f} MB) | {names[key]}{out_of(rs[-1])} | "
                         f"{secs(median_of(rs, 'wall'))} | {secs(median_of(rs, 'cpu'))} | "
                         f"{mb(median_of(rs, 'rss_mb'))} | {cells[0]} | {cells[1]} |")
        for key, rs in runs.items():
            failed = [r for r in rs if r["rc"] != 0]
            if failed:
                failures.append(f"{fmt}, {names[key]}: exit {failed[-1]['rc']}: "
                                f"{failed[-1].get('error', '')}")
        verified = verify(runs["release"][-1].get("bundle"))
        r_duck = ratio(runs["release"], runs["duckdb"], "wall")
        r_agg = ratio(runs["aggregates"], runs["duckdb"], "wall")
        summary.append(f"{fmt}: release / DuckDB alone = {r_duck:.2f}x wall, "
                       f"{ratio(runs['release'], runs['duckdb'], 'cpu'):.2f}x CPU "
                       f"(target ≤ 1.5x: {'met' if r_duck <= 1.5 else 'missed'}); "
                       f"release / bare pandas = "
                       f"{ratio(runs['release'], runs['pandas'], 'wall'):.2f}x wall; "
                       f"bundle verified: {'yes' if verified else 'NO'}; the release's "
                       f"aggregation alone / DuckDB alone = {r_agg:.2f}x wall, "
                       f"{ratio(runs['aggregates'], runs['duckdb'], 'cpu'):.2f}x CPU")
        if profile:
            profiles += ["", *profile_release(plan, table, work, f"{fmt}, {rows:,} rows")]
    return (lines + [""] + [f"- {s}" for s in summary]
            + [f"- failed: {f}" for f in failures] + profiles + [""])


def profile_release(plan: Path, table: Path, work: Path, what: str, top: int = 14) -> list[str]:
    """One release under cProfile: where the time goes (cumulative, the planner's calls)."""
    import pstats

    cmd, _ = Release(work / "profile").cmd(plan, table)
    (work / "profile").mkdir(parents=True, exist_ok=True)
    prof = work / "profile" / "release.prof"
    cmd = [cmd[0], "-m", "cProfile", "-o", str(prof), *cmd[1:]]
    r = measure(cmd, work / "profile" / "release.log")
    stats = pstats.Stats(str(prof))
    rows = []
    for (file, line, func), (_, _, tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        if "planner_app" in file or func in ("<method 'execute' of '_duckdb.DuckDBPyConnection' "
                                             "objects>",):
            rows.append((cumtime, tottime, f"{file.split('planner_app/')[-1]}:{line} {func}"))
    rows.sort(reverse=True)
    out = [f"Profile of one release ({what}; cProfile, {secs(r['wall'])} wall under the "
           f"profiler), the planner's functions by cumulative time:", "",
           "| function | cumulative | own |", "|---|---:|---:|"]
    out += [f"| `{name}` | {secs(cum)} | {secs(own)} |" for cum, own, name in rows[:top]]
    return out


def part_100m(rows: int, work: Path, without: tuple[str, ...] = (),
              formats: tuple[str, ...] = ("parquet", "csv")) -> list[str]:
    plan_dict = data.survey_plan(rows)
    plan_dict["queries"] = [q for q in plan_dict["queries"]
                            if q["id"].rsplit("_", 1)[0] not in without]
    n = len(plan_dict["queries"])
    plan = data.write_plan(plan_dict, work / f"plan{n}-{rows}.json")
    release = Release(work)
    lines = [f"The {n}-statistic plan{' (without ' + ', '.join(without) + ')' if without else ''}"
             f" on {rows:,} rows (person-level unit, k = {data.MAX_ROWS}); "
             f"one run each. Target: peak RSS ≤ {MEMORY_TARGET_MB:,} MB.", "",
             "| file | size | wall | CPU | peak RSS | target | bundle verified |",
             "|---|---:|---:|---:|---:|---|---|"]
    failures: list[str] = []
    for fmt in formats:
        t0 = time.perf_counter()
        table = data.survey_table(DATA, rows, fmt)
        print(f"  {table.name}: {time.perf_counter() - t0:.0f} s to generate", file=sys.stderr)
        r = release.run(plan, table)
        ok = r["rc"] == 0 and r["rss_mb"] <= MEMORY_TARGET_MB
        lines.append(f"| {fmt}{out_of(r)} | {table.stat().st_size / 2**30:.1f} GB | "
                     f"{secs(r['wall'])} | {secs(r['cpu'])} | {mb(r['rss_mb'])} | "
                     f"{'met' if ok else 'missed'} | {'yes' if verify(r['bundle']) else 'NO'} |")
        if r.get("error"):
            failures.append(f"- {fmt}: the release failed: {r['error']}")
    return lines + [""] + failures + [""]


def part_hist(rows: int, repeat: int, work: Path, profile: bool) -> list[str]:
    release = Release(work)
    lines = [f"One histogram over k declared categories (an integer code column, {rows:,} rows, "
             f"CSV, row-level unit): the release vs bare pandas reading the file and counting "
             f"it (`read_csv` + `value_counts`). {repeat} paired run(s). "
             f"Target: release ≤ 3x bare pandas.", "",
             "| k | process | wall | CPU | peak RSS | release / pandas (wall) | (CPU) | target |",
             "|---:|---|---:|---:|---:|---:|---:|---|"]
    failures: list[str] = []
    for k in (100_000, 1_000_000):
        table = data.codes_table(DATA, rows, k)
        plan = data.write_plan(data.codes_plan(rows, k), work / f"codes-plan-{k}.json")
        rel, bare = [], []
        for _ in range(repeat):
            rel.append(release.run(plan, table))
            bare.append(measure(ref("engine_ref_pandas.py", plan, table)))
        w, c = ratio(rel, bare, "wall"), ratio(rel, bare, "cpu")
        lines.append(f"| {k:,} | `planner-app release`{out_of(rel[-1])} | "
                     f"{secs(median_of(rel, 'wall'))} | {secs(median_of(rel, 'cpu'))} | "
                     f"{mb(median_of(rel, 'rss_mb'))} | {w:.2f}x | {c:.2f}x | "
                     f"{'met' if w <= 3 else 'missed'} |")
        lines.append(f"| {k:,} | bare pandas | {secs(median_of(bare, 'wall'))} | "
                     f"{secs(median_of(bare, 'cpu'))} | {mb(median_of(bare, 'rss_mb'))} | - | - "
                     f"| |")
        failures += [f"- k = {k:,}: exit {r['rc']}: {r.get('error', '')}"
                     for r in rel + bare if r["rc"] != 0][:1]
    if profile:
        k = 100_000
        failures += ["", *profile_release(work / f"codes-plan-{k}.json",
                                          data.codes_table(DATA, rows, k), work,
                                          f"k = {k:,}, {rows:,} rows", top=24)]
    return lines + [""] + failures + [""]


def part_stats(rows: int, work: Path, counts: tuple[int, ...]) -> list[str]:
    table = data.survey_table(DATA, rows, "csv")
    release = Release(work)
    lines = [f"{rows:,}-row CSV, person-level unit (k = {data.MAX_ROWS}); n statistics cycling "
             f"through the 12 kinds, ε = 6 shared equally; one run each; every bundle then "
             f"checked with `planner-app verify`.", "",
             "| statistics | wall | CPU | peak RSS | bundle written | verify |",
             "|---:|---:|---:|---:|---|---|"]
    failures: list[str] = []
    for n in counts:
        plan = data.write_plan(data.survey_plan(rows, n), work / f"plan-{n}.json")
        r = release.run(plan, table)
        lines.append(f"| {n:,}{out_of(r)} | {secs(r['wall'])} | {secs(r['cpu'])} | "
                     f"{mb(r['rss_mb'])} | {'yes' if r['bundle'] else 'NO'} | "
                     f"{'accepted' if verify(r['bundle']) else 'NOT accepted'} |")
        if r.get("error"):
            failures.append(f"- {n} statistics: the release failed: {r['error']}")
    return lines + [""]


def part_spark(rows: int, work: Path) -> list[str]:
    table = data.survey_table(DATA, rows, "parquet")
    plan = data.write_plan(data.survey_plan(rows), work / f"plan12-{rows}.json")
    spark = Release(work, "spark")
    if not spark.flag:
        return ["`release --engine spark` does not exist in this checkout yet: not measured.",
                ""]
    rs = spark.run(plan, table, tree=True)
    lines = [f"The 12-statistic plan on the {rows:,}-row Parquet file, one run each (Spark in "
             f"local mode on this machine's cores; the JVM is a child of the release process, "
             f"sampled from /proc every 0.2 s: its CPU as last seen before it ended). The "
             f"same release with DuckDB: the 10M-row section above.",
             "", "| engine | wall | CPU (Python) | peak RSS (Python) | CPU (JVM) | "
             "peak RSS (JVM) | bundle verified |", "|---|---:|---:|---:|---:|---:|---|"]
    for name, r in (("spark", rs),):
        jvm = ("-", "-") if not r["kids_cpu"] else (secs(r["kids_cpu"]), mb(r["kids_rss_mb"]))
        lines.append(f"| {name}{out_of(r)} | {secs(r['wall'])} | {secs(r['cpu'])} | "
                     f"{mb(r['rss_mb'])} | {jvm[0]} | {jvm[1]} | "
                     f"{'yes' if verify(r['bundle']) else 'NO'} |")
    lines += [f"- {name}: exit {r['rc']}: {r.get('error', '')}"
              for name, r in (("spark", rs),) if r["rc"] != 0]
    done = subprocess.run([sys.executable, str(Path(__file__)), "--compare-engines",
                           str(plan), str(table)], capture_output=True, text=True, env=ENV,
                          cwd=HERE)
    try:
        verdict = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        tail = " / ".join(done.stderr.strip().splitlines()[-2:])
        return lines + ["", f"The comparison of the true aggregates failed: {tail}", ""]
    lines += ["", f"True aggregates of the {verdict['queries']} statistics (every cell, the "
                  f"bounded row count, the quantiles' grid-step counts, the owner-only facts), "
                  f"DuckDB vs Spark on the same seeded bounding salt, computed in one process "
                  f"(DuckDB {secs(verdict['seconds']['duckdb'])}, Spark "
                  f"{secs(verdict['seconds']['spark'])}, each from opening the table to the "
                  f"last aggregate, Spark's session start included): "
                  + ("**equal**." if verdict["equal"] else
                     f"**different** in {', '.join(verdict['different'])}.")]
    return lines + [""]


def _summary(agg: Any) -> dict[str, Any]:
    """An aggregate as comparable plain values (the quantile as counts per grid step)."""
    import numpy as np

    quantile = None
    if getattr(agg, "step_counts", None) is not None:
        quantile = [{int(s): int(n) for s, n in zip(st, ct, strict=True) if n}
                    for st, ct in agg.step_counts]
    elif agg.sorted_values is not None:
        quantile = []
        for values in agg.sorted_values:
            st, ct = np.unique(values, return_counts=True)
            quantile.append({int(s): int(n) for s, n in zip(st, ct, strict=True)})
    return {"cells": [list(map(str, c)) for c in agg.cells],
            "parts": {k: [int(x) for x in v] for k, v in sorted(agg.parts.items())},
            "answers": None if agg.answers is None else int(np.sum(agg.answers)),
            "n_answers": None if agg.answers is None else len(agg.answers),
            "quantile": quantile, "facts": dict(vars(agg.facts))}


def aggregate_only(plan_path: str, table_path: str, engine: str = "duckdb") -> dict[str, Any]:
    """The release's aggregation alone, as the release does it (open the file in place, bound,
    every statistic's integer aggregates), without the check, the noise or the bundle."""
    import secrets

    from planner_app.core.data.engines import make_engine
    from planner_app.core.data.tables import open_table
    from planner_app.core.planfile import load_plan

    plan = load_plan(plan_path)
    table = open_table(Path(table_path))
    aggregator = make_engine(engine, plan, table.source, secrets.token_bytes(32), table.name)
    try:
        cells = sum(len(aggregator.aggregate(q).cells) for q in plan.queries)
    finally:
        aggregator.close()
    return {"queries": len(plan.queries), "cells": cells}


def compare_engines(plan_path: str, table_path: str, names: tuple[str, ...] = (
        "duckdb", "spark")) -> dict[str, Any]:
    """Every query's true aggregates from each engine, same salt; are they equal?"""
    from planner_app.core.data.engines import make_engine
    from planner_app.core.data.tables import open_table
    from planner_app.core.planfile import load_plan

    plan = load_plan(plan_path)
    table = open_table(Path(table_path))
    salt = bytes(range(32))  # the same seeded bounding for both engines (benchmark only)
    results: dict[str, dict[str, Any]] = {}
    seconds: dict[str, float] = {}
    bounded: dict[str, int] = {}
    for name in names:
        t0 = time.perf_counter()
        engine = make_engine(name, plan, table.source, salt, table.name)
        try:
            results[name] = {q.id: _summary(engine.aggregate(q)) for q in plan.queries}
            bounded[name] = int(engine.rows_dropped_by_bound)
        finally:
            engine.close()
        seconds[name] = time.perf_counter() - t0
    first, *rest = names
    different = sorted({qid for other in rest for qid in results[first]
                        if results[first][qid] != results[other].get(qid)})
    if any(bounded[n] != bounded[first] for n in rest):
        different.append("rows dropped by the bound")
    return {"equal": not different, "different": different, "queries": len(plan.queries),
            "seconds": seconds}


SECTIONS = {
    "1m": "## Engine: the 12-statistic plan at 1M rows",
    "10m": "## Engine: the 12-statistic plan at 10M rows",
    "100m": "## Engine: 100M rows",
    "hist": "## Engine: one histogram of 10^5 and 10^6 declared categories",
    "stats": "## Engine: 1 to 1,000 statistics",
    "spark": "## Engine: Spark local mode",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=",".join(PARTS),
                        help=f"comma-separated parts of {','.join(PARTS)}")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes; print the sections, write nothing")
    parser.add_argument("--repeat", type=int, default=None,
                        help="paired runs for 1m/10m/hist (default 3 at 1M, else 1)")
    parser.add_argument("--profile", action="store_true",
                        help="profile one release per file of the 1m/10m parts, and the "
                             "10^5-category histogram")
    parser.add_argument("--without", default="",
                        help=f"100m: leave these kinds out of the plan (of {','.join(data.KINDS)}"
                             "; its own section)")
    parser.add_argument("--formats", default="parquet,csv", help="100m: the files to release")
    parser.add_argument("--aggregate-only", nargs=2, metavar=("PLAN", "TABLE"),
                        help="(internal) the release's aggregation alone, with DuckDB")
    parser.add_argument("--compare-engines", nargs=2, metavar=("PLAN", "TABLE"),
                        help="(internal) print whether DuckDB and Spark agree, as JSON")
    args = parser.parse_args()
    if args.aggregate_only:
        print(json.dumps(aggregate_only(*args.aggregate_only)))
        return
    if args.compare_engines:
        print(json.dumps(compare_engines(*args.compare_engines)))
        return
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    sizes = QUICK if args.quick else FULL
    global DATA
    if args.quick:
        DATA = DATA / "quick"
    DATA.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(DATA).free / 2**30
    print(f"data in {DATA} ({free:.0f} GB free); {machine()}", file=sys.stderr)
    stamp = (f"Machine: {machine()}; planner_app at {git_head()}; "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Whole processes; peak "
             f"RSS = the largest process.")

    def emit(key: str, body: list[str]) -> None:
        section = "\n".join([SECTIONS[key], "", stamp, "", *body])
        print(section, flush=True)
        if not args.quick:
            write_section(SECTIONS[key], section)

    with tempfile.TemporaryDirectory(prefix="bench-engine-", dir=DATA) as tmp:
        work = Path(tmp)
        for label in ("1m", "10m"):
            if label in parts:
                rows = sizes[label]
                repeat = args.repeat or (3 if rows <= 1_000_000 else 1)
                print(f"[{label}] {rows:,} rows", file=sys.stderr)
                emit(label, part_scale(label, rows, repeat, work, args.profile))
        if "hist" in parts:
            print("[hist]", file=sys.stderr)
            emit("hist", part_hist(sizes["hist"], args.repeat or 1, work, args.profile))
        if "stats" in parts:
            print("[stats]", file=sys.stderr)
            emit("stats", part_stats(sizes["stats"], work, (1, 10, 100, 1000)))
        if "100m" in parts:
            print("[100m]", file=sys.stderr)
            without = tuple(k for k in args.without.split(",") if k)
            if without:
                SECTIONS["100m"] += f" (without {', '.join(without)})"
            emit("100m", part_100m(sizes["100m"], work, without,
                                   tuple(args.formats.split(","))))
        if "spark" in parts:
            print("[spark]", file=sys.stderr)
            emit("spark", part_spark(sizes["spark"], work))


if __name__ == "__main__":
    main()
