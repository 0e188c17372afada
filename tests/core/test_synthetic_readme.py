"""The bundle's README.txt lists each synthetic table's CSV and says what it is (made-up
rows, not people, fitted to the noised counts in release.json), from the plan alone."""

from __future__ import annotations

import copy
from typing import Any

from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.publish import readme_text
from tests.cli.test_synthetic_cli import PLAN

RECORD: dict[str, Any] = {
    "release_id": "r1", "created_utc": "2026-11-23T04", "confidence": 0.95,
    "total": {"epsilon": 2.0, "delta": 5e-7, "accountant": "zcdp"},
    "risk": {"sentence": "s", "out_of_100": "o", "delta": "d"}}


def _files_section(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("FILES")
    end = lines.index("", start)
    return lines[start + 1:end]


def test_the_readme_lists_each_synthetic_table() -> None:
    doc = copy.deepcopy(PLAN)
    second = copy.deepcopy(doc["queries"][0])
    second["id"] = "other_synth"
    second["label"] = "Second table"
    doc["queries"].append(second)
    doc["budget"]["epsilon"] = 5.0
    files = _files_section(readme_text(plan_from_dict(doc), RECORD))
    for qid in ("survey_synth", "other_synth"):
        at = next(i for i, line in enumerate(files) if line.startswith(f"synthetic/{qid}.csv"))
        words = " ".join(files[at:at + 3])
        assert "made-up rows" in words and "not people" in words
        assert "noised counts in release.json" in words
    assert "Second table" in " ".join(files)


def test_a_plan_without_synthetic_tables_has_no_such_line() -> None:
    doc = copy.deepcopy(PLAN)
    doc["queries"] = [{"id": "n", "kind": "count", "epsilon": 0.5}]
    assert "synthetic/" not in readme_text(plan_from_dict(doc), RECORD)
