"""Synthetic tables by AIM (issue 25): the plan's fields, the exact accounting of the
adaptive rounds, the exact selection, triples from every engine, and a release that
verifies and regenerates. The release tests need mbi (the synth extra) and skip without it."""

from __future__ import annotations

import csv
import io
import json
import math
import zipfile
from collections import Counter
from fractions import Fraction
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
from planner_app.core.dp.mechanisms import SeededRandomSource, SystemRandomSource
from planner_app.core.dp.synthetic_aim import (
    RoundSchedule,
    budget_of,
    candidates,
    exponential_select_exact,
    rounds_problem,
)
from planner_app.core.kinds.params import synth_columns_of
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile import plan_from_dict, plan_to_dict
from planner_app.core.support.errors import InputError
from planner_app.core.support.resources import plan_schema_path, resource_path
from tests.conftest import DEMO_TABLE
from tests.core.test_synthetic import AGES, JOBS, REGIONS, synth_plan


def aim_plan(**query: Any) -> dict[str, Any]:
    return synth_plan(**{"method": "aim", **query})


# ----------------------------------------------------------------------------- the plan


def test_an_aim_plan_round_trips_and_the_schema_accepts_it() -> None:
    doc = aim_plan(pairs=[["region", "age"], ["age", "smoker"]],
                   triples=[["region", "employment", "smoker"]])
    plan = plan_from_dict(doc)
    q = plan.queries[0]
    assert q.mechanism == "aim"
    again = plan_to_dict(plan)
    assert again["queries"][0]["pairs"] == [["region", "age"], ["age", "smoker"]]
    assert again["queries"][0]["triples"] == [["region", "employment", "smoker"]]
    assert plan_from_dict(again) == plan
    jsonschema.validate(again, json.loads(plan_schema_path().read_text()))


@pytest.mark.parametrize(("change", "where", "words"), [
    ({"method": "mst", "pairs": [["region", "age"]]}, "queries[synth].pairs", "needs"),
    ({"method": "mst", "triples": [["region", "age", "smoker"]]}, "queries[synth].triples",
     "needs"),
    ({"pairs": [["region", "nowhere"]]}, "queries[synth].pairs[0]", "'nowhere' is not"),
    ({"pairs": [["region", "region"]]}, "queries[synth].pairs[0]", "twice"),
    ({"pairs": [["region", "age"], ["age", "region"]]}, "queries[synth].pairs[1]", "already"),
    ({"pairs": [["region"]]}, "queries[synth].pairs[0]", "2 column names"),
    ({"pairs": []}, "queries[synth].pairs", "at least one pair"),
    ({"pairs": "region"}, "queries[synth].pairs", "must be a list"),
    ({"triples": [["region", "age"]]}, "queries[synth].triples[0]", "3 column names"),
    ({"method": "aimm"}, "queries[synth].method", "aim"),
])
def test_a_bad_aim_workload_is_refused_naming_its_field(change: dict[str, Any], where: str,
                                                        words: str) -> None:
    with pytest.raises(InputError) as e:
        plan_from_dict(aim_plan(**change))
    assert e.value.where == where
    assert words in str(e.value)


def test_the_pld_accountant_is_refused_for_aim_and_kept_for_mst() -> None:
    doc = aim_plan()
    doc["budget"]["accountant"] = "pld"
    with pytest.raises(InputError) as e:
        plan_from_dict(doc)
    assert e.value.where == "budget.accountant"
    assert "zcdp" in str(e.value)
    mst = synth_plan()
    mst["budget"]["accountant"] = "pld"
    plan_from_dict(mst)  # MST's measurements have a PLD


# ----------------------------------------------------------------------------- accounting


@pytest.mark.parametrize(("epsilon", "delta", "max_rows"), [(2.0, 1e-6, 3), (0.5, 1e-9, 1),
                                                            (4.0, 1e-5, 2)])
def test_the_measurements_compose_to_the_stated_epsilon(epsilon: float, delta: float,
                                                        max_rows: int) -> None:
    doc = aim_plan(epsilon=epsilon, delta=delta)
    doc["privacy_unit"]["max_rows"] = max_rows
    plan = plan_from_dict(doc)
    q = plan.queries[0]
    ms = measurements_for(q, plan)
    assert [m.component.name for m in ms] == [
        "oneway:region", "oneway:employment", "oneway:age", "oneway:smoker", "rounds"]
    total = compose(ms, delta, "zcdp")
    # independent: ρ from (ε, δ) by the zCDP conversion, back to ε
    assert total.epsilon <= epsilon * (1 + 1e-9)
    assert total.epsilon == pytest.approx(epsilon, rel=1e-6)
    assert compose(ms, delta).epsilon <= epsilon * (1 + 1e-9)  # the default picks zcdp
    # the one-way noise is AIM's: σ² = Δ₂²·T/(2·0.9·ρ) with T = 16·d rounds
    rho = rho_for(epsilon, delta)
    want = max_rows ** 2 * 16 * 4 / (2 * 0.9 * rho)
    assert float(ms[0].sigma_sq or 0) == pytest.approx(want, rel=1e-9)
    assert float(ms[0].sigma_sq or 0) >= want


def _spend(plan_doc: dict[str, Any], anneal: Any) -> tuple[Fraction, Fraction, list[Any]]:
    plan = plan_from_dict(plan_doc)
    q = plan.queries[0]
    budget = budget_of(q, plan, synth_columns_of(q))
    schedule = RoundSchedule(budget)
    rounds = []
    while (step := schedule.next()) is not None:
        rounds.append(step)
        if anneal(len(rounds)):
            schedule.anneal()
    one_way = 4 * Fraction(budget.l2_sq) / (2 * budget.one_way_sigma_sq)
    return one_way + sum((r.rho for r in rounds), Fraction(0)), budget.rho, rounds


@pytest.mark.parametrize("pattern", ["never", "always", "every third", "random"])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_the_rounds_never_spend_more_than_the_declared_rho(pattern: str,
                                                           epsilon: float) -> None:
    """Whatever the annealing decisions (they come from the data through the model), the
    one-way marginals and every round add up, exactly, to at most the table's ρ; the last
    round spends what is left, so almost all of it is used."""
    rng = np.random.default_rng(3)  # the test's own choice of decisions
    decide = {"never": lambda t: False, "always": lambda t: True,
              "every third": lambda t: t % 3 == 0,
              "random": lambda t: bool(rng.integers(2))}[pattern]
    spent, rho, rounds = _spend(aim_plan(epsilon=epsilon), decide)
    assert spent <= rho
    assert float(spent) >= 0.99 * float(rho)
    assert rounds[-1].last and not any(r.last for r in rounds[:-1])
    # stated ε from the spent ρ is within the plan's (independent conversion)
    assert epsilon_from_rho(float(spent), 1e-6) <= epsilon * (1 + 1e-9)
    # without annealing, AIM runs about T·(1 - 0.9·d/T) rounds of ρ/T each
    if pattern == "never":
        assert 55 <= len(rounds) <= 64


def test_verify_refuses_rounds_that_spend_too_much_or_break_the_schedule() -> None:
    plan = plan_from_dict(aim_plan())
    q = plan.queries[0]
    budget = budget_of(q, plan, synth_columns_of(q))
    _, _, rounds = _spend(aim_plan(), lambda t: t % 4 == 0)
    assert rounds_problem(budget, rounds) is None
    from dataclasses import replace
    doubled = [*rounds[:-1], replace(rounds[-1], sigma_sq=rounds[-1].sigma_sq / 2,
                                     rho=rounds[-1].rho * 0 + (
                                         rounds[-1].epsilon ** 2 / 8
                                         + Fraction(budget.l2_sq) / rounds[-1].sigma_sq))]
    assert "more than their budget" in (rounds_problem(budget, doubled) or "")
    wrong = [replace(rounds[0], rho=rounds[0].rho / 2), *rounds[1:]]
    assert "ε²/8" in (rounds_problem(budget, wrong) or "")
    skipped = [rounds[0], replace(rounds[1], epsilon=rounds[1].epsilon * 3), *rounds[2:]]
    assert rounds_problem(budget, skipped) is not None


def test_the_candidates_are_the_workloads_downward_closure_with_aims_weights() -> None:
    # columns 0..3, pairs (0,1), (1,2) and the triple (0,1,3): weights Σ_W |c ∩ W|
    got = candidates(4, [(0, 1), (1, 2), (0, 1, 3)])
    assert got[(1,)] == 3 and got[(0,)] == 2 and got[(3,)] == 1 and got[(2,)] == 1
    assert got[(0, 1)] == 2 + 1 + 2 and got[(0, 1, 3)] == 2 + 1 + 3
    assert (2, 3) not in got and (0, 3) in got


# ----------------------------------------------------------------------------- selection


def test_the_exact_selection_has_the_mechanism_distribution() -> None:
    """Frequencies against exp(ε·s/(2Δ)) normalised, computed here independently, at a
    rational ε (AIM's rounds keep ε exact)."""
    source = SeededRandomSource(11)
    scores, eps, sens = [-40, 0, 25, 25, 10], Fraction(3, 40), 2
    runs = 20_000
    counts = Counter(exponential_select_exact(source, scores, eps, sens) for _ in range(runs))
    weights = [math.exp(float(eps) * s / (2 * sens)) for s in scores]
    for i, w in enumerate(weights):
        p = w / sum(weights)
        assert abs(counts[i] / runs - p) < 5 * math.sqrt(p * (1 - p) / runs)


# ----------------------------------------------------------------------------- triples


def test_every_engine_gives_the_true_triples() -> None:
    doc = aim_plan(triples=[["region", "age", "smoker"], ["region", "employment", "age"]])
    plan = plan_from_dict(doc)
    frame = pd.read_csv(DEMO_TABLE, dtype={"person_id": str})
    age = pd.to_numeric(frame["age"], errors="coerce")
    ok = (frame["region"].isin(REGIONS) & frame["employment"].isin(JOBS)
          & age.between(AGES[0], AGES[-1]) & frame["smoker"].isin(["yes", "no"]))
    f = frame[ok]
    band = np.searchsorted(AGES, age[ok].to_numpy(), side="right") - 1
    band[band == len(AGES) - 1] = len(AGES) - 2
    r = f["region"].map(REGIONS.index).to_numpy()
    e = f["employment"].map(JOBS.index).to_numpy()
    s = f["smoker"].map(["yes", "no"].index).to_numpy()
    want = {"triple:0:2:3": np.bincount((r * 7 + band) * 2 + s, minlength=4 * 7 * 2),
            "triple:0:1:2": np.bincount((r * 4 + e) * 7 + band, minlength=4 * 4 * 7)}
    for engine in ("pandas", "duckdb"):
        eng = open_engine(engine, plan, load_table(DEMO_TABLE), SeededRandomSource(1))
        try:
            agg = eng.aggregate(plan.queries[0])
        finally:
            eng.close()
        for name, counts in want.items():
            assert agg.parts[name].tolist() == counts.tolist(), (engine, name)


# ----------------------------------------------------------------------------- release


class CountingSource:
    """The system's source, counting what the release asks of it (a real source)."""

    def __init__(self) -> None:
        self.inner = SystemRandomSource()
        self.calls = 0

    def words(self, n: int) -> np.ndarray:
        self.calls += 1
        return self.inner.words(n)

    def randbelow(self, n: int) -> int:
        self.calls += 1
        return self.inner.randbelow(n)


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    pytest.importorskip("mbi")
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home

    folder = tmp_path_factory.mktemp("aim")
    home = app_home(folder / "home").ensure()
    doc = aim_plan(rows=400, triples=[["region", "age", "smoker"]])
    plan = plan_from_dict(doc)
    out = folder / "bundle.zip"
    state = np.random.get_state()[1].copy()  # type: ignore[index]
    source = CountingSource()
    result = publish(plan, load_table(DEMO_TABLE), out, home, source=source)
    after = np.random.get_state()[1]  # type: ignore[index]
    return {"plan": plan, "out": out, "result": result, "source": source,
            "numpy_untouched": bool((state == after).all()),
            "files": {n: zipfile.ZipFile(out).read(n) for n in zipfile.ZipFile(out).namelist()}}


def test_an_aim_release_records_its_rounds_and_verifies(released: dict[str, Any]) -> None:
    from planner_app.core.release.verify_release import verify_bundle

    files = released["files"]
    record = json.loads(files["release.json"])
    jsonschema.validate(record, json.loads(resource_path("release.schema.json").read_text()))
    t = record["synthetic"]["synth"]
    assert t["method"] == "aim"
    assert [m["name"] for m in t["marginals"]][:4] == [
        "oneway:region", "oneway:employment", "oneway:age", "oneway:smoker"]
    assert [m["name"] for m in t["marginals"]][4:] == [f"round:{r['round']}"
                                                       for r in t["rounds"]]
    assert t["selected"] == [r["columns"] for r in t["rounds"]]
    plan = released["plan"]
    q = plan.queries[0]
    budget = budget_of(q, plan, synth_columns_of(q))
    spent = sum(Fraction(r["rho"]) for r in t["rounds"])
    assert spent <= budget.rounds_budget
    for r in t["rounds"]:  # each ρ is its selection's ε²/8 plus its Gaussian's Δ₂²/(2σ²)
        eps, sigma_sq = Fraction(r["epsilon"]), Fraction(r["sigma_sq_steps"])
        assert Fraction(r["rho"]) == eps * eps / 8 + Fraction(9) / (2 * sigma_sq)
    rows = list(csv.reader(io.StringIO(files["synthetic/synth.csv"].decode())))
    assert rows[0] == ["region", "employment", "age", "smoker"] and len(rows) == 401
    assert verify_bundle(released["out"]).valid
    report = files["report.html"].decode()
    assert "adaptive rounds" in report and "AIM" in report


def test_the_noise_and_the_selection_come_from_the_release_source_only(
        released: dict[str, Any]) -> None:
    """Every random draw before the CSV is the release's source (the exact samplers); the
    synthesis seeds numpy's generator from the record and puts its state back."""
    assert released["source"].calls > 0
    assert released["numpy_untouched"]


def test_verify_refuses_a_forged_round(released: dict[str, Any]) -> None:
    from planner_app.core.release.verify_synthetic import synthetic_problems

    files, plan = released["files"], released["plan"]
    record = json.loads(files["release.json"])
    assert synthetic_problems(files, plan, record) == []

    def forged(change: Any) -> list[str]:
        doc = json.loads(files["release.json"])
        change(doc["synthetic"]["synth"])
        return synthetic_problems(files, plan, doc)

    def cheaper(t: dict[str, Any]) -> None:
        t["rounds"][0]["rho"] = str(Fraction(t["rounds"][0]["rho"]) / 2)

    assert any("ε²/8" in p for p in forged(cheaper))

    def outside(t: dict[str, Any]) -> None:  # a triple the plan never declared
        t["rounds"][0]["columns"] = ["region", "employment", "age"]

    assert any("workload" in p for p in forged(outside))

    def louder(t: dict[str, Any]) -> None:
        t["marginals"][4]["sigma_sq_steps"] = "1"

    assert any("noise" in p for p in forged(louder))

    def dropped(t: dict[str, Any]) -> None:
        del t["rounds"]

    assert forged(dropped)


def test_the_csv_regenerates_from_the_record(released: dict[str, Any]) -> None:
    from planner_app.core.release.synthetic import synthetic_csv

    record = json.loads(released["files"]["release.json"])
    q = released["plan"].query("synth")
    assert synthetic_csv(q, record["synthetic"]["synth"]) == \
        released["files"]["synthetic/synth.csv"]


def test_the_preview_names_the_rounds() -> None:
    from planner_app.core.dp.synthetic import preview_lines
    from planner_app.core.kinds.synthetic import table_preview

    plan = plan_from_dict(aim_plan())
    lines = preview_lines(table_preview(plan.queries[0], plan))
    assert any("up to 64 adaptive rounds (AIM)" in line for line in lines)
    assert lines[0].startswith("measures the counts of each of its 4 columns")


def test_an_old_mst_bundle_still_verifies() -> None:
    from planner_app.core.release.verify_release import verify_bundle

    old = Path(__file__).parents[1] / "data/old_bundles/1452c4e/demo-synthetic-signed.zip"
    assert verify_bundle(old).valid


def test_the_owners_comparison_reads_an_aim_bundle(released: dict[str, Any]) -> None:
    """AIM's selected marginals are of 1 to 3 columns: the comparison took them as pairs and
    failed (ValueError); a pair inside a measured triple counts as measured."""
    from planner_app.core.release.synthetic_compare import compare_bundle_with_table

    plan = released["plan"]
    got = compare_bundle_with_table(plan, load_table(DEMO_TABLE), released["out"], "synth")
    record = json.loads(released["files"]["release.json"])
    measured = [set(c) for c in record["synthetic"]["synth"]["selected"]]
    pairs = [d for d in got if len(d.columns) == 2]
    assert len(pairs) == 6
    for d in pairs:
        assert d.measured == any(set(d.columns) <= m for m in measured)


def test_a_marginal_measured_again_has_a_group_of_its_own(released: dict[str, Any]) -> None:
    """A column or pair measured in an AIM round was grouped like its first measurement
    ("region" twice in results.csv and the report); each round's group names its round,
    and the Released chart draws each column's one-way counts once."""
    from planner_app.core.planning.preview import synthetic_groups
    from planner_app.core.release.result_columns import tables_of

    record = json.loads(released["files"]["release.json"])
    rows = tables_of(record)["synth"].rows()
    rounds = record["synthetic"]["synth"]["rounds"]
    groups = list(dict.fromkeys(r["group"] for r in rows))
    assert groups == ["region", "employment", "age", "smoker"] + [
        f"{' × '.join(r['columns'])} (AIM round {r['round']})" for r in rounds]
    drawn, spans = synthetic_groups(rows)
    assert [s[0] for s in spans] == ["region", "employment", "age", "smoker"]
