"""Exact sums of any size (issue 24): a sum whose exact total passes 2^63 grid steps comes out
of DuckDB, Spark and the pandas path exactly, equal to Python's own integer sum; nothing is
refused after the scan for a fine grid or many rows."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.engines import make_engine
from planner_app.core.data.tables import load_table, open_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from tests.engine.helpers import SALT, plan_of
from tests.oracle.pandas_engine import PandasEngine

TOP = 3 * 2**48  # bounds lie within ±10^15; on a grid of 1/4, 2^51.6 steps from 0
STEP = 0.25
N = 4000

QUERIES: list[dict[str, Any]] = [
    # a plain sum of steps near 2^51.6: 4,000 rows add up to about 2^63.5 steps
    {"id": "big", "kind": "sum", "column": "x", "lower": TOP - 2**36, "upper": TOP,
     "grid_step": STEP, "epsilon": 1},
    # a variance on a 2^40-step grid: each squared distance to the centre is up to 2^78
    {"id": "var", "kind": "variance", "column": "y", "lower": 0, "upper": 2**40,
     "grid_step": 1, "epsilon": 1, "group_by": {"column": "g", "keys": ["a", "b"]}},
]


def table(path: Path) -> tuple[Path, pd.DataFrame]:
    rng = random.Random(24)
    frame = pd.DataFrame({
        "x": [TOP - rng.randrange(2**38) * STEP for _ in range(N)],  # exact floats
        "y": [rng.choice([0, 2**40, rng.randrange(2**40)]) for _ in range(N)],
        "g": [rng.choice("ab") for _ in range(N)],
    })
    frame.to_csv(path, index=False)
    return path, frame


def expected(frame: pd.DataFrame) -> dict[str, dict[str, list[int]]]:
    """Python's integer sums of the same steps (the values are whole numbers on the grid)."""
    centre = 2**39
    out: dict[str, dict[str, list[int]]] = {"big": {"sum": [sum(int(v * 4) for v in frame.x)]},
                                            "var": {"count": [], "sum": [], "sumsq": []}}
    for key in "ab":
        ys = [int(v) - centre for v, g in zip(frame.y, frame.g, strict=True) if g == key]
        out["var"]["count"].append(len(ys))
        out["var"]["sum"].append(sum(ys))
        out["var"]["sumsq"].append(sum(y * y for y in ys))
    return out


def parts(engine: Any, plan: Any) -> dict[str, dict[str, list[int]]]:
    got = {}
    for q in plan.queries:
        agg = engine.aggregate(q)
        got[q.id] = {k: [int(x) for x in v] for k, v in agg.parts.items()}
    return got


def engines_parts(path: Path, names: tuple[str, ...]) -> dict[str, Any]:
    plan = plan_of(QUERIES)
    loaded = load_table(path)
    out = {"pandas": parts(PandasEngine(plan, loaded.frame, SeededRandomSource(0),
                                        loaded.name, salt=SALT), plan)}
    opened = open_table(path)
    assert opened.source is not None
    for name in names:
        engine = make_engine(name, plan, opened.source, SALT, opened.name)
        try:
            out[name] = parts(engine, plan)
        finally:
            engine.close()
    return out


def test_sums_past_2_to_the_63_are_exact_in_duckdb_and_pandas(tmp_path: Path) -> None:
    path, frame = table(tmp_path / "t.csv")
    want = expected(frame)
    assert want["big"]["sum"][0] > 2**63 and max(want["var"]["sumsq"]) > 2**63
    assert want["big"]["sum"][0] != int(float(want["big"]["sum"][0]))  # a float is not enough
    got = engines_parts(path, ("duckdb",))
    assert got["duckdb"] == want
    assert got["pandas"] == want


@pytest.mark.spark
def test_sums_past_2_to_the_63_are_exact_in_spark(spark_session: Any, tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    path, frame = table(tmp_path / "t.csv")
    got = engines_parts(path, ("spark",))
    assert got["spark"] == expected(frame)


def test_the_parts_stay_int64_where_they_fit(tmp_path: Path) -> None:
    """The common case keeps numpy int64 parts (the release's column-wise fast path)."""
    path = tmp_path / "small.csv"
    pd.DataFrame({"x": [1, 2, 3], "y": [4, 5, 6], "g": ["a", "b", "a"]}).to_csv(path,
                                                                              index=False)
    plan = plan_of([{"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 200_000,
                     "epsilon": 1}])
    opened = open_table(path)
    assert opened.source is not None
    engine = make_engine("duckdb", plan, opened.source, SALT, opened.name)
    try:
        agg = engine.aggregate(plan.queries[0])
    finally:
        engine.close()
    assert agg.parts["sum"].dtype == np.int64 and agg.parts["sum"].tolist() == [3]
