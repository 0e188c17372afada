"""The plan's paths as the app's controls name them (core.support.field_words)."""

from __future__ import annotations

import pytest

from planner_app.core.dp.accuracy import NEEDS_ROWS
from planner_app.core.support.field_words import field_name, on_screen


@pytest.mark.parametrize(("where", "editor", "name"), [
    ("queries[age].lower", True, "Lower bound"),
    ("queries[age].lower", False, "Lower bound of statistic “age”"),
    ("queries[m].quantile", True, "Quantile level"),
    ("queries[g].group_by.keys", True, "Group by → Group keys"),
    ("queries[s]", True, "This statistic"),
    ("queries[s]", False, "Statistic “s”"),
    ("dataset.expected_rows", False, "About how many rows (Data tab)"),
    ("privacy_unit.max_rows", False, "Rows one person may have (Data tab)"),
    ("budget.epsilon", False, "Budget ε (Budget tab)"),
])
def test_a_path_names_its_control(where: str, editor: bool, name: str) -> None:
    assert field_name(where, in_editor=editor) == name


def test_a_synthetic_tables_column_is_named_by_its_column() -> None:
    assert field_name("queries[t].columns[1].bins", ["region", "age"], in_editor=True) \
        == "Columns of the table → age → Bins"


def test_sentences_lose_their_paths_and_keep_their_words() -> None:
    assert on_screen("plan.json: queries[age].lower: must be a number") \
        == "plan.json: Lower bound of statistic “age”: must be a number"
    shown = on_screen(NEEDS_ROWS)
    assert "dataset." not in shown and "“About how many rows (Data tab)”" in shown
    plain = "Lower some statistics' ε or raise the budget; the dataset is named."
    assert on_screen(plain) == plain  # words that are also field names stay words
