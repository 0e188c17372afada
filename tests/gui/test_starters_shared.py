"""The app's "New plan" and the command line's ``plan new`` start from the same defaults: the
core's starter (issue 11: starter plans move into the core)."""

from __future__ import annotations

import json
from pathlib import Path

from planner_app.cli import main
from planner_app.core.support.resources import demo_table_path


def test_new_plan_in_the_app_and_plan_new_share_the_budget_and_relation(
        window, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "starter.json"
    assert main(["--home", str(tmp_path / "home"), "plan", "new", "--data",
                 str(demo_table_path()), "--out", str(out)]) == 0
    capsys.readouterr()
    doc = json.loads(out.read_text(encoding="utf-8"))
    window.files.load_table(demo_table_path(), synchronous=True)
    window.session.new_plan("survey")
    plan = window.session.plan
    assert plan is not None
    assert (plan.budget.epsilon, plan.budget.delta) == (doc["budget"]["epsilon"],
                                                        doc["budget"]["delta"])
    assert plan.neighbouring == doc["neighbouring"]
    assert (plan.dataset.name, plan.dataset.path) == (doc["dataset"]["name"],
                                                      doc["dataset"]["path"])


def test_a_table_with_an_id_column_starts_with_a_person_in_the_app_as_on_the_command_line(
        window, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A panel whose respondent_id repeats started in the app as "each row is a different
    person" (under-protecting people with two rows) while plan new chose the id column."""
    import pandas as pd

    table = tmp_path / "panel.csv"
    pd.DataFrame({"respondent_id": [1, 1, 2, 2, 3], "age": [30, 31, 40, 41, 50]}).to_csv(
        table, index=False)
    out = tmp_path / "starter.json"
    assert main(["--home", str(tmp_path / "home"), "plan", "new", "--data", str(table),
                 "--out", str(out)]) == 0
    capsys.readouterr()
    doc = json.loads(out.read_text(encoding="utf-8"))
    window.files.load_table(table, synchronous=True)
    unit = window.session.plan.privacy_unit
    assert doc["privacy_unit"]["kind"] == unit.kind == "person"
    assert doc["privacy_unit"]["id_column"] == unit.id_column == "respondent_id"
    # the rows per person: the owner's to state (published), never read from the data and
    # never a silent default; the app and plan new leave it empty alike
    assert unit.max_rows is None and doc["privacy_unit"]["max_rows"] is None
