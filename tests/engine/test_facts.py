"""Column facts, the fit rules and the owner's dropped-cell counts are engine (DuckDB) queries
(core/data/facts.py); each must give the answer the pandas reading gives, cell rule for cell
rule, on tables full of awkward cells — for a file read in place, a Parquet file and a frame."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data import cells_sql, facts, facts_reader
from planner_app.core.data.fit import ABSENT, NEITHER, distinct_values, yes_no_codes
from planner_app.core.data.source import TableSource
from planner_app.core.data.tables import load_table, numeric_values, open_table, source_of
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.model import canonical_key, text_number
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from tests.conftest import plan_dict
from tests.oracle.pandas_engine import PandasEngine

# cells whose reading is easy to get wrong: spaces (ASCII and not), signs, exponents, an
# underscore and hex (not numbers), non-ASCII digits, overflow, infinities, true/false in any
# case, a comma decimal, leading zeros, negative zero
TRICKY = [" 5 ", "5.", ".5", "+1.5", "1e5", "1_000", "0x10", "١٢", "1e999", "-inf",
          "Infinity", "TRUE", " false ", "yes", "\u00a07\u3000", "1,5", "abc", "-0", "0",
          "1.0", "01", "  ", "No", "1", "-2.50", "1e-7", "12345678901234567890", ""]


ODD_NUMBERS = [" 5 ", "1e999", "-inf", "1_000", "\u00a07\u3000", "TRUE", "-0", "1e-7"]


def tricky_frame(n: int = 3) -> pd.DataFrame:
    cells = TRICKY * n
    return pd.DataFrame({
        "x": cells,
        "y": [str(i % 7) for i in range(len(cells))],
        # a column of numbers (over 95%) with awkward cells among them
        "z": [ODD_NUMBERS[i // 20 % len(ODD_NUMBERS)] if i % 20 == 0 else str(i * 0.25 - 3)
              for i in range(len(cells))],
        "g": ["a", "b", " a", "c"] * (len(cells) // 4) + ["a"] * (len(cells) % 4),
    })


def sources(tmp_path: Path, frame: pd.DataFrame) -> dict[str, tuple[pd.DataFrame, TableSource]]:
    """The same table three ways: a CSV in place, a Parquet file in place, a frame; each with
    the frame pandas reads from it (the answer the engine must give)."""
    csv = tmp_path / "t.csv"
    frame.to_csv(csv, index=False)
    parquet = tmp_path / "t.parquet"
    frame.to_parquet(parquet, index=False)
    out = {}
    for name, path in (("csv", csv), ("parquet", parquet)):
        opened = open_table(path)
        assert opened.source is not None and opened.source.in_place
        out[name] = (load_table(path).frame, opened.source)
    out["frame"] = (frame, source_of(load_table(csv)))
    out["frame"] = (out["frame"][1].frame, out["frame"][1])  # type: ignore[assignment]
    return out


def pandas_facts(series: pd.Series) -> tuple[float | None, float | None, float, frozenset[str]]:
    values, bad = numeric_values(series)
    good = values[~bad]
    # every cell's key (pd.unique would fold True into 1: they hash alike)
    present = frozenset(canonical_key(v.item() if isinstance(v, np.generic) else v)
                        for v in series.dropna().tolist())
    return (float(good.min()) if good.size else None, float(good.max()) if good.size else None,
            float((~bad).mean()), present)


@pytest.mark.parametrize("kind", ["csv", "parquet", "frame"])
def test_column_facts_match_the_pandas_reading(tmp_path: Path, kind: str) -> None:
    frame, source = sources(tmp_path, tricky_frame())[kind]
    got = facts.column_facts(source, ["x", "y", "z", "g"])
    for col in ("x", "y", "z", "g"):
        lo, hi, share, present = pandas_facts(frame[col])
        seen = got[col]
        assert (seen.minimum, seen.maximum) == (lo, hi), col
        assert math.isclose(seen.numeric_share, share), col
        assert seen.present == present, col


def test_the_number_rule_cell_by_cell() -> None:
    """Each tricky cell alone: the engine's number is cells.cell_number's."""
    frame = pd.DataFrame({"x": TRICKY})
    source = TableSource(name="t", format="frame", columns=("x",), frame=frame)
    with facts_reader.Reader(source, ["x"]) as r:
        c = r.cell("x")
        rows = r.run(f"SELECT {c.number}, {c.key_num}, {c.key_txt} FROM {r.src}")
    values, bad = numeric_values(frame["x"])
    for cell, (number, key_num, key_txt), value, b in zip(TRICKY, rows, values, bad,
                                                          strict=True):
        assert (number is None) == bool(b), repr(cell)
        if number is not None:
            assert number == value, repr(cell)
        assert cells_sql.cell_key(key_num, key_txt) == canonical_key(cell), repr(cell)


@pytest.mark.parametrize("kind", ["csv", "parquet", "frame"])
def test_yes_no_tally_and_distinct_values(tmp_path: Path, kind: str) -> None:
    frame, source = sources(tmp_path, tricky_frame())[kind]
    for extra in ({}, {"yes": ["yes", 1, "TRUE"], "no": ["No", "0", " false "]}):
        q = plan_from_dict(plan_dict(queries=[{"id": "r", "kind": "randomized_response",
                                               "column": "x", "epsilon": 1.0, **extra}]))
        query = q.queries[0]
        codes = yes_no_codes(query, frame["x"])
        want = facts.YesNoTally(int((codes == 1).sum()), int((codes == 0).sum()),
                                int((codes == NEITHER).sum()), int((codes == ABSENT).sum()))
        assert facts.yes_no_tally(source, query) == want
    assert facts.distinct_values(source, "x", limit=1000) == distinct_values(frame["x"], 1000)
    assert facts.distinct_values(source, "g") == distinct_values(frame["g"])


def test_a_frame_with_mixed_cells() -> None:
    """A frame (Excel, tests) whose column holds numbers, bools, text and gaps together."""
    frame = pd.DataFrame({"x": [1, 2.5, True, "7", " 8 ", None, "a", np.nan, False, 10**30]})
    source = TableSource(name="t", format="frame", columns=("x",), frame=frame)
    lo, hi, share, present = pandas_facts(frame["x"])
    got = facts.column_facts(source, ["x"])["x"]
    assert (got.minimum, got.maximum, got.present) == (lo, hi, present)
    assert math.isclose(got.numeric_share, share)


PLAN_QUERIES: list[dict[str, Any]] = [
    {"id": "c", "kind": "count", "column": "x", "epsilon": 1.0},
    {"id": "ci", "kind": "count", "column": "x", "epsilon": 1.0,
     "missing": {"impute": 0}},
    {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 10, "epsilon": 1.0},
    {"id": "mi", "kind": "sum", "column": "x", "lower": 0, "upper": 10, "epsilon": 1.0,
     "missing": {"impute": 3}},
    {"id": "hc", "kind": "histogram", "column": "g", "categories": ["a", "b"], "epsilon": 1.0},
    {"id": "hci", "kind": "histogram", "column": "x", "categories": [5, "yes", "abc"],
     "epsilon": 1.0, "missing": {"impute": "abc"}},
    {"id": "hb", "kind": "histogram", "column": "x", "bins": [0, 1, 5, 10], "epsilon": 1.0},
    {"id": "hbi", "kind": "histogram", "column": "x", "bins": [0, 1, 5, 9], "epsilon": 1.0,
     "missing": {"impute": 7}},
    {"id": "gm", "kind": "mean", "column": "y", "lower": 0, "upper": 9, "epsilon": 1.0,
     "group_by": {"column": "g", "keys": ["a", "c"]},
     "where": [{"column": "x", "op": ">=", "value": 0.5}]},
    {"id": "w", "kind": "count", "column": "y", "epsilon": 1.0,
     "where": [{"column": "g", "op": "!=", "value": "b"},
               {"column": "y", "op": "in", "value": [1, "2", 3.0]}]},
    {"id": "rr", "kind": "randomized_response", "column": "y", "epsilon": 1.0,
     "yes": ["1", "2"], "no": ["3"]},
]


@pytest.mark.parametrize("kind", ["csv", "parquet", "frame"])
def test_dropped_cells_match_the_pandas_engine(tmp_path: Path, kind: str) -> None:
    frame, source = sources(tmp_path, tricky_frame())[kind]
    plan = plan_from_dict(plan_dict(queries=PLAN_QUERIES))
    engine = PandasEngine(plan, frame, SeededRandomSource(1), "t")
    dropped, got = facts.cell_facts(source, plan)
    assert dropped == 0
    for q in plan.queries:
        want = engine.aggregate(q).facts
        seen = got[q.id]
        if q.id in ("hbi", "hci"):  # a histogram's filled-in cells, counted before filling
            bad = numeric_values(frame["x"])[1] if q.id == "hbi" else frame["x"].isna()
            assert want.missing_imputed == int(bad.sum())
            assert want.missing_imputed > 0 or q.id == "hci"
        assert (seen.missing_dropped, seen.missing_imputed, seen.outside_declared,
                seen.not_yes_no, seen.rows_considered) == \
            (want.missing_dropped, want.missing_imputed, want.outside_declared,
             want.not_yes_no, want.rows_considered), q.id


def test_rows_beyond_the_limit_per_person(tmp_path: Path) -> None:
    frame = pd.DataFrame({"pid": [1, 1, 1, 2, 2, 3, 4, 4, 4, 4], "x": range(10)})
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    plan = plan_from_dict(plan_dict(privacy_unit={"kind": "person", "id_column": "pid",
                                                  "max_rows": 2}))
    engine = PandasEngine(plan, frame, SeededRandomSource(1), "p")
    dropped, _ = facts.cell_facts(open_table(path).source, plan)  # type: ignore[arg-type]
    assert dropped == engine.rows_dropped_by_bound == 1 + 2


def test_check_with_an_opened_table_never_loads_it(tmp_path: Path) -> None:
    """check --data on a file opened in place answers from engine queries: the rows are
    never loaded into pandas, and the warnings are those of the loaded table."""
    frame = tricky_frame(20)
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    plan = plan_from_dict(plan_dict(queries=[
        *PLAN_QUERIES[:4],
        {"id": "b", "kind": "sum", "column": "y", "lower": 0, "upper": 6, "epsilon": 1.0},
        {"id": "k", "kind": "histogram", "column": "g", "categories": ["a", "b", "c"],
         "epsilon": 1.0}]))
    opened = open_table(path)
    report = check_plan(plan, opened)
    assert opened.loaded is False
    loaded = check_plan(plan, load_table(path))
    assert report.warnings == loaded.warnings
    assert report.owner_facts == loaded.owner_facts
    assert any("own minimum and maximum" in w for w in report.warnings)
    assert any("exactly the values present" in w for w in report.warnings)
    assert any("will be dropped" in f for f in report.owner_facts)


def spells_number(value: Any) -> bool:
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return True
    number = text_number(str(value).strip())
    return number is not None and not math.isnan(number)


@pytest.mark.parametrize("kind", ["csv", "parquet", "frame"])
def test_the_opening_pass_gives_each_columns_facts(tmp_path: Path, kind: str) -> None:
    """The one pass that opens a table (row count, missing cells, type) also gives each
    column's min, max, share of numbers and numeric cells: what the checks need later."""
    frame, source = sources(tmp_path, tricky_frame())[kind]
    rows, infos = facts.table_facts(source)
    assert rows == len(frame) and source.count_rows() == len(frame)
    numeric = [i.name for i in infos if i.detected_type == "number"]
    assert {"y", "z"} <= set(numeric)
    for info in infos:
        series = frame[info.name]
        lo, hi, share, present = pandas_facts(series)
        assert info.missing == int(series.isna().sum()), info.name
        if info.name not in numeric:  # read when a check asks (column_facts)
            assert info.facts is None and info.filled_numbers is None
            continue
        assert info.facts is not None
        assert (info.facts.minimum, info.facts.maximum) == (lo, hi), info.name
        assert math.isclose(info.facts.numeric_share, share), info.name
        assert info.facts.present == present, info.name
        filled = series.dropna().tolist()
        assert info.filled_numbers == (len(filled), sum(spells_number(v) for v in filled))


def test_the_opening_pass_reports_progress_and_cancel_interrupts_it(tmp_path: Path) -> None:
    """The engine's pass reports DuckDB's progress, and Cancel interrupts the query itself
    (not only between steps): Cancel is pressed once, while the pass runs, and is not pressed
    at any later check; the pass still ends in Cancelled, so the query itself was stopped
    (a pass run to its end would return the table's facts). No clock (issue 23)."""
    import threading

    import duckdb

    from planner_app.core.support.errors import Cancelled

    path = tmp_path / "big.csv"
    with duckdb.connect() as con:
        con.execute(f"COPY (SELECT i AS id, i % 90 AS age, 'r' || (i % 5) AS region "
                    f"FROM range(3000000) t(i)) TO '{path}' (HEADER)")
    seen: list[float] = []
    rows, _ = facts.table_facts(open_table(path).source,  # type: ignore[arg-type]
                                progress=lambda f, _m: seen.append(f))
    assert rows == 3_000_000
    assert seen and all(0 <= f <= 1 for f in seen) and seen == sorted(seen)
    pressed: list[str] = []

    def cancel() -> bool:  # pressed once, by the first look from a running query's watcher
        if pressed or threading.current_thread().name != "engine-progress":
            return False
        pressed.append("during the pass")
        return True

    with pytest.raises(Cancelled):
        facts.table_facts(open_table(path).source, cancel=cancel)  # type: ignore[arg-type]
    assert pressed == ["during the pass"]
