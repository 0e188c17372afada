"""The Spark engine: Spark (local mode) sees the table as DuckDB does, the SQLGlot fixes give
Spark's answer equal to DuckDB's and to an independent Python answer, and a missing pyspark
is one line. One SparkSession for the whole file (it takes seconds to start)."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data import spark_engine
from planner_app.core.data import spark_session as spark_state
from planner_app.core.data.source import PANDAS_NA_TEXTS, TableSource
from planner_app.core.data.sql_runner import ROW, DuckDBRunner
from planner_app.core.data.tables import open_table
from planner_app.core.support.errors import InputError

pytest.importorskip("pyspark")
pytest.importorskip("sqlglot")


@pytest.fixture(scope="module")
def spark(spark_session: Any) -> Iterator[Any]:
    """The process's session (tests/conftest.spark_session: started once, and stopped at the
    end of the test session, where its folder must be gone)."""
    yield spark_session
    folder = spark_state._folder  # Spark's private spill and cache folder: the owner's only
    assert folder is not None and (os.stat(folder).st_mode & 0o077) == 0


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
    runner = _runner(source, columns)
    try:
        got = runner.query(sql)
    finally:
        runner.close()
    return duck, _rows(got.drop(columns=[ROW], errors="ignore"))


def _runner(source: TableSource, columns: list[str] | None = None) -> Any:
    runner = spark_engine.SparkRunner(master=None)
    runner.open(source, columns)
    return runner


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
    runner = _runner(source)
    try:
        runner.register("declared", pd.DataFrame({"pos": [0, 1, 2], "key": ["a", "b", "c"]}))
        got = runner.query("SELECT d.pos, count(s.k) AS n FROM declared d "
                           "LEFT JOIN src s ON s.k = d.key GROUP BY d.pos ORDER BY d.pos")
    finally:
        runner.close()
    assert _rows(got) == [(0, 2), (1, 1), (2, 0)]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "frame", "csv-split", "csv-multiline"])
def test_row_position_is_the_file_order(spark: Any, tmp_path: Path, fmt: str) -> None:
    """``__row`` (hashed by the bounding key) is each row's 0-based place in the file, in
    Spark as in DuckDB, whatever the partitions. ``csv-split``: a CSV without a quoted cell
    across lines is read line by line in many splits (8 KB each here); ``csv-multiline``:
    one with such a cell is read whole, with the same cells."""
    n = 5000
    frame = pd.DataFrame({"id": [f"p{(i * 7919) % n}" for i in range(n)],
                          "line": [str(i) for i in range(n)]})
    if fmt == "csv-multiline":
        frame.loc[n // 2, "id"] = "p,\n\"q\""
    if fmt.startswith("csv-"):
        frame.to_csv(tmp_path / "t.csv", index=False)
        source = open_table(tmp_path / "t.csv").source
    elif fmt == "csv":
        frame.to_csv(tmp_path / "t.csv", index=False)
        source = open_table(tmp_path / "t.csv").source
    elif fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pandas(frame), tmp_path / "t.parquet", row_group_size=700)
        source = open_table(tmp_path / "t.parquet").source
    else:
        source = TableSource(name="f", format="frame", columns=("id", "line"), frame=frame)
    assert source is not None
    sql = f"SELECT id, line, {ROW} FROM src ORDER BY {ROW}"
    duck = DuckDBRunner()
    duck.open(source, ["id", "line"])
    try:
        expected = _rows(duck.query(sql))
    finally:
        duck.close()
    runner = spark_engine.SparkRunner()
    parts: list[int] = []
    if fmt.startswith("csv-"):
        runner.spark.conf.set("spark.sql.files.maxPartitionBytes", "8192")
        runner.spark.conf.set("spark.sql.files.openCostInBytes", "0")
        with_row = runner._with_row
        runner._with_row = lambda f, w: (  # type: ignore[method-assign]
            parts.append(f.rdd.getNumPartitions()), with_row(f, w))[1]
    runner.open(source, ["id", "line"])
    if fmt == "csv-split":
        assert parts and parts[0] > 4  # parsed in parallel splits
    elif fmt == "csv-multiline":
        assert parts == [1]  # a quoted cell across lines: the file whole
    try:
        got = _rows(runner.query(sql))
    finally:
        runner.close()
    assert got == expected == [(frame["id"][i], str(i), i) for i in range(n)]


@pytest.mark.parametrize(("text", "words"), [
    ("a,b\n1,2\n3,4,5\n", "field count"),
    ("a,b\n1,2\n3\n", "field count"),
    # Spark's reader would take the rest of the file as the cell; DuckDB and pandas refuse
    ('a,b\n1,2\n2,"3\n3,4\n', "never closed"),
    ('a,b\n1,"x"y\n', "not doubled"),
])
def test_malformed_csv_is_one_line(spark: Any, tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    source = open_table(path).source
    assert source is not None
    with pytest.raises(InputError) as err:
        runner = _runner(source)
        runner.query("SELECT count(*) FROM src")
    message = str(err.value)
    assert "\n" not in message and message.startswith("bad.csv: ") and words in message
    assert "3,4" not in message and "x" not in message.removeprefix("bad.csv")
    with pytest.raises(Exception):  # noqa: B017 (DuckDB refuses the same file)
        with source.connect() as con:
            con.execute("SELECT count(*) FROM src").fetchall()


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
    runner = _runner(source)
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
        spark_state.require_pyspark()
    assert str(err.value).endswith(
        "the Spark engine needs pyspark: pip install 'planner-app[spark]'")


def test_master_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANNER_APP_SPARK_MASTER", raising=False)
    assert spark_state.spark_master() == "local[*]"
    monkeypatch.setenv("PLANNER_APP_SPARK_MASTER", "spark://host:7077")
    assert spark_state.spark_master() == "spark://host:7077"
    assert spark_state.spark_master("local[1]") == "local[1]"


# ----------------------------------------------------------------------------- the aggregates


def _parquet_frame() -> pd.DataFrame:
    """The CSV test table with Parquet types: ids as integers, a float column with NaN and
    nulls, text in a text column that mostly holds numbers."""
    from tests.engine.test_duckdb_equals_pandas import FRAME

    frame = FRAME.copy()
    frame["x"] = [None if v is None else str(v) for v in frame["x"]]
    frame["xf"] = [1.5, float("nan"), None, 4.0, -3.0, 12.25, 7.5, None, 0.0, 49.5, 50.0,
                   51.0, -0.5, 2.5, 3.5]
    return frame


EXTRA_QUERIES: list[dict[str, Any]] = [
    {"id": "sf", "kind": "sum", "column": "xf", "lower": 0, "upper": 50, "epsilon": 1,
     "grid_step": 0.5},
    {"id": "hf", "kind": "histogram", "column": "xf", "bins": [-5, 0, 2.5, 10, 50],
     "epsilon": 1, "group_by": {"column": "g", "keys": ["a", "b"]}},
    {"id": "cf", "kind": "count", "column": "xf", "epsilon": 1},
    {"id": "qf", "kind": "quantile", "column": "xf", "lower": -10, "upper": 60,
     "quantile": 0.25, "epsilon": 1},
]

ROWS = {"kind": "row"}
PERSONS = {"kind": "person", "id_column": "pid", "max_rows": 2}


# (Parquet with row units adds nothing the CSV case does not test, and each Spark engine
# costs seconds of many small jobs in local mode)
@pytest.mark.parametrize("fmt,unit", [("csv", ROWS), ("csv", PERSONS), ("parquet", PERSONS)],
                         ids=["csv-rows", "csv-persons-k2", "parquet-persons-k2"])
def test_spark_duckdb_and_pandas_agree(spark: Any, tmp_path: Path, fmt: str,
                                       unit: dict[str, Any]) -> None:
    """Every query kind, on a table with missing cells, text in number columns and values
    outside the declared lists: Spark, DuckDB and the pandas path give identical parts, owner
    facts, yes/no answers and quantile buckets, with the same salt (the same bounded rows)."""
    from planner_app.core.data.engines import make_engine
    from planner_app.core.data.sql_plan import SqlEngine
    from planner_app.core.data.tables import load_table
    from planner_app.core.dp.mechanisms import SeededRandomSource
    from tests.engine.helpers import SALT, plan_of, summary
    from tests.engine.test_duckdb_equals_pandas import FRAME, QUERIES
    from tests.oracle.pandas_engine import PandasEngine

    queries = QUERIES + (EXTRA_QUERIES if fmt == "parquet" else [])
    plan = plan_of(queries, privacy_unit=unit)
    if fmt == "csv":
        path = tmp_path / "t.csv"
        FRAME.to_csv(path, index=False)
    else:
        path = tmp_path / "t.parquet"
        _parquet_frame().to_parquet(path, index=False)
    loaded = load_table(path)
    pandas = PandasEngine(plan, loaded.frame, SeededRandomSource(0), loaded.name, salt=SALT)
    expected = {q.id: summary(pandas.aggregate(q)) for q in plan.queries}
    opened = open_table(path)
    assert opened.source is not None
    got: dict[str, dict[str, Any]] = {}
    dropped: dict[str, int] = {}
    for name in ("duckdb", "spark"):
        engine = make_engine(name, plan, opened.source, SALT, opened.name)
        try:
            got[name] = {q.id: summary(engine.aggregate(q)) for q in plan.queries}
            dropped[name] = engine.rows_dropped_by_bound
        finally:
            engine.close()
        assert isinstance(engine, SqlEngine)
    assert dropped["spark"] == dropped["duckdb"] == pandas.rows_dropped_by_bound
    if unit["kind"] == "person":
        assert pandas.rows_dropped_by_bound > 0  # the bounding chose among rows
    for qid in expected:
        assert got["spark"][qid] == got["duckdb"][qid] == expected[qid], qid


# ----------------------------------------------------------------------------- the command line

CLI_PLAN = {
    "privacy_unit": {"kind": "person", "id_column": "pid", "max_rows": 2},
    "queries": [
        {"id": "n", "kind": "count", "epsilon": 0.3},
        {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 50, "epsilon": 0.3,
         "group_by": {"column": "g", "keys": ["a", "b"]}},
        {"id": "h", "kind": "histogram", "column": "g", "categories": ["a", "b", "c"],
         "epsilon": 0.2},
        {"id": "q", "kind": "quantile", "column": "n", "lower": 0, "upper": 16,
         "quantile": 0.5, "epsilon": 0.2},
    ],
}


def test_cli_release_on_spark_verifies(spark: Any, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from planner_app.cli import main
    from tests.conftest import plan_dict, with_reasons, write_json
    from tests.engine.test_duckdb_equals_pandas import FRAME

    data = tmp_path / "t.csv"
    FRAME.to_csv(data, index=False)
    plan = write_json(tmp_path / "plan.json", with_reasons(plan_dict(**CLI_PLAN)))
    out = tmp_path / "out.zip"
    code = main(["release", str(plan), "--data", str(data), "--out", str(out),
                 "--engine", "spark"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err and "WARN" not in err
    assert main(["verify", str(out)]) == 0, capsys.readouterr()


@pytest.mark.subprocess
def test_cli_without_pyspark_is_one_line(tmp_path: Path) -> None:
    """With pyspark not importable (a stub package that raises ImportError first on the
    path), `release --engine spark` says how to install it, exit 2, nothing written."""
    import subprocess

    from tests.conftest import ROOT, plan_dict, with_reasons, write_json
    from tests.engine.test_duckdb_equals_pandas import FRAME

    stub = tmp_path / "stub" / "pyspark"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError('no pyspark here')\n")
    data = tmp_path / "t.csv"
    FRAME.to_csv(data, index=False)
    plan = write_json(tmp_path / "plan.json", with_reasons(plan_dict(**CLI_PLAN)))
    out = tmp_path / "out.zip"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(stub.parent), str(ROOT)]))
    done = subprocess.run([sys.executable, "-m", "planner_app", "release", str(plan),
                           "--data", str(data), "--out", str(out), "--engine", "spark"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].endswith("the Spark engine needs pyspark: pip install 'planner-app[spark]'")
    assert not out.exists()


def test_one_column_csv_blank_lines_and_signed_zero_edge(spark: Any, tmp_path: Path) -> None:
    """A blank line of a one-column CSV is skipped by all three readers (pandas the
    independent answer), and -0.0 is the category 0 in Spark as in the pandas path."""
    from planner_app.core.data.engines import make_engine
    from planner_app.core.data.tables import load_table
    from planner_app.core.dp.mechanisms import SeededRandomSource
    from tests.engine.helpers import SALT, plan_of, summary
    from tests.oracle.pandas_engine import PandasEngine

    path = tmp_path / "one.csv"
    path.write_text('x\n1\n\n2\n\n""\nNA\n3\n\n', encoding="utf-8")
    source = open_table(path).source
    assert source is not None
    duck, spark_rows = _both(source, "SELECT * FROM src")
    expected = _rows(pd.read_csv(path, dtype=str, keep_default_na=True))
    assert sorted(duck, key=repr) == sorted(spark_rows, key=repr) == sorted(expected, key=repr)
    zeros = tmp_path / "z.parquet"
    pd.DataFrame({"g": [-0.0, 0.0, -0.0, 1.0, float("nan")]}).to_parquet(zeros, index=False)
    plan = plan_of([{"id": "h", "kind": "histogram", "column": "g", "epsilon": 1,
                     "categories": [0, 1]}])
    loaded = load_table(zeros)
    pandas = PandasEngine(plan, loaded.frame, SeededRandomSource(0), loaded.name, salt=SALT)
    opened = open_table(zeros)
    assert opened.source is not None
    engine = make_engine("spark", plan, opened.source, SALT, opened.name)
    try:
        assert summary(engine.aggregate(plan.queries[0])) == \
            summary(pandas.aggregate(plan.queries[0]))
    finally:
        engine.close()
