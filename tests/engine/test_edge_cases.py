"""Edge cases where the SQL engines once disagreed with the pandas path (the independent
answer): signed zeros, NaN person ids in Parquet, blank CSV lines, person ids written two ways,
and which engine errors are called an unreadable Parquet file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from planner_app.core.data.source import TableSource, engine_problem
from planner_app.core.data.tables import load_table, open_table
from tests.engine.helpers import both, plan_of

COUNT: dict[str, Any] = {"id": "n", "kind": "count", "epsilon": 1}


def test_negative_zero_is_zero_as_category_and_group_key(tmp_path: Path) -> None:
    path = tmp_path / "nz.parquet"
    pq.write_table(pa.table({"g": pa.array([-0.0, 0.0, -0.0, 1.0, 1e20, float("nan"), None,
                                            0.1 + 0.2], pa.float64())}), path)
    plan = plan_of([
        {"id": "h", "kind": "histogram", "column": "g", "epsilon": 1,
         "categories": [0, 1, 1e20, 0.30000000000000004]},
        {"id": "c", "kind": "count", "epsilon": 1, "group_by": {"column": "g", "keys": [0, 1]}},
    ])
    left, right = both(plan, path)
    assert left["h"]["parts"]["cells"][0] == 3  # pandas: -0.0 and 0.0 are the number 0
    assert left == right


def test_nan_person_id_in_parquet_is_refused_like_pandas(tmp_path: Path) -> None:
    path = tmp_path / "ids.parquet"
    pq.write_table(pa.table({"pid": pa.array([1.0, float("nan"), 2.0], pa.float64()),
                             "x": pa.array([1, 2, 3], pa.int64())}), path)
    plan = plan_of([COUNT], privacy_unit={"kind": "person", "id_column": "pid",
                                          "max_rows": 1})
    pandas, duck = both(plan, path)
    assert isinstance(pandas, str) and "no person id" in pandas
    assert pandas == duck


def _parquet_source(tmp_path: Path) -> TableSource:
    return TableSource(name="t.parquet", format="parquet", columns=("a",),
                       path=tmp_path / "t.parquet")


def test_only_read_errors_are_called_unreadable_parquet(tmp_path: Path) -> None:
    import duckdb

    source = _parquet_source(tmp_path)
    memory = engine_problem(source, duckdb.OutOfMemoryException(
        "Out of Memory Error: failed to allocate data of size 16.0 MiB (1.0 GiB/1.0 GiB used)"))
    assert "not a readable Parquet file" not in str(memory)
    assert "memory" in str(memory).lower()
    stopped = engine_problem(source, duckdb.InterruptException("INTERRUPT Error: Interrupted!"))
    assert "not a readable Parquet file" not in str(stopped)
    # a real read error, from DuckDB itself on a file that is not Parquet
    bad = tmp_path / "t.parquet"
    bad.write_bytes(b"not parquet at all, just some bytes" * 10)
    try:
        duckdb.connect().execute(f"SELECT * FROM read_parquet('{bad}')").fetchall()
    except duckdb.Error as exc:
        assert "not a readable Parquet file" in str(engine_problem(source, exc))
    else:
        raise AssertionError("DuckDB read a file that is not Parquet")


def test_nan_in_parquet_float_is_missing_like_pandas(tmp_path: Path) -> None:
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"x": pa.array([1.0, float("nan"), 2.0], pa.float64())}), path)
    plan = plan_of([
        {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 5, "epsilon": 1,
         "missing": {"impute": 3}},
        {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 5, "epsilon": 1},
    ])
    left, right = both(plan, path)
    assert left["m"]["facts"]["missing_dropped"] == 1
    assert left == right


def test_blank_lines_in_one_column_csv(tmp_path: Path) -> None:
    # pandas skips a blank line, but reads a quoted empty cell and NA as missing
    path = tmp_path / "one.csv"
    path.write_text('x\n1\n\n2\n\n\n3\n""\nNA\n"NA"\n4\n\n', encoding="utf-8")
    plan = plan_of([COUNT, {"id": "s", "kind": "sum", "column": "x", "lower": 0,
                            "upper": 5, "epsilon": 1, "missing": {"impute": 1}},
                    {"id": "h", "kind": "histogram", "column": "x", "epsilon": 1,
                     "categories": ["1", "2", "3", "4"]}])
    left, right = both(plan, path)
    assert left["n"]["parts"] == {"count": [7]}
    assert left == right
    opened = open_table(path)
    assert opened.source is not None
    assert opened.source.count_rows() == len(load_table(path).frame)


def test_person_ids_are_the_text_as_written_in_every_engine(tmp_path: Path) -> None:
    """"01", "1" and "1.0" are three people (the id is an identifier): the pandas engine
    (as the release opens it), DuckDB and the count of distinct written ids agree."""
    from planner_app.core.data.engines import open_engine
    from planner_app.core.dp.mechanisms import SeededRandomSource
    from tests.engine.helpers import summary

    path = tmp_path / "ids.csv"
    path.write_text("pid,x\n01,1\n1,2\n1.0,3\n2,4\n01,5\n", encoding="utf-8")
    plan = plan_of([COUNT], privacy_unit={"kind": "person", "id_column": "pid",
                                          "max_rows": 1})
    people = len(set(path.read_text().split()[1:][i].split(",")[0] for i in range(5)))
    got = {}
    for name in ("pandas", "duckdb"):
        engine = open_engine(name, plan, open_table(path), SeededRandomSource(0))
        try:
            got[name] = summary(engine.aggregate(plan.queries[0]))
        finally:
            engine.close()
    assert got["pandas"]["parts"] == {"count": [people]}
    assert got["pandas"] == got["duckdb"]
