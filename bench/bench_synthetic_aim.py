"""MST against AIM (issue 25): the average total variation distance (TVD) of the synthetic
table's 1-, 2- and 3-way marginals against the true ones, at ε = 0.5, 1 and 4, on the demo
survey (5 columns, person unit with 3 rows) and a generated census-like table (7 columns with
dependencies, one row a person; bench_synthetic.census), with the seconds and the peak memory
of the measurement and synthesis of one table.

Each (table, method, ε) runs in a process of its own, so its peak resident memory (ru_maxrss,
imports included) is its own. Small by default (one release each, 20,000 census rows): the
machine is shared. AIM's workload is every pair (its default); no triples are declared, so
the 3-way TVD shows what each method infers of patterns it was not asked for.

Run: nice python bench/bench_synthetic_aim.py [--reps N] [--rows N]
"""

from __future__ import annotations

import itertools
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from _results import write_section  # noqa: E402

MARK = "## Synthetic tables: MST against AIM"
EPSILONS = (0.5, 1.0, 4.0)
DELTA = 1e-6


def tvd(true: np.ndarray, est: np.ndarray) -> float:
    p = true / max(true.sum(), 1)
    q = est / est.sum() if est.sum() > 0 else np.full(est.size, 1 / est.size)
    return float(0.5 * np.abs(p - q).sum())


def marginal(codes: np.ndarray, sizes: list[int], cl: tuple[int, ...]) -> np.ndarray:
    index = np.zeros(codes.shape[0], dtype=np.int64)
    for k in cl:
        index = index * sizes[k] + codes[:, k]
    return np.bincount(index, minlength=int(np.prod([sizes[k] for k in cl])))


def one(table: str, method: str, eps: float, rows: int, reps: int) -> dict[str, float]:
    """One configuration, in this process: the mean TVDs, seconds a table, peak MB."""
    from bench_synthetic import census, demo

    from planner_app.core.data.synthetic_marginals import SyntheticEngine, expanded_plan
    from planner_app.core.dp.mechanisms import SystemRandomSource
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.release.noise import privatize
    from planner_app.core.release.synthetic import synthetic_codes
    from tests.oracle.pandas_engine import PandasEngine

    frame, columns, unit = demo() if table == "demo" else census(rows)
    doc = {"format": "planner-app/plan@1", "dataset": {"name": table},
           "privacy_unit": unit, "budget": {"epsilon": eps, "delta": 1e-5, "accountant": "zcdp"},
           "queries": [{"id": "s", "kind": "synthetic", "method": method, "columns": columns,
                        "epsilon": eps, "delta": DELTA}]}
    plan = plan_from_dict(doc)
    q = plan.queries[0]
    engine = SyntheticEngine(PandasEngine(expanded_plan(plan), frame, SystemRandomSource()))
    agg = engine.aggregate(q)
    sizes = [c.size for c in q.params.columns]  # type: ignore[attr-defined]
    # the true codes of the counted rows, for 3-way marginals: from the engine's one-way and
    # pair counts we cannot get triples, so count them from the frame's declared values
    true_codes = _codes(frame, q.params.columns, plan)  # type: ignore[attr-defined]
    d = len(sizes)
    out: dict[str, list[float]] = {"one": [], "two": [], "three": [], "secs": [], "rounds": []}
    for _ in range(reps):
        t0 = time.perf_counter()
        payload = privatize(plan, {"s": agg}, source=SystemRandomSource())[0].synthetic
        assert payload is not None
        codes = synthetic_codes(q, payload)
        out["secs"].append(time.perf_counter() - t0)
        out["rounds"].append(len(payload.get("rounds") or payload["selected"]))
        for size, key in ((1, "one"), (2, "two"), (3, "three")):
            out[key].append(float(np.mean([
                tvd(marginal(true_codes, sizes, cl), marginal(codes, sizes, cl))
                for cl in itertools.combinations(range(d), size)])))
    result = {k: float(np.mean(v)) for k, v in out.items()}
    result["mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["rows"] = float(true_codes.shape[0])
    return result


def _codes(frame: object, columns: object, plan: object) -> np.ndarray:
    """Value indices of the rows whose every column holds a declared value (every row of
    the demo survey is kept by its person bound: at most 3 a person)."""
    import pandas as pd

    assert isinstance(frame, pd.DataFrame)
    keep = np.ones(len(frame), dtype=bool)
    cols = []
    for c in columns:  # type: ignore[attr-defined]
        if c.categories is not None:
            idx = frame[c.column].map({v: i for i, v in enumerate(c.categories)})
            v = idx.to_numpy(dtype=float)
        else:
            x = pd.to_numeric(frame[c.column], errors="coerce").to_numpy(dtype=float)
            edges = np.asarray(c.bins)
            v = np.searchsorted(edges, x, side="right").astype(float) - 1
            v[x == edges[-1]] = len(edges) - 2
            v[(x < edges[0]) | (x > edges[-1]) | np.isnan(x)] = np.nan
        keep &= ~np.isnan(v)
        cols.append(v)
    return np.stack([c[keep] for c in cols], axis=1).astype(np.int64)


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] == "--one":
        table, method, eps, rows, reps = args[1], args[2], float(args[3]), int(args[4]), \
            int(args[5])
        print(json.dumps(one(table, method, eps, rows, reps)))
        return
    reps = int(args[args.index("--reps") + 1]) if "--reps" in args else 1
    rows = int(args[args.index("--rows") + 1]) if "--rows" in args else 20_000
    lines = ["| table | ε | method | 1-way TVD | 2-way TVD | 3-way TVD | rounds (MST: pairs) "
             "| seconds a table | peak MB |", "|---|---|---|---|---|---|---|---|---|"]
    for table in ("demo", "census"):
        for eps in EPSILONS:
            for method in ("mst", "aim"):
                done = subprocess.run([sys.executable, __file__, "--one", table, method,
                                       str(eps), str(rows), str(reps)],
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    raise SystemExit(done.stderr[-2000:])
                r = json.loads(done.stdout.strip().splitlines()[-1])
                name = (f"demo survey ({int(r['rows']):,} rows, 5 columns)" if table == "demo"
                        else f"census-like ({int(r['rows']):,} rows, 7 columns)")
                lines.append(f"| {name} | {eps:g} | {method.upper()} | {r['one']:.4f} | "
                             f"{r['two']:.4f} | {r['three']:.4f} | {r['rounds']:.0f} | "
                             f"{r['secs']:.1f} | {r['mb']:.0f} |")
                print(lines[-1], flush=True)
    write_section(MARK, (
        f"{MARK}\n\n"
        "Average total variation distance between the true marginals and the synthetic "
        "table's, over every 1-, 2- and 3-way marginal of its columns; MST and AIM from the "
        f"same (ε, δ = {DELTA:g}), {reps} release(s) each, the census-like table at "
        f"{rows:,} rows. AIM's workload: every pair (no triples declared). Seconds: the "
        "measurement and synthesis of one table in a fresh process (JAX's compilations "
        "included; AIM fits the model after every round). Peak MB: the process's resident "
        "peak, imports included. `nice python bench/bench_synthetic_aim.py` on the shared "
        "2-core machine, other jobs beside it.\n\n" + "\n".join(lines) + "\n"))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
