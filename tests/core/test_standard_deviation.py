"""The standard deviation, the kind added through the kind registry alone (issue 23): its
module (core/kinds/standard_deviation.py), the registry, the plan schema and the docs.

Independent answers: the same seeded draws released as a variance (its square root is the
standard deviation's value, its interval ends' square roots the interval), the variance's ±
(|√a − √b| ≤ √|a − b|, so the standard deviation's ± is the square root of the variance's),
the demo table's true standard deviation inside the interval, and verify on the bundle.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from planner_app.core.data.engines import open_engine
from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds import KINDS
from planner_app.core.kinds.shared_dp import accuracy_for, components_for, measurements_for
from planner_app.core.model import Plan
from planner_app.core.planfile import plan_from_dict, plan_to_dict
from planner_app.core.release.noise import privatize
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import resource_path
from tests.conftest import DEMO_TABLE, ROWS_ARE_PEOPLE, plan_dict


def _plan(kind: str, **extra: object) -> Plan:
    q = {"id": "s", "label": "Spread of age", "kind": kind, "column": "age", "lower": 16,
         "upper": 100, "epsilon": 1.0, "justification": {"bounds": "16 or older; 100 a cap"},
         **extra}
    return plan_from_dict(plan_dict(dataset={"name": "test", "expected_rows": 3800},
                                    queries=[q]))


def test_it_is_registered_and_its_plan_entry_reads_and_writes_back() -> None:
    assert KINDS["standard_deviation"].title == "Standard deviation"
    plan = _plan("standard_deviation")
    assert plan_from_dict(plan_to_dict(plan)) == plan
    with pytest.raises(InputError, match="categories"):
        plan_from_dict(plan_dict(queries=[{**plan_to_dict(plan)["queries"][0],
                                           "categories": ["a"]}]))


def test_the_plan_schema_accepts_it() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resource_path("plan.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(plan_to_dict(_plan("standard_deviation")), schema)


def test_it_measures_what_a_variance_measures_and_its_pm_is_the_variances_root() -> None:
    sd, var = _plan("standard_deviation"), _plan("variance")
    (q_sd,), (q_var,) = sd.queries, var.queries
    assert components_for(q_sd, sd.privacy_unit, sd.neighbouring) == \
        components_for(q_var, var.privacy_unit, var.neighbouring)
    assert measurements_for(q_sd, sd) == measurements_for(q_var, var)
    a_sd, a_var = accuracy_for(q_sd, sd), accuracy_for(q_var, var)
    assert a_var.half_width is not None and a_sd.half_width is not None
    assert a_sd.half_width == pytest.approx(math.sqrt(a_var.half_width))
    assert a_sd.unit == "value" and a_var.unit == "squared"


@pytest.mark.parametrize("group", [False, True])
def test_its_release_is_the_square_root_of_the_variances_same_draws(group: bool) -> None:
    extra: dict[str, object] = {"group_by": {"column": "region", "keys": [
        "North", "South", "East", "West"]}} if group else {}
    table = load_table(DEMO_TABLE)
    out = {}
    for kind in ("variance", "standard_deviation"):
        plan = _plan(kind, **extra)
        engine = open_engine("duckdb", plan, table, SeededRandomSource(3))
        aggregates = {q.id: engine.aggregate(q) for q in plan.queries}
        (release,) = privatize(plan, aggregates, source=SeededRandomSource(b"sd"))
        out[kind] = list(release.values)
    step = 2.0 ** -10  # the grid of bounds 16..100 (2^(floor(log2 84) - 16) = 2^-10)
    for v, s in zip(out["variance"], out["standard_deviation"], strict=True):
        assert v.cell == s.cell and v.group == s.group
        assert s.value == pytest.approx(math.sqrt(v.value), abs=step)
        assert s.low == pytest.approx(math.sqrt(v.low), abs=step)
        assert s.high == pytest.approx(math.sqrt(v.high), abs=step)
        assert 0 <= s.low <= s.value <= s.high <= 42


def test_a_released_bundle_verifies_and_its_interval_holds_the_true_value(tmp_path: Path
                                                                          ) -> None:
    import pandas as pd

    plan = plan_from_dict(plan_dict(
        privacy_unit=ROWS_ARE_PEOPLE, budget={"epsilon": 2.0, "delta": 0.0},
        queries=[{"id": "s", "label": "Spread of age", "kind": "standard_deviation",
                  "column": "age", "lower": 16, "upper": 100, "epsilon": 2.0,
                  "justification": {"bounds": "16 or older; 100 a cap"}}]))
    out = tmp_path / "sd.zip"
    result = publish(plan, load_table(DEMO_TABLE), out, app_home(tmp_path / "home").ensure(),
                     source=SeededRandomSource(b"sd-bundle"))
    verdict = verify_bundle(out)
    assert verdict.valid, verdict.problems
    (value,) = result.releases[0].values
    ages = pd.to_numeric(pd.read_csv(DEMO_TABLE)["age"], errors="coerce").dropna()
    truth = float(ages.clip(16, 100).std(ddof=0))
    assert value.low is not None and value.high is not None
    assert value.low <= truth <= value.high  # a 95% interval, on a fixed seed's draw
