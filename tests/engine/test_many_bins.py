"""A histogram of many bin edges (issue 22: 200,001 edges grew to 3.9 GB): DuckDB groups by
the number and bins it in numpy, so the SQL it is sent does not grow with the edges, and its
cells are the pandas path's (the independent answer, numpy over a loaded frame)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from planner_app.core.data.sql_aggregates import bin_of
from planner_app.core.data.sql_plan import SqlEngine
from planner_app.core.data.sql_runner import DuckDBRunner
from planner_app.core.data.tables import open_table
from tests.engine.helpers import SALT, both, plan_of, write_csv


class CountingRunner(DuckDBRunner):
    """DuckDB, keeping the length of every SQL text it runs."""

    def __init__(self) -> None:
        super().__init__()
        self.sql_chars = 0

    def query(self, sql: str) -> pd.DataFrame:
        self.sql_chars += len(sql)
        return super().query(sql)

    def materialize(self, name: str, sql: str) -> None:
        self.sql_chars += len(sql)
        super().materialize(name, sql)


FRAME = pd.DataFrame({
    "x": [0, 0.5, 1, 1.5, 2, 2.0, -0.0, 99.5, 100, 100.5, -1, None, "junk", 37.25, 50, 3e-9],
    "g": ["a", "b", "a", "b", "a", "b", "a", "b", "a", "b", "a", "b", "a", "b", "a", "b"],
})


def _queries(edges: list[float]) -> list[dict[str, Any]]:
    return [
        {"id": "h", "kind": "histogram", "column": "x", "bins": edges, "epsilon": 1},
        {"id": "hi", "kind": "histogram", "column": "x", "bins": edges, "epsilon": 1,
         "missing": {"impute": 50}},
        {"id": "hg", "kind": "histogram", "column": "x", "bins": edges, "epsilon": 1,
         "group_by": {"column": "g", "keys": ["a", "b"]}},
    ]


def _sql_chars(path: Path, n_edges: int) -> int:
    edges = [float(e) for e in np.linspace(0, 100, n_edges)]
    plan = plan_of(_queries(edges))
    opened = open_table(path)
    assert opened.source is not None
    runner = CountingRunner()
    engine = SqlEngine(plan, opened.source, runner, SALT, opened.name)
    try:
        for q in plan.queries:
            engine.aggregate(q)
    finally:
        engine.close()
    return runner.sql_chars


def test_many_edges_give_the_pandas_cells(tmp_path: Path) -> None:
    path = write_csv(FRAME, tmp_path / "t.csv")
    for n_edges in (3, 201, 20_001):
        edges = [float(e) for e in np.linspace(0, 100, n_edges)]
        left, right = both(plan_of(_queries(edges)), path)
        assert left == right, n_edges


def test_the_sql_does_not_grow_with_the_edges(tmp_path: Path) -> None:
    path = write_csv(FRAME, tmp_path / "t.csv")
    few, many = _sql_chars(path, 11), _sql_chars(path, 20_001)
    assert many - few < 200, (few, many)  # only the digits of numbers, never an edge each


def test_bin_of_is_searchsorted_with_the_last_bin_closed() -> None:
    edges = np.array([0.0, 1.0, 2.5, 4.0])
    values = np.array([-1.0, -0.0, 0.0, 0.5, 1.0, 2.5, 3.9, 4.0, 4.5, np.nan, np.inf, -np.inf])
    # independent answer: each bin [edges[k], edges[k+1]), the last closed; -1 outside; -2 empty
    expected = [-1, 0, 0, 0, 1, 2, 2, 2, -1, -2, -1, -1]
    assert bin_of(values, edges).tolist() == expected
