"""Invalid UTF-8 in a CSV (issue 13): one rule for every engine. The file is refused before
the charge with one line naming the file, the line and the column of the first invalid byte,
whether or not the plan reads that column (DuckDB and Spark read only the plan's columns and
accepted such a file; the pandas engine refused it without saying where)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner_app.core.data.tables import open_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home as home_at
from tests.conftest import plan_dict, with_reasons

GOOD_ROWS = 20_000  # past the 64 KB sample the encoding is detected from

ENGINES = ["duckdb", "pandas",
           pytest.param("spark", marks=pytest.mark.skipif(
               not __import__("importlib").util.find_spec("pyspark"), reason="no pyspark"))]


def _table(tmp_path: Path, bad_line: bytes, tail: bytes = b"") -> tuple[Path, int]:
    path = tmp_path / "t.csv"
    good = b"".join(b"%d,x,caf\xc3\xa9\n" % i for i in range(GOOD_ROWS))
    path.write_bytes(b"a,b,c\n" + good + bad_line + b"1,y,z\n" + tail)
    return path, GOOD_ROWS + 2  # the header is line 1


def _release(tmp_path: Path, path: Path, engine: str) -> InputError:
    # the plan reads column b only: a count and b's histogram
    plan = plan_from_dict(with_reasons(plan_dict(
        queries=[{"id": "n", "kind": "count", "epsilon": 0.5},
                 {"id": "h", "kind": "histogram", "column": "b", "categories": ["x", "y"],
                  "epsilon": 0.5}])))
    home = home_at(tmp_path / "home")
    with pytest.raises(InputError) as refused:
        publish(plan, open_table(path), tmp_path / "b.zip", home, engine=engine)
    assert not (tmp_path / "b.zip").exists()
    if home.ledger_path.exists():
        assert not Ledger(home.ledger_path).state("test").releases
    return refused.value


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("bad", "column"), [
    (b"7,\xff,z\n", 2),  # a column the plan reads
    (b"7,y,caf\xe9\n", 3),  # a column the plan never reads (latin-1 in a UTF-8 file)
    (b"7,y,\"two\nlines \xc3\"\n", None),  # a quoted cell from the line before: no column
])
def test_invalid_utf8_is_refused_naming_line_and_column(tmp_path: Path, engine: str,
                                                        bad: bytes, column: int | None) -> None:
    path, line = _table(tmp_path, bad)
    line += bad.count(b"\n") - 1  # the invalid byte's own line
    message = str(_release(tmp_path, path, engine))
    where = f"line {line}" + (f", column {column}" if column else "")
    assert message == (f"t.csv: {where}: is not valid utf-8 text (a byte sequence that is no "
                       "character; save the file as UTF-8)"), message


@pytest.mark.parametrize("engine", ENGINES)
def test_a_character_cut_by_the_end_of_the_file_is_refused(tmp_path: Path,
                                                          engine: str) -> None:
    path, line = _table(tmp_path, b"", tail=b"2,y,caf\xc3")
    message = str(_release(tmp_path, path, engine))
    assert message.startswith(f"t.csv: line {line + 1}, column 3: is not valid utf-8 text")
