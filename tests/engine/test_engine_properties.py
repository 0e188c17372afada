"""Random tables and plans: DuckDB over the file in place, DuckDB over a frame in memory and
the pandas path agree exactly (Parquet with typed columns, CSV of text, frames of mixed cells),
and the quantile sampler gives the same draw from counts per grid step as from sorted steps."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner_app.core.data.sql_plan import SqlEngine
from planner_app.core.data.sql_runner import DuckDBRunner, frame_source
from planner_app.core.dp.mechanisms import SeededRandomSource, exponential_quantile
from tests.engine.helpers import SALT, both, plan_of, summary
from tests.oracle.pandas_engine import PandasEngine

CELLS = ["1", "2", "2.0", "02", " 3 ", "x", "y", "true", "FALSE", "", "1e1", "-4.5", "inf",
         "nan", "NA", "7", "a", "b"]


def random_frame(rng: random.Random, n: int) -> pd.DataFrame:
    return pd.DataFrame({
        "pid": [rng.randrange(1, max(2, n // 2)) for _ in range(n)],
        "g": [rng.choice(["a", "b", "c", "", "1", "2.0"]) for _ in range(n)],
        "x": [rng.choice(CELLS) for _ in range(n)],
        "y": [rng.choice(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "", "z"])
              for _ in range(n)],
    })


def random_queries(rng: random.Random) -> list[dict[str, Any]]:
    where = rng.choice([[], [{"column": "g", "op": "in", "value": ["a", 1]}],
                        [{"column": "y", "op": ">", "value": rng.choice([2, 4.5])}],
                        [{"column": "g", "op": "!=", "value": "b"}]])
    group = rng.choice([None, {"column": "g", "keys": ["a", "b", 2, "zz"]}])
    missing = rng.choice([None, {"impute": 1}])
    extra: dict[str, Any] = {"where": where}
    if group is not None:
        extra["group_by"] = group
    if missing is not None:
        extra["missing"] = missing
    bounded = {"lower": rng.choice([-5, 0]), "upper": rng.choice([10, 12.5])}
    return [
        {"id": "c", "kind": "count", "column": "x", "epsilon": 1, **extra},
        {"id": "h", "kind": "histogram", "column": "x", "epsilon": 1,
         "categories": [1, "2", "x", True, 7.0], **extra},
        {"id": "hb", "kind": "histogram", "column": "y", "epsilon": 1,
         "bins": [0, 1, 2.5, 5, 10], **extra},
        {"id": "s", "kind": "sum", "column": "x", "epsilon": 1, **bounded, **extra},
        {"id": "m", "kind": "mean", "column": "y", "epsilon": 1, **bounded, **extra},
        {"id": "v", "kind": "variance", "column": "y", "epsilon": 1, **bounded, **extra},
        {"id": "q", "kind": "quantile", "column": "y", "epsilon": 1, "quantile": 0.3,
         **bounded, **extra},
    ]


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), rows=st.integers(1, 60),
       person=st.booleans(), k=st.integers(1, 3))
def test_random_tables_and_plans_agree(tmp_path: Path, seed: int, rows: int, person: bool,
                                       k: int) -> None:
    rng = random.Random(seed)
    frame = random_frame(rng, rows)
    unit = {"kind": "person", "id_column": "pid", "max_rows": k} if person else {"kind": "row"}
    plan = plan_of(random_queries(rng), privacy_unit=unit)
    path = tmp_path / f"t{seed}.csv"
    frame.to_csv(path, index=False)
    left, right = both(plan, path)
    assert left == right


def test_parquet_typed_columns_agree(tmp_path: Path) -> None:
    """Typed Parquet columns (integers, floats with NaN and NULL, bools, text) read as the
    pandas path reads the same file."""
    frame = pd.DataFrame({
        "pid": pd.array([1, 1, 2, 3, 3, 3, 4, 5, 6, 6], dtype="Int64"),
        "i": pd.array([1, 2, None, 4, 5, 6, 7, 8, 9, 10], dtype="Int64"),
        "f": [0.5, math.nan, 2.0, None, 1e300, -3.25, 7.0, 2.0, 0.1, 9.99],
        "b": pd.array([True, False, None, True, True, False, True, False, True, True],
                      dtype="boolean"),
        "t": ["a", "b", None, "a", "c", "1", "1.0", "b", "a", " a"],
    })
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    queries: list[dict[str, Any]] = [
        {"id": "ci", "kind": "count", "column": "f", "epsilon": 1},
        {"id": "hi", "kind": "histogram", "column": "i", "categories": [1, "2", 4.0, 99],
         "epsilon": 1},
        {"id": "hb", "kind": "histogram", "column": "b", "categories": [True, "false"],
         "epsilon": 1},
        {"id": "hf", "kind": "histogram", "column": "f", "bins": [0, 1, 2, 10],
         "epsilon": 1, "group_by": {"column": "t", "keys": ["a", "b", 1]}},
        {"id": "sf", "kind": "sum", "column": "f", "lower": -5, "upper": 10, "epsilon": 1},
        {"id": "mi", "kind": "mean", "column": "i", "lower": 0, "upper": 8, "epsilon": 1,
         "where": [{"column": "b", "op": "==", "value": True}]},
        {"id": "vb", "kind": "variance", "column": "b", "lower": 0, "upper": 1, "epsilon": 1},
        {"id": "q", "kind": "quantile", "column": "f", "lower": 0, "upper": 10,
         "quantile": 0.5, "epsilon": 1},
        {"id": "rr", "kind": "randomized_response", "column": "b", "epsilon": 1},
    ]
    for unit in ({"kind": "row"}, {"kind": "person", "id_column": "pid", "max_rows": 2}):
        plan = plan_of(queries, privacy_unit=unit)
        left, right = both(plan, path)
        assert left == right


def test_a_frame_in_memory_goes_through_duckdb_too() -> None:
    """A table already loaded (the app, an Excel sheet) with mixed cells in one column."""
    frame = pd.DataFrame({"pid": [1, 1, 2, 3, 3],
                          "x": [10, "junk", 3.5, None, True],
                          "g": ["a", 1, 1.0, None, "b"]})
    plan = plan_of([
        {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 20, "epsilon": 1},
        {"id": "h", "kind": "histogram", "column": "g", "categories": ["a", "1"],
         "epsilon": 1},
    ], privacy_unit={"kind": "person", "id_column": "pid", "max_rows": 1})
    pandas = PandasEngine(plan, frame, SeededRandomSource(0), "t", salt=SALT)
    sql = SqlEngine(plan, frame_source("t", frame), DuckDBRunner(), SALT)
    for q in plan.queries:
        assert summary(pandas.aggregate(q)) == summary(sql.aggregate(q))
    sql.close()


def test_the_salt_decides_which_rows_are_kept(tmp_path: Path) -> None:
    """Another salt keeps other rows (the choice is keyed, not fixed by the file)."""
    frame = pd.DataFrame({"pid": [1] * 40, "x": list(range(40))})
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    plan = plan_of([{"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 40,
                     "epsilon": 1}], privacy_unit={"kind": "person", "id_column": "pid",
                                                   "max_rows": 3})
    sums = set()
    for salt in (bytes(32), bytes([1]) * 32, bytes([2]) * 32):
        left, right = both(plan, path, salt=salt)
        assert left == right
        sums.add(tuple(left["s"]["parts"]["sum"]))
    assert len(sums) == 3


@pytest.mark.parametrize(("rows", "lo", "hi"), [(500, 0, 64), (20, 0, 4096), (0, -8, 8)])
def test_quantile_from_counts_draws_as_from_sorted_steps(rows: int, lo: int, hi: int) -> None:
    """Both regimes of the sampler (grid no larger than the rows, and larger): the same
    random source gives the same grid point from counts per step as from the sorted steps."""
    data = np.sort(np.random.default_rng(rows).integers(lo, hi + 1, size=rows))
    steps, counts = np.unique(data, return_counts=True)
    for seed in range(25):
        for q in (0.1, 0.5, 0.97):
            a = exponential_quantile(SeededRandomSource(seed), data, lo, hi, q, 1.0, 1)
            b = exponential_quantile(SeededRandomSource(seed), None, lo, hi, q, 1.0, 1,
                                     step_counts=(steps, counts))
            assert a == b
