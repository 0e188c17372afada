"""Synthetic tables (kind synthetic, MST): the plan's rules, the measurements and their
accounting, the true marginals from every engine, the exact selection, the release and what
verify checks. The tests that synthesise rows need the optional package mbi (the synth extra,
which CI installs) and skip without it."""

from __future__ import annotations

import csv
import io
import json
import math
import sys
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.engines import open_engine
from planner_app.core.data.tables import load_table
from planner_app.core.dp.accounting import compose
from planner_app.core.dp.measure import epsilon_from_rho, rho_for
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.dp.synthetic import exponential_select
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.kinds.synthetic import table_preview as preview
from planner_app.core.planfile import plan_from_dict, plan_to_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import AppHome, app_home
from planner_app.core.support.resources import plan_schema_path, resource_path
from tests.conftest import DEMO_TABLE, plan_dict

REGIONS = ["North", "South", "East", "West"]
JOBS = ["employed", "unemployed", "retired", "student"]
AGES = [16, 25, 35, 45, 55, 65, 75, 100]
SYNTH: dict[str, Any] = {
    "id": "synth", "label": "Synthetic survey", "kind": "synthetic", "method": "mst",
    "columns": [{"column": "region", "categories": REGIONS},
                {"column": "employment", "categories": JOBS},
                {"column": "age", "bins": AGES},
                {"column": "smoker", "categories": ["yes", "no"]}],
    "epsilon": 2.0, "delta": 1e-6,
    "justification": {"categories": "official regions and the form's answers",
                      "bounds": "standard reporting age bands"},
}


def synth_plan(**query: Any) -> dict[str, Any]:
    q = {**SYNTH, **query}
    q = {k: v for k, v in q.items() if v is not None}
    return plan_dict(dataset={"name": "demo-survey", "expected_rows": 3800},
                     privacy_unit={"kind": "person", "id_column": "person_id", "max_rows": 3},
                     budget={"epsilon": 4.0, "delta": 1e-5}, queries=[q])


# ----------------------------------------------------------------------------- the plan


@pytest.mark.parametrize(("change", "where", "words"), [
    ({"columns": None}, "queries[synth].columns", "is required"),
    ({"columns": []}, "queries[synth].columns", "non-empty"),
    ({"columns": [{"column": "region"}]}, "queries[synth].columns[0]", "exactly one of"),
    ({"columns": [{"column": "region", "categories": ["a"], "bins": [0, 1]}]},
     "queries[synth].columns[0]", "exactly one of"),
    ({"columns": [{"column": "age", "bins": [0, 5, 5]}]}, "queries[synth].columns[0].bins[2]",
     "increase strictly"),
    ({"columns": [{"column": "a", "categories": ["x", "x"]}]},
     "queries[synth].columns[0].categories[1]", "repeats"),
    ({"columns": [{"column": "a", "categories": ["x"]}, {"column": "a", "categories": ["y"]}]},
     "queries[synth].columns[1].column", "already a column"),
    ({"columns": [{"column": "a", "categories": list(range(400))},
                  {"column": "b", "categories": list(range(400))}]},
     "queries[synth].columns", "cells"),
    ({"rows": 0}, "queries[synth].rows", "between 1"),
    ({"rows": 1_000_001}, "queries[synth].rows", "between 1 and 1,000,000"),
    ({"columns": [{"column": "a", "categories": ["x" * 2000]}], "rows": 1_000_000},
     "queries[synth].rows", "larger than 512 MiB; at most 134,"),
    ({"rows": 2.5}, "queries[synth].rows", "whole number"),
    ({"delta": None}, "queries[synth].delta", "is required"),
    ({"delta": 0}, "queries[synth].delta", "above 0"),
    ({"method": "gan"}, "queries[synth].method", "not one of: mst, aim"),
    ({"mechanism": "gaussian"}, "queries[synth].mechanism", "method"),
    ({"column": "region"}, "queries[synth].column", "not used by kind synthetic"),
    ({"where": []}, "queries[synth].where", "not used by kind synthetic"),
])
def test_a_bad_synthetic_query_is_refused_naming_its_field(change: dict[str, Any], where: str,
                                                           words: str) -> None:
    doc = synth_plan()
    q = doc["queries"][0]
    for key, value in change.items():
        if value is None:
            q.pop(key, None)
        else:
            q[key] = value
    with pytest.raises(InputError) as err:
        plan_from_dict(doc)
    assert err.value.where == where
    assert words in err.value.problem
    assert "\n" not in str(err.value)


def test_other_kinds_refuse_the_synthetic_fields() -> None:
    doc = plan_dict(queries=[{"id": "n", "kind": "count", "epsilon": 1.0, "rows": 10}])
    with pytest.raises(InputError) as err:
        plan_from_dict(doc)
    assert err.value.where == "queries[n].rows"


def test_the_basic_accountant_is_refused_for_a_synthetic_table() -> None:
    doc = synth_plan()
    doc["budget"]["accountant"] = "basic"
    with pytest.raises(InputError) as err:
        plan_from_dict(doc)
    assert err.value.where == "budget.accountant"
    assert "zCDP" in err.value.problem


def test_a_synthetic_plan_round_trips_and_the_schema_accepts_it() -> None:
    doc = synth_plan(rows=500)
    plan = plan_from_dict(doc)
    again = plan_from_dict(plan_to_dict(plan))
    assert again == plan
    q = plan.queries[0]
    assert [c.column for c in q.params.columns or ()] == ["region", "employment", "age", "smoker"]
    assert q.params.rows == 500 and q.mechanism == "mst"
    schema = json.loads(plan_schema_path().read_text())
    jsonschema.validate(plan_to_dict(plan), schema)
    bad = plan_to_dict(plan)
    del bad["queries"][0]["columns"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


# ----------------------------------------------------------------------------- measurements


def test_the_measurements_split_rho_in_thirds_and_compose_to_the_query_epsilon() -> None:
    plan = plan_from_dict(synth_plan())
    q = plan.queries[0]
    ms = measurements_for(q, plan)
    names = [m.component.name for m in ms]
    assert names == ["oneway:region", "oneway:employment", "oneway:age", "oneway:smoker",
                     "select:1", "twoway:1", "select:2", "twoway:2", "select:3", "twoway:3"]
    rho = rho_for(2.0, 1e-6)
    k = 3  # max_rows: a marginal's squared L2 sensitivity is 9 under add-remove
    for m in ms:
        if m.component.name.startswith("oneway:"):  # a third over the 4 one-way marginals
            assert float(m.sigma_sq) == pytest.approx(k * k / (2 * rho / 3 / 4), rel=1e-9)
            assert float(m.sigma_sq) >= k * k / (2 * rho / 3 / 4)  # rounded up, never down
        elif m.component.name.startswith("twoway:"):  # a third over the 3 pairs
            assert float(m.sigma_sq) == pytest.approx(k * k / (2 * rho / 3 / 3), rel=1e-9)
        else:  # (d-1)·ε²/8 = ρ/3
            assert m.mechanism == "exponential" and m.component.l1 == k
            assert 3 * m.epsilon ** 2 / 8 == pytest.approx(rho / 3, rel=1e-9)
    total_rho = math.fsum(m.rho for m in ms)
    assert total_rho <= rho * (1 + 1e-12)
    assert epsilon_from_rho(total_rho, 1e-6) <= 2.0 * (1 + 1e-9)
    assert compose(ms, 1e-6, "zcdp").epsilon <= 2.0 * (1 + 1e-9)


def test_replace_one_doubles_the_sensitivity() -> None:
    doc = synth_plan()
    doc["neighbouring"] = "replace-one"
    doc["privacy_unit"] = {"kind": "row"}
    plan = plan_from_dict(doc)
    ms = measurements_for(plan.queries[0], plan)
    assert {(m.component.l1, m.component.l2_sq) for m in ms if m.mechanism == "gaussian"} \
        == {(2, 2)}


def test_the_preview_comes_from_public_parameters_only() -> None:
    plan = plan_from_dict(synth_plan())
    p = preview(plan.queries[0], plan)
    rho = rho_for(2.0, 1e-6)
    one_sigma = math.sqrt(9 / (2 * rho / 12))
    assert [m.name for m in p.measurements][:4] == ["oneway:region", "oneway:employment",
                                                    "oneway:age", "oneway:smoker"]
    assert p.measurements[0].sigma == pytest.approx(one_sigma, rel=1e-9)
    # expected TVD of a one-way marginal: cells·σ·sqrt(2/π) / (2n), averaged over columns
    sizes = [4, 4, 7, 2]
    want = sum(s * one_sigma * math.sqrt(2 / math.pi) / (2 * 3800) for s in sizes) / 4
    assert p.one_way_error == pytest.approx(want, rel=1e-6)
    assert p.two_way_error is not None and p.two_way_error > 0
    assert p.expected_rows == 3800
    from planner_app.core.dp.synthetic import preview_lines

    lines = preview_lines(p)
    assert f"σ = {one_sigma:.4g} rows a cell" in lines[0]
    assert f"one-way marginals {want:.3f}" in lines[2]
    # the noise is judged against the real rows (expected_rows), not the synthetic rows
    assert preview(plan_from_dict(synth_plan(rows=100)).queries[0],
                   plan_from_dict(synth_plan(rows=100))).one_way_error == pytest.approx(want)


# ----------------------------------------------------------------------------- the selection


def test_the_exponential_selection_has_the_mechanism_distribution() -> None:
    """Frequencies against exp(ε·s/(2Δ)) normalised, computed here independently."""
    source = SeededRandomSource(5)
    scores, eps, sens = [0, 10, 20, 20], 0.1, 1
    runs = 20_000
    counts = Counter(exponential_select(source, scores, eps, sens) for _ in range(runs))
    weights = [math.exp(eps * s / (2 * sens)) for s in scores]
    for i, w in enumerate(weights):
        p = w / sum(weights)
        assert abs(counts[i] / runs - p) < 5 * math.sqrt(p * (1 - p) / runs)


# ----------------------------------------------------------------------------- marginals


def _independent_marginals(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """The marginals counted here with pandas, from the declared domains: rows whose every
    column is in its domain (the person bound keeps every row of the demo: at most 3 each)."""
    age = pd.to_numeric(frame["age"], errors="coerce")
    ok = (frame["region"].isin(REGIONS) & frame["employment"].isin(JOBS)
          & age.between(AGES[0], AGES[-1]) & frame["smoker"].isin(["yes", "no"]))
    f = frame[ok]
    band = np.searchsorted(AGES, age[ok].to_numpy(), side="right") - 1
    band[band == len(AGES) - 1] = len(AGES) - 2
    codes = {"region": f["region"].map(REGIONS.index).to_numpy(),
             "employment": f["employment"].map(JOBS.index).to_numpy(), "age": band,
             "smoker": f["smoker"].map(["yes", "no"].index).to_numpy()}
    sizes = {"region": 4, "employment": 4, "age": 7, "smoker": 2}
    names = list(sizes)
    out = {f"oneway:{n}": np.bincount(codes[n], minlength=sizes[n]) for n in names}
    for i in range(4):
        for j in range(i + 1, 4):
            a, b = names[i], names[j]
            out[f"pair:{i}:{j}"] = np.bincount(codes[a] * sizes[b] + codes[b],
                                               minlength=sizes[a] * sizes[b])
    return out


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_every_engine_gives_the_true_marginals(engine: str) -> None:
    plan = plan_from_dict(synth_plan())
    table = load_table(DEMO_TABLE)
    want = _independent_marginals(pd.read_csv(DEMO_TABLE, dtype={"person_id": str}))
    eng = open_engine(engine, plan, table, SeededRandomSource(1))
    try:
        agg = eng.aggregate(plan.queries[0])
    finally:
        eng.close()
    assert sorted(agg.parts) == sorted(want)
    for name, counts in want.items():
        assert agg.parts[name].tolist() == counts.tolist(), name


def test_rows_outside_a_domain_count_in_no_marginal() -> None:
    frame = pd.DataFrame({"a": ["x", "y", "z", None, "x"], "b": [1.0, 2.0, 2.0, 1.0, 9.0]})
    doc = plan_dict(queries=[{"id": "s", "kind": "synthetic", "epsilon": 1, "delta": 1e-6,
                              "columns": [{"column": "a", "categories": ["x", "y"]},
                                          {"column": "b", "bins": [0, 1.5, 3]}]}],
                    budget={"epsilon": 1, "delta": 1e-5})
    plan = plan_from_dict(doc)
    from planner_app.core.data.sql_runner import frame_source
    from planner_app.core.data.tables import Table

    table = Table(name="t.csv", frame=frame, source=frame_source("t.csv", frame))
    for engine in ("pandas", "duckdb"):
        eng = open_engine(engine, plan, table, SeededRandomSource(1))
        agg = eng.aggregate(plan.queries[0])
        eng.close()
        # kept: (x, 1.0) and (y, 2.0); z, the missing a and b = 9 are outside
        assert agg.parts["oneway:a"].tolist() == [1, 1], engine
        assert agg.parts["oneway:b"].tolist() == [1, 1], engine
        assert agg.parts["pair:0:1"].tolist() == [1, 0, 0, 1], engine


# ----------------------------------------------------------------------------- release


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    pytest.importorskip("mbi")
    folder = tmp_path_factory.mktemp("synth")
    home = app_home(folder / "home").ensure()
    doc = synth_plan(rows=300)
    doc["queries"].append({**SYNTH, "id": "synth_n", "epsilon": 1.0,
                           "columns": SYNTH["columns"][:2]})
    doc["budget"] = {"epsilon": 4.0, "delta": 1e-5}
    plan = plan_from_dict(doc)
    out = folder / "bundle.zip"
    result = publish(plan, load_table(DEMO_TABLE), out, home, source=SeededRandomSource(8))
    return {"plan": plan, "out": out, "home": home, "result": result,
            "files": {n: zipfile.ZipFile(out).read(n) for n in zipfile.ZipFile(out).namelist()}}


def _csv(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


def test_the_bundle_holds_the_synthetic_table_with_the_declared_domain(
        released: dict[str, Any]) -> None:
    files = released["files"]
    rows = _csv(files["synthetic/synth.csv"])
    assert rows[0] == ["region", "employment", "age", "smoker"]
    assert len(rows) - 1 == 300  # the plan's rows
    bands = {f"[{AGES[i]}, {AGES[i + 1]})" for i in range(len(AGES) - 2)} | {"[75, 100]"}
    for r in rows[1:]:
        assert r[0] in REGIONS and r[1] in JOBS and r[2] in bands and r[3] in {"yes", "no"}
    record = json.loads(files["release.json"])
    jsonschema.validate(record, json.loads(resource_path("release.schema.json").read_text()))
    t = record["synthetic"]["synth"]
    assert [m["name"] for m in t["marginals"]][:4] == [
        "oneway:region", "oneway:employment", "oneway:age", "oneway:smoker"]
    assert len(t["selected"]) == 3
    # without rows: the rounded mean of the noised one-way totals, recomputed here
    n = record["synthetic"]["synth_n"]
    totals = [sum(m["values"]) for m in n["marginals"] if m["name"].startswith("oneway:")]
    assert n["rows"] == max(1, round(sum(totals) / len(totals)))
    assert len(_csv(files["synthetic/synth_n.csv"])) - 1 == n["rows"]
    assert "Synthetic tables" in files["report.html"].decode()


def test_the_synthetic_bundle_verifies_and_tampering_is_named(released: dict[str, Any]) -> None:
    from planner_app.core.release.verify_release import verify_bundle
    from planner_app.core.release.verify_synthetic import synthetic_problems

    assert verify_bundle(released["out"]).valid
    files = dict(released["files"])
    record = json.loads(files["release.json"])
    plan = released["plan"]
    assert synthetic_problems(files, plan, record) == []
    text = files["synthetic/synth.csv"].decode().replace("North", "Atlantis", 1)
    bad = {**files, "synthetic/synth.csv": text.encode()}
    assert any("'Atlantis' is not a declared value of region" in p
               for p in synthetic_problems(bad, plan, record))
    short = {**files, "synthetic/synth.csv": b"\n".join(files["synthetic/synth.csv"]
                                                        .splitlines()[:-1]) + b"\n"}
    assert any("rows, not 300" in p for p in synthetic_problems(short, plan, record))
    forged = json.loads(files["release.json"])
    forged["synthetic"]["synth"]["marginals"][0]["sigma_sq_steps"] = "1"
    assert any("noise is not the plan's" in p for p in synthetic_problems(files, plan, forged))
    cyclic = json.loads(files["release.json"])
    sel = cyclic["synthetic"]["synth"]["selected"]
    sel[2] = sel[0]
    assert any("not a tree" in p for p in synthetic_problems(files, plan, cyclic))


def test_the_csv_is_a_function_of_the_saved_record(released: dict[str, Any]) -> None:
    """A resumed release rewrites the same table from the record, without new noise."""
    from planner_app.core.release.synthetic import synthetic_csv

    record = json.loads(released["files"]["release.json"])
    q = released["plan"].query("synth")
    assert synthetic_csv(q, record["synthetic"]["synth"]) == \
        released["files"]["synthetic/synth.csv"]


def test_without_mbi_the_plan_is_refused_before_any_charge(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setitem(sys.modules, "mbi", None)  # find_spec: not installed
    home: AppHome = app_home(tmp_path / "home").ensure()
    plan = plan_from_dict(synth_plan())
    with pytest.raises(InputError) as err:
        publish(plan, load_table(DEMO_TABLE), tmp_path / "b.zip", home)
    assert err.value.where == "queries[synth].kind"
    assert "planner-app[synth]" in err.value.problem
    assert not (tmp_path / "b.zip").exists()
    assert not home.ledger_path.exists() or Ledger(home.ledger_path).releases_charged() == 0


def test_a_synthetic_release_that_fails_after_its_charge_resumes_without_new_noise(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mbi")
    from planner_app.core.release import publish as publish_module
    from planner_app.core.release.pending import load_pending
    from planner_app.core.release.resume import resume_release
    from planner_app.core.release.synthetic import synthetic_csv
    from planner_app.core.release.verify_release import verify_bundle

    home = app_home(tmp_path / "home").ensure()
    plan = plan_from_dict(synth_plan(rows=120, columns=SYNTH["columns"][:2]))
    real = publish_module.report_pdf
    calls = {"n": 0}

    def fail_after_the_charge(record: dict[str, Any], *rest: Any) -> bytes:
        calls["n"] += 1
        if calls["n"] == 2:  # the first call is the preflight, before the charge
            raise OSError("disk went away")
        return real(record, *rest)

    monkeypatch.setattr(publish_module, "report_pdf", fail_after_the_charge)
    out = tmp_path / "b.zip"
    with pytest.raises(publish_module.ReleaseUnfinished) as info:
        publish(plan, load_table(DEMO_TABLE), out, home)
    doc = load_pending(home, info.value.release_id)
    payload = doc["record"]["synthetic"]["synth"]
    monkeypatch.setattr(publish_module, "report_pdf", real)
    resume_release(home, info.value.release_id)
    assert verify_bundle(out).valid
    files = zipfile.ZipFile(out)
    assert json.loads(files.read("release.json"))["synthetic"]["synth"] == payload
    assert files.read("synthetic/synth.csv") == synthetic_csv(plan.query("synth"), payload)
    assert Ledger(home.ledger_path).releases_charged() == 1


def test_a_synthetic_table_needs_a_reason_for_its_domains() -> None:
    from planner_app.core.planning.readiness import missing_reasons

    plan = plan_from_dict(synth_plan(justification={"categories": "official lists"}))
    assert missing_reasons(plan.queries[0]) == [("bounds", "bin edges")]
    plan = plan_from_dict(synth_plan(justification={"bounds": "age bands"}))
    assert missing_reasons(plan.queries[0]) == [("categories", "categories")]
    assert missing_reasons(plan_from_dict(synth_plan()).queries[0]) == []


def test_rounded_counts_split_a_total_by_largest_remainders() -> None:
    from planner_app.core.release.synthetic import rounded_counts

    assert rounded_counts(np.array([1.0, 1.0, 1.0]), 10).tolist() == [4, 3, 3]
    assert rounded_counts(np.array([0.5, -3.0, 0.25, 0.25]), 8).tolist() == [4, 0, 2, 2]
    assert rounded_counts(np.array([0.0, 0.0]), 3).tolist() == [2, 1]
    assert rounded_counts(np.array([0.7, 0.3]), 1).tolist() == [1, 0]


def test_the_tree_sampler_matches_the_model_marginals_it_is_given() -> None:
    """A known chain a - b - c: the rows' one-way and pair counts are the model's, to within
    a row a cell (largest remainders), whatever the seed; the order of rows is the seed's."""
    from planner_app.core.release.synthetic import tree_sample

    pa = np.array([0.5, 0.3, 0.2])
    ab = np.array([[0.4, 0.1], [0.05, 0.25], [0.1, 0.1]])  # rows sum to pa
    bc = np.array([[0.3, 0.1, 0.15], [0.05, 0.3, 0.1]])  # b's margin [0.55, 0.45]
    model = {("a",): pa, ("a", "b"): ab.reshape(-1), ("b", "c"): bc.reshape(-1),
             ("b",): ab.sum(axis=0)}
    rows = 1000
    out = tree_sample(["a", "b", "c"], [3, 2, 3], [("a", "b"), ("b", "c")],
                      lambda cols: model[cols], rows, 7)
    assert out.shape == (rows, 3)
    assert np.abs(np.bincount(out[:, 0], minlength=3) - pa * rows).max() <= 1
    got_ab = np.bincount(out[:, 0] * 2 + out[:, 1], minlength=6).reshape(3, 2)
    assert np.abs(got_ab - ab * rows).max() <= 1
    got_bc = np.bincount(out[:, 1] * 3 + out[:, 2], minlength=6).reshape(2, 3)
    # within each value of b: its rows split by c as the model's conditional, to within 1
    for v in range(2):
        n_v = got_bc[v].sum()
        assert np.abs(got_bc[v] - bc[v] / bc[v].sum() * n_v).max() <= 1
    again = tree_sample(["a", "b", "c"], [3, 2, 3], [("a", "b"), ("b", "c")],
                        lambda cols: model[cols], rows, 7)
    assert (again == out).all()


def test_the_readiness_rules_say_when_mbi_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from planner_app.core.planning.check import check_plan

    plan = plan_from_dict(synth_plan())
    from importlib.util import find_spec

    if find_spec("mbi") is not None:
        assert "synthesis" not in {r.rule for r in check_plan(plan).readiness.failures}
    monkeypatch.setitem(sys.modules, "mbi", None)
    failed = {r.rule: r for r in check_plan(plan).readiness.failures}
    assert failed["synthesis"].where == "queries[synth].kind"
    assert "planner-app[synth]" in failed["synthesis"].message
    plain = plan_from_dict(plan_dict())
    assert "synthesis" not in {r.rule for r in check_plan(plain).readiness.results}


def test_spark_gives_the_same_true_marginals(spark_session: Any) -> None:
    """The third engine (CI installs pyspark): the same counts as the pandas answer above. On
    the process's one Spark session (tests/conftest.spark_session), which the engine uses."""
    from planner_app.core.data.tables import open_table

    plan = plan_from_dict(synth_plan())
    want = _independent_marginals(pd.read_csv(DEMO_TABLE, dtype={"person_id": str}))
    eng = open_engine("spark", plan, open_table(DEMO_TABLE), SeededRandomSource(1))
    try:
        agg = eng.aggregate(plan.queries[0])
    finally:
        eng.close()
    for name, counts in want.items():
        assert agg.parts[name].tolist() == counts.tolist(), name


def test_bin_labels_are_exact_so_close_edges_stay_apart() -> None:
    """Each bin's label in the synthetic table names its edges exactly: edges that differ only
    past the 6th digit gave the same label ("[16, 16)" twice), and 123456789 read 1.23457e+08."""
    from planner_app.core.model.plan import SynthColumn

    close = SynthColumn("x", bins=(16.0, 16.0000000001, 16.0000000002, 100.0))
    labels = close.labels()
    assert len(set(labels)) == 3
    assert labels[0] == "[16, 16.0000000001)" and labels[-1] == "[16.0000000002, 100]"
    wide = SynthColumn("x", bins=(0.0, 123456789.0, 1e17, 2.5e17))
    assert wide.labels() == ["[0, 123456789)", "[123456789, 1e+17)", "[1e+17, 2.5e+17]"]
