"""Many statistics (issue 22, session 2): statistics that ask the engine the same aggregate
(counts over the same rows, sums and means of the same column) share one query, and each
gets the aggregate the pandas engine computes over the loaded table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from planner_app.core.data.sql_plan import SqlEngine
from planner_app.core.data.sql_runner import DuckDBRunner
from planner_app.core.data.tables import load_table, open_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from tests.conftest import plan_dict
from tests.engine.helpers import SALT, summary
from tests.oracle.pandas_engine import PandasEngine


def many(n: int) -> dict[str, Any]:
    queries = []
    for i in range(n):
        kind = ("count", "sum", "mean")[i % 3]
        q: dict[str, Any] = {"id": f"s{i:03d}", "kind": kind, "epsilon": 1.0 / n}
        if kind != "count":
            q.update(column="ab"[(i // 3) % 2], lower=0, upper=100)
        queries.append(q)
    return plan_dict(queries=queries)


class Counting(DuckDBRunner):
    def __init__(self) -> None:
        super().__init__()
        self.queries = 0

    def query(self, sql: str) -> pd.DataFrame:
        self.queries += 1
        return super().query(sql)


def run(path: Path, n: int) -> tuple[int, dict[str, Any], dict[str, Any]]:
    plan = plan_from_dict(many(n))
    opened = open_table(path)
    assert opened.source is not None
    runner = Counting()
    engine = SqlEngine(plan, opened.source, runner, SALT, opened.name)
    try:
        start = runner.queries
        got = {q.id: summary(engine.aggregate(q)) for q in plan.queries}
        asked = runner.queries - start
    finally:
        engine.close()
    loaded = load_table(path)
    pandas = PandasEngine(plan, loaded.frame, SeededRandomSource(0), loaded.name, salt=SALT)
    want = {q.id: summary(pandas.aggregate(q)) for q in plan.queries}
    return asked, got, want


def test_statistics_asking_the_same_aggregate_share_one_query(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    pd.DataFrame({"a": [i % 101 for i in range(200)],
                  "b": [None if i % 7 == 0 else (i * 3) % 101 for i in range(200)]}
                 ).to_csv(path, index=False)
    few, got_few, want_few = run(path, 12)
    more, got_more, want_more = run(path, 60)
    assert got_few == want_few and got_more == want_more
    # counts, sums of a and b, means of a and b: the same few queries for 12 and 60
    assert more == few


def test_a_grid_statistic_reads_the_bounded_table_once(tmp_path: Path) -> None:
    """Issue 24 (100M rows): a sum, a variance or a quantile asked two GROUP BYs over the
    bounded table, one for its facts (rows, missing cells) and one for its cells; at 10^8
    rows each is a scan. One GROUP BY now gives both, equal to the pandas engine's, an
    imputed value falling on the same grid step as present ones included."""
    path = tmp_path / "t.csv"
    pd.DataFrame({"a": [None if i % 5 == 0 else (i * 7) % 23 for i in range(300)],
                  "g": ["xyz"[i % 3] for i in range(300)]}).to_csv(path, index=False)
    grouped = {"column": "g", "keys": ["x", "y"]}
    queries: list[dict[str, Any]] = [
        {"id": "s", "kind": "sum", "column": "a", "lower": 0, "upper": 20, "epsilon": 1},
        {"id": "v", "kind": "variance", "column": "a", "lower": 0, "upper": 20, "epsilon": 1,
         "group_by": grouped},
        {"id": "q", "kind": "quantile", "column": "a", "lower": 0, "upper": 20,
         "quantile": 0.5, "epsilon": 1, "missing": {"impute": 7}},
        {"id": "qg", "kind": "quantile", "column": "a", "lower": 0, "upper": 20,
         "quantile": 0.25, "epsilon": 1, "group_by": grouped}]
    plan = plan_from_dict(plan_dict(queries=queries))
    opened = open_table(path)
    assert opened.source is not None
    runner = Counting()
    engine = SqlEngine(plan, opened.source, runner, SALT, opened.name)
    asked, got = {}, {}
    try:
        for q in plan.queries:
            start = runner.queries
            got[q.id] = summary(engine.aggregate(q))
            asked[q.id] = runner.queries - start
    finally:
        engine.close()
    assert asked == {"s": 1, "v": 1, "q": 1, "qg": 1}
    loaded = load_table(path)
    pandas = PandasEngine(plan, loaded.frame, SeededRandomSource(0), loaded.name, salt=SALT)
    assert got == {q.id: summary(pandas.aggregate(q)) for q in plan.queries}
