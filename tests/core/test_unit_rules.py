"""The core rules behind the unitflow items of issue 22: a person unit's rows per person are
stated by the owner or the plan is not ready (never a default of 1), statistics wait for who
one person is, a statistic never starts on a column that identifies a person, and a plan path
named on screen never nests quotes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.data.facts import ColumnInfo
from planner_app.core.data.repeats import Repeats
from planner_app.core.data.tables import describe_columns, open_table
from planner_app.core.dp.accounting import Total
from planner_app.core.model import PrivacyUnit, max_rows_problem
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.readiness import readiness, unit_unanswered
from planner_app.core.planning.starters import default_column, empty_plan
from planner_app.core.support.errors import InputError
from planner_app.core.support.field_words import (
    PLAN_FIELD_NAMES,
    QUERY_FIELD_NAMES,
    on_screen,
)
from tests.panel import write_panel

NR = Repeats("nr", 545, 4360, 8)


def doc(unit: dict[str, Any]) -> dict[str, Any]:
    return {"format": "planner-app/plan@1", "dataset": {"name": "panel", "path": "panel.csv"},
            "privacy_unit": unit, "budget": {"epsilon": 1.0, "delta": 0.0},
            "queries": [{"id": "rows", "kind": "count", "epsilon": 1.0}]}


UNSTATED = {"kind": "person", "id_column": "nr", "max_rows": None}


# ----------------------------------------------------------------------------- 1. rows stated


def test_unstated_rows_are_required_outside_the_app() -> None:
    assert max_rows_problem(None) is not None
    with pytest.raises(InputError, match=r"privacy_unit\.max_rows: is required"):
        plan_from_dict(doc(UNSTATED))


def test_the_apps_plan_may_hold_unstated_rows_and_is_not_ready() -> None:
    plan = plan_from_dict(doc(UNSTATED), draft=True)
    assert plan.privacy_unit == PrivacyUnit("person", "nr", None)
    result = readiness(plan, Total(1.0, 0.0, "basic"), (), repeating=[NR])
    rows = result.get("rows")
    assert rows is not None and rows.failed and not result.ready
    assert rows.where == "privacy_unit.max_rows"
    assert "“A person has up to”" in rows.line
    stated = plan_from_dict(doc({**UNSTATED, "max_rows": 8}))
    assert readiness(stated, Total(1.0, 0.0, "basic"), ()).get("rows") is None


def test_a_new_plans_id_column_leaves_the_rows_to_the_owner() -> None:
    unit = empty_plan("t", "t.csv", ["person_id", "age"]).privacy_unit
    assert (unit.kind, unit.id_column, unit.max_rows) == ("person", "person_id", None)


@pytest.mark.parametrize("command", ["check", "release"])
def test_check_and_release_refuse_unstated_rows_in_one_line(  # type: ignore[no-untyped-def]
        command: str, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PLANNER_APP_HOME", str(tmp_path / "home"))
    data = write_panel(tmp_path / "panel.csv")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc(UNSTATED)), encoding="utf-8")
    args = [command, str(plan), "--data", str(data)]
    if command == "release":
        args += ["--out", str(tmp_path / "out.zip")]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "privacy_unit.max_rows: is required" in err[0], err
    assert "Traceback" not in err[0]
    assert not (tmp_path / "out.zip").exists()


# ----------------------------------------------------------------------------- 3. the question


def test_statistics_wait_for_who_one_person_is() -> None:
    row = plan_from_dict(doc({"kind": "row"}))
    assert "nr" in (unit_unanswered(row, [NR]) or "")
    assert unit_unanswered(row, []) is None  # no id repeats: each row is a person
    reasoned = plan_from_dict(doc({"kind": "row", "rows_are_people": {"reason": "households"}}))
    assert unit_unanswered(reasoned, [NR]) is None
    assert "how many rows" in (unit_unanswered(plan_from_dict(doc(UNSTATED), draft=True), [NR])
                               or "")
    assert unit_unanswered(plan_from_dict(doc({**UNSTATED, "max_rows": 8})), [NR]) is None


# ----------------------------------------------------------------------------- 4. the column


@pytest.fixture(scope="module")
def panel_columns(tmp_path_factory: pytest.TempPathFactory) -> list[ColumnInfo]:
    return list(describe_columns(open_table(write_panel(tmp_path_factory.mktemp("p")
                                                        / "panel.csv"))))


@pytest.mark.parametrize("kind", ["sum", "mean", "variance", "quantile"])
def test_a_numeric_statistic_never_starts_on_an_id(kind: str,
                                                   panel_columns: list[ColumnInfo]) -> None:
    types = {c.name: c.detected_type for c in panel_columns}
    assert types["nr"] == "number" and [c.name for c in panel_columns][0] == "nr"
    for id_column in ("nr", None):  # the person id, or an id-like column under the row unit
        assert default_column(kind, panel_columns, types, id_column) == "wave"
    # a column the plan names as the person id, whatever its name
    assert default_column(kind, panel_columns, types, "wave") == "age"


def test_only_ids_leave_no_default() -> None:
    columns = [ColumnInfo("person_id", "number", 0), ColumnInfo("nr", "number", 0)]
    types = {"person_id": "number", "nr": "number"}
    assert default_column("mean", columns, types, "nr") is None


# ----------------------------------------------------------------------------- 7. quotes


def _paths() -> list[str]:
    return [*PLAN_FIELD_NAMES, *(f"queries[smokers].{k}" for k in QUERY_FIELD_NAMES),
            "queries[smokers]"]


@pytest.mark.parametrize("path", _paths())
def test_a_named_control_never_nests_quotes(path: str) -> None:
    for text in (f"set it ({path}) first", f"see {path} and more", f"plan.json: {path}: bad"):
        shown = on_screen(text)
        depth = 0
        for ch in shown:  # “ and ” alternate: never a quote inside a quote
            if ch == "“":
                depth += 1
                assert depth == 1, shown
            elif ch == "”":
                depth -= 1
                assert depth == 0, shown
        assert depth == 0, shown
        assert re.search(r"queries\[|privacy_unit\.|dataset\.|budget\.", shown) is None, shown


def test_the_app_opens_from_the_command_line_a_plan_that_asks_for_rows(tmp_path: Path) -> None:
    """`planner-app gui PLAN.json` checks the plan as the app opens it: a plan the app saved
    before the owner typed the rows per person opens (to ask), it is not refused."""
    import argparse

    from planner_app.cli.desktop import start_files

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc(UNSTATED)), encoding="utf-8")
    assert start_files(argparse.Namespace(plan=str(plan), data=None)) == (plan, None)
