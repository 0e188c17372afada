"""Many categories (issue 24): with a row unit, statistics whose derived columns all read one
column of codes (a histogram over its categories, counts and sums filtered or grouped by it)
are derived once per distinct value of that column, each weighed by its rows, instead of
once per row of the table (a 10^5-category histogram of 10^7 rows joined every row to the
code list); every aggregate equals the pandas engine's over the loaded table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from planner_app.core.data.sql_plan import SqlEngine
from planner_app.core.data.sql_runner import DuckDBRunner
from planner_app.core.data.tables import open_table
from tests.engine.helpers import SALT, both, plan_of

CATS = [1, 2, 3, 5, 8]
SAME_COLUMN: list[dict[str, Any]] = [
    {"id": "h", "kind": "histogram", "column": "x", "categories": CATS, "epsilon": 1.0},
    {"id": "hw", "kind": "histogram", "column": "x", "categories": CATS, "epsilon": 1.0,
     "where": [{"column": "x", "op": "in", "value": [2, 3, 4]}]},
    {"id": "c", "kind": "count", "epsilon": 1.0,
     "where": [{"column": "x", "op": "!=", "value": 5}]},
    {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 6, "epsilon": 1.0,
     "where": [{"column": "x", "op": "in", "value": CATS}]},
    {"id": "m", "kind": "mean", "column": "x", "lower": 1, "upper": 7, "epsilon": 1.0,
     "where": [{"column": "x", "op": "in", "value": [1, 2]}]},
    {"id": "g", "kind": "count", "epsilon": 1.0,
     "group_by": {"column": "x", "keys": [3, 5, 13]}},
]


def table(tmp_path: Path, kind: str) -> Path:
    """x: small integers with repeats, empty cells, a text and a value outside the lists."""
    cells: list[Any] = [(i * 7) % 11 for i in range(300)]
    for i in range(0, 300, 13):
        cells[i] = None
    frame = pd.DataFrame({"x": cells, "y": [i % 5 for i in range(300)]})
    path = tmp_path / f"t.{kind}"
    if kind == "csv":
        frame["x"] = [None if v is None else ("n/a" if i == 40 else str(v))
                      for i, v in enumerate(cells)]
        frame.to_csv(path, index=False)
    else:
        frame["x"] = frame["x"].astype("Int64")
        frame.to_parquet(path, index=False)
    return path


def rows_of_b(plan_queries: list[dict[str, Any]], path: Path) -> tuple[int, int]:
    """(rows of the engine's bounded table, distinct values of x, empty included)."""
    opened = open_table(path)
    assert opened.source is not None
    runner = DuckDBRunner()
    engine = SqlEngine(plan_of(plan_queries), opened.source, runner, SALT, opened.name)
    try:
        b = int(runner.query("SELECT count(*) AS n FROM b")["n"].iloc[0])
        distinct = int(runner.query("SELECT count(DISTINCT x) + max(CASE WHEN x IS NULL THEN "
                                    "1 ELSE 0 END) AS n FROM src")["n"].iloc[0])
    finally:
        engine.close()
    return b, distinct


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_one_coded_column_is_derived_once_per_value(tmp_path: Path, kind: str) -> None:
    path = table(tmp_path, kind)
    pandas, duck = both(plan_of(SAME_COLUMN), path)
    assert isinstance(pandas, dict) and duck == pandas  # (not two refusals)
    assert pandas["h"]["parts"] and pandas["s"]["parts"]
    b, distinct = rows_of_b(SAME_COLUMN, path)
    assert b == distinct < 300


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_other_plans_keep_a_row_per_row(tmp_path: Path, kind: str) -> None:
    """Two columns read, or a person unit: the bounded table keeps one row per row, and the
    aggregates are the pandas engine's as before."""
    path = table(tmp_path, kind)
    two = SAME_COLUMN + [{"id": "y", "kind": "histogram", "column": "y",
                          "categories": [0, 1, 2], "epsilon": 1.0}]
    pandas, duck = both(plan_of(two), path)
    assert isinstance(pandas, dict) and duck == pandas
    assert rows_of_b(two, path)[0] == 300
    person = plan_of(SAME_COLUMN, privacy_unit={"kind": "person", "id_column": "y",
                                                "max_rows": 2})
    pandas, duck = both(person, path)
    assert isinstance(pandas, dict) and duck == pandas
