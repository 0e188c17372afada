"""Benchmarks for releases, composition and start-up; figures go to bench/results.md.

Each part runs in its own process, so its peak memory (max RSS) is its own.
Run: python bench/bench_release.py
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import write_section  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MARK = "## Releases, composition and start-up"
ROWS = 1_000_000


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def frame(rows: int):  # type: ignore[no-untyped-def]
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)  # benchmark data only
    return pd.DataFrame({
        "age": rng.integers(16, 95, rows), "income": rng.lognormal(10, 0.6, rows),
        "hours": rng.integers(0, 80, rows), "region": rng.choice(list("NSEW"), rows),
        "smoker": rng.choice(["yes", "no"], rows), "score": rng.integers(1, 11, rows),
    })


PLAN = {
    "format": "planner-app/plan@1", "dataset": {"name": "bench", "expected_rows": ROWS},
    "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 12, "delta": 1e-6},
    "queries": [
        {"id": "n", "kind": "count", "epsilon": 1},
        {"id": "adults", "kind": "count", "where": [{"column": "age", "op": ">=", "value": 18}],
         "epsilon": 1},
        {"id": "income_sum", "kind": "sum", "column": "income", "lower": 0, "upper": 500000,
         "epsilon": 1},
        {"id": "income_mean", "kind": "mean", "column": "income", "lower": 0, "upper": 500000,
         "epsilon": 1},
        {"id": "hours_mean", "kind": "mean", "column": "hours", "lower": 0, "upper": 80,
         "epsilon": 1},
        {"id": "age_var", "kind": "variance", "column": "age", "lower": 0, "upper": 120,
         "epsilon": 1},
        {"id": "regions", "kind": "histogram", "column": "region", "categories": list("NSEW"),
         "epsilon": 1},
        {"id": "age_bands", "kind": "histogram", "column": "age",
         "bins": [0, 18, 30, 45, 65, 120], "epsilon": 1},
        {"id": "income_median", "kind": "quantile", "column": "income", "lower": 0,
         "upper": 500000, "quantile": 0.5, "epsilon": 1},
        {"id": "score_by_region", "kind": "mean", "column": "score", "lower": 1, "upper": 10,
         "group_by": {"column": "region", "keys": list("NSEW")}, "epsilon": 1},
        {"id": "hours_sum_by_region", "kind": "sum", "column": "hours", "lower": 0,
         "upper": 80, "group_by": {"column": "region", "keys": list("NSEW")}, "epsilon": 1},
        {"id": "smokers", "kind": "randomized_response", "column": "smoker", "epsilon": 1},
    ],
}
# a release needs a reason for every bound and list (core/planning/readiness.py); the table is
# synthetic
for _q in PLAN["queries"]:
    _why = {key: "the synthetic table's public design" for key, present in (
        ("bounds", "lower" in _q or "bins" in _q), ("categories", "categories" in _q),
        ("keys", "group_by" in _q)) if present}
    if _why:
        _q["justification"] = _why


def part_release() -> dict:
    from planner_app.core.data.engines import open_engine
    from planner_app.core.data.tables import Table
    from planner_app.core.dp.mechanisms import SystemRandomSource
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.release.noise import privatize
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home

    df = frame(ROWS)
    plan = plan_from_dict(PLAN)
    t0 = time.perf_counter()
    df.shape[0]
    (df["age"] >= 18).sum()
    df["income"].clip(0, 500000).sum()
    df["income"].clip(0, 500000).mean()
    df["hours"].clip(0, 80).mean()
    df["age"].clip(0, 120).var()
    df["region"].value_counts()
    df["age"].value_counts(bins=[0, 18, 30, 45, 65, 120])
    df["income"].clip(0, 500000).median()
    df.groupby("region")["score"].mean()
    df.groupby("region")["hours"].sum()
    (df["smoker"] == "yes").mean()
    bare = time.perf_counter() - t0
    t0 = time.perf_counter()
    table = Table(df, "bench.csv", "0" * 64, "csv")
    engine = open_engine("pandas", plan, table, SystemRandomSource())
    aggregates = {q.id: engine.aggregate(q) for q in plan.queries}
    engine.close()
    privatize(plan, aggregates)
    engine_noise = time.perf_counter() - t0
    from planner_app.core.records.ledger import Ledger

    with tempfile.TemporaryDirectory() as folder:
        home = app_home(Path(folder) / "home").ensure()
        Ledger(home.ledger_path).set_cap("bench", 100.0, 1e-5)  # above the default cap of 10
        t0 = time.perf_counter()
        publish(plan, table, Path(folder) / "b.zip", home)
        full = time.perf_counter() - t0
    return {"bare": bare, "engine": engine_noise, "full": full, "peak_mb": peak_mb()}


def part_histogram() -> dict:
    import numpy as np
    import pandas as pd

    from planner_app.core.data.engines import open_engine
    from planner_app.core.data.tables import Table
    from planner_app.core.dp.mechanisms import SystemRandomSource
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.release.noise import privatize

    k = 100_000
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"code": rng.integers(0, k, ROWS)})
    plan = plan_from_dict({**PLAN, "queries": [
        {"id": "codes", "kind": "histogram", "column": "code", "categories": list(range(k)),
         "epsilon": 1}]})
    t0 = time.perf_counter()
    engine = open_engine("pandas", plan, Table(df, "bench.csv"), SystemRandomSource())
    out = privatize(plan, {"codes": engine.aggregate(plan.queries[0])})
    engine.close()
    elapsed = time.perf_counter() - t0
    assert len(out[0].values) == k
    t0 = time.perf_counter()
    df["code"].value_counts()
    bare = time.perf_counter() - t0
    return {"release": elapsed, "bare": bare, "cells": k, "peak_mb": peak_mb()}


def _csv_file() -> Path:
    path = Path(tempfile.gettempdir()) / "planner-bench-1m.csv"
    if not path.exists():
        frame(ROWS).to_csv(path, index=False)
    return path


def part_csv_ours() -> dict:
    from planner_app.core.data.tables import load_table

    path = _csv_file()
    t0 = time.perf_counter()
    load_table(path, progress=lambda f, m: None, cancel=lambda: False)
    return {"seconds": time.perf_counter() - t0, "peak_mb": peak_mb()}


def part_csv_bare() -> dict:
    import pandas as pd

    path = _csv_file()
    t0 = time.perf_counter()
    pd.read_csv(path)
    return {"seconds": time.perf_counter() - t0, "peak_mb": peak_mb()}


def part_composition() -> dict:
    from fractions import Fraction

    from planner_app.core.dp import accounting
    from planner_app.core.dp.measure import Measurement, laplace_scale
    from planner_app.core.dp.sensitivity import Component

    ref = json.loads((ROOT / "tests" / "data" / "reference-values.json").read_text())
    comp = Component("count", 1.0, 1, 1, 1, True, "")
    rows = []
    for r in ref["composition_discrete_laplace"]["values"]:
        ms = [Measurement("q", comp, "laplace", r["epsilon_each"], 0.0,
                          scale=laplace_scale(1, r["epsilon_each"]))] * r["count"]
        rows.append((f"{r['count']} × discrete Laplace ε={r['epsilon_each']}",
                     accounting.basic(ms).epsilon, accounting.zcdp(ms, r["delta"]).epsilon,
                     accounting.pld(ms, r["delta"]).epsilon, r["pld_epsilon"]))
    for r in ref["composition"]:
        if r["mechanism"].startswith("gaussian"):
            ms = [Measurement("q", comp, "gaussian", 1.0, 0.0,
                              sigma_sq=Fraction(r["sigma"]) ** 2)] * r["count"]
            rows.append((f"{r['count']} × Gaussian σ={r['sigma']}", None,
                         accounting.zcdp(ms, r["delta"]).epsilon,
                         accounting.pld(ms, r["delta"]).epsilon, r["pld_epsilon"]))
    return {"rows": rows, "peak_mb": peak_mb()}


STARTUPS = {
    "bare": "from PySide6.QtWidgets import QApplication, QMainWindow\n"
            "app = QApplication([]); w = QMainWindow(); w.show(); app.processEvents()",
    "app": "from PySide6.QtWidgets import QApplication\n"
           "import tempfile\napp = QApplication([])\n"
           "from planner_app.gui.app import build_window\n"
           "w = build_window(tempfile.mkdtemp()); w.show(); app.processEvents()",
}


def run_part(name: str) -> dict:
    done = subprocess.run([sys.executable, __file__, name], capture_output=True, text=True,
                          cwd=HERE, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(done.stdout.strip().splitlines()[-1])


def startup(which: str) -> tuple[float, float]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    best = float("inf")
    peak = 0.0
    code = STARTUPS[which] + ("\nimport resource, json; print(json.dumps("
                              "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))")
    for _ in range(3):
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, check=True)
        best = min(best, time.perf_counter() - t0)
        peak = float(done.stdout.strip().splitlines()[-1])
    return best, peak


def main() -> None:
    run_part("csv_bare")  # writes the file once, outside the timings
    csv_ours = min((run_part("csv_ours") for _ in range(3)), key=lambda r: r["seconds"])
    csv_bare = min((run_part("csv_bare") for _ in range(3)), key=lambda r: r["seconds"])
    rel = run_part("release")
    hist = run_part("histogram")
    comp = run_part("composition")
    bare_start, bare_peak = startup("bare")
    app_start, app_peak = startup("app")
    lines = [MARK, "",
             f"One run on this machine; each part in its own process (peak = max RSS). "
             f"{ROWS:,} rows.", "",
             "| measure | ours | bare reference | ratio | peak memory |",
             "|---|---:|---:|---:|---:|",
             f"| open a {ROWS:,}-row CSV (hash, progress, cancel) | {csv_ours['seconds']:.2f} s "
             f"| {csv_bare['seconds']:.2f} s (pandas.read_csv) | "
             f"{csv_ours['seconds'] / csv_bare['seconds']:.2f}x | {csv_ours['peak_mb']:.0f} MB "
             f"(bare {csv_bare['peak_mb']:.0f} MB) |",
             f"| 12-statistic plan: aggregation + exact noise | {rel['engine']:.2f} s | "
             f"{rel['bare']:.2f} s (the pandas aggregates) | {rel['engine'] / rel['bare']:.1f}x "
             f"| {rel['peak_mb']:.0f} MB |",
             f"| 12-statistic plan: full release (check, ledger, noise, bundle, PDF) | "
             f"{rel['full']:.2f} s | {rel['bare']:.2f} s | {rel['full'] / rel['bare']:.1f}x | |",
             f"| histogram over {hist['cells']:,} declared categories | {hist['release']:.2f} s "
             f"| {hist['bare']:.2f} s (value_counts) | {hist['release'] / hist['bare']:.1f}x | "
             f"{hist['peak_mb']:.0f} MB |",
             f"| cold start to a shown window | {app_start:.2f} s | {bare_start:.2f} s (bare "
             f"PySide6 window) | {app_start / bare_start:.1f}x | {app_peak:.0f} MB (bare "
             f"{bare_peak:.0f} MB) |", "",
             "Composition on the reference plans (ε at δ = 1e-6; dp-accounting's PLD value from "
             "tests/data/reference-values.json; ours must not be below it):", "",
             "| plan | basic | zcdp | our pld | dp-accounting pld | ours / reference |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, basic, zcdp, pld, ref in comp["rows"]:
        lines.append(f"| {name} | {'-' if basic is None else f'{basic:.4f}'} | {zcdp:.4f} | "
                     f"{pld:.4f} | {ref:.4f} | {pld / ref:.4f} |")
    lines.append(f"\nComposition peak memory: {comp['peak_mb']:.0f} MB.\n")
    section = "\n".join(lines)
    write_section(MARK, section)
    print(section)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        part = {"release": part_release, "histogram": part_histogram,
                "composition": part_composition, "csv_ours": part_csv_ours,
                "csv_bare": part_csv_bare}[sys.argv[1]]
        print(json.dumps(part()))
    else:
        main()
