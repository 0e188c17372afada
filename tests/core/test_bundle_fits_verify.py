"""A release never writes a bundle that verify refuses: a randomized-response answer file
larger than verify reads (bundle.MAX_MEMBER_BYTES) is refused before the charge. At 100M rows
the answer file was 274 MB, verify's limit 200 MiB: charged, written, and refused by verify."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import load_plan
from planner_app.core.records.ledger import Ledger
from planner_app.core.release import bundle
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.errors import PlannerError
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE


@pytest.mark.parametrize("limit", [5_000, bundle.MAX_MEMBER_BYTES])
def test_a_release_is_refused_before_the_charge_or_verifies(tmp_path: Path, limit: int,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setattr(bundle, "MAX_MEMBER_BYTES", limit)
    home = app_home(tmp_path / "home").ensure()
    plan = load_plan(demo_plan_path())
    out = tmp_path / "bundle.zip"
    try:
        publish(plan, load_table(DEMO_TABLE), out, home)
    except PlannerError as exc:
        assert "nothing was charged" in str(exc) and "randomized response" in str(exc)
        assert not out.exists()
        assert Ledger(home.ledger_path).state(plan.dataset.name).spent.epsilon == 0.0
        assert limit < 20_000  # refused only where the answer file cannot fit
        return
    verdict = verify_bundle(out)
    assert verdict.valid, verdict.problems
