"""Issue 25: the discovery kinds, released like any statistic.

Independent answers: the discrete Laplace tail summed term by term from its probability mass
(not the closed form the module uses), the people per key counted with pandas on a table
written here, the keys and bounds a release publishes checked against the threshold and the
grid, verify on the bundle, and the accountants' totals against the sums they must give.
"""

from __future__ import annotations

import csv
import io
import math
import zipfile
from fractions import Fraction
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from planner_app.core.data.engines import open_engine
from planner_app.core.data.tables import load_table
from planner_app.core.dp.accounting import compose
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.dp.threshold import (
    keep_preview,
    keep_probability,
    selection_delta,
    threshold_for,
)
from planner_app.core.kinds.discover_keys import threshold_of
from planner_app.core.kinds.registry import KINDS
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile import plan_from_dict, plan_to_dict
from planner_app.core.release.noise import privatize
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from tests.conftest import with_reasons

KEYS = {"id": "jobs", "kind": "discover_keys", "mechanism": "laplace_threshold",
        "column": "job", "epsilon": 1.0, "delta": 1e-6, "max_keys": 2}
BOUNDS = {"id": "wage_range", "kind": "discover_bounds", "column": "wage", "lower": -1000,
          "upper": 100000, "quantiles": [0.05, 0.95], "epsilon": 1.0}


def plan_doc(*queries: dict[str, Any], unit: dict[str, Any] | None = None,
             relation: str = "add-remove", delta: float = 1e-5) -> dict[str, Any]:
    return with_reasons({
        "format": "planner-app/plan@1", "dataset": {"name": "jobs"},
        "privacy_unit": unit or {"kind": "person", "id_column": "pid", "max_rows": 3},
        "neighbouring": relation, "budget": {"epsilon": 10.0, "delta": delta},
        "queries": list(queries)})


def table(tmp_path: Path) -> Path:
    """40 people with 1-3 rows: jobs a (common), b (common), c (one person, three rows),
    wages 100..4000; person p0 holds four jobs (over max_keys = 2)."""
    rows = []
    for i in range(40):
        for r in range(1 + i % 3):
            rows.append({"pid": f"p{i}", "job": "a" if (i + r) % 2 else "b",
                         "wage": 100 * (1 + (i * 7 + r) % 40)})
    rows += [{"pid": "p0", "job": j, "wage": 500} for j in ("d", "e", "f")]
    rows += [{"pid": "lonely", "job": "c", "wage": 700}] * 3
    path = tmp_path / "jobs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


# --- the threshold ---------------------------------------------------------------------------


def _tail(scale: Fraction, j: int) -> float:
    """P[Z >= j] of the discrete Laplace, summed from its mass (1-q)/(1+q) q^|z|."""
    q = math.exp(-1 / float(scale))
    return sum((1 - q) / (1 + q) * q ** z for z in range(j, j + 20_000))


@pytest.mark.parametrize("scale, m, delta", [(Fraction(1), 1, 1e-6), (Fraction(5, 2), 3, 1e-9),
                                             (Fraction(10), 1, 1e-5)])
def test_the_threshold_is_the_smallest_whose_delta_is_within_the_declared(
        scale: Fraction, m: int, delta: float) -> None:
    tau = threshold_for(scale, m, delta)
    exact = 1 - (1 - _tail(scale, tau - 1)) ** m
    below = 1 - (1 - _tail(scale, tau - 2)) ** m
    assert exact <= delta < below
    assert selection_delta(scale, tau, m) == pytest.approx(exact, rel=1e-6)
    assert selection_delta(scale, tau, m) >= exact  # rounded up, never down


def test_the_chance_a_key_is_found_is_the_discrete_laplace_tail() -> None:
    scale = Fraction(2)
    for n in (1, 10, 27, 28, 29, 40):
        # P[n + Z >= 28] = P[Z >= 28 - n], the mass summed from both sides
        expected = _tail(scale, 28 - n) if 28 - n >= 1 else 1 - _tail(scale, 1 - (28 - n))
        assert keep_probability(scale, 28, n) == pytest.approx(expected, rel=1e-9)
    sizes = keep_preview(scale, 28)
    assert sizes[-1][1] >= 0.95 and sizes[0][1] <= 0.1 + 1e-12
    assert [n for n, _ in sizes] == sorted(n for n, _ in sizes)


# --- the plan entries --------------------------------------------------------------------------


def test_the_entries_read_and_write_back() -> None:
    written = plan_to_dict(plan_from_dict(plan_doc(KEYS, BOUNDS)))
    assert plan_to_dict(plan_from_dict(written)) == written
    assert written["queries"][0]["max_keys"] == 2 and written["queries"][0]["delta"] == 1e-6
    assert written["queries"][1]["quantiles"] == [0.05, 0.95]


@pytest.mark.parametrize("change, field", [
    ({"delta": 0}, "delta"), ({"max_keys": 0}, "max_keys"),
    ({"publish_counts": "yes"}, "publish_counts"),
    ({"missing": {"impute": "x"}}, "missing"),
    ({"group_by": {"column": "g", "keys": ["a"]}}, "group_by")])
def test_a_bad_keys_entry_is_refused_naming_its_field(change: dict[str, Any], field: str
                                                      ) -> None:
    with pytest.raises(InputError, match=field):
        plan_from_dict(plan_doc({**KEYS, **change}))


@pytest.mark.parametrize("quantiles", [[0.9, 0.1], [0.1], [0.1, 2], "0.1"])
def test_bad_quantiles_are_refused(quantiles: Any) -> None:
    with pytest.raises(InputError, match="quantiles"):
        plan_from_dict(plan_doc({**BOUNDS, "quantiles": quantiles}))


# --- the engine: people per key, at most max_keys keys a person ---------------------------------


def test_the_engine_counts_people_per_key_each_in_at_most_max_keys(tmp_path: Path) -> None:
    path = table(tmp_path)
    plan = plan_from_dict(plan_doc(KEYS))
    engine = open_engine("duckdb", plan, load_table(path), SeededRandomSource(1))
    agg = engine.aggregate(plan.queries[0])
    got = dict(zip([c[1] for c in agg.cells], agg.parts["count"].tolist(), strict=True))
    frame = pd.read_csv(path)
    # p0 has 1 row of "b" or "a" plus d, e, f; with k = 3 rows kept and m = 2 keys, p0
    # counts in exactly 2 keys; everyone else in their distinct jobs among their rows
    assert sum(got.values()) == sum(
        min(2, frame[frame.pid == p].head(99).job.nunique()) if p != "p0" else 2
        for p in frame.pid.unique())
    assert got["c"] == 1  # one person, three rows: counted once
    people = frame[frame.pid != "p0"].groupby("job").pid.nunique()
    for job in ("a", "b"):
        assert got[job] in (people[job], people[job] + 1)  # + p0 if kept
    assert list(got) == sorted(got)  # the keys in their text's order, not the file's


def test_under_a_rows_unit_each_row_counts_once_in_its_key(tmp_path: Path) -> None:
    """A rows unit: the people per key are the rows per key. (A key discovery alone reads
    one coded column, the case where the engine keeps one row per distinct value with its
    weight: counting those rows gave 1 per key.)"""
    path = table(tmp_path)
    plan = plan_from_dict(plan_doc(KEYS, unit={"kind": "row"}))
    engine = open_engine("duckdb", plan, load_table(path), SeededRandomSource(1))
    agg = engine.aggregate(plan.queries[0])
    got = dict(zip([c[1] for c in agg.cells], agg.parts["count"].tolist(), strict=True))
    assert got == pd.read_csv(path).job.value_counts().to_dict()


# --- release and verify --------------------------------------------------------------------------


def _release(tmp_path: Path, doc: dict[str, Any], seed: int = 5) -> tuple[Path, list[dict]]:
    out = tmp_path / "disc.zip"
    home = app_home(tmp_path / "home")
    publish(plan_from_dict(doc), load_table(table(tmp_path)), out, home,
            source=SeededRandomSource(seed))
    with zipfile.ZipFile(out) as z:
        rows = list(csv.DictReader(io.StringIO(z.read("results.csv").decode())))
    return out, rows


def test_a_release_publishes_the_keys_over_the_threshold_sorted_and_verifies(
        tmp_path: Path) -> None:
    out, rows = _release(tmp_path, plan_doc(KEYS, BOUNDS))
    keys = [r["cell"] for r in rows if r["query_id"] == "jobs"]
    assert keys == ["a", "b"]  # c (one person) and p0's extra keys stay below the threshold
    assert all(r["value"] == "" for r in rows if r["query_id"] == "jobs")  # not asked
    low, high = (float(r["value"]) for r in rows if r["query_id"] == "wage_range")
    assert -1000 <= low <= high <= 100000
    v = verify_bundle(out)
    assert v.valid, v.problems


def test_counts_are_published_only_when_asked_and_then_clear_the_threshold(
        tmp_path: Path) -> None:
    doc = plan_doc({**KEYS, "publish_counts": True})
    out, rows = _release(tmp_path, doc)
    plan = plan_from_dict(doc)
    tau = threshold_of(measurements_for(plan.queries[0], plan)[0])
    assert rows and all(int(r["value"]) >= tau for r in rows)
    v = verify_bundle(out)
    assert v.valid, v.problems


def test_verify_refuses_keys_out_of_order_or_below_the_threshold() -> None:
    plan = plan_from_dict(plan_doc({**KEYS, "publish_counts": True}))
    kind = KINDS["discover_keys"]
    q = plan.queries[0]
    assert kind.discovered_rows_problem(q, plan, [("b", 30.0), ("a", 30.0)]) \
        == "the keys are not in sorted order"
    assert "below the threshold" in kind.discovered_rows_problem(q, plan, [("a", 1.0)])
    assert "twice" in kind.discovered_rows_problem(q, plan, [("a", 30.0), ("a", 30.0)])


def test_the_privatized_keys_never_include_a_key_below_the_threshold(tmp_path: Path) -> None:
    plan = plan_from_dict(plan_doc({**KEYS, "publish_counts": True, "epsilon": 0.2}))
    engine = open_engine("duckdb", plan, load_table(table(tmp_path)), SeededRandomSource(1))
    aggs = {q.id: engine.aggregate(q) for q in plan.queries}
    tau = threshold_of(measurements_for(plan.queries[0], plan)[0])
    for seed in range(20):
        (rel,) = privatize(plan, aggs, source=SeededRandomSource(seed))
        assert all(v.value is not None and v.value >= tau for v in rel.values)
        assert [v.cell for v in rel.values] == sorted(v.cell for v in rel.values)


# --- the accountant ------------------------------------------------------------------------------


def test_the_threshold_delta_is_composed_never_dropped() -> None:
    plan = plan_from_dict(plan_doc(KEYS, BOUNDS))
    ms = [m for q in plan.queries for m in measurements_for(q, plan)]
    basic = compose(ms, 1e-5, "basic")
    assert basic.epsilon == pytest.approx(2.0) and basic.delta == pytest.approx(1e-6)
    best = compose(ms, 1e-5)
    assert best.accountant != "zcdp" and best.delta >= 1e-6
    with pytest.raises(InputError, match="zcdp cannot account for a discovery of keys"):
        compose(ms, 1e-5, "zcdp")


def test_the_plan_schema_accepts_them_and_refuses_a_keys_entry_without_delta() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import json

    from planner_app.core.support.resources import resource_path

    schema = json.loads(resource_path("plan.schema.json").read_text(encoding="utf-8"))
    written = plan_to_dict(plan_from_dict(plan_doc(KEYS, BOUNDS)))
    jsonschema.validate(written, schema)
    written["queries"][0]["delta"] = 0
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(written, schema)


def test_under_replace_one_the_threshold_covers_the_unique_keys_of_both_sides() -> None:
    """Replace-one: the person's old keys nobody else holds may vanish and their new ones
    appear, each side publishing one with up to 1 - (1 - p)^m: the release's δ is their sum
    (the proof in dp/threshold.py), so the threshold must bring the sum within the declared
    δ, not one side's alone."""
    doc = plan_doc({**KEYS, "epsilon": 1.0, "delta": 1e-6}, relation="replace-one")
    plan = plan_from_dict(doc)
    m = measurements_for(plan.queries[0], plan)[0]
    tau = threshold_of(m)
    keys = 2  # max_keys 2, three rows a person
    one_side = 1 - (1 - _tail(m.scale, tau - 1)) ** keys
    assert 2 * one_side <= 1e-6
