"""The Spark engine: Spark (local mode) sees the table as DuckDB does, the SQLGlot fixes give
Spark's answer equal to DuckDB's and to an independent Python answer, and a missing pyspark
is one line. One SparkSession for the whole file (it takes seconds to start)."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data import spark_engine
from planner_app.core.data.source import PANDAS_NA_TEXTS, TableSource
from planner_app.core.data.tables import open_table
from planner_app.core.support.errors import InputError

pytest.importorskip("pyspark")
pytest.importorskip("sqlglot")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    yield spark_engine.session("local[2]")
    spark_engine.stop_session()


def _cell(value: Any) -> Any:
    """A cell as a comparable value (missing as None, whole numbers as int)."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, (np.integer, Decimal)):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _rows(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    return [tuple(_cell(v) for v in row) for row in frame.itertuples(index=False)]


def _both(source: TableSource, sql: str, columns: list[str] | None = None
          ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    with source.connect(columns) as con:
        duck = _rows(con.execute(sql).df())
    runner = spark_engine.SparkRunner(source, columns, master="local[2]")
    try:
        return duck, _rows(runner.query(sql))
    finally:
        runner.close()


# ----------------------------------------------------------------------------- the view src

TRICKY_CSV = (
    'id,"a b",n,"q""uote"\r\n'
    + "".join(f'{i},{t},{t},"{t}"\r\n' for i, t in enumerate(PANDAS_NA_TEXTS))
    + '100,"two\nlines", 7 ,"say ""hi"""\r\n'
    + '101,  padded  ,1e3,x\r\n'
    + '102,é,-0,""\r\n'
    + '103,na,abc,NA \r\n'
)


def test_csv_view_reads_as_duckdb_reads(spark: Any, tmp_path: Path) -> None:
    """Every pandas missing text, quoted or not, is NULL; other cells are text exactly as
    written (spaces, quotes, line breaks); the header names are kept exactly."""
    path = tmp_path / "tricky.csv"
    path.write_bytes(TRICKY_CSV.encode("utf-8"))
    source = open_table(path).source
    assert source is not None and source.format == "csv"
    duck, spark_rows = _both(source, "SELECT * FROM src ORDER BY CAST(id AS INTEGER)")
    assert spark_rows == duck
    # an independent answer: pandas reads the same file
    expected = pd.read_csv(path, dtype=str, keep_default_na=True)
    assert [c for c in source.columns] == list(expected.columns)
    assert spark_rows == _rows(expected)


def test_csv_view_with_a_semicolon_and_a_projection(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "semi.csv"
    path.write_text("id;city;age\n1;Malmö;30\n2;NA;\n3;Zürich;n/a\n", encoding="utf-8")
    source = open_table(path).source
    assert source is not None and source.delimiter == ";"
    duck, spark_rows = _both(source, "SELECT * FROM src ORDER BY id", ["age", "id"])
    assert spark_rows == duck == [("30", "1"), (None, "2"), (None, "3")]


def test_parquet_view_keeps_types(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "x y": pa.array([1.5, float("nan"), None, -2.25], pa.float64()),  # a NaN and a null
        "text": pa.array(["a", None, "NA", ""]),
        "flag": pa.array([True, False, None, True]),
    }), path)
    source = open_table(path).source
    assert source is not None and source.format == "parquet"
    duck, spark_rows = _both(source, 'SELECT id, "x y", text, flag FROM src ORDER BY id')
    # a Parquet text "NA" is text (only a CSV's missing texts are NULL)
    assert spark_rows == duck == [(1, 1.5, "a", True), (2, None, None, False),
                                  (3, None, "NA", None), (4, -2.25, "", True)]
    # (DuckDB 2.0 answers 0 to `WHERE isnan(x)` on a Parquet file: its row-group statistics
    # leave NaN out; counted in the SELECT list, both engines see the one NaN)
    n_nan = _both(source, 'SELECT sum(CASE WHEN isnan("x y") THEN 1 ELSE 0 END) FROM src')
    assert n_nan[0] == n_nan[1] == [(1,)]


def test_frame_view_as_duckdb_sees_it(spark: Any) -> None:
    frame = pd.DataFrame({"id": ["1", "2", "3"], "v": [1.0, None, 3.5]})
    source = TableSource(name="frame", format="frame", columns=("id", "v"), frame=frame)
    duck, spark_rows = _both(source, "SELECT * FROM src ORDER BY id")
    assert spark_rows == duck == [("1", 1.0), ("2", None), ("3", 3.5)]


def test_registered_frame_joins(spark: Any) -> None:
    frame = pd.DataFrame({"k": ["a", "b", "a", None]})
    source = TableSource(name="frame", format="frame", columns=("k",), frame=frame)
    runner = spark_engine.SparkRunner(source, master="local[2]")
    try:
        runner.register("declared", pd.DataFrame({"pos": [0, 1, 2], "key": ["a", "b", "c"]}))
        got = runner.query("SELECT d.pos, count(s.k) AS n FROM declared d "
                           "LEFT JOIN src s ON s.k = d.key GROUP BY d.pos ORDER BY d.pos")
    finally:
        runner.close()
    assert _rows(got) == [(0, 2), (1, 1), (2, 0)]


def test_malformed_csv_is_one_line(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "extra.csv"
    path.write_text("a,b\n1,2\n3,4,5\n", encoding="utf-8")
    source = open_table(path).source
    assert source is not None
    runner = spark_engine.SparkRunner(source, master="local[2]")
    with pytest.raises(InputError) as err:
        runner.query("SELECT count(*) FROM src")
    assert "\n" not in str(err.value) and str(err.value).startswith("extra.csv: ")
    assert "3,4,5" not in str(err.value)


# ----------------------------------------------------------------------------- the dialect


def _frame_source(**columns: list[Any]) -> TableSource:
    frame = pd.DataFrame(columns)
    return TableSource(name="t", format="frame", columns=tuple(frame.columns), frame=frame)


def test_hugeint_sums_are_exact_beyond_int64(spark: Any) -> None:
    """SQLGlot writes HUGEINT as INT128, which Spark does not know; the runner writes
    DECIMAL(38, 0), and the sum is exact past 2**63."""
    big = 2**62
    source = _frame_source(x=[big, big, big, 7])
    sql = "SELECT CAST(sum(CAST(x AS HUGEINT)) AS HUGEINT) AS s FROM src"
    assert "INT128" in __import__("sqlglot").transpile(sql, read="duckdb", write="spark")[0]
    runner = spark_engine.SparkRunner(source, master="local[2]")
    try:
        got = runner.query(sql)["s"].iloc[0]
    finally:
        runner.close()
    assert isinstance(got, int) and got == 3 * big + 7  # exact, not a float


def test_round_even_matches_numpy_rint(spark: Any) -> None:
    """pandas' path rounds with np.rint (half to even); Spark's ROUND rounds half up."""
    values = [0.5, 1.5, 2.5, -0.5, -1.5, 2.4999999999999996, 1e15 + 0.5, 3.0]
    source = _frame_source(x=values)
    duck, spark_rows = _both(source, "SELECT CAST(round_even(x, 0) AS BIGINT) AS r FROM src")
    expected = [(int(v),) for v in np.rint(values)]
    assert duck == expected
    assert sorted(spark_rows) == sorted(expected)


def test_isfinite_and_full_match(spark: Any) -> None:
    source = _frame_source(x=[1.0, float("inf"), float("-inf"), float("nan"), -2.0],
                           t=["12", "1 2", "x12", "12x", ""])
    sql = ("SELECT sum(CASE WHEN isfinite(x) THEN 1 ELSE 0 END) AS f, "
           "sum(CASE WHEN regexp_full_match(t, '[0-9]+') THEN 1 ELSE 0 END) AS m FROM src")
    duck, spark_rows = _both(source, sql)
    assert spark_rows == duck == [(2, 1)]


# ----------------------------------------------------------------------------- set-up


def test_missing_pyspark_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark raises ImportError
    with pytest.raises(InputError) as err:
        spark_engine.require_pyspark()
    assert str(err.value).endswith(
        "the Spark engine needs pyspark: pip install 'planner-app[spark]'")


def test_master_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANNER_APP_SPARK_MASTER", raising=False)
    assert spark_engine.spark_master() == "local[*]"
    monkeypatch.setenv("PLANNER_APP_SPARK_MASTER", "spark://host:7077")
    assert spark_engine.spark_master() == "spark://host:7077"
    assert spark_engine.spark_master("local[1]") == "local[1]"
