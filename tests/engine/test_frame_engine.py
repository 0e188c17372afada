"""`--engine pandas` is the SQL engine over the loaded frame (issue 23, one cell reader): on
frames with mixed and missing cells it gives the aggregates of the pandas oracle
(tests/oracle), on the same seeded bounding, and a release through it gives the values of a
release through DuckDB reading the file in place."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.engines import open_engine
from planner_app.core.data.facts import cell_facts
from planner_app.core.data.sql_plan import salt_from
from planner_app.core.data.sql_runner import frame_source
from planner_app.core.data.tables import Table, open_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.model import Plan, canonical_key
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.conftest import plan_dict, with_reasons
from tests.engine.helpers import plan_of, summary
from tests.oracle.pandas_engine import PandasEngine

#: numbers, text spelling numbers, words, bools, a Decimal, NaN and None in one column
MIXED = pd.Series([1, "2", "x", 3.5, None, True, " 4 ", 1e20, np.nan, "inf", Decimal("2.50"),
                   2, "2.0", False, "  x"], dtype=object)
#: the number 1, the text "1" and the float 1.0 (two people), "01" (a third), 2 and 2.0 ...
MIXED_IDS = pd.Series([1, "1", 1.0, 2, "01", 2, 2, 3, 3, 3, 1, "1", 2.0, 3, 4], dtype=object)
PERSON = {"kind": "person", "id_column": "id", "max_rows": 1}

QUERIES: list[dict[str, Any]] = [
    {"id": "s", "kind": "sum", "column": "m", "lower": 0, "upper": 10, "epsilon": 1},
    {"id": "mi", "kind": "mean", "column": "m", "lower": 0, "upper": 10, "epsilon": 1,
     "missing": {"impute": 5}},
    {"id": "h", "kind": "histogram", "column": "m", "categories": [1, 2, "x", True, 3.5],
     "epsilon": 1},
    {"id": "hi", "kind": "histogram", "column": "m", "categories": [1, 2, "x"], "epsilon": 1,
     "missing": {"impute": "x"}},
    {"id": "b", "kind": "histogram", "column": "m", "bins": [0, 2, 5, 10], "epsilon": 1,
     "missing": {"impute": 1}},
    {"id": "c", "kind": "count", "epsilon": 1,
     "where": [{"column": "m", "op": "in", "value": [2, "x"]}]},
    {"id": "q", "kind": "quantile", "column": "m", "lower": 0, "upper": 10, "quantile": 0.5,
     "epsilon": 1},
    {"id": "rr", "kind": "randomized_response", "column": "m", "epsilon": 1,
     "yes": [1, "x"], "no": [2, False]},
]


def oracle_and_frame(plan: Plan, frame: pd.DataFrame, engine: str) -> tuple[Any, Any]:
    """Every statistic's aggregates from the pandas oracle and from ``open_engine(engine)``
    over the same frame (a table held in memory), with the salt the release draws first."""
    salt = salt_from(SeededRandomSource(0))
    oracle = PandasEngine(plan, frame, SeededRandomSource(0), "t", salt=salt)
    left = {q.id: summary(oracle.aggregate(q)) for q in plan.queries}
    sql = open_engine(engine, plan, Table(frame, "t"), SeededRandomSource(0))
    try:
        right = {q.id: summary(sql.aggregate(q)) for q in plan.queries}
        assert sql.rows_dropped_by_bound == oracle.rows_dropped_by_bound
    finally:
        sql.close()
    return left, right


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_a_mixed_column_reads_as_the_oracle_reads_it(engine: str) -> None:
    left, right = oracle_and_frame(plan_of(QUERIES), pd.DataFrame({"m": MIXED}), engine)
    assert left == right
    cells = left["h"]["parts"]["cells"]
    assert cells[1:3] == [3, 2]  # "2", 2 and "2.0"; "x" and "  x"


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_mixed_ids_in_a_frame_are_the_people_pandas_tells_apart(engine: str) -> None:
    """1 and "1" in one object column are two people (1 and 1.0 one): the SQL engine over a
    frame once read both as the text "1" and bounded them as one person."""
    plan = plan_of(QUERIES + [{"id": "p", "kind": "count", "of": "people", "epsilon": 1}],
                   privacy_unit=PERSON)
    frame = pd.DataFrame({"id": MIXED_IDS, "m": MIXED})
    left, right = oracle_and_frame(plan, frame, engine)
    assert left == right
    # people: {1, 1.0}, {"1"}, {2, 2.0}, {"01"}, {3}, {4}
    assert left["p"]["parts"]["count"] == [6]


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_mixed_ids_that_a_statistic_also_reads(engine: str) -> None:
    plan = plan_of([{"id": "h", "kind": "histogram", "column": "id",
                     "categories": [1, 2, 3], "epsilon": 1}], privacy_unit=PERSON)
    left, right = oracle_and_frame(plan, pd.DataFrame({"id": MIXED_IDS, "m": MIXED}), engine)
    assert left == right
    # one row each of {1, 1.0}, {"1"} and {"01"} (three people, each a cell matching 1)
    assert left["h"]["parts"]["cells"] == [3, 1, 1]


def test_an_empty_mixed_id_is_refused_as_the_oracle_refuses_it() -> None:
    plan = plan_of(QUERIES[:1], privacy_unit=PERSON)
    frame = pd.DataFrame({"id": pd.Series([1, None, "a"], dtype=object), "m": [1, 2, 3]})
    with pytest.raises(Exception) as oracle:
        PandasEngine(plan, frame, SeededRandomSource(0), "t")
    with pytest.raises(Exception) as sql:
        open_engine("pandas", plan, Table(frame, "t"), SeededRandomSource(0))
    assert "no person id" in str(oracle.value) and "no person id" in str(sql.value)
    assert "'id'" in str(sql.value)  # the owner's column, not the hidden one


def test_pandas_and_duckdb_release_the_same_values_from_mixed_and_missing_cells(
        tmp_path: Path) -> None:
    """The same seed gives the same released values whether the file is loaded with pandas
    (`--engine pandas`) or read in place by DuckDB: ids as written, mixed and empty cells."""
    rows = ["id,m,g"] + [f"{i},{v},{g}" for i, v, g in [
        ("01", "1", "a"), ("1", "x", "b"), ("1", "", "a"), ("1.0", "2.5", "b"),
        ("2", " 3 ", "a"), ("2", "true", ""), ("3", "inf", "b"), ("3", "7", "a"),
        ("4", "NA", "b"), ("5", "1e1", "a"), ("5", "9", "b"), ("6", "4", "a")] * 3]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    grouped = {"id": "g", "kind": "sum", "column": "m", "lower": 0, "upper": 10,
               "epsilon": 1, "group_by": {"column": "g", "keys": ["a", "b"]}}
    plan = plan_from_dict(with_reasons(plan_dict(
        queries=[q for q in QUERIES if q["id"] != "rr"] + [grouped],
        privacy_unit={**PERSON, "max_rows": 2}, budget={"epsilon": 8, "delta": 0})))
    out = {}
    for engine in ("duckdb", "pandas"):  # the command line opens the table for both
        table = open_table(path)
        home = app_home(tmp_path / engine).ensure()
        result = publish(plan, table, tmp_path / f"{engine}.zip", home,
                         source=SeededRandomSource(17), engine=engine)
        out[engine] = {r.query_id: [(v.value, v.low, v.high) for v in r.values]
                       for r in result.releases}
    assert out["pandas"] == out["duckdb"]
    assert table.loaded  # the pandas engine loaded it (DuckDB read the file in place)
    assert set(out["pandas"]) == {"s", "mi", "h", "hi", "b", "c", "q", "g"}


@pytest.mark.parametrize("cells", [[1, True, 0, False, "1", 1.0, None, "true"],
                                   [True, 1, False, 0, 1.0, None],
                                   [1.0, True, np.nan, 0.0, False, "TRUE", "0"]])
def test_a_bool_and_a_number_in_one_column_are_two_values(cells: list[Any]) -> None:
    """True and 1 are one value to pandas (whichever comes first names both), two keys to
    canonical_key (the specification): the frame's cells keep their own reading."""
    declared = [1, True, 0, False]
    keys = [canonical_key(v) for v in declared]
    expected = [sum(1 for v in cells if v is not None and v == v and canonical_key(v) == k)
                for k in keys]
    plan = plan_of([{"id": "h", "kind": "histogram", "column": "m", "categories": declared,
                     "epsilon": 1}])
    frame = pd.DataFrame({"m": pd.Series(cells, dtype=object)})
    left, right = oracle_and_frame(plan, frame, "pandas")
    assert right["h"]["parts"]["cells"] == expected
    assert left == right


def test_the_owner_facts_read_a_frame_as_the_engine_does() -> None:
    """The check's cell facts (data/facts.py) register the frame as the engine does
    (data/frame_cells.py): the same cells dropped, imputed and left out."""
    plan = plan_of(QUERIES)
    frame = pd.DataFrame({"m": pd.concat([MIXED, pd.Series([1, True, False, 0])],
                                         ignore_index=True)})
    _, per_query = cell_facts(frame_source("t", frame), plan)
    _, engine = oracle_and_frame(plan, frame, "pandas")
    for q in plan.queries:
        assert vars(per_query[q.id]) == engine[q.id]["facts"], q.id
