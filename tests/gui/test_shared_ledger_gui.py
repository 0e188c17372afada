"""The office's shared ledger in the app (issue 26): the meter says which ledger is charged,
and a release that would cross the office's cap, spent from another home, is refused from the
app as from the command line (a real PostgreSQL server)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from planner_app.core.records.ledger import BudgetExceeded
from planner_app.core.support.resources import demo_table_path
from tests.trust.shared_office import SECRET, Office, office_policy


def _window(qtbot, home: Path, plan: Path):  # type: ignore[no-untyped-def]
    from planner_app.gui.app import build_window

    window = build_window(str(home))
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(plan, confirmed=True)
    return window


def test_the_app_names_the_ledger_and_refuses_over_the_offices_cap(
        qtbot, tmp_path: Path, office_db: str,  # type: ignore[no-untyped-def]
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_OFFICE_SECRET", SECRET)
    office = Office(tmp_path, office_db)
    policy = office.signed_policy(office_policy(office.url))  # cap ε = 2.5
    a, b = office.home("home-a", policy), office.home("home-b", policy)
    assert office.run(a, "ledger", "migrate")[0] == 0
    plan = office.plan(1.0)
    assert office.release(a, plan, "a1.zip")[0] == 0
    assert office.release(a, plan, "a2.zip")[0] == 0  # ε = 2 of 2.5 spent from home A

    window = _window(qtbot, b, plan)
    text = html.unescape(window.meter.text.text())
    assert "Ledger: the office's" in text, text
    assert "Charged to the office's shared ledger" in window.meter.toolTip()
    lifetime = window.session.release_rules().get("lifetime")
    assert lifetime is not None and lifetime.failed and window.meter.blocked
    # the wizard's release goes through the same core charge: refused, nothing charged
    from planner_app.core.data.tables import load_table
    from planner_app.core.planfile import load_plan
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home

    with pytest.raises(BudgetExceeded, match="left of its lifetime cap ε = 2.5"):
        publish(load_plan(plan), load_table(demo_table_path()), tmp_path / "b.zip",
                app_home(b))
    assert not (tmp_path / "b.zip").exists()


def test_a_home_without_an_office_policy_says_it_charges_its_own_ledger(
        qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    office_plan = Office.__new__(Office)
    office_plan.tmp = tmp_path
    window = _window(qtbot, tmp_path / "home", office_plan.plan(1.0))
    assert "Ledger: this computer's." in html.unescape(window.meter.text.text())
    assert "Charged to this computer's ledger" in window.meter.toolTip()
