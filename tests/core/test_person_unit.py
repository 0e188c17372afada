"""Who one person is (issue 22): a column that repeats like an id is found by the engine,
the row unit over it is a ✗ release rule until the plan records that the rows are different
people (with a reason), and `plan new` names the column as the person id, leaving the number
of rows per person to the owner."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.data.repeats import Repeats, id_like, id_like_columns
from planner_app.core.data.tables import describe_columns, open_table
from planner_app.core.planfile import load_plan, plan_from_dict, plan_to_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.support.errors import InputError
from planner_app.core.support.words import unit_of
from tests.panel import panel_rows, write_panel

COUNT = [{"id": "rows", "kind": "count", "epsilon": 1.0}]


def plan_doc(unit: dict[str, Any]) -> dict[str, Any]:
    return {"format": "planner-app/plan@1", "dataset": {"name": "panel"}, "privacy_unit": unit,
            "budget": {"epsilon": 1.0, "delta": 0.0}, "queries": COUNT}


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_panel(tmp_path_factory.mktemp("panel") / "panel.csv")


def _repeats(path: Path) -> dict[str, Repeats | None]:
    return {c.name: c.repeats for c in describe_columns(open_table(path))}


# ----------------------------------------------------------------------------- detection


def test_the_panel_id_repeats_and_nothing_else_is_an_id(panel: Path) -> None:
    rows = panel_rows()
    by_nr = Counter(r["nr"] for r in rows)  # the independent answer, from the rows written
    found = id_like_columns(_repeats(panel).values())
    assert [r.column for r in found] == ["nr"]
    assert found[0] == Repeats("nr", len(by_nr), len(rows), max(by_nr.values()))
    assert (found[0].distinct, found[0].filled, found[0].most) == (545, 4360, 8)


def test_a_panel_with_gaps_reports_its_largest_person(tmp_path: Path) -> None:
    rows = panel_rows(full=False, seed=5)
    path = write_panel(tmp_path / "gaps.csv", full=False, seed=5)
    most = max(Counter(r["nr"] for r in rows).values())
    found = id_like_columns(_repeats(path).values())
    assert [(r.column, r.most, r.filled) for r in found] == [("nr", most, len(rows))]


def _write(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_what_is_not_an_id(tmp_path: Path) -> None:
    """A unique id (one row each), a category, an age, a measurement with fractions: none
    repeats like a person's id."""
    n = 3000
    rows = [[f"R{i:05d}", i % 5, 18 + i % 70, round(1.5 + i * 0.37 % 40, 2), i // 2 + 0.5]
            for i in range(n)]
    path = _write(tmp_path / "t.csv", ["respondent_id", "region", "age", "weight", "half"],
                  rows)
    assert id_like_columns(_repeats(path).values()) == []


def test_an_unnamed_text_code_repeating_is_an_id(tmp_path: Path) -> None:
    rows = [[f"K{i // 4:05d}-x", i % 4] for i in range(2000)]  # 500 codes, 4 rows each
    path = _write(tmp_path / "t.csv", ["anon", "visit"], rows)
    found = id_like_columns(_repeats(path).values())
    assert [(r.column, r.distinct, r.most) for r in found] == [("anon", 500, 4)]


@pytest.mark.parametrize(("name", "distinct", "filled", "most", "expected"), [
    ("nr", 545, 4360, 8, True),
    ("PersonNr", 30, 60, 2, True),
    ("nr", 545, 545, 1, False),  # no value repeats
    ("region", 5, 4360, 900, False),
    ("age", 73, 4360, 90, False),
    ("score", 150, 300, 4, False),  # too few values for an unnamed id
    ("code_x", 10, 300, 40, False),
])
def test_the_rule(name: str, distinct: int, filled: int, most: int, expected: bool) -> None:
    assert id_like(name, distinct, filled, most) is expected


# ----------------------------------------------------------------------------- the plan


def test_rows_are_people_round_trips_and_old_plans_are_unchanged() -> None:
    doc = plan_doc({"kind": "row", "rows_are_people": {"reason": "  one row per\n household "}})
    plan = plan_from_dict(doc)
    assert plan.privacy_unit.rows_reason == "one row per household"
    assert plan_to_dict(plan)["privacy_unit"] == {
        "kind": "row", "rows_are_people": {"reason": "one row per household"}}
    assert plan_to_dict(plan_from_dict(plan_doc({"kind": "row"})))["privacy_unit"] == {
        "kind": "row"}
    assert "one row per household" in unit_of(plan.privacy_unit)


@pytest.mark.parametrize(("unit", "where"), [
    ({"kind": "row", "rows_are_people": {"reason": " "}}, "rows_are_people.reason: is empty"),
    ({"kind": "row", "rows_are_people": {}}, "rows_are_people.reason: is required"),
    ({"kind": "person", "id_column": "nr", "max_rows": 8,
      "rows_are_people": {"reason": "x"}}, 'rows_are_people: is only used with "kind": "row"'),
])
def test_a_bad_decision_is_named(unit: dict[str, Any], where: str) -> None:
    with pytest.raises(InputError) as err:
        plan_from_dict(plan_doc(unit))
    assert where in str(err.value)


# ----------------------------------------------------------------------------- the rule


def _people(unit: dict[str, Any], table: Path | None) -> Any:
    report = check_plan(plan_from_dict(plan_doc(unit)),
                        open_table(table) if table is not None else None)
    assert report.readiness is not None
    return report.readiness.get("people"), report.readiness.ready


def test_the_row_unit_over_a_repeating_id_is_a_failure(panel: Path) -> None:
    rule, ready = _people({"kind": "row"}, panel)
    assert rule.failed and not ready
    assert rule.message.startswith("nr repeats: up to 8 rows share a value — is one person "
                                   "several rows?")
    assert "choose nr as the person id, with at most 8 rows" in rule.action
    # the app names its controls; `check` adds where the plan file holds the answer
    assert "privacy_unit" not in rule.action and "“Who is one person?”" in rule.action
    assert "rows_are_people.reason" in rule.file_line


@pytest.mark.parametrize("unit", [
    {"kind": "person", "id_column": "nr", "max_rows": 8},
    {"kind": "row", "rows_are_people": {"reason": "nr numbers households"}},
])
def test_an_answer_passes(panel: Path, unit: dict[str, Any]) -> None:
    rule, ready = _people(unit, panel)
    assert rule.passed and ready


def test_a_placeholder_reason_is_no_answer(panel: Path) -> None:
    rule, _ = _people({"kind": "row", "rows_are_people": {"reason": "TODO: say why"}}, panel)
    assert rule.failed


def test_without_the_table_the_rule_is_left_out(panel: Path) -> None:
    rule, ready = _people({"kind": "row"}, None)
    assert rule is None and ready


# ----------------------------------------------------------------------------- command line


def test_release_refuses_before_the_charge(panel: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(plan_doc({"kind": "row"})))
    home = tmp_path / "home"
    code = main(["--home", str(home), "release", str(plan), "--data", str(panel), "--out",
                 str(tmp_path / "b.zip")])
    err = capsys.readouterr().err
    assert code == 2
    assert "nr repeats like a person's id (up to 8 rows share a value)" in err
    assert not (tmp_path / "b.zip").exists()
    assert main(["--home", str(home), "ledger", "show", "--json"]) == 0
    assert "panel" not in capsys.readouterr().out  # nothing charged


def test_check_without_data_says_what_it_cannot_check(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(plan_doc({"kind": "row"})))
    assert main(["--home", str(tmp_path / "h"), "check", str(plan)]) == 0
    assert "Not checked without the table: whether a column repeats like a person's id" in \
        capsys.readouterr().out
    plan.write_text(json.dumps(plan_doc({"kind": "row", "rows_are_people": {
        "reason": "each row is a household head"}})))
    assert main(["--home", str(tmp_path / "h"), "check", str(plan)]) == 0
    out = capsys.readouterr().out  # the officer reads the owner's reason
    assert "“each row is a household head”" in out.splitlines()[0]


def test_plan_new_names_the_repeating_id(panel: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "new.json"
    assert main(["--home", str(tmp_path / "h"), "plan", "new", "--data", str(panel), "--out",
                 str(out)]) == 0
    printed = capsys.readouterr().out
    doc = json.loads(out.read_text())
    # the id column, and max_rows left to the owner: the table's 8 is never written
    assert doc["privacy_unit"] == {"kind": "person", "id_column": "nr", "max_rows": None}
    assert all(q.get("column") != "nr" for q in doc["queries"])
    assert "note (for you only, never written to the plan): nr repeats: up to 8 rows share " \
           "a value" in printed
    doc["privacy_unit"]["max_rows"] = 8  # the owner states it: the plan then reads
    doc["queries"] = COUNT
    out.write_text(json.dumps(doc))
    assert load_plan(out).privacy_unit.id_column == "nr"


def test_a_release_with_the_decision_carries_it_and_verifies(
        panel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import zipfile

    reason = "nr numbers households; one row per person"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(plan_doc({"kind": "row", "rows_are_people": {"reason": reason}})))
    home, out = tmp_path / "home", tmp_path / "b.zip"
    assert main(["--home", str(home), "release", str(plan), "--data", str(panel), "--out",
                 str(out)]) == 0
    assert main(["--home", str(home), "verify", str(out)]) == 0
    capsys.readouterr()
    with zipfile.ZipFile(out) as zf:
        record = json.loads(zf.read("release.json"))
        readme = zf.read("README.txt").decode()
    assert record["privacy_unit"]["rows_are_people"] == {"reason": reason}
    assert f"the owner's recorded decision: “{reason}”" in readme


def test_the_plan_diff_shows_a_changed_decision() -> None:
    from planner_app.core.planning.plan_diff import diff_plans

    old = plan_from_dict(plan_doc({"kind": "row"}))
    new = plan_from_dict(plan_doc({"kind": "row", "rows_are_people": {"reason": "one each"}}))
    text = repr(diff_plans(old, new))
    assert "unit of privacy" in text and "one each" in text


def test_a_whole_number_measurement_is_not_taken_for_an_id(tmp_path: Path) -> None:
    """A newcomer's panel: monthly_income in whole units repeats (2,394 values over 4,167
    rows, up to 10 rows share one) and the app asked whether one person is several rows of
    it. Numbers count as an id only under an id's name; the panel's nr still does."""
    import random

    from planner_app.core.data.facts import table_facts
    from planner_app.core.data.repeats import id_like_columns
    from planner_app.core.data.tables import open_table

    rng = random.Random(5)
    lines = ["nr,monthly_income"]
    for person in range(545):
        for _wave in range(8):
            lines.append(f"{1_000_000 + person * 13},{max(0, int(rng.gauss(2500, 900)))}")
    path = tmp_path / "panel.csv"
    path.write_text("\n".join(lines) + "\n")
    _rows, columns = table_facts(open_table(path).source)  # type: ignore[arg-type]
    assert [r.column for r in id_like_columns(c.repeats for c in columns)] == ["nr"]
