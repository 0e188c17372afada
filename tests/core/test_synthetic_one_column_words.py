"""A one-column synthetic table's preview reads in the singular and says nothing of pairs or
of a tree it does not have."""

from __future__ import annotations

import copy

from planner_app.core.dp import synthetic as dp_synthetic
from planner_app.core.kinds.synthetic import table_preview
from planner_app.core.planfile import plan_from_dict
from tests.cli.test_synthetic_cli import PLAN


def _preview(columns: int) -> dp_synthetic.SynthPreview:
    doc = copy.deepcopy(PLAN)
    doc["queries"][0]["columns"] = doc["queries"][0]["columns"][:columns]
    plan = plan_from_dict(doc)
    return table_preview(plan.queries[0], plan)


def test_one_column_is_said_in_the_singular_without_a_tree() -> None:
    p = _preview(1)
    text = " ".join([*dp_synthetic.preview_lines(p), p.note])
    assert "each of its 1 columns" not in text
    assert "counts of its one column" in text
    assert "tree" not in text and "pair" not in text


def test_two_columns_keep_the_plural_and_the_tree() -> None:
    p = _preview(2)
    text = " ".join([*dp_synthetic.preview_lines(p), p.note])
    assert "each of its 2 columns" in text and "through the tree" in text
