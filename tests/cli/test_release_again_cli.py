"""Issue 22 part 3: `release` of a plan released before says so on stderr once charged
(when, its bundle, its ε, and what a second release reveals) and still releases (exit 0);
another plan of the same dataset is not warned about."""

from __future__ import annotations

import json
from pathlib import Path

from planner_app.core.planfile import load_plan, plan_to_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.records.released import plan_total
from planner_app.core.support.home import app_home
from tests.cli.test_release_cli import release_args, run
from tests.conftest import DEMO_PLAN, DEMO_TABLE


def test_a_second_release_of_the_same_plan_is_warned_about(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = run(release_args(tmp_path / "a.zip"), home)
    assert first.returncode == 0, first.stderr
    assert "warning" not in first.stderr
    (record,) = Ledger(app_home(home).ledger_path).state("demo-survey").releases
    second = run(release_args(tmp_path / "b.zip"), home)
    assert second.returncode == 0, second.stderr
    total = plan_total(load_plan(DEMO_PLAN)).epsilon
    warning = [line for line in second.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1, second.stderr
    assert f"released on {record.time[:10]} {record.time[11:16]} UTC (bundle a.zip, " \
           f"ε = {record.epsilon:.4g})" in warning[0]
    # spent so far, this release, the composed total after it (what the ledger's charge then
    # recorded: not the sum) and the cap
    after = Ledger(app_home(home).ledger_path).state("demo-survey")
    assert len(after.releases) == 2
    assert f"has spent ε = {record.epsilon:.4g} so far; this release (ε = {total:.4g} on its " \
           f"own) brings the dataset's composed total" in warning[0]
    assert f"to ε = {after.spent.epsilon:.4g}" in warning[0]
    assert f"{after.spent.epsilon:.4g}" != f"{record.epsilon + total:.4g}"
    assert "against its lifetime cap ε = 10 (the default)" in warning[0]
    # another plan (one ε changed) of the same dataset: no warning
    doc = plan_to_dict(load_plan(DEMO_PLAN))
    doc["queries"][0]["epsilon"] = 0.2
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    third = run(["release", str(other), "--data", str(DEMO_TABLE), "--out",
                 str(tmp_path / "c.zip")], home)
    assert third.returncode == 0, third.stderr
    assert "warning" not in third.stderr
