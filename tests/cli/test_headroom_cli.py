"""Issue 22 part 3: `check` and `ledger show` say "left" as the cap counts it (the same
sentence as the app's checklist, meter and release wizard: core/records/headroom.py)."""

from __future__ import annotations

from pathlib import Path

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import save_plan
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.cli.test_release_cli import run
from tests.conftest import DEMO_TABLE
from tests.core.test_headroom import CAP, scaled


def test_check_and_ledger_show_say_what_a_release_adds(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = scaled(1.5)
    plan_path = tmp_path / "plan.json"
    save_plan(plan, plan_path)
    Ledger(app_home(home).ensure().ledger_path).set_cap(plan.dataset.name, CAP, 1e-5)
    publish(plan, load_table(DEMO_TABLE), tmp_path / "first.zip", app_home(home))
    spent = Ledger(app_home(home).ledger_path).state(plan.dataset.name).spent.epsilon
    done = run(["check", str(plan_path), "--data", str(DEMO_TABLE)], home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"ε = {CAP - spent:.4g} left" in done.stdout
    assert "adds only ε = " in done.stdout and "composed together" in done.stdout
    done = run(["release", str(plan_path), "--data", str(DEMO_TABLE), "--out",
                str(tmp_path / "second.zip")], home)
    assert done.returncode == 0, done.stderr
    state = Ledger(app_home(home).ledger_path).state(plan.dataset.name)
    added = sum(r.epsilon for r in state.releases)
    done = run(["ledger", "show", plan.dataset.name], home)
    assert f"left ε = {state.remaining_epsilon:.4g}" in done.stdout
    assert f"add up to {added:.4g}" in done.stdout
    assert f"spend ε = {state.spent.epsilon:.4g}" in done.stdout
