"""A synthetic table's table-fit problems name the plan's own fields (``columns[i].column``),
each problem once, in the app's core check, ``check --data`` and the release alike; and the
"copied from the data" warning covers a synthetic table's declared lists."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from planner_app.core.data.engines import open_engine
from planner_app.core.data.fit import plan_problems
from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.support.errors import InputError
from tests.cli.test_release_cli import run
from tests.cli.test_synthetic_cli import PLAN
from tests.conftest import DEMO_TABLE

FIELD = "queries[survey_synth].columns[{}].column"


def synthetic(**columns: dict[str, Any]) -> dict[str, Any]:
    """The CLI test's plan with columns replaced by position (``c0=``, ``c1=``...)."""
    doc = copy.deepcopy(PLAN)
    for key, value in columns.items():
        doc["queries"][0]["columns"][int(key[1:])] = value
    return doc


MISSING = {"c0": {"column": "regionx", "categories": ["North", "South"]}}
TEXT_BINS = {"c1": {"column": "region", "bins": [0, 1, 2]},
             "c0": {"column": "age", "categories": [20, 30]}}


def _problems(doc: dict[str, Any]) -> list[InputError]:
    table = load_table(DEMO_TABLE)
    return plan_problems(plan_from_dict(doc, "plan.json"), table.source or table.frame,
                         table.name)


def test_the_apps_check_names_a_missing_synthetic_column_once() -> None:
    problems = _problems(synthetic(**MISSING))
    assert [p.where for p in problems] == [FIELD.format(0)]
    assert "'regionx'" in problems[0].problem


def test_the_apps_check_refuses_bins_on_a_text_column_once() -> None:
    problems = _problems(synthetic(**TEXT_BINS))
    assert [p.where for p in problems] == [FIELD.format(1)]
    assert "'region'" in problems[0].problem and "text" in problems[0].problem


def test_two_problems_are_counted_as_two() -> None:
    doc = synthetic(c0={"column": "regionx", "categories": ["a"]},
                    c1={"column": "region", "bins": [0, 1, 2]})
    assert [p.where for p in _problems(doc)] == [FIELD.format(0), FIELD.format(1)]


@pytest.mark.parametrize("engine", ["duckdb", "pandas", "spark"])
@pytest.mark.parametrize(("columns", "index"), [(MISSING, 0), (TEXT_BINS, 1)])
def test_every_engine_names_the_plans_field(engine: str, columns: dict[str, Any],
                                            index: int) -> None:
    if engine == "spark":
        pytest.importorskip("pyspark")
    plan = plan_from_dict(synthetic(**columns), "plan.json")
    with pytest.raises(InputError) as caught:
        open_engine(engine, plan, load_table(DEMO_TABLE), SeededRandomSource(1)).close()
    assert caught.value.where == FIELD.format(index)
    assert "more problem" not in caught.value.problem


def test_a_nested_synthetic_column_names_the_plans_field(tmp_path: Path) -> None:
    frame = pd.DataFrame({"person_id": ["a", "b"], "region": [[1], [2]],
                          "age": [20, 30], "smoker": ["yes", "no"]})
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    plan = plan_from_dict(synthetic(), "plan.json")
    with pytest.raises(InputError) as caught:
        open_engine("duckdb", plan, load_table(path), SeededRandomSource(1)).close()
    assert caught.value.where == FIELD.format(0)


@pytest.mark.parametrize("command", ["check", "release"])
def test_the_cli_gives_one_line_naming_the_plans_field(tmp_path: Path, command: str) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(synthetic(**MISSING)))
    args = [command, str(path), "--data", str(DEMO_TABLE)]
    if command == "release":
        args += ["--out", str(tmp_path / "b.zip")]
    done = run(args, tmp_path / "home")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert FIELD.format(0) in lines[0] and "more problem" not in lines[0]
    assert not (tmp_path / "b.zip").exists()


# ------------------------------------------------------------------ copied from the data


def test_check_warns_when_a_synthetic_list_is_the_values_present() -> None:
    # the demo table's regions are exactly these four (read here with pandas, not the engine)
    present = sorted(pd.read_csv(DEMO_TABLE)["region"].dropna().unique())
    smoker = {"column": "smoker", "categories": ["yes", "no", "refused"]}  # not as present
    doc = synthetic(c0={"column": "region", "categories": present}, c2=smoker)
    report = check_plan(plan_from_dict(doc, "plan.json"), load_table(DEMO_TABLE))
    copied = [w for w in report.warnings if "exactly the values present" in w]
    assert copied == ["survey_synth: the categories of region are exactly the values "
                      "present in the data; a public list must come from knowledge of the "
                      "domain (which values occur is itself private)"]
    # one more value that the data does not hold: no warning
    doc = synthetic(c0={"column": "region", "categories": [*present, "Islands"]}, c2=smoker)
    report = check_plan(plan_from_dict(doc, "plan.json"), load_table(DEMO_TABLE))
    assert not [w for w in report.warnings if "exactly the values present" in w]


def test_check_warns_when_synthetic_bins_span_the_datas_minimum_and_maximum() -> None:
    ages = pd.read_csv(DEMO_TABLE)["age"]
    low, high = float(ages.min()), float(ages.max())
    doc = synthetic(c1={"column": "age", "bins": [low, 40, high]},
                    c2={"column": "smoker", "categories": ["yes", "no", "refused"]})
    report = check_plan(plan_from_dict(doc, "plan.json"), load_table(DEMO_TABLE))
    assert [w for w in report.warnings if "minimum and maximum" in w] == [
        "survey_synth: the outer bin edges of age equal the data's own minimum and maximum; "
        "bounds must come from knowledge of the domain, not from the data"]
    doc = synthetic(c1={"column": "age", "bins": [low - 1, 40, high]})
    report = check_plan(plan_from_dict(doc, "plan.json"), load_table(DEMO_TABLE))
    assert not [w for w in report.warnings if "minimum and maximum" in w]


# ------------------------------------------------------------------ diff's ε of a synthetic table


def _check_total(tmp_path: Path, doc: dict[str, Any], name: str) -> float:
    """The composed ε ``planner-app check --json`` reports for a plan (the independent answer:
    check's own total, read from the command's output)."""
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    done = run(["check", str(path), "--json"], tmp_path / "home")
    assert done.returncode == 0, done.stderr
    return float(json.loads(done.stdout)["total"]["epsilon"])


@pytest.mark.parametrize("accountant", ["zcdp", "pld", None])
def test_diff_gives_a_synthetic_tables_epsilon_as_its_plan_states_it(
        tmp_path: Path, accountant: str | None) -> None:
    """The table's own (ε, δ), as its report and the viewer state it, whatever the plan's
    accountant: not the sum of its measurements' ε, which grows with the columns."""
    from planner_app.core.planning.plan_diff import diff_plans

    old = synthetic()
    new = synthetic(c2={"column": "employment",
                        "categories": ["employed", "retired", "student", "unemployed"]})
    new["queries"][0]["epsilon"] = 1.5
    for doc in (old, new):
        if accountant is not None:
            doc["budget"]["accountant"] = accountant
    diff = diff_plans(plan_from_dict(old, "old.json"), plan_from_dict(new, "new.json"))
    (change,) = diff.statistics
    assert (change.old_epsilon, change.new_epsilon) == (
        old["queries"][0]["epsilon"], new["queries"][0]["epsilon"])
    # in zCDP (and with the tightest accountant, unset), the plan's composed total of the
    # table alone (check's, read from the command) is within its stated ε. (PLD counts the
    # selection rounds as pure ε and may count a little more: a looser bound, still valid.)
    if accountant != "pld":
        assert _check_total(tmp_path, old, "old.json") <= old["queries"][0]["epsilon"] + 1e-9
    # added to a plan, it is stated the same way
    count = {"id": "n", "kind": "count", "epsilon": 0.5}
    both = copy.deepcopy(old)
    both["queries"].append(count)
    only = copy.deepcopy(old)
    only["queries"] = [count]
    added = diff_plans(plan_from_dict(only, "a.json"), plan_from_dict(both, "b.json"))
    (change,) = [c for c in added.statistics if c.id == "survey_synth"]
    assert change.new_epsilon == old["queries"][0]["epsilon"]


def test_cli_diff_shows_no_basic_sum_for_a_synthetic_table(tmp_path: Path) -> None:
    old = synthetic()
    new = copy.deepcopy(old)  # one more column: one more measurement of each step
    new["queries"][0]["columns"].append(
        {"column": "employment", "categories": ["employed", "retired", "student", "unemployed"]})
    paths = []
    for name, doc in (("old.json", old), ("new.json", new)):
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        paths.append(str(path))
    done = run(["diff", *paths], tmp_path / "home")
    assert done.returncode == 0, done.stderr
    # both tables state ε = 2 at the same δ: check's totals are equal, so no ε line (the
    # basic sum of the measurements' ε grows with the columns)
    assert _check_total(tmp_path, old, "o.json") == pytest.approx(
        _check_total(tmp_path, new, "n.json"), rel=1e-12)
    assert "ε spent" not in done.stdout, done.stdout


# ------------------------------------------------------------------ a list that fits no cell


@pytest.mark.parametrize(("index", "column", "declared"), [
    (1, "age", ["North", "South"]),  # texts declared for a column of numbers
    (2, "smoker", [True, False]),  # true/false declared for a yes/no column
])
def test_check_tells_the_owner_a_synthetic_list_fits_none_of_the_columns_cells(
        index: int, column: str, declared: list[Any]) -> None:
    cells = pd.read_csv(DEMO_TABLE, dtype=str)[column]  # independently: every filled cell
    filled = int(cells.notna().sum())
    assert filled and not set(cells.dropna()) & {str(v) for v in declared}
    doc = synthetic(**{f"c{index}": {"column": column, "categories": declared}})
    report = check_plan(plan_from_dict(doc, "plan.json"), load_table(DEMO_TABLE))
    notes = [n for n in report.owner_facts if column in n]
    assert notes == [f"survey_synth: {filled:,} rows with a value of {column} outside its "
                     "declared categories; the synthetic table counts none of them"]


def test_check_counts_a_synthetic_columns_empty_and_undeclared_cells(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    # age: 2 empty, 1 not a number, 1 above the last edge (100), 4 inside
    path.write_text("person_id,region,age,smoker\n"
                    "a,North,20,yes\nb,South,,no\nc,East,abc,yes\nd,West,120,no\n"
                    "e,North,30,yes\nf,North,,no\ng,South,50,yes\nh,East,60,no\n")
    report = check_plan(plan_from_dict(synthetic(), "plan.json"), load_table(path))
    assert [n for n in report.owner_facts if "survey_synth" in n] == [
        "survey_synth: 3 rows with no readable value in age and 1 row with a value of age "
        "outside its declared bins; the synthetic table counts none of them"]
