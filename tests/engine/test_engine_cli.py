"""The command line reads tables through DuckDB by default: a malformed line or a damaged
Parquet file is a one-line input error (exit 2) and nothing is charged; --engine chooses."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from planner_app.cli import main
from planner_app.core.records.ledger import Ledger
from planner_app.core.support.home import app_home
from tests.conftest import plan_dict, with_reasons, write_json

PLAN = with_reasons(plan_dict(
    privacy_unit={"kind": "person", "id_column": "id", "max_rows": 1},
    queries=[{"id": "n", "kind": "count", "epsilon": 0.5},
             {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 10,
              "epsilon": 0.5}]))


def release(tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str],
            *extra: str) -> tuple[int, str]:
    plan = write_json(tmp_path / "plan.json", PLAN)
    code = main(["release", str(plan), "--data", str(data), "--out",
                 str(tmp_path / "out.zip"), *extra])
    return code, capsys.readouterr().err


def nothing_charged(home: Path) -> bool:
    ledger = app_home(home).ledger_path
    return not ledger.exists() or not Ledger(ledger).datasets()


@pytest.mark.parametrize(("text", "words"), [
    ("id,x\n1,2\n2,\"3\n3,4\n", "quoted cell is never closed"),
    ("id,x\n1,2\n2,3,4,5\n3,4\n", "line 3: has 4 fields where the header has 2"),
])
def test_a_malformed_csv_line_is_an_input_error(tmp_path: Path, app_home: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                text: str, words: str) -> None:
    data = tmp_path / "t.csv"
    data.write_text(text, encoding="utf-8")
    code, err = release(tmp_path, data, capsys)
    assert code == 2
    assert err.count("\n") == 1 and "t.csv" in err and words in err and "line" in err
    assert "Traceback" not in err and not (tmp_path / "out.zip").exists()
    assert nothing_charged(app_home)


def test_a_damaged_parquet_file_is_an_input_error(tmp_path: Path, app_home: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.parquet"
    duckdb.connect().execute(
        f"COPY (SELECT i AS id, CAST(i % 10 AS DOUBLE) AS x FROM range(200000) r(i)) TO "
        f"'{good}' (FORMAT parquet, COMPRESSION uncompressed, ROW_GROUP_SIZE 50000)")
    raw = bytearray(good.read_bytes())
    middle = len(raw) // 2
    raw[middle:middle + 4096] = b"\xff" * 4096  # the footer is intact, a data page is not
    data = tmp_path / "t.parquet"
    data.write_bytes(bytes(raw))
    code, err = release(tmp_path, data, capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and "t.parquet" in err and "Parquet" in err
    assert "Traceback" not in err and not (tmp_path / "out.zip").exists()
    assert nothing_charged(app_home)


@pytest.mark.parametrize("engine", ["duckdb", "pandas"])
def test_release_with_either_engine(tmp_path: Path, app_home: Path,
                                    capsys: pytest.CaptureFixture[str], engine: str) -> None:
    data = tmp_path / "t.csv"
    data.write_text("id,x\n1,2\n1,3\n2,4\n3,junk\n", encoding="utf-8")
    code, err = release(tmp_path, data, capsys, "--engine", engine)
    assert code == 0, err
    assert (tmp_path / "out.zip").exists()
    assert not nothing_charged(app_home)  # (the check above can fail)
