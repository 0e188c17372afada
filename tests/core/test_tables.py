"""Tables: formats, delimiters and encodings detected; bad files give one clear line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from planner_app.core.data.tables import describe_columns, load_table
from planner_app.core.support.errors import Cancelled, InputError


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name,data,delimiter,encoding", [
    ("a.csv", b"id,age\n1,30\n2,40\n", ",", "utf-8"),
    ("a.csv", b"id;age\n1;30\n2;40\n", ";", "utf-8"),
    ("a.tsv", b"id\tage\n1\t30\n2\t40\n", "\t", "utf-8"),
    ("a.csv", "\ufeffid,age\n1,30\n2,40\n".encode("utf-8"), ",", "utf-8-sig"),
    ("a.csv", "id,city\n1,Malm\u00f6\n2,Z\u00fcrich\n".encode("cp1252"), ",", "cp1252"),
    ("a.csv", "id,city\n1,Malm\u00f6\n2,Z\u00fcrich\n".encode("utf-16"), ",", "utf-16"),
])
def test_detects_delimiter_and_encoding(tmp_path: Path, name: str, data: bytes, delimiter: str,
                                        encoding: str) -> None:
    table = load_table(write(tmp_path, name, data))
    assert table.delimiter == delimiter
    assert table.encoding == encoding
    assert table.n_rows == 2
    assert table.columns[0] == "id"
    assert len(table.sha256) == 64


def test_text_cells_survive_encodings(tmp_path: Path) -> None:
    data = "id,city\n1,Malm\u00f6\n".encode("cp1252")
    table = load_table(write(tmp_path, "c.csv", data))
    assert table.frame["city"].iloc[0] == "Malm\u00f6"


@pytest.mark.parametrize("name,data,words", [
    ("empty.csv", b"", "is empty"),
    ("header.csv", b"id,age\n", "header but no rows"),
    ("binary.csv", b"\x00\x01\x02\x03garbage", "binary file"),
    ("zip.csv", b"PK\x03\x04rest", "zip or Excel"),
    ("ragged.csv", b"a,b,c\n1,2,3\n4,5,6,7\n", "line 3: has 4 fields where the header has 3"),
    ("dupe.csv", b"a,b,a\n1,2,3\n", "appears twice"),
    ("blank.csv", b"a,,c\n1,2,3\n", "header cell is empty"),
    ("quote.csv", b'a,b\n1,"never closed\n', "never closed"),
    ("old.xls", b"whatever", "old .xls"),
    ("bad.xlsx", b"not a workbook", "not a readable .xlsx"),
    ("bad.parquet", b"not parquet", "not a readable Parquet"),
])
def test_bad_tables_give_one_clear_line(tmp_path: Path, name: str, data: bytes, words: str) -> None:
    with pytest.raises(InputError) as info:
        load_table(write(tmp_path, name, data))
    message = str(info.value)
    assert message.startswith(name) and words in message and "\n" not in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_table(tmp_path / "nope.csv")


def test_no_message_quotes_a_cell(tmp_path: Path) -> None:
    secret = "SECRET-VALUE-123"
    path = write(tmp_path, "r.csv", f"a,b\n1,{secret}\n2,x,{secret}\n".encode())
    with pytest.raises(InputError) as info:
        load_table(path)
    assert secret not in str(info.value)


def test_excel_and_parquet(tmp_path: Path) -> None:
    frame = pd.DataFrame({"id": [1, 2, 3], "age": [30.0, None, 50.0], "g": ["a", "b", "a"]})
    xlsx = tmp_path / "t.xlsx"
    frame.to_excel(xlsx, index=False)
    table = load_table(xlsx)
    assert table.format == "xlsx" and table.n_rows == 3 and table.columns == ["id", "age", "g"]
    pq = tmp_path / "t.parquet"
    frame.to_parquet(pq)
    table = load_table(pq)
    assert table.format == "parquet" and table.n_rows == 3


def test_progress_and_cancel(tmp_path: Path) -> None:
    rows = "\n".join(f"{i},{i % 7}" for i in range(300_000))
    path = write(tmp_path, "big.csv", f"id,v\n{rows}\n".encode())
    seen: list[float] = []
    table = load_table(path, progress=lambda f, _m: seen.append(f))
    assert table.n_rows == 300_000
    assert seen and seen[-1] == 1.0 and seen == sorted(seen) and len(seen) > 3
    with pytest.raises(Cancelled, match="^loading big.csv cancelled$"):
        load_table(path, cancel=lambda: True)


def test_describe_columns(tmp_path: Path) -> None:
    path = write(tmp_path, "d.csv", b"age,smoker,city\n30,yes,A\n,no,B\nx,yes,C\n40,no,\n")
    info = {c.name: c for c in describe_columns(load_table(path))}
    assert info["smoker"].detected_type == "yes/no"
    assert info["city"].detected_type == "text"
    assert info["age"].missing == 1
