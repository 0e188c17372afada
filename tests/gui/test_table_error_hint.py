"""The "Cannot open the table" dialog adds which formats are read only where that helps (a file
in no table format, or not readable as its own): a message that already says exactly what is
wrong (a line and a column) stands alone. The core decides, beside the message
(InputError.hint)."""

from __future__ import annotations

from pathlib import Path

import pytest

TABLE_FORMATS_HINT = "Check that the file is a CSV, TSV, .xlsx or Parquet table."


def _refusal(window, qtbot, dialogs, path: Path) -> str:  # type: ignore[no-untyped-def]
    window.files.load_table(path, ask=False)
    qtbot.waitUntil(lambda: any(t == "Cannot open the table" for _, t, _ in dialogs.shown),
                    timeout=60_000)
    return next(text for _, title, text in dialogs.shown if title == "Cannot open the table")


def test_a_message_naming_line_and_column_has_no_format_hint(window, qtbot, dialogs,  # type: ignore[no-untyped-def]
                                                             tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("age,,region\n30,1,N\n", encoding="utf-8")
    text = _refusal(window, qtbot, dialogs, path)
    assert text == "t.csv: line 1, column 2: the header cell is empty", text
    assert TABLE_FORMATS_HINT not in text


@pytest.mark.parametrize(("name", "data", "problem"), [
    ("t.csv", b"\x00\x01\x02binary\x00" * 20, "is a binary file"),
    ("t.parquet", b"not parquet at all", "is not a readable Parquet file"),
    ("t.xlsx", b"not a workbook", "is not a readable .xlsx workbook")])
def test_a_file_in_no_table_format_gets_the_hint(window, qtbot, dialogs, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                 name: str, data: bytes, problem: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    text = _refusal(window, qtbot, dialogs, path)
    first, _, rest = text.partition("\n\n")
    assert first.startswith(f"{name}: {problem}"), text
    assert rest == TABLE_FORMATS_HINT
