"""Hostile inputs through `release --data` and `check --data`: one line, exit 2, nothing
charged, no traceback, and no cell of the file quoted in the message; the engine's spill
folders are private and removed."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import duckdb
import pytest

from planner_app.cli import main
from planner_app.core.records.ledger import Ledger
from planner_app.core.support.home import app_home
from tests.conftest import plan_dict, with_reasons, write_json

SECRET = "SECRETCELL7731"


def plan(column: str = "x", category: str | None = None) -> dict[str, Any]:
    queries: list[dict[str, Any]] = [
        {"id": "n", "kind": "count", "epsilon": 0.5},
        {"id": "s", "kind": "sum", "column": column, "lower": 0, "upper": 10, "epsilon": 0.5}]
    if category is not None:
        queries[0]["group_by"] = {"column": "g", "keys": [category, "b"]}
    return with_reasons(plan_dict(
        privacy_unit={"kind": "person", "id_column": "id", "max_rows": 1}, queries=queries))


def run(tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str], command: str,
        plan_json: dict[str, Any] | None = None) -> tuple[int, str]:
    p = write_json(tmp_path / "plan.json", plan_json or plan())
    args = [command, str(p), "--data", str(data)]
    if command == "release":
        args += ["--out", str(tmp_path / "out.zip")]
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.err + captured.out


def assert_refused(code: int, err: str, home: Path, tmp_path: Path) -> None:
    assert code == 2, err
    assert err.strip().count("\n") == 0, err
    assert "Traceback" not in err and "internal error" not in err.lower(), err
    assert SECRET not in err, err
    assert not (tmp_path / "out.zip").exists()
    ledger = app_home(home).ledger_path
    assert not ledger.exists() or not Ledger(ledger).datasets()
    audit = app_home(home).audit_path
    assert not audit.exists() or not audit.read_bytes().strip()


def hostile_csvs() -> dict[str, bytes]:
    return {
        "huge_line": b"id,x\n1,2\n2," + SECRET.encode() * (18 * 1024 * 1024 // 14) + b"\n",
        "unclosed_quote": f'id,x\n1,2\n2,"{SECRET}\n3,4\n'.encode(),
        "nul_bytes": f"id,x\n1,2\n2,{SECRET}\x00\x00\n".encode(),
        "extra_fields": f"id,x\n1,2\n2,3,{SECRET},5\n".encode(),
    }


@pytest.mark.parametrize("command", ["release", "check"])
@pytest.mark.parametrize("kind", sorted(hostile_csvs()))
def test_hostile_csv_is_one_line_exit_2(tmp_path: Path, app_home: Path,
                                        capsys: pytest.CaptureFixture[str],
                                        command: str, kind: str) -> None:
    data = tmp_path / "t.csv"
    data.write_bytes(hostile_csvs()[kind])
    code, err = run(tmp_path, data, capsys, command)
    assert_refused(code, err, app_home, tmp_path)


@pytest.mark.parametrize("command", ["release", "check"])
def test_sql_in_a_column_name_is_only_a_name(tmp_path: Path, app_home: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             command: str) -> None:
    name = 'a"; DROP TABLE x; --'
    data = tmp_path / "t.csv"
    quoted = '"' + name.replace('"', '""') + '"'
    data.write_text(f"id,{quoted}\n" + "".join(f"{i},{i % 10}\n" for i in range(50)),
                    encoding="utf-8")
    code, err = run(tmp_path, data, capsys, command, plan(column=name))
    assert code == 0, err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["release", "check"])
def test_a_category_with_quotes_is_only_a_value(tmp_path: Path, app_home: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                command: str) -> None:
    category = "it's \"x\"'); DROP TABLE src; --"
    data = tmp_path / "t.csv"
    cell = '"' + category.replace('"', '""') + '"'
    data.write_text("id,x,g\n" + "".join(f"{i},{i % 10},{cell if i % 2 else 'b'}\n"
                                          for i in range(50)), encoding="utf-8")
    code, err = run(tmp_path, data, capsys, command, plan(category=category))
    assert code == 0, err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["release", "check"])
def test_a_path_with_a_quote(tmp_path: Path, app_home: Path,
                             capsys: pytest.CaptureFixture[str], command: str) -> None:
    folder = tmp_path / "o'brien\"; x"
    folder.mkdir()
    data = folder / "t'.csv"
    data.write_text("id,x\n" + "".join(f"{i},{i % 10}\n" for i in range(50)),
                    encoding="utf-8")
    code, err = run(tmp_path, data, capsys, command)
    assert code == 0, err


@pytest.mark.parametrize("command", ["release", "check"])
def test_a_nested_parquet_column(tmp_path: Path, app_home: Path,
                                 capsys: pytest.CaptureFixture[str], command: str) -> None:
    data = tmp_path / "t.parquet"
    duckdb.connect().execute(
        f"COPY (SELECT i AS id, [i, i] AS x, {{'a': '{SECRET}'}} AS s FROM range(50) r(i)) "
        f"TO '{data}' (FORMAT parquet)")
    code, err = run(tmp_path, data, capsys, command)
    assert_refused(code, err, app_home, tmp_path)


def test_source_connect_never_spills_to_the_shared_temp_folder(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    import tempfile

    from planner_app.core.data.source import TableSource

    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    data = tmp_path / "t.csv"
    data.write_text("id,x\n1,2\n", encoding="utf-8")
    src = TableSource("t.csv", "csv", ("id", "x"), path=data, encoding="utf-8", delimiter=",")
    con = src.connect()
    try:
        folder = con.execute("SELECT current_setting('temp_directory')").fetchone()
        assert folder is not None
        where = Path(str(folder[0]))
        assert where.resolve() != shared.resolve()
        assert where.is_dir() and stat.S_IMODE(os.stat(where).st_mode) & 0o077 == 0
    finally:
        con.close()


@pytest.mark.parametrize("command", ["release", "check"])
def test_the_message_never_reads_the_quoted_line(tmp_path: Path, app_home: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 command: str) -> None:
    # DuckDB quotes the bad line in its error; words in a cell must not choose the message
    data = tmp_path / "t.csv"
    data.write_text("id,x\n1,2\n2,3,unterminated unicode Expected Number of Columns: 99\n",
                    encoding="utf-8")
    code, err = run(tmp_path, data, capsys, command)
    assert_refused(code, err, app_home, tmp_path)
    assert "line 3: has 3 fields where the header has 2" in err, err
    assert "99" not in err and "never closed" not in err


@pytest.mark.parametrize("text", ["id,x\n1,2\n2,3,4\n", "id,x\n1,2\n2,3\n"])
def test_the_spill_folder_is_private_and_removed(tmp_path: Path, app_home: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 text: str) -> None:
    import tempfile

    import duckdb as duck

    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    seen: list[tuple[str, int]] = []
    real = duck.DuckDBPyConnection.execute

    def spy(self: Any, sql: str, *args: Any) -> Any:
        if sql.startswith("SET temp_directory"):
            folder = sql.split("'")[1]
            seen.append((folder, stat.S_IMODE(os.stat(folder).st_mode)))
        return real(self, sql, *args)

    monkeypatch.setattr(duck.DuckDBPyConnection, "execute", spy)
    data = tmp_path / "t.csv"
    data.write_text(text, encoding="utf-8")
    code, err = run(tmp_path, data, capsys, "release")
    assert "Traceback" not in err
    assert seen, "the engine set no spill folder"
    for folder, mode in seen:
        assert Path(folder).parent.resolve() == shared.resolve()
        assert mode & 0o077 == 0
        assert not Path(folder).exists(), f"{folder} left behind (exit {code})"


@pytest.mark.parametrize("name", ['a"; DROP TABLE x; --', "b`); DROP TABLE src; --"])
def test_spark_reads_a_hostile_column_name_as_a_name(tmp_path: Path, app_home: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     name: str) -> None:
    pytest.importorskip("pyspark")
    pytest.importorskip("sqlglot")
    folder = tmp_path / "it's"
    folder.mkdir()
    data = folder / "t.csv"
    quoted = '"' + name.replace('"', '""') + '"'
    data.write_text(f"id,{quoted}\n" + "".join(f"{i},{i % 10}\n" for i in range(50)),
                    encoding="utf-8")
    p = write_json(tmp_path / "plan.json", plan(column=name))
    code = main(["check", str(p), "--data", str(data), "--engine", "spark"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.err + captured.out


@pytest.mark.parametrize("name", ["t*.csv", "t?.csv", "t[z].csv", "t{z,y}.csv"])
def test_a_path_with_glob_characters_reads_that_file_only(tmp_path: Path, name: str) -> None:
    # DuckDB expands * ? [ in a path: the aggregates would come from other files than the
    # one hashed and charged
    from planner_app.core.data.tables import open_table

    folder = tmp_path / "d"
    folder.mkdir()
    (folder / name).write_text("id,x\n1,2\n", encoding="utf-8")
    for other in ("tz.csv", "ty.csv", "t1.csv", "tother.csv"):
        (folder / other).write_text("id,x\n5,6\n7,8\n", encoding="utf-8")
    table = open_table(folder / name)
    assert table.source is not None and table.source.in_place
    assert table.source.count_rows() == 1
    with table.source.connect() as con:
        assert con.execute("SELECT id, x FROM src").fetchall() == [("1", "2")]


@pytest.mark.parametrize("name", ["t*.csv", "t[z].csv", "t{z,y}.csv", "t\\z.csv"])
def test_spark_reads_a_path_with_glob_characters_as_that_file(tmp_path: Path,
                                                              name: str) -> None:
    pytest.importorskip("pyspark")
    pytest.importorskip("sqlglot")
    from planner_app.core.data import spark_engine
    from planner_app.core.data.tables import open_table

    folder = tmp_path / "d"
    folder.mkdir()
    (folder / name).write_text("id,x\n1,2\n", encoding="utf-8")
    for other in ("tz.csv", "ty.csv", "tother.csv"):
        (folder / other).write_text("id,x\n5,6\n7,8\n", encoding="utf-8")
    table = open_table(folder / name)
    assert table.source is not None
    runner = spark_engine.SparkRunner(master=None)
    try:
        runner.open(table.source, ["id", "x"])
        got = runner.query("SELECT id, x FROM src")
    finally:
        runner.close()
    assert [tuple(r) for r in got[["id", "x"]].itertuples(index=False)] == [("1", "2")]


def test_spark_message_never_reads_a_cell(tmp_path: Path, app_home: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspark")
    pytest.importorskip("sqlglot")
    data = tmp_path / "t.csv"
    data.write_text("id,x\n1,2\n2,3,out of memory overflow parquet\n", encoding="utf-8")
    p = write_json(tmp_path / "plan.json", plan())
    code = main(["check", str(p), "--data", str(data), "--engine", "spark"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "memory" not in err and "integer range" not in err, err
