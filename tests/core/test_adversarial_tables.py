"""Tables from the adversarial pass (issue 22 §6): header names that differ only in case, a
file of nothing but a byte-order mark, UTF-32, a blank first line. Each is one clear line from
every reader (open in place for DuckDB, load into memory for pandas), never an engine error."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table, open_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.support.errors import InputError

PLAN = {"format": "planner-app/plan@1", "dataset": {"name": "t"},
        "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 2.0},
        "queries": [{"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 10,
                     "epsilon": 0.5, "justification": {"bounds": "a 0-10 scale"}}]}

CASES = [
    ("case.csv", b"x,X,g\n1,2,a\n",
     "case.csv: line 1, column 2: the column names 'x' (column 1) and 'X' differ only in "
     "letter case"),
    ("case-later.csv", b"g,Amount,x,AMOUNT\na,1,2,3\n",
     "line 1, column 4: the column names 'Amount' (column 2) and 'AMOUNT' differ only"),
    ("nfc-twins.csv", "g,\u00e9t\u00e9,e\u0301te\u0301\na,1,2\n".encode(),
     "line 1, column 3: the column names 'été' (column 2) and 'e\u0301te\u0301' are one name "
     "written with other Unicode code points"),
    ("bom-only.csv", codecs.BOM_UTF8, "bom-only.csv: is empty"),
    ("bom16-only.csv", codecs.BOM_UTF16_LE, "bom16-only.csv: is empty"),
    ("utf32.csv", "x,g\n1,a\n".encode("utf-32"),
     "utf32.csv: is UTF-32 text, which is not read here; save it as UTF-8"),
    ("utf32-be.csv", codecs.BOM_UTF32_BE + "x,g\n1,a\n".encode("utf-32-be"),
     "utf32-be.csv: is UTF-32 text"),
    ("bom-newline.csv", codecs.BOM_UTF8 + b"\n", "has no header row"),
    ("blank-first-line.csv", b"\nx,g\n1,a\n", "has no header row"),
]


@pytest.mark.parametrize(("name", "data", "message"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("reader", [open_table, load_table], ids=["in-place", "loaded"])
def test_a_hostile_table_is_one_clear_line(tmp_path: Path, reader, name: str, data: bytes,  # type: ignore[no-untyped-def]
                                           message: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        table = reader(path)
        check_plan(plan_from_dict(PLAN), table)  # the engine reads it (DuckDB by default)
    assert message in str(caught.value)


def test_columns_that_differ_in_case_are_refused_in_parquet_too(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "case.parquet"
    pq.write_table(pa.table({"x": [1, 2], "X": [3, 4]}), path)
    for reader in (open_table, load_table):
        with pytest.raises(InputError, match="'x' \\(column 1\\) and 'X' differ only"):
            reader(path)


def test_utf16_with_a_bom_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "utf16.csv"
    path.write_bytes("x,g\n1,a\n5,b\n".encode("utf-16"))
    assert load_table(path).n_rows == 2
