"""`check --data` tests the plan's relations on the table (issue 27): a relation the data
breaks is named to the owner before the release refuses it, and the app's data checks name
it too; a table where every relation holds says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from planner_app.cli import main
from planner_app.core.data.relations_fit import table_problems
from planner_app.core.data.tables import load_table, source_of
from planner_app.core.planfile import plan_from_dict
from tests.census import census_frame, census_plan


def _check(tmp_path: Path, frame: pd.DataFrame, capsys: Any) -> tuple[int, str, dict[str, Any]]:
    plan, data = tmp_path / "plan.json", tmp_path / "census.csv"
    plan.write_text(json.dumps(census_plan(1.0)), encoding="utf-8")
    frame.to_csv(data, index=False)
    code = main(["check", str(plan), "--data", str(data)])
    out = capsys.readouterr().out
    assert main(["check", str(plan), "--data", str(data), "--json"]) == code
    return code, out, json.loads(capsys.readouterr().out)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_APP_HOME", str(tmp_path / "home"))


def test_a_table_where_the_relations_hold_says_so(tmp_path: Path, capsys: Any) -> None:
    code, out, data = _check(tmp_path, census_frame(400), capsys)
    assert code == 0
    assert "ok   The plan's relations hold in this table: each total is the sum of its " \
           "parts." in out
    rules = {r["rule"]: r["status"] for r in data["rules"]}
    assert rules["relations"] == "pass"


def _broken(frame: pd.DataFrame, how: str) -> pd.DataFrame:
    frame = frame.copy()
    if how == "undeclared":  # a district the plan's keys miss: the region counts it
        frame.loc[5, "district"] = "R1-D99"
    else:  # a district counted under another region than the one declared
        frame.loc[3, "region"] = "R2" if frame.loc[3, "region"] != "R2" else "R3"
    return frame


@pytest.mark.parametrize("how", ["undeclared", "misplaced"])
def test_a_relation_the_table_breaks_is_named_to_the_owner(tmp_path: Path, capsys: Any,
                                                          how: str) -> None:
    code, out, data = _check(tmp_path, _broken(census_frame(400), how), capsys)
    assert code == 0  # a report, not a refusal: the owner reads every line
    line = ("NO   consistency.relations[1]: In this table the cells of 'by_district' do not "
            "add up to 'by_region'")
    assert line in out, out
    assert "consistent values under this relation would be biased" in out
    assert "Ready to release: NO" in out
    failed = [r for r in data["rules"] if r["status"] == "fail"]
    assert [r["where"] for r in failed] == ["consistency.relations[1]"]
    # the nation-to-region relation still holds: it is not named
    assert "relations[0]" not in out


def test_the_app_data_checks_name_the_broken_relation(tmp_path: Path) -> None:
    """The app's fit answer (the same core function) lists the relation once the plan fits."""
    plan = plan_from_dict(census_plan(1.0))
    good = tmp_path / "good.csv"
    census_frame(300).to_csv(good, index=False)
    table = load_table(good)
    assert table_problems(plan, source_of(table), table.name) == []
    bad = tmp_path / "bad.csv"
    _broken(census_frame(300), "undeclared").to_csv(bad, index=False)
    table = load_table(bad)
    problems = table_problems(plan, source_of(table), table.name)
    assert [p.where for p in problems] == ["consistency.relations[1]"]
    assert "do not add up to 'by_region'" in problems[0].problem
