"""A central share of yes (walk 2, finding 3): the mean of a 0/1 column with bounds 0 to 1,
grouped by a declared key list, is accepted, released and verified, and its released values
are shares (the independent answer: the data's own share per group, within the ±)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.home import app_home
from tests.conftest import plan_dict, with_reasons

REGIONS = ["North", "South", "East", "West"]


def test_a_mean_of_a_yes_no_column_is_a_central_share_by_group(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    rate = {"North": 0.2, "South": 0.5, "East": 0.7, "West": 0.9}
    rows = []
    for i in range(4000):
        region = REGIONS[i % 4]
        rows.append({"person": f"P{i // 2}", "region": region,
                     "employed": int(rng.random() < rate[region])})
    data = tmp_path / "people.csv"
    with data.open("w", newline="") as f:
        writer = csv.DictWriter(f, ["person", "region", "employed"])
        writer.writeheader()
        writer.writerows(rows)
    plan = plan_from_dict(with_reasons(plan_dict(
        dataset={"name": "share"},
        privacy_unit={"kind": "person", "id_column": "person", "max_rows": 2},
        budget={"epsilon": 2.0, "delta": 0.0},
        queries=[{"id": "employed_by_region", "kind": "mean", "column": "employed",
                  "lower": 0, "upper": 1, "epsilon": 2.0, "expected_count": 1000,
                  "group_by": {"column": "region", "keys": REGIONS}}])))
    table = load_table(data)
    report = check_plan(plan, table)
    assert report.readiness is not None and report.readiness.ready, report.readiness
    home = app_home(tmp_path / "home").ensure()
    out = tmp_path / "share.zip"
    publish(plan, table, out, home)
    verdict = verify_bundle(out)
    assert verdict.valid, verdict.problems
    results = list(csv.DictReader(read_bundle(out)["results.csv"].decode().splitlines()))
    by_group = {r["group"]: float(r["value"]) for r in results}
    assert list(by_group) == REGIONS
    for region in REGIONS:
        true = np.mean([r["employed"] for r in rows if r["region"] == region])
        assert abs(by_group[region] - true) < 0.1  # ± at ε = 2 over 1,000 rows is ~0.01
    record = json.loads(read_bundle(out)["release.json"])
    assert record["total"]["delta"] == 0
