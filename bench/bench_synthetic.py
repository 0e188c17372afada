"""Utility of synthetic tables (issue 14): the average total variation distance (TVD) of the
one- and two-way marginals of the synthetic table against the true ones, at ε = 0.5, 1 and 4,
next to the noised-marginal baseline (every one- and two-way marginal released directly with
discrete Gaussian noise from the same ρ, split evenly, negatives clipped and normalised).

Tables: the demo survey (4 columns, person unit with 3 rows) and a generated census-like table
(7 columns with dependencies, one row a person). The true marginals come from the release's
engine; the noise from the release's samplers; figures go to bench/results.md.
Run: python bench/bench_synthetic.py [--quick]

Also the cost of releasing one (``--release [--vs CHECKOUT] [--runs N]``): whole
``planner-app release`` processes of a synthetic plan on the demo survey, each in a fresh app
home, CPU (user + sys of the process and its children) and wall seconds; with ``--vs``, the
same plans run from another checkout's code (PYTHONPATH), the two in turn (A B A B ...) so
both see the same load, with the ratio pair by pair.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _results import write_section  # noqa: E402

from planner_app.core.data.synthetic_marginals import SyntheticEngine, expanded_plan  # noqa: E402
from planner_app.core.dp.measure import rho_for, round_up_fraction  # noqa: E402
from planner_app.core.dp.mechanisms import SystemRandomSource, discrete_gaussian  # noqa: E402
from planner_app.core.dp.synthetic_sensitivity import marginal_sensitivity  # noqa: E402
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.noise import privatize  # noqa: E402
from planner_app.core.release.synthetic import synthetic_codes  # noqa: E402
from tests.oracle.pandas_engine import PandasEngine  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MARK = "## Synthetic tables: utility"
EPSILONS = (0.5, 1.0, 4.0)
DELTA = 1e-6


def demo() -> tuple[pd.DataFrame, list[dict], dict]:
    frame = pd.read_csv(ROOT / "resources" / "demo" / "survey.csv", dtype={"person_id": str})
    columns = [{"column": "region", "categories": ["North", "South", "East", "West"]},
               {"column": "employment",
                "categories": ["employed", "unemployed", "retired", "student"]},
               {"column": "age", "bins": [16, 25, 35, 45, 55, 65, 75, 100]},
               {"column": "smoker", "categories": ["yes", "no"]},
               {"column": "satisfaction", "bins": [1, 4, 7, 10]}]
    return frame, columns, {"kind": "person", "id_column": "person_id", "max_rows": 3}


def census(rows: int) -> tuple[pd.DataFrame, list[dict], dict]:
    rng = np.random.default_rng(14)
    age = rng.integers(0, 90, rows)
    region = rng.choice(["N", "S", "E", "W", "C"], rows, p=[.3, .25, .2, .15, .1])
    school = np.where(age < 18, "child", rng.choice(["basic", "upper", "degree"], rows,
                                                    p=[.3, .45, .25]))
    work = np.where(age < 16, "none", np.where(age > 66, "retired", rng.choice(
        ["employed", "unemployed", "inactive"], rows, p=[.75, .07, .18])))
    income = np.where(work == "employed", rng.lognormal(10.4, .5, rows) *
                      np.where(school == "degree", 1.5, 1.0), rng.lognormal(9.2, .6, rows))
    household = rng.integers(1, 7, rows)
    sex = rng.choice(["f", "m"], rows)
    frame = pd.DataFrame({"age": age, "region": region, "school": school, "work": work,
                          "income": income, "household": household, "sex": sex})
    columns = [{"column": "age", "bins": [0, 16, 25, 40, 55, 67, 90]},
               {"column": "region", "categories": ["N", "S", "E", "W", "C"]},
               {"column": "school", "categories": ["child", "basic", "upper", "degree"]},
               {"column": "work",
                "categories": ["none", "employed", "unemployed", "inactive", "retired"]},
               {"column": "income", "bins": [0, 10_000, 20_000, 40_000, 80_000, 10**7]},
               {"column": "household", "bins": [1, 2, 3, 5, 7]},
               {"column": "sex", "categories": ["f", "m"]}]
    return frame, columns, {"kind": "row"}


def tvd(true: np.ndarray, est: np.ndarray) -> float:
    p = true / max(true.sum(), 1)
    q = np.clip(est.astype(float), 0, None)
    q = q / q.sum() if q.sum() > 0 else np.full(q.size, 1 / q.size)
    return float(0.5 * np.abs(p - q).sum())


def codes_marginals(codes: np.ndarray, sizes: list[int]) -> dict[str, np.ndarray]:
    d = len(sizes)
    out = {f"one:{i}": np.bincount(codes[:, i], minlength=sizes[i]) for i in range(d)}
    for i in range(d):
        for j in range(i + 1, d):
            out[f"pair:{i}:{j}"] = np.bincount(codes[:, i] * sizes[j] + codes[:, j],
                                               minlength=sizes[i] * sizes[j])
    return out


def run(name: str, frame: pd.DataFrame, columns: list[dict], unit: dict, reps: int) -> list[str]:
    lines = []
    for eps in EPSILONS:
        doc = {"format": "planner-app/plan@1", "dataset": {"name": name},
               "privacy_unit": unit, "budget": {"epsilon": eps, "delta": 1e-5},
               "queries": [{"id": "s", "kind": "synthetic", "columns": columns,
                            "epsilon": eps, "delta": DELTA}]}
        plan = plan_from_dict(doc)
        q = plan.queries[0]
        engine = SyntheticEngine(PandasEngine(expanded_plan(plan), frame, SystemRandomSource()))
        agg = engine.aggregate(q)
        sizes = [c.size for c in q.params.columns]
        d = len(sizes)
        truth = {f"one:{i}": agg.parts[f"oneway:{q.params.columns[i].column}"]
                 for i in range(d)}
        truth.update({k: v for k, v in agg.parts.items() if k.startswith("pair:")})
        _, l2_sq = marginal_sensitivity(plan.privacy_unit, plan.neighbouring)
        n_marg = d + d * (d - 1) // 2
        rho = rho_for(eps, DELTA)
        from fractions import Fraction

        base_sigma_sq = round_up_fraction(Fraction(l2_sq) / (2 * Fraction(rho / n_marg)))
        one_s, two_s, one_b, two_b, secs = [], [], [], [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            payload = privatize(plan, {"s": agg}, source=SystemRandomSource())[0].synthetic
            assert payload is not None
            codes = synthetic_codes(q, payload)
            secs.append(time.perf_counter() - t0)
            synth = codes_marginals(codes, sizes)
            one_s.append(np.mean([tvd(truth[k], synth[k]) for k in truth if k[:3] == "one"]))
            two_s.append(np.mean([tvd(truth[k], synth[k]) for k in truth if k[:4] == "pair"]))
            noisy = {k: v + discrete_gaussian(SystemRandomSource(), base_sigma_sq, v.size)
                     for k, v in truth.items()}
            one_b.append(np.mean([tvd(truth[k], noisy[k]) for k in truth if k[:3] == "one"]))
            two_b.append(np.mean([tvd(truth[k], noisy[k]) for k in truth if k[:4] == "pair"]))
        rows = int(truth["one:0"].sum())
        lines.append(f"| {name} ({rows:,} rows, {d} columns) | {eps:g} | "
                     f"{np.mean(one_s):.4f} | {np.mean(one_b):.4f} | {np.mean(two_s):.4f} | "
                     f"{np.mean(two_b):.4f} | {np.median(secs):.1f} |")
        print(lines[-1], flush=True)
    return lines


RELEASE_MARK = "## Synthetic tables: the cost of a release"
SURVEY = [{"column": "region", "categories": ["North", "South", "East", "West"]},
          {"column": "employment", "categories": ["employed", "unemployed", "retired", "student"]},
          {"column": "age", "bins": [16, 25, 35, 45, 55, 65, 75, 100]},
          {"column": "smoker", "categories": ["yes", "no"]},
          {"column": "satisfaction", "bins": [1, 4, 7, 10]}]
RELEASE_PLANS = {  # name: (columns, ε)
    "3 columns, ε 2 (the CLI test's plan)": ([SURVEY[0], SURVEY[2], SURVEY[3]], 2.0),
    "5 columns, ε 4": (SURVEY, 4.0),
    "5 columns, ε 1": (SURVEY, 1.0),
}


def release_plan(columns: list[dict], eps: float) -> dict:
    return {"format": "planner-app/plan@1",
            "dataset": {"name": "demo-survey", "expected_rows": 3800},
            "privacy_unit": {"kind": "person", "id_column": "person_id", "max_rows": 3},
            "budget": {"epsilon": eps + 1, "delta": 1e-5},
            "queries": [{"id": "survey_synth", "kind": "synthetic", "epsilon": eps,
                         "delta": DELTA, "columns": columns,
                         "justification": {"categories": "the form's answers",
                                           "bounds": "standard bands"}}]}


# ``python -m planner_app`` with a count of JAX's compilations (jax.monitoring), written to
# the file in argv[1] at exit; the release itself is the command line's, unchanged
COUNTING = """import atexit, json, runpy, sys
import jax.monitoring
seen = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, secs, **_: seen.append(secs)
    if event == "/jax/core/compile/backend_compile_duration" else None)
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps([len(seen), sum(seen)])))
sys.argv[0] = "planner_app"
runpy.run_module("planner_app", run_name="__main__")
"""


def timed_release(code: Path, plan: Path, folder: Path) -> tuple[float, float, int, float]:
    """One whole ``planner-app release`` process from ``code``'s checkout, in a fresh app
    home: CPU seconds of the process and its children, wall seconds, and JAX's compilations
    in it (how many, and their seconds)."""
    home, out, count = folder / "home", folder / "bundle.zip", folder / "compiles.json"
    shutil.rmtree(home, ignore_errors=True)
    out.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(code), "PLANNER_APP_HOME": str(home)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", COUNTING, str(count), "release", str(plan),
                           "--data", str(ROOT / "resources" / "demo" / "survey.csv"),
                           "--out", str(out)],
                          env=env, capture_output=True, text=True, cwd=folder)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"release failed ({code}): {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    compiles, compile_secs = json.loads(count.read_text())
    return cpu, wall, int(compiles), float(compile_secs)


def release_main(vs: Path | None, runs: int) -> None:
    codes = [("this checkout", ROOT)] + ([("--vs", vs)] if vs is not None else [])
    lines = ["| plan | code | CPU s, median (min–max) | wall s, median | "
             "CPU ratio this/--vs, median (min–max) | JAX compilations a release (each run) | "
             "their CPU s, median |", "|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, (columns, eps) in RELEASE_PLANS.items():
            plan = folder / "plan.json"
            plan.write_text(json.dumps(release_plan(columns, eps)))
            figures: dict[str, list[tuple[float, float, int, float]]] = {
                label: [] for label, _ in codes}
            for _label, code in codes:  # a warm-up each (the file cache, .pyc)
                timed_release(code, plan, folder)
            for _ in range(runs):  # in turn: A B A B ...
                for label, code in codes:
                    figures[label].append(timed_release(code, plan, folder))
            for label, _ in codes:
                cpu = [f[0] for f in figures[label]]
                wall = [f[1] for f in figures[label]]
                compiles = ", ".join(str(f[2]) for f in figures[label])
                compile_secs = float(np.median([f[3] for f in figures[label]]))
                ratio = ""
                if vs is not None and label == "this checkout":
                    r = [a[0] / b[0] for a, b in zip(figures["this checkout"], figures["--vs"],
                                                     strict=True)]
                    ratio = f"{np.median(r):.2f} ({min(r):.2f}–{max(r):.2f})"
                lines.append(f"| {name} | {label} | {np.median(cpu):.2f} "
                             f"({min(cpu):.2f}–{max(cpu):.2f}) | {np.median(wall):.2f} | "
                             f"{ratio} | {compiles} | {compile_secs:.2f} |")
                print(lines[-1], flush=True)
    paired = ("this checkout and the --vs checkout in turn (A B A B ...), so both saw the same "
              "load" if vs is not None else "this checkout only")
    write_section(RELEASE_MARK, (
        f"{RELEASE_MARK}\n\n"
        "Whole `planner-app release` processes of a synthetic plan on the demo survey (3,800 "
        "rows, person unit with at most 3 rows), each in a fresh app home: CPU is user + sys "
        f"of the process and its children; {runs} counted runs after one warm-up each, "
        f"{paired}. `python bench/bench_synthetic.py --release --vs CHECKOUT`. The machine "
        "is a shared 2-core one (other jobs ran beside it): quote the CPU medians and the "
        "pairwise ratio, not the wall times. JAX's compilations are counted in the "
        "release process (jax.monitoring's backend-compile events).\n\n"
        + "\n".join(lines) + "\n"))
    print("\n".join(lines))


def main() -> None:
    if "--release" in sys.argv:
        args = sys.argv[1:]
        vs = Path(args[args.index("--vs") + 1]) if "--vs" in args else None
        runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 5
        release_main(vs, runs)
        return
    quick = "--quick" in sys.argv
    reps = 1 if quick else 3
    lines = ["| table | ε | one-way TVD, synthetic | one-way TVD, noised marginals | "
             "two-way TVD, synthetic | two-way TVD, noised marginals | seconds a table |",
             "|---|---|---|---|---|---|---|"]
    lines += run("demo survey", *demo(), reps)
    lines += run("census-like", *census(20_000 if quick else 200_000), reps)
    section = (f"{MARK}\n\n"
               "Average total variation distance between the true marginals and, on the left, "
               "the synthetic table's (MST, Private-PGM, every one-way and two-way marginal of "
               "the columns), on the right the noised-marginal baseline (every one- and two-way "
               "marginal released with discrete Gaussian noise at an even share of the same ρ; "
               f"negatives clipped, normalised). δ = {DELTA:g}; {reps} release(s) each "
               "(`python bench/bench_synthetic.py`); seconds: the median time of the "
               "measurement and synthesis of one table in one process, where JAX compiles "
               "the estimation once for each set of pairs and reuses it (so the later tables "
               "of a row cost well under a second; a whole release, compilation included, is "
               "timed in \"Synthetic tables: the cost of a release\").\n\n"
               + "\n".join(lines) + "\n\n"
               "Reading: the synthetic table's one-way marginals are closer than "
               "the direct noised ones on the demo and about as close on the large table (the "
               "one-way share of ρ goes to d marginals, not to all d(d+1)/2). Its two-way "
               "marginals beat the baseline where the noise "
               "dominates (the demo survey, small ε); on the larger census-like table, whose "
               "columns depend on each other beyond a tree (age, schooling, work and income), "
               "they level off near 0.005: MST measures d - 1 pairs and the others are only "
               "as right as the tree implies, while the baseline's direct pairs get more "
               "accurate with the rows.\n")
    write_section(MARK, section)
    print(f"written to {Path(__file__).with_name('results.md')}")


if __name__ == "__main__":
    main()
