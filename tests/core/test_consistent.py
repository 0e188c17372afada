"""Consistent releases (issue 27): relations in the plan, the consistent values' mathematics,
and a census-like hierarchy released with non-negative whole counts that add up at every
level, verified."""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

from planner_app.cli import main
from planner_app.core.data.tables import load_table
from planner_app.core.dp.consistent import (
    CellNoise,
    consistent_values,
    controlled_rounding,
    estimate,
)
from planner_app.core.planfile import plan_from_dict, plan_to_dict
from planner_app.core.planfile.relations import cell_tree
from planner_app.core.planning.editing import remove_query, replace_query
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.bundle import RECORD, RESULTS
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import AppHome, app_home
from planner_app.core.support.resources import resource_path
from tests.census import census_frame, census_plan, districts_of
from tests.corpus.crafted import reseal, rezip, unzip


@pytest.fixture
def home(tmp_path: Path) -> AppHome:
    return app_home(tmp_path / "home").ensure()


# ----------------------------------------------------------------------------- the plan


def test_a_hierarchy_reads_and_writes_back_unchanged() -> None:
    doc = census_plan(1.0)
    plan = plan_from_dict(doc)
    assert plan.consistency is not None and len(plan.consistency.relations) == 2
    written = plan_to_dict(plan)
    assert written["consistency"] == doc["consistency"]
    assert plan_to_dict(plan_from_dict(written)) == written
    without = {k: v for k, v in doc.items() if k != "consistency"}
    assert "consistency" not in plan_to_dict(plan_from_dict(without))


def _refusal(doc: dict[str, Any]) -> str:
    with pytest.raises(InputError) as info:
        plan_from_dict(doc, "plan.json")
    return str(info.value)


def _with_district_relation(**change: Any) -> dict[str, Any]:
    doc = census_plan(1.0)
    doc["consistency"]["relations"][1].update(change)
    return doc


@pytest.mark.parametrize("change, message", [
    ({"within": None}, "consistency.relations[1].within: is required: 'by_district' is "
                       "grouped by district"),
    ({"within": {"R1": ["R1-D1"]}}, "within: has no entry for 'by_region''s key 'R2'"),
    ({"within": {**districts_of(4, 5), "R9": ["R1-D1"]}},
     "within: 'R9' is not a group key of 'by_region'"),
    ({"within": {**districts_of(4, 5), "R1": ["R1-D1", "X"]}},
     "within.R1: 'X' is not a group key of 'by_district'"),
    ({"within": {**districts_of(4, 5), "R1": ["R1-D1", "R2-D1"]}},
     "within.R2: 'R2-D1' is also within 'R1'"),
    ({"within": {**districts_of(4, 5), "R1": ["R1-D1"]}},
     "'by_district''s key 'R1-D2' is within no key of 'by_region'"),
])
def test_a_two_level_hierarchy_must_place_every_part_once(change: dict[str, Any],
                                                          message: str) -> None:
    if change.get("within") is None:
        doc = census_plan(1.0)
        del doc["consistency"]["relations"][1]["within"]
    else:
        doc = _with_district_relation(**change)
    assert message in _refusal(doc)


def test_relations_that_do_not_count_the_same_rows_are_refused() -> None:
    doc = census_plan(1.0)
    doc["queries"][1]["where"] = [{"column": "age", "op": ">=", "value": 18}]
    assert "'by_region' and 'nation' have different where filters" in _refusal(doc)
    doc = census_plan(1.0)
    doc["queries"][0]["column"] = "age"  # counts rows with an age; the regions count all
    assert "'by_region' counts every row, but 'nation' counts rows where age is present" \
        in _refusal(doc)
    doc = census_plan(1.0)
    doc["privacy_unit"] = {"kind": "person", "id_column": "person_id", "max_rows": 2}
    doc["queries"][0]["of"] = "people"
    assert "consistency.relations[0].total: 'nation' counts people" in _refusal(doc)


def test_relations_must_form_a_tree() -> None:
    doc = census_plan(1.0)
    doc["queries"].append({**doc["queries"][1], "id": "by_region2"})
    doc["consistency"]["relations"] = [{"total": "by_region", "parts": "by_region2"},
                                       {"total": "by_region2", "parts": "by_region"}]
    assert "consistency.relations[0]: 'by_region2' adds up to itself" in _refusal(doc)
    doc = census_plan(1.0)
    doc["consistency"]["relations"][1] = {"total": "nation", "parts": "by_district"}
    assert "relations[1].total: 'nation' is already the total of relations[0]" \
        in _refusal(doc)


def test_a_grouped_histogram_adds_up_to_each_group_of_a_count() -> None:
    """A histogram per group under a count per group (same column and keys): each group's
    categories add up to that group, cell by cell in release order."""
    groups = {"column": "g", "keys": ["a", "b"]}
    doc = {"format": "planner-app/plan@1", "dataset": {"name": "d"},
           "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 2.0},
           "queries": [{"id": "n_g", "kind": "count", "column": "c", "epsilon": 1.0,
                        "group_by": groups},
                       {"id": "c_g", "kind": "histogram", "column": "c", "epsilon": 1.0,
                        "categories": ["x", "y", "z"], "group_by": groups}],
           "consistency": {"relations": [{"total": "n_g", "parts": "c_g"}]}}
    tree = cell_tree(plan_from_dict(doc))
    assert tree.query_ids == ("n_g", "c_g")
    assert tree.parent.tolist() == [-1, -1, 0, 0, 0, 1, 1, 1]
    doc["queries"][0]["group_by"] = {"column": "g", "keys": ["a"]}
    assert "consistency.relations[0].within: is required" in _refusal(doc)


def test_too_many_cells_are_refused_at_plan_read() -> None:
    doc = census_plan(1.0, regions=20, per_region=60)
    assert "consistent values are made for at most 1,000 cells" in _refusal(doc)


# ----------------------------------------------------------------------------- the mathematics


def test_the_linear_estimate_is_the_inverse_variance_combination() -> None:
    """A total and three parts: the total's estimate is the inverse-variance average of its
    own noisy value and the parts' sum; each part takes an equal share of the correction
    (equal variances), worked out by hand."""
    y = np.array([100.0, 30.0, 50.0, 10.0])  # total, then its parts (sum 90)
    parent = np.array([-1, 0, 0, 0])
    vt, vp = 4.0, 2.0
    var = np.array([vt, vp, vp, vp])
    x, whole = estimate(y, var, parent, non_negative=False, integer=False)
    total = (100 / vt + 90 / (3 * vp)) / (1 / vt + 1 / (3 * vp))
    assert whole is None
    assert x[0] == pytest.approx(total)
    assert x[1:] == pytest.approx(y[1:] + (total - 90) / 3)


def test_the_non_negative_estimate_of_a_hand_example() -> None:
    """Total 10 with parts -5 and 3, unit variances: minimising (z1+5)² + (z2-3)² +
    (z1+z2-10)² over z ≥ 0 gives z1 = 0, z2 = 6.5 (the unconstrained optimum has z1 = -1)."""
    x, _ = estimate(np.array([10.0, -5.0, 3.0]), np.ones(3), np.array([-1, 0, 0]),
                    non_negative=True, integer=False)
    assert x == pytest.approx([6.5, 0.0, 6.5])


def _random_forest(rng: np.random.Generator, n: int) -> np.ndarray:
    parent = np.full(n, -1)
    for i in range(1, n):
        if rng.random() < 0.85:
            parent[i] = rng.integers(0, i)
    return parent


def test_controlled_rounding_keeps_every_relation_in_integers() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(2, 40))
        parent = _random_forest(rng, n)
        leaves = rng.uniform(-3, 30, n)
        # each cell the sum of its leaves, as the estimate makes them
        x = np.zeros(n)
        has_child = {int(p) for p in parent if p >= 0}
        for i in range(n):
            if i not in has_child:
                at = i
                while at >= 0:
                    x[at] += leaves[i]
                    at = int(parent[at])
        whole = controlled_rounding(x, parent)
        for i in range(n):
            assert whole[i] in (math.floor(round(x[i], 9)), math.ceil(round(x[i], 9)))
            kids = [j for j in range(n) if parent[j] == i]
            if kids:
                assert sum(whole[j] for j in kids) == whole[i]


def test_intervals_cover_at_the_planned_epsilon() -> None:
    """Released many times on one true hierarchy (the noise drawn here, independently of the
    code's simulation), the 95% intervals of the consistent values cover the truth about 95%
    of the time -- linear, and non-negative whole numbers."""
    tree = districts_of(2, 3)
    truth_d = np.array([0, 3, 40, 120, 7, 0])
    truth_r = np.array([truth_d[:3].sum(), truth_d[3:].sum()])
    truth = np.concatenate([[truth_d.sum()], truth_r, truth_d])
    parent = np.array([-1, 0, 0, 1, 1, 1, 2, 2, 2])
    assert len(tree) == 2
    scale = 3.0
    noise = [CellNoise("laplace", scale)] * len(truth)
    rng = np.random.default_rng(11)
    p = 1 - math.exp(-1 / scale)
    for non_negative, integer in ((False, False), (True, True)):
        hits, runs = 0, 300
        for _ in range(runs):
            y = truth + rng.geometric(p, len(truth)) - rng.geometric(p, len(truth))
            made = consistent_values(y.tolist(), noise, parent, non_negative=non_negative,
                                     integer=integer, confidence=0.95)
            hits += sum(lo <= t <= hi for lo, t, hi in zip(made.low, truth, made.high,
                                                             strict=True))
            if integer:
                assert all(isinstance(v, int) and v >= 0 for v in made.values)
        assert hits / (runs * len(truth)) >= 0.93, (non_negative, hits / (runs * len(truth)))


# ----------------------------------------------------------------------------- the release


def _release(tmp_path: Path, home: AppHome, doc: dict[str, Any], rows: int = 3000,
             frame: Any = None) -> Path:
    data = tmp_path / "census.csv"
    (census_frame(rows) if frame is None else frame).to_csv(data, index=False)
    out = tmp_path / "census.zip"
    publish(plan_from_dict(doc, "plan.json"), load_table(data), out, home)
    return out


def test_a_census_hierarchy_adds_up_at_every_level_and_verifies(tmp_path: Path,
                                                                home: AppHome) -> None:
    out = _release(tmp_path, home, census_plan(0.3))
    with zipfile.ZipFile(out) as z:
        record = json.loads(z.read(RECORD))
        rows = list(csv.DictReader(io.StringIO(z.read(RESULTS).decode("utf-8"))))
    c = record["consistency"]
    assert (c["non_negative"], c["integer"], c["headline"]) == (True, True, "consistent")
    jsonschema.validate(record, json.loads(resource_path("release.schema.json").read_text()))
    jsonschema.validate(record["plan"],
                        json.loads(resource_path("plan.schema.json").read_text()))
    value = {(r["query_id"], r["group"]): int(r["consistent"]) for r in rows}  # whole, exact
    raw = {(r["query_id"], r["group"]): int(r["value"]) for r in rows}
    assert all(v >= 0 for v in value.values())
    tree = districts_of(4, 5)
    assert value[("nation", "")] == sum(value[("by_region", r)] for r in tree)
    for region, districts in tree.items():
        assert value[("by_region", region)] == sum(value[("by_district", d)]
                                                   for d in districts)
    for key, v in value.items():  # each interval holds its value
        row = next(r for r in rows if (r["query_id"], r["group"]) == key)
        assert int(row["consistent_low"]) <= v <= int(row["consistent_high"])
    assert set(raw) == set(value)  # the raw noised values are there too
    assert all(q["empty_cell_bias"] > 0 for q in c["queries"])
    verdict = verify_bundle(out)
    assert verdict.problems == []
    assert any("consistent values recompute byte for byte" in line for line in verdict.checks)
    # the headline is the consistent value: the report's table shows it, the raw in its note
    html = zipfile.ZipFile(out).read("report.html").decode("utf-8")
    nation = next(r for r in rows if r["query_id"] == "nation")
    assert (f"<td class='num'>{int(nation['consistent']):,}</td>" in html
            or f"<td class='num'>{nation['consistent']}</td>" in html)
    assert f"consistent value; raw noised value {nation['value']} [{nation['low']}, " \
           f"{nation['high']}]" in html


def test_verify_names_a_consistent_value_that_is_not_the_relations(tmp_path: Path,
                                                                   home: AppHome) -> None:
    out = _release(tmp_path, home, census_plan(1.0))
    files = unzip(out.read_bytes())
    record = json.loads(files[RECORD])
    record["consistency"]["queries"][0]["value"][0] += 1
    files[RECORD] = json.dumps(record, indent=2).encode("utf-8")
    bad = tmp_path / "changed.zip"
    bad.write_bytes(rezip(reseal(files)))  # every hash made again: only the value is wrong
    problems = verify_bundle(bad).problems
    assert any("its consistent values are not what the plan's relations make of its raw "
               "noised values" in p for p in problems), problems
    # the record's format says whether it has consistent values (release@3) or not (@2)
    assert json.loads(files[RECORD])["format"] == "planner-app/release@3"
    record["format"] = "planner-app/release@2"
    files[RECORD] = json.dumps(record, indent=2).encode("utf-8")
    bad.write_bytes(rezip(reseal(files)))
    assert "release.json: a planner-app/release@2 record with consistent values " \
           "(planner-app/release@3 is the record that has them)" in verify_bundle(bad).problems


def test_a_table_that_breaks_a_relation_is_refused_before_the_charge(
        tmp_path: Path, home: AppHome) -> None:
    frame = census_frame(500)
    frame.loc[3, "region"] = "R2" if frame.loc[3, "region"] != "R2" else "R3"  # misplaced
    with pytest.raises(InputError) as info:
        _release(tmp_path, home, census_plan(1.0), frame=frame)
    assert "consistency.relations[1]: in this table the cells of 'by_district' do not add " \
           "up to 'by_region'" in str(info.value)
    assert Ledger(home.ledger_path).state("census").releases == []
    assert not (tmp_path / "census.zip").exists()


def test_group_sums_add_up_to_the_total_sum(tmp_path: Path, home: AppHome) -> None:
    """Sums of age by region add up to the sum of age (same column, bounds and grid), made
    non-negative; a sum with other bounds, or whole numbers for sums, is refused."""
    doc = census_plan(2.0)
    age = {"kind": "sum", "column": "age", "lower": 0, "upper": 100, "epsilon": 0.5,
           "justification": {"bounds": "ages are recorded 0-100"}}
    doc["queries"] += [{**age, "id": "age"},
                       {**age, "id": "age_by_region", "group_by": doc["queries"][1]["group_by"],
                        "justification": {**age["justification"], "keys": "the areas"}}]
    doc["budget"]["epsilon"] = 3.0
    doc["consistency"]["relations"].append({"total": "age", "parts": "age_by_region"})
    refused = copy.deepcopy(doc)
    assert "consistency.integer: is for counts: 'age' is a sum" in _refusal(refused)
    doc["consistency"]["integer"] = False
    other = copy.deepcopy(doc)
    other["queries"][4]["upper"] = 120
    assert "'age_by_region' and 'age' must sum the same column with the same bounds" \
        in _refusal(other)
    out = _release(tmp_path, home, doc)
    c = json.loads(zipfile.ZipFile(out).read(RECORD))["consistency"]
    values = {q["query_id"]: q["value"] for q in c["queries"]}
    assert values["age"][0] == pytest.approx(sum(values["age_by_region"]), abs=0.01)
    assert min(values["age_by_region"]) >= 0
    assert verify_bundle(out).problems == []


def test_a_plan_edited_after_reading_is_refused_if_its_relations_no_longer_fit(
        tmp_path: Path, home: AppHome) -> None:
    """The app edits the plan it read: removing a statistic that a relation names must be
    refused with the field named before anything is read or charged, never a KeyError."""
    plan = plan_from_dict(census_plan(1.0), "plan.json")
    edited = plan.with_queries(q for q in plan.queries if q.id != "by_region")
    data = tmp_path / "census.csv"
    census_frame(200).to_csv(data, index=False)
    with pytest.raises(InputError) as info:
        publish(edited, load_table(data), tmp_path / "out.zip", home)
    assert str(info.value) == ("plan: consistency.relations[0].parts: names no statistic of "
                               "this plan ('by_region')")
    assert Ledger(home.ledger_path).state("census").releases == []


def test_the_relations_follow_a_rename_and_go_with_a_removed_statistic() -> None:
    plan = plan_from_dict(census_plan(1.0), "plan.json")
    renamed = replace_query(plan, replace(plan.query("by_region"), id="regions"), "by_region")
    assert [(r.total, r.parts) for r in renamed.consistency.relations] == [
        ("nation", "regions"), ("regions", "by_district")]
    assert plan_from_dict(plan_to_dict(renamed)).consistency == renamed.consistency
    removed = remove_query(plan, "by_district")
    assert [(r.total, r.parts) for r in removed.consistency.relations] == [
        ("nation", "by_region")]
    assert remove_query(removed, "nation").consistency is None
    plan_from_dict(plan_to_dict(remove_query(removed, "nation")))  # reads again


def test_check_names_the_relations(tmp_path: Path, capsys: Any,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_APP_HOME", str(tmp_path / "home"))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(census_plan(1.0)))
    assert main(["check", str(plan)]) == 0
    assert ("Consistent values (non-negative, whole numbers; post-processing, no privacy "
            "cost): the cells of 'by_region' add up to 'nation'; the cells of 'by_district' "
            "add up to 'by_region''s key they lie within. Headline values: consistent.") \
        in capsys.readouterr().out


def test_clamping_is_refused_with_relations(tmp_path: Path, capsys: Any,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_APP_HOME", str(tmp_path / "home"))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(census_plan(1.0)))
    census_frame(300).to_csv(tmp_path / "census.csv", index=False)
    code = main(["release", str(plan), "--data", str(tmp_path / "census.csv"), "--out",
                 str(tmp_path / "out.zip"), "--clamp-counts"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "--clamp-counts: is not used with a plan that declares consistency relations" \
        in err[0]
    assert not (tmp_path / "out.zip").exists()


def test_linear_values_without_rounding_are_published_and_verify(tmp_path: Path,
                                                                 home: AppHome) -> None:
    doc = census_plan(1.0, non_negative=False, integer=False, headline="raw",
                      mechanism="gaussian")
    out = _release(tmp_path, home, doc)
    record = json.loads(zipfile.ZipFile(out).read(RECORD))
    c = record["consistency"]
    assert c["intervals"].startswith("closed form")
    nation = c["queries"][0]["value"][0]
    regions = c["queries"][1]["value"]
    assert nation == pytest.approx(sum(regions), abs=0.01)  # to the published decimals
    assert verify_bundle(out).problems == []
    html = zipfile.ZipFile(out).read("report.html").decode("utf-8")
    assert "consistent value; raw noised value" not in html  # the raw values are the headline
    assert "The headline values are the raw noised ones" in html
    doc2 = copy.deepcopy(doc)
    assert plan_to_dict(plan_from_dict(doc2))["consistency"]["headline"] == "raw"
