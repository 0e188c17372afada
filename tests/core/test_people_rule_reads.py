"""The ``people`` rule (a column repeating like a person's id while each row is taken as a
person) reads the table's facts once per table (issue 22): the app reads them when it opens
the table, and its checks and its release share that pass instead of reading the file again.
The work is counted (passes over the file), never timed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import planner_app.core.planning.check  # noqa: F401  (imported before counting)
from planner_app.core.data import facts
from planner_app.core.data.tables import describe_columns, open_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.release.publish import publish
from planner_app.core.support.errors import PlannerError
from planner_app.core.support.home import app_home
from tests.panel import write_panel

PLAN = {"format": "planner-app/plan@1", "dataset": {"name": "panel"},
        "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 1.0, "delta": 0.0},
        "queries": [{"id": "rows", "kind": "count", "epsilon": 1.0}]}


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each pass of the facts reader over a table (facts.table_facts)."""
    seen: list[str] = []
    real = facts.table_facts

    def counted(source: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(source.name)
        return real(source, *args, **kwargs)

    for module in list(sys.modules.values()):  # wherever a module imported it by name
        if getattr(module, "__name__", "").startswith("planner_app") and \
                getattr(module, "table_facts", None) is real:
            monkeypatch.setattr(module, "table_facts", counted)
    return seen


def test_the_people_rule_shares_the_facts_the_app_read(tmp_path: Path,
                                                       passes: list[str]) -> None:
    table = open_table(write_panel(tmp_path / "panel.csv"))
    plan = plan_from_dict(PLAN)
    columns = describe_columns(table)  # the app, opening the table (the Data tab)
    assert [c.name for c in columns if c.repeats is not None and c.repeats.id_like] == ["nr"]
    for _ in range(2):  # the checklist, then `check` again after an edit
        report = check_plan(plan, table)
        assert report.readiness is not None
        assert "people" in [r.rule for r in report.readiness.failures]  # nr repeats
    with pytest.raises(PlannerError, match="nr repeats"):  # the release refuses it
        publish(plan, table, tmp_path / "b.zip", app_home(tmp_path / "home").ensure())
    assert passes == ["panel.csv"]  # before: 4 (the Data tab, two checks, the release)


def test_a_check_alone_reads_the_facts_once(tmp_path: Path, passes: list[str]) -> None:
    table = open_table(write_panel(tmp_path / "panel.csv"))
    plan = plan_from_dict(PLAN)
    check_plan(plan, table)
    check_plan(plan, table)
    assert passes == ["panel.csv"]  # before: 2
