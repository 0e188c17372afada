"""A release whose quantile the sampler cannot finish is refused before the charge, and the
report says in words what a quantile's accuracy and a useless statistic mean."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

import planner_app.core.dp.mechanisms as mech
from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import AppHome, app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE
from tests.record_rows import result_rows


@pytest.fixture
def home(tmp_path: Path) -> AppHome:
    return app_home(tmp_path / "home").ensure()


def demo_plan(**epsilons: float):  # type: ignore[no-untyped-def]
    d = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    for q in d["queries"]:
        if q["id"] in epsilons:
            q["epsilon"] = epsilons[q["id"]]
    return plan_from_dict(d)


def test_a_quantile_it_cannot_finish_is_refused_before_the_charge(
        tmp_path: Path, home: AppHome, monkeypatch: pytest.MonkeyPatch) -> None:
    # the demo median: 6,251 grid points and 3,808 rows; pretend the sampler handled fewer
    monkeypatch.setattr(mech, "MAX_QUANTILE_WORK", 4_001)
    plan, table = demo_plan(), load_table(DEMO_TABLE)
    with pytest.raises(InputError,
                       match=r"the quantile grid has [0-9,]+ points and the table more than"):
        publish(plan, table, tmp_path / "x.zip", home)
    assert not (tmp_path / "x.zip").exists()
    assert not Ledger(home.ledger_path).state(plan.dataset.name).releases
    # the same plan without the quantile is released
    plan = plan.with_queries(q for q in plan.queries if q.kind != "quantile")
    publish(plan, table, tmp_path / "y.zip", home)


def test_the_report_reads_quantiles_and_useless_statistics_in_words(
        tmp_path: Path, home: AppHome) -> None:
    plan = demo_plan(smokers=0.02)
    plan = replace(plan, budget=replace(plan.budget, epsilon=4.0))
    out = tmp_path / "b.zip"
    # a seeded source: at ε = 0.02 the share's noised count of answers is sometimes 0, and
    # then no share is published (its value is empty); this test is about the words
    publish(plan, load_table(DEMO_TABLE), out, home, source=mech.SeededRandomSource(7))
    with zipfile.ZipFile(out) as z:
        html = z.read("report.html").decode()
    assert "the released median lies between the 45th and 55th percentile of the data" in html
    assert "This statistic says almost nothing" in html
    assert "points" in html
    # the share's value and interval in percent, like its ± in points
    record = json.loads(zipfile.ZipFile(out).read("release.json"))
    share = next(r for r in result_rows(record) if r["query_id"] == "smokers")
    assert f"{100 * share['value']:.4g}%" in html
    assert f"{100 * share['low']:.4g}% to {100 * share['high']:.4g}%" in html
