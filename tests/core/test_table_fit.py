"""The table and the plan belong together: yes/no columns are read only as declared, numeric
statistics refuse text columns, and one core check (used by `check --data`, the release and the
app) names every way a plan does not fit a table — before anything is charged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import load_plan, plan_from_dict, plan_to_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_PLAN, ROOT, plan_dict, run_in_process, write_json
from tests.oracle.pandas_engine import PandasEngine

# a chile-like table: sex coded M/F, 30 women among 100 answers, a region name, an income
SEX = ["F"] * 30 + ["M"] * 70
CHILE = pd.DataFrame({
    "sex": SEX,
    "region": ["Biobío", "Maule", "Ñuble", "Araucanía"] * 25,
    "income": [float(i * 1000) for i in range(100)],
})


def rr(**extra: Any) -> dict[str, Any]:
    return {"id": "women", "label": "Share of women", "kind": "randomized_response",
            "column": "sex", "epsilon": 1.0, **extra}


def plan_of(*queries: dict[str, Any], **extra: Any):  # type: ignore[no-untyped-def]
    if queries:
        extra["queries"] = list(queries)
    return plan_from_dict(plan_dict(**extra))


def write_table(path: Path, frame: pd.DataFrame) -> Path:
    frame.to_csv(path, index=False)
    return path


# ----------------------------------------------------------------------------- yes/no


def test_m_f_is_never_read_as_yes_no(tmp_path: Path) -> None:
    """Without declared values, F used to read as 'false' and M rows were dropped: a release
    of 'share of women = 0' with a clean check. Now check --data and release refuse."""
    plan = plan_of(rr())
    table = load_table(write_table(tmp_path / "chile.csv", CHILE))
    with pytest.raises(InputError) as err:
        check_plan(plan, table)
    assert err.value.where == "queries[women].yes"
    assert "'sex'" in str(err.value) and "declare which values mean yes" in str(err.value)
    # the release refuses before the ledger is touched
    home = app_home(str(tmp_path / "home"))
    with pytest.raises(InputError) as refused:
        publish(plan, table, tmp_path / "out.zip", home)
    assert str(refused.value) == str(err.value)  # the same refusal as check's
    assert not (tmp_path / "out.zip").exists()
    assert not home.ledger_path.exists() or Ledger(home.ledger_path).state("test").releases == []


def test_a_column_of_only_f_is_not_silently_false() -> None:
    """Single letters are not in the fixed vocabulary: a table of women only would otherwise
    read as 'share of yes = 0'."""
    with pytest.raises(InputError, match="declare which values mean yes"):
        PandasEngine(plan_of(rr()), pd.DataFrame({"sex": ["F"] * 10}), SeededRandomSource(0))


def test_the_fixed_vocabulary_still_needs_no_lists() -> None:
    frame = pd.DataFrame({"sex": ["yes", "No", "TRUE", "false", "1", "0", None, 1, 0.0]})
    engine = PandasEngine(plan_of(rr()), frame, SeededRandomSource(0))
    agg = engine.aggregate(engine.plan.query("women"))
    # independent answer: yes, TRUE, 1, 1 are yes; No, false, 0, 0.0 are no; None is missing
    assert agg.answers is not None and sorted(agg.answers.tolist()) == [False] * 4 + [True] * 4
    assert agg.facts.missing_dropped == 1 and agg.facts.not_yes_no == 0


def test_declared_values_read_the_column_and_others_follow_the_missing_policy() -> None:
    frame = pd.DataFrame({"sex": SEX + ["X"] * 5 + [None] * 3})
    plan = plan_of(rr(yes=["F"], no=["M"]))
    agg = PandasEngine(plan, frame, SeededRandomSource(0)).aggregate(plan.query("women"))
    assert agg.answers is not None
    assert int(agg.answers.sum()) == SEX.count("F") and agg.answers.size == len(SEX)
    assert agg.facts.not_yes_no == 5 and agg.facts.missing_dropped == 8
    imputed = plan_of(rr(yes=["F"], no=["M"], missing={"impute": "M"}))
    agg = PandasEngine(imputed, frame, SeededRandomSource(0)).aggregate(imputed.query("women"))
    assert agg.answers is not None and agg.answers.size == len(frame)
    assert int(agg.answers.sum()) == 30 and agg.facts.missing_imputed == 8
    assert agg.facts.not_yes_no == 5


def test_check_with_data_tells_the_owner_how_many_cells_were_neither(tmp_path: Path) -> None:
    frame = pd.DataFrame({"sex": SEX + ["X"] * 5 + [None] * 3})
    table = load_table(write_table(tmp_path / "t.csv", frame))
    report = check_plan(plan_of(rr(yes=["F"], no=["M"])), table)
    facts = [f for f in report.owner_facts if "neither" in f]
    assert len(facts) == 1 and "5 cells of sex" in facts[0]
    assert "neither" not in json.dumps(report.to_dict()["warnings"])


def test_check_without_data_says_how_an_undeclared_column_is_read() -> None:
    report = check_plan(plan_of(rr()))
    assert any("women:" in w and "yes/no, true/false or 1/0" in w for w in report.warnings)
    declared = check_plan(plan_of(rr(yes=["F"], no=["M"])))
    assert not any("yes/no, true/false" in w for w in declared.warnings)


def test_a_declared_list_matching_nothing_is_refused() -> None:
    with pytest.raises(InputError, match="no cell of 'sex'"):
        PandasEngine(plan_of(rr(yes=["female"], no=["male"])), CHILE, SeededRandomSource(0))


@pytest.mark.parametrize("query,where,problem", [
    (rr(yes=["F"]), "queries[women].no", "is required with 'yes'"),
    (rr(no=["M"]), "queries[women].yes", "is required with 'no'"),
    (rr(yes=["F"], no=["M", "F"]), "queries[women].no[1]", "also declared as a yes value"),
    (rr(yes=[], no=["M"]), "queries[women].yes", "must not be empty"),
    (rr(yes="F", no=["M"]), "queries[women].yes", "must be a list"),
    (rr(yes=["F"], no=["M"], missing={"impute": "yes"}), "queries[women].missing.impute",
     "declared yes or no values"),
    ({"id": "m", "kind": "mean", "column": "income", "lower": 0, "upper": 1, "epsilon": 1,
      "yes": ["F"], "no": ["M"]}, "queries[m].yes", "not used by kind mean"),
])
def test_yes_no_lists_are_validated(query: dict[str, Any], where: str, problem: str) -> None:
    with pytest.raises(InputError) as err:
        plan_of(query)
    assert err.value.where == where and problem in err.value.problem


def test_yes_no_lists_round_trip() -> None:
    plan = plan_of(rr(yes=["F", 2], no=["M"], missing={"impute": "M"},
                      justification={"values": "The survey codes sex as F and M."}))
    doc = plan_to_dict(plan)
    assert doc["queries"][0]["yes"] == ["F", 2] and doc["queries"][0]["no"] == ["M"]
    assert plan_from_dict(json.loads(json.dumps(doc))) == plan


def test_the_schema_knows_the_new_fields() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "resources" / "plan.schema.json").read_text())
    jsonschema.validate(plan_dict(queries=[rr(yes=["F"], no=["M"])]), schema)
    jsonschema.validate(json.loads(DEMO_PLAN.read_text()), schema)
    with pytest.raises(jsonschema.ValidationError, match="'no' is a dependency of 'yes'") as info:
        jsonschema.validate(plan_dict(queries=[rr(yes=["F"])]), schema)
    assert list(info.value.absolute_path) == ["queries", 0]


# ----------------------------------------------------------------------------- numbers


def test_a_mean_of_a_region_name_is_refused_before_the_charge(tmp_path: Path) -> None:
    plan = plan_of({"id": "m", "kind": "mean", "column": "region", "lower": 0, "upper": 10,
                    "epsilon": 1.0})
    table = load_table(write_table(tmp_path / "chile.csv", CHILE))
    with pytest.raises(InputError) as err:
        check_plan(plan, table)
    assert err.value.where == "queries[m].column"
    assert "holds text, not numbers" in err.value.problem
    home = app_home(str(tmp_path / "home"))
    with pytest.raises(InputError) as refused:
        publish(plan, table, tmp_path / "out.zip", home)
    assert str(refused.value) == str(err.value)  # the same refusal as check's
    assert not home.ledger_path.exists() or Ledger(home.ledger_path).state("test").releases == []


@pytest.mark.parametrize("query", [
    {"id": "q", "kind": "sum", "column": "region", "lower": 0, "upper": 1, "epsilon": 1},
    {"id": "q", "kind": "variance", "column": "region", "lower": 0, "upper": 1, "epsilon": 1},
    {"id": "q", "kind": "quantile", "column": "region", "lower": 0, "upper": 1,
     "quantile": 0.5, "epsilon": 1},
    {"id": "q", "kind": "histogram", "column": "region", "bins": [0, 1, 2], "epsilon": 1},
    {"id": "q", "kind": "count", "epsilon": 1,
     "where": [{"column": "region", "op": ">", "value": 3}]},
])
def test_every_numeric_use_of_a_text_column_is_refused(query: dict[str, Any]) -> None:
    with pytest.raises(InputError, match="holds text, not numbers"):
        PandasEngine(plan_of(query), CHILE, SeededRandomSource(0))


def test_a_number_column_with_some_bad_cells_still_works() -> None:
    frame = pd.DataFrame({"x": [1, 2, 3, "n/a", None, 4]})
    plan = plan_of({"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 10,
                    "epsilon": 1})
    agg = PandasEngine(plan, frame, SeededRandomSource(0)).aggregate(plan.query("m"))
    assert agg.parts["count"].tolist() == [4] and agg.facts.missing_dropped == 2


def test_categories_of_a_text_column_are_fine() -> None:
    plan = plan_of({"id": "h", "kind": "histogram", "column": "region",
                    "categories": ["Maule", "Ñuble"], "epsilon": 1})
    PandasEngine(plan, CHILE, SeededRandomSource(0))


# ----------------------------------------------------------------------------- plan vs table


def test_the_demo_plan_on_a_chile_table_names_every_problem() -> None:
    from planner_app.core.data.fit import plan_problems

    plan = load_plan(DEMO_PLAN)
    problems = plan_problems(plan, CHILE, "chile.csv")
    wheres = [p.where for p in problems]
    assert wheres[0] == "privacy_unit.id_column"
    expected = {"queries[income_2025].where[0].column", "queries[hours_mean].column",
                "queries[age_variance].column", "queries[age_bands].column",
                "queries[smokers].column",
                "queries[satisfaction_by_region].column", "queries[employed].where[0].column"}
    assert expected <= set(wheres)
    # region exists and is text, used with categories: no problem for region_counts
    assert "queries[region_counts].column" not in wheres
    # the engine (check --data, release) raises the first and says how many more there are
    with pytest.raises(InputError, match=rf"and {len(problems) - 1} more problems"):
        PandasEngine(plan, CHILE, SeededRandomSource(0))


def test_a_person_id_column_without_ids_is_a_fit_problem() -> None:
    from planner_app.core.data.fit import plan_problems

    plan = plan_of(privacy_unit={"kind": "person", "id_column": "pid", "max_rows": 2})
    frame = pd.DataFrame({"pid": ["a", None, "b"]})
    assert [p.where for p in plan_problems(plan, frame, "t.csv")] == ["column 'pid'"]
    assert plan_problems(plan, frame.dropna(), "t.csv") == []


def test_check_data_on_the_cli_exits_2_and_shows_the_count(tmp_path: Path) -> None:
    table = write_table(tmp_path / "chile.csv",
                        pd.DataFrame({"sex": SEX + ["X"] * 5 + [None] * 3}))
    bad = write_json(tmp_path / "bad.json", plan_dict(queries=[rr()]))
    good = write_json(tmp_path / "good.json", plan_dict(queries=[rr(yes=["F"], no=["M"])]))
    env_cmd = ["--home", str(tmp_path / "home"), "check"]
    done = run_in_process([*env_cmd, str(bad), "--data", str(table)])
    assert done.returncode == 2, done.stderr
    assert "queries[women].yes" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    done = run_in_process([*env_cmd, str(good), "--data", str(table)])
    assert done.returncode == 0, done.stderr
    assert "5 cells of sex are neither a yes nor a no value" in done.stdout


def test_nothing_about_the_neither_count_reaches_the_bundle(tmp_path: Path) -> None:
    import zipfile

    frame = pd.DataFrame({"sex": SEX + ["X"] * 7})
    table = load_table(write_table(tmp_path / "t.csv", frame))
    plan = plan_of(rr(yes=["F"], no=["M"]), neighbouring="replace-one",
                   budget={"epsilon": 1.0, "delta": 0.0})
    result = publish(plan, table, tmp_path / "out.zip", app_home(str(tmp_path / "home")))
    assert any("7 cells of sex" in n for n in result.notes)  # the owner sees it
    with zipfile.ZipFile(tmp_path / "out.zip") as z:
        for name in z.namelist():
            text = z.read(name).decode("utf-8", "replace")
            # the plan's public sentence on answers neither yes nor no may be there (the same
            # for every table); the owner's note with its count never is
            assert "not_yes_no" not in text, name
            for note in result.notes:
                assert note not in text, (name, note)
            assert "7 cells" not in text and "7 rows" not in text, name
    assert np.isfinite(result.releases[0].values[0].value)
