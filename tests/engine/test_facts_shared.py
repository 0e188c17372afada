"""A release's check reads its column facts (bounds equal to the minimum and maximum, lists
equal to the values present, the share of numbers) through the DuckDB engine's own
connection, over the rows the engine already read, not by reading the file a second time;
the facts and the warnings are those of a separate read of the file."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from planner_app.core.data import facts
from planner_app.core.data.engines import open_engine
from planner_app.core.data.source import TableSource
from planner_app.core.data.sql_plan import SqlEngine
from planner_app.core.data.tables import load_table, open_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from tests.conftest import ROWS_ARE_PEOPLE, plan_dict
from tests.engine.test_facts import pandas_facts, sources, tricky_frame

QUERIES = [
    {"id": "m", "kind": "mean", "column": "z", "lower": -3, "upper": 12, "epsilon": 1.0},
    {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 10, "epsilon": 1.0},
    {"id": "h", "kind": "histogram", "column": "g", "categories": ["a", "b", "c"],
     "epsilon": 1.0},
    {"id": "gy", "kind": "sum", "column": "y", "lower": 0, "upper": 6, "epsilon": 1.0,
     "group_by": {"column": "g", "keys": ["a", "b", "c"]}},
]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_facts_through_the_engine_are_the_files(tmp_path: Path, kind: str) -> None:
    frame, source = sources(tmp_path, tricky_frame())[kind]
    plan = plan_from_dict(plan_dict(queries=QUERIES))
    table = open_table(tmp_path / f"t.{kind}")
    engine = open_engine("duckdb", plan, table, SeededRandomSource(3))
    assert isinstance(engine, SqlEngine)
    con = engine.facts_connection()
    assert con is not None
    got = facts.column_facts(source, ["x", "y", "z", "g"], con)
    for col in ("x", "y", "z", "g"):
        lo, hi, share, present = pandas_facts(frame[col])  # the pandas reading of the file
        seen = got[col]
        assert (seen.minimum, seen.maximum) == (lo, hi), col
        assert math.isclose(seen.numeric_share, share), col
        if col != "g":
            assert seen.present == present, col
    engine.close()
    assert engine.facts_connection() is None
    # values present asked for after the engine closed: read from the file instead
    assert got["g"].present == pandas_facts(frame["g"])[3]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_release_check_reads_the_file_once(tmp_path: Path, kind: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    frame = tricky_frame(20)
    path = tmp_path / f"t.{kind}"
    if kind == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    # the row unit answered (issue 22): an unanswered one reads the file once more, for the
    # people rule's count of id-like columns
    plan = plan_from_dict(plan_dict(queries=QUERIES, privacy_unit=ROWS_ARE_PEOPLE))
    table = open_table(path)
    engine = open_engine("duckdb", plan, table, SeededRandomSource(3))
    opened: list[object] = []
    connect = TableSource.connect

    def counting(self: TableSource, *args: object, **kwargs: object) -> object:
        opened.append(args)
        return connect(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(TableSource, "connect", counting)
    try:
        report = check_plan(plan, table, engine=engine)
    finally:
        engine.close()
    assert opened == []  # no second connection over the file
    monkeypatch.setattr(TableSource, "connect", connect)
    # the same warnings and owner's facts as the pandas engine over the loaded table
    loaded = check_plan(plan, load_table(path), engine_name="pandas")
    assert report.warnings == loaded.warnings
    assert any("exactly the values present" in w for w in report.warnings)
    assert report.owner_facts == loaded.owner_facts


def test_typed_columns_through_the_engine(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A Parquet file's typed columns (floats with NaN, infinities and both zeros, integers,
    booleans) give the pandas reading's facts. Issue 24 (100M rows): columns the engine did
    not group are read in one scan of the rows, never grouped by value (an income of 10^8
    distinct values took 14 CPU s to group; the scan reads three numbers a column)."""
    import numpy as np
    import pandas as pd

    from planner_app.core.data import facts_reader

    queries: list[str] = []
    run = facts_reader.run

    def counting_run(con: object, sql: str, *args: object, **kwargs: object) -> object:
        queries.append(sql)
        return run(con, sql, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(facts_reader, "run", counting_run)

    n = 40
    frame = pd.DataFrame({
        "f": [[np.nan, -0.0, 0.0, np.inf, -np.inf, 2.5, -7.25, 1e300][i % 8] for i in range(n)],
        "i": [(i * 7919) % 23 - 11 for i in range(n)],
        "b": [[True, False, None][i % 3] for i in range(n)],
    })
    path = tmp_path / "typed.parquet"
    frame.to_parquet(path, index=False)
    plan = plan_from_dict(plan_dict(queries=[
        {"id": c, "kind": "sum", "column": c, "lower": 0, "upper": 9, "epsilon": 1.0}
        for c in ("f", "i", "b")]))
    table = open_table(path)
    engine = open_engine("duckdb", plan, table, SeededRandomSource(3))
    assert isinstance(engine, SqlEngine)
    try:
        assert table.source is not None
        got = facts.column_facts(table.source, ["f", "i", "b"], engine.facts_connection())
        grouping = [q for q in queries if "GROUP BY" in q]
        reading = [q for q in queries if "min(" in q]
        assert grouping == [] and len(reading) == 1, queries
        loaded = load_table(path).frame
        for col in ("f", "i", "b"):
            lo, hi, share, present = pandas_facts(loaded[col])
            seen = got[col]
            assert (seen.minimum, seen.maximum) == (lo, hi), col
            assert math.isclose(seen.numeric_share, share), col
            assert seen.present == present, col
    finally:
        engine.close()


def test_a_coded_column_is_grouped_once(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 24 (many categories): the engine groups a histogram's column by value once and
    keeps the counts (facts.values_table); its codes, the check's minimum and maximum and the
    values present all read them, instead of three passes over every row. The facts and the
    counts are those of the pandas reading."""
    import re

    import pandas as pd

    from planner_app.core.data import facts_reader
    from planner_app.core.data.sql_runner import DuckDBRunner
    from tests.engine.helpers import summary
    from tests.oracle.pandas_engine import PandasEngine

    cats = [f"c{i}" for i in range(30)]
    frame = pd.DataFrame({"g": [None if i % 11 == 0 else cats[(i * 7) % 37 % 30] if i % 5
                                else f"x{i % 4}" for i in range(400)]})
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    plan = plan_from_dict(plan_dict(queries=[
        {"id": "h", "kind": "histogram", "column": "g", "categories": cats, "epsilon": 1.0}],
        privacy_unit=ROWS_ARE_PEOPLE))
    every_row_by_g = re.compile(r'FROM src (WHERE [^()]*)?GROUP BY "g"')
    grouped: list[str] = []

    def seen(sql: str) -> None:
        if every_row_by_g.search(sql):
            grouped.append(sql)

    run, query, materialize = facts_reader.run, DuckDBRunner.query, DuckDBRunner.materialize

    def counting_run(con: object, sql: str, *args: object, **kwargs: object) -> object:
        seen(sql)
        return run(con, sql, *args, **kwargs)  # type: ignore[arg-type]

    def counting_query(self: DuckDBRunner, sql: str) -> pd.DataFrame:
        seen(sql)
        return query(self, sql)

    def counting_materialize(self: DuckDBRunner, name: str, sql: str) -> None:
        seen(sql)
        materialize(self, name, sql)

    monkeypatch.setattr(facts_reader, "run", counting_run)
    monkeypatch.setattr(DuckDBRunner, "query", counting_query)
    monkeypatch.setattr(DuckDBRunner, "materialize", counting_materialize)
    table = open_table(path)
    engine = open_engine("duckdb", plan, table, SeededRandomSource(3))
    try:
        report = check_plan(plan, table, engine=engine)
        got = summary(engine.aggregate(plan.queries[0]))
        assert table.source is not None
        present = facts.column_facts(table.source, ["g"], engine.facts_connection())["g"].present
    finally:
        engine.close()
    assert len(grouped) == 1, grouped
    loaded = load_table(path)
    pandas = PandasEngine(plan, loaded.frame, SeededRandomSource(0), loaded.name, salt=b"s")
    assert got == summary(pandas.aggregate(plan.queries[0]))
    assert present == pandas_facts(loaded.frame["g"])[3]
    assert report.owner_facts == check_plan(plan, loaded, engine_name="pandas").owner_facts
