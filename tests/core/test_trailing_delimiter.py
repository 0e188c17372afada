"""A CSV whose rows end with a delimiter (an empty last field, as some exports write) is read
with its columns in place; a row with a value beyond the last column is refused, never cut.
pandas used the first column as the index for the first and shifted every column left."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.support.errors import InputError


def test_a_delimiter_at_the_end_of_every_row_keeps_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("age,region\n30,North,\n41,South,\n", encoding="utf-8")
    frame = load_table(path).frame
    assert list(frame.columns) == ["age", "region"]
    assert frame["age"].tolist() == [30, 41]
    assert frame["region"].tolist() == ["North", "South"]


def test_a_value_beyond_the_last_column_in_every_row_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("age,region\n30,North,x\n41,South,y\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"t\.csv: .*more fields than the header"):
        load_table(path)
