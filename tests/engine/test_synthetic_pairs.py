"""A synthetic table's two-way marginal is one engine query, also for two binned columns
(before: one histogram per bin of the second column), and every engine's counts equal an
independent pandas crosstab on a table with person-level units (at most k rows a person)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.engines import open_engine
from planner_app.core.data.sql_runner import frame_source
from planner_app.core.data.synthetic_marginals import derived_queries, expanded_plan
from planner_app.core.data.tables import Table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from tests.conftest import plan_dict

K = 2
AGE = [0, 18, 40, 65, 100]
INCOME = [0, 1000, 5000, 20000]
SEX = ["f", "m"]


def _frame() -> pd.DataFrame:
    """Persons with at most K rows hold any values (bin edges, the last edge, outside,
    missing, numbers as text); a person with more than K rows has every row in one cell, so
    the bounded crosstab does not depend on which K rows the engine keeps."""
    rng = np.random.default_rng(14)
    rows: list[dict[str, Any]] = []
    for p in range(300):
        n = 1 + p % 3 if p % 5 else 4 + p % 4  # 1..3 rows, or 4..7 (more than K)
        if n > K:
            age, income = rng.choice([5.0, 18.0, 39.5, 100.0]), rng.choice([0.0, 999.0, 20000.0])
            sex = SEX[p % 2]
            for r in range(n):  # the same cell, the number moved within its bin
                a = age if age in (18.0, 100.0) else age + 0.25 * (r % 2)
                rows.append({"pid": f"p{p}", "age": a, "income": income, "sex": sex})
            continue
        for _ in range(n):
            rows.append({"pid": f"p{p}",
                         "age": rng.choice([-1.0, 0.0, 17.9, 18.0, 64.99, 65.0, 100.0, 100.5,
                                            np.nan, 33.0]),
                         "income": rng.choice([0.0, 999.99, 1000.0, 4999.0, 5000.0, 20000.0,
                                               20000.01, -3.0, np.nan, 12.5]),
                         "sex": rng.choice(["f", "m", "x", None])})
    frame = pd.DataFrame(rows)
    frame["income"] = frame["income"].astype(object)
    frame.loc[frame.index[::7], "income"] = frame["income"][::7].map(
        lambda v: v if pd.isna(v) else repr(float(v)))  # some numbers written as text
    return frame


def _plan() -> Any:
    return plan_from_dict(plan_dict(
        privacy_unit={"kind": "person", "id_column": "pid", "max_rows": K},
        budget={"epsilon": 1, "delta": 1e-5},
        queries=[{"id": "s", "kind": "synthetic", "epsilon": 1, "delta": 1e-6,
                  "columns": [{"column": "age", "bins": AGE},
                              {"column": "income", "bins": INCOME},
                              {"column": "sex", "categories": SEX}]}]))


def _bins(values: pd.Series, edges: list[int]) -> pd.Series:
    """The bin's index (the last bin closed), -1 outside or missing: pd.cut, not the engines."""
    cut = pd.cut(pd.to_numeric(values, errors="coerce"), bins=edges, right=False,
                 labels=False)
    last = pd.to_numeric(values, errors="coerce") == edges[-1]
    return cut.where(~last, len(edges) - 2).fillna(-1).astype(int)


def _crosstab_marginals(frame: pd.DataFrame) -> dict[str, list[int]]:
    """The bounded marginals counted here: rows in every column's domain; each person's
    rows capped at K (their rows all share one cell when there are more than K)."""
    f = frame.assign(a=_bins(frame["age"], AGE), i=_bins(frame["income"], INCOME),
                     s=frame["sex"].map({"f": 0, "m": 1}).fillna(-1).astype(int))
    many = f.groupby("pid")["pid"].transform("size") > K
    f = pd.concat([f[~many], f[many].groupby("pid").head(K)])
    f = f[(f.a >= 0) & (f.i >= 0) & (f.s >= 0)]
    sizes = {"a": len(AGE) - 1, "i": len(INCOME) - 1, "s": 2}
    out = {f"oneway:{c}": f[k].value_counts().reindex(range(sizes[k]), fill_value=0).tolist()
           for c, k in (("age", "a"), ("income", "i"), ("sex", "s"))}
    for name, (x, y) in {"pair:0:1": ("a", "i"), "pair:0:2": ("a", "s"),
                         "pair:1:2": ("i", "s")}.items():
        table = pd.crosstab(f[x], f[y]).reindex(index=range(sizes[x]), columns=range(sizes[y]),
                                                fill_value=0)
        out[name] = table.to_numpy().reshape(-1).tolist()
    return out


def test_a_pair_of_binned_columns_is_one_engine_query() -> None:
    q = _plan().queries[0]
    d = 3
    derived = list(derived_queries(q))
    assert len(derived) == d + d * (d - 1) // 2
    assert len(expanded_plan(_plan()).queries) == d + d * (d - 1) // 2


@pytest.mark.parametrize("engine", ["pandas", "duckdb", "spark"])
def test_every_engine_equals_an_independent_crosstab(engine: str) -> None:
    if engine == "spark":
        pytest.importorskip("pyspark")
        pytest.importorskip("sqlglot")
    frame = _frame()
    assert frame.groupby("pid").size().max() > K  # the bound does drop rows
    want = _crosstab_marginals(frame)
    assert sum(want["pair:0:1"]) > 100 and min(want["oneway:age"]) > 0
    plan = _plan()
    table = Table(name="t.csv", frame=frame, source=frame_source("t.csv", frame))
    eng = open_engine(engine, plan, table, SeededRandomSource(3))
    try:
        agg = eng.aggregate(plan.queries[0])
    finally:
        eng.close()
    assert {k: np.asarray(v).tolist() for k, v in agg.parts.items()} == want
