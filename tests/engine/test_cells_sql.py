"""One reading of a cell: the owner's facts (facts_reader.Reader) and the release engine
(sql_plan.SqlEngine) both read cells through cells_sql.py, and both agree, cell by cell, with
the specification in model/values.py (``text_number``, ``canonical_key``, ``yes_no``) applied
to the cells as pandas reads the same file (cells.cell_number)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data import cells_sql, facts_reader
from planner_app.core.data.cells import cell_number
from planner_app.core.data.cells_sql import (
    NUMBER_RE,
    PLAIN_NUMBER,
    is_nested,
    type_class,
)
from planner_app.core.data.sql_aggregates import MISSING, UNDECLARED
from planner_app.core.data.sql_plan import SqlEngine
from planner_app.core.data.sql_runner import DuckDBRunner
from planner_app.core.data.tables import load_table, open_table, source_of
from planner_app.core.model import canonical_key, text_number, yes_no
from tests.engine.helpers import SALT, plan_of

# blank, white space (ASCII and not), exponents, NaN and infinities in every spelling,
# booleans and yes/no words in any case, Unicode digits, very long numbers, signs, zeros
TRICKY = ["", " ", "\t", "\u00a0", "1e3", " 1e3 ", "1E+03", "NaN", "nan", "-nan", "inf",
          "-Infinity", "INF", "true", "False", " TRUE ", "yes", "No", "Y", "١٢", "１２",
          "\u00a07\u3000", "1" * 400, "9" * 310, "1e308", "1e309", "-1e-400",
          "12345678901234567890", "0.1", "+.5", "5.", "-0", "-0.0", "0", "01", "1_000",
          "0x10", "1,5", "abc", " a ", "NA", "null", "None"]


def _frame() -> pd.DataFrame:
    # a second column: no line of the file is blank (pandas skips a blank line)
    return pd.DataFrame({"x": TRICKY, "at": range(len(TRICKY))})


def _sources(tmp_path: Path) -> dict[str, tuple[pd.DataFrame, Any]]:
    """The cells as a CSV file read in place, a Parquet file of typed columns read in place,
    and a frame: each with the frame pandas reads (the cells the specification reads)."""
    csv = tmp_path / "t.csv"
    _frame().to_csv(csv, index=False)
    typed = pd.DataFrame({
        "x": [0.5, float("nan"), float("inf"), -float("inf"), -0.0, 1e308, None, 3.0],
        "b": [True, False, None, True, False, True, None, False],
        "i": pd.array([1, 2**62, None, -5, 0, 12, 7, None], dtype="Int64"),
    })
    parquet = tmp_path / "t.parquet"
    typed.to_parquet(parquet, index=False)
    out: dict[str, tuple[pd.DataFrame, Any]] = {}
    for name, path in (("csv", csv), ("parquet", parquet)):
        opened = open_table(path)
        assert opened.source is not None
        out[name] = (load_table(path).frame, opened.source)
    frame_source = source_of(load_table(csv))
    assert frame_source.frame is not None
    out["frame"] = (frame_source.frame, frame_source)
    return out


def _spec_number(value: Any) -> float | None:
    """The finite number of a cell (None otherwise), from model/values.py's rules."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    x = cell_number(value)
    return x if math.isfinite(x) else None


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _values(series: pd.Series) -> list[Any]:
    return [None if _missing(v) else (v.item() if isinstance(v, np.generic) else v)
            for v in series.astype(object).tolist()]


@pytest.mark.parametrize("where", ["csv", "parquet", "frame"])
def test_facts_and_the_engine_read_every_cell_as_the_specification(tmp_path: Path,
                                                                   where: str) -> None:
    frame, source = _sources(tmp_path)[where]
    columns = [str(c) for c in frame.columns if c != "at"]
    for column in columns:
        values = _values(frame[column])
        want_number = [_spec_number(v) for v in values]
        want_key = [None if v is None else canonical_key(v) for v in values]
        # the owner's facts
        with facts_reader.Reader(source, [column]) as r:
            c = r.cell(column)
            rows = r.run(f"SELECT {c.missing}, {c.number}, {c.key_num}, {c.key_txt} "
                         f"FROM {r.src}")
        assert [bool(m) for m, *_ in rows] == [v is None for v in values], column
        assert [n for _, n, _, _ in rows] == want_number, column
        got_keys = [None if m else cells_sql.cell_key(kn, kt) for m, _, kn, kt in rows]
        assert got_keys == want_key, column
        # the release engine: numbers, presence, and the index of each key in a declared list
        declared = sorted({k for k in want_key if k is not None})
        plan = plan_of([{"id": "c", "kind": "count", "column": column, "epsilon": 1}])
        engine = SqlEngine(plan, source, DuckDBRunner(), SALT, "t")
        try:
            n, p = engine.number(column), engine.present(column)
            k = engine.index_in(column, declared)
            joins = " ".join(dict.fromkeys(j for name in (n, k)
                                           for j in engine._d.joins[name]))
            got = engine.runner.query(
                f"SELECT r.__row AS at, {engine._d.exprs[n]} AS n, {engine._d.exprs[p]} AS p, "
                f"{engine._d.exprs[k]} AS k FROM src r {joins} ORDER BY r.__row")
        finally:
            engine.close()
        numbers = [None if pd.isna(x) else float(x) for x in got["n"]]
        assert numbers == want_number, column
        assert [bool(x) for x in got["p"]] == [v is not None for v in values], column
        assert [int(x) for x in got["k"]] == [
            MISSING if key is None else declared.index(key) for key in want_key], column
        assert UNDECLARED not in set(got["k"])


def test_the_yes_no_words_and_the_number_syntax_are_the_specification() -> None:
    """The SQL patterns are model/values.py's rules: NUMBER_RE accepts exactly the ASCII
    texts text_number reads, and PLAIN_NUMBER only texts it reads (the engine casts those)."""
    import re

    for text in TRICKY + ["1e", "e1", ".", "+", "1.2.3", "Infinity", "infinity", "nan(1)"]:
        t = text.strip()
        full = re.fullmatch(NUMBER_RE, t) is not None
        assert full == (text_number(t) is not None), repr(text)
        if re.search(PLAIN_NUMBER, text):
            assert text_number(text) is not None, repr(text)
    assert [yes_no(v) for v in ("yes", " TRUE ", "No", "1", "0", "Y")] == \
        [True, True, False, True, False, None]


def test_type_classes() -> None:
    assert [type_class(t) for t in ("VARCHAR", "DOUBLE", "FLOAT", "BIGINT", "BOOLEAN",
                                    "DECIMAL(18,3)", "DATE", "INTEGER[]", "STRUCT(a INTEGER)",
                                    "MAP(VARCHAR, INTEGER)")] == \
        ["text", "float", "float", "int", "bool", "decimal", "other", "nested", "nested",
         "nested"]
    assert is_nested("VARCHAR[]") and not is_nested("VARCHAR")


def test_no_cell_rule_in_sql_outside_cells_sql() -> None:
    """What a cell means is written in SQL once, in cells_sql.py (issue 23, one cell
    reader): no other data module's SQL text casts a cell to a number or matches it with a
    pattern. (spark_engine.py translates the dialect: its regexps are sqlglot's nodes.)"""
    import ast

    data = Path(cells_sql.__file__).parent
    found = []
    for path in sorted(data.glob("*.py")):
        if path.name == "cells_sql.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(node.body[0].value) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
                and node.body and isinstance(node.body[0], ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in docs and re.search(r"(?i)try_cast|regexp_|rlike",
                                                           node.value):
                found.append(f"{path.name}:{node.lineno}: {node.value.strip()[:60]}")
    assert found == []
