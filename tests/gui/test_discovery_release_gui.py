"""The app's release of a plan whose list says it was found privately (fixdisc): the app
cannot take the discovery bundle yet, so the one core rule refuses it before the charge, as
the command line does without --discovery; the ledger is untouched."""

from __future__ import annotations

import json
from pathlib import Path

from planner_app.core.records.ledger import Ledger
from planner_app.core.support.resources import demo_plan_path


def test_the_app_refuses_a_discovered_list_without_its_bundle(  # type: ignore[no-untyped-def]
        window, qtbot, dialogs, tmp_path: Path) -> None:
    from planner_app.core.support.resources import demo_table_path

    doc = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    region = next(q for q in doc["queries"] if q["id"] == "region_counts")
    region["justification"]["categories"] = (
        "found privately in release abc123 (ε = 1, δ = 1e-07); bundle manifest SHA-256 "
        + "0" * 64 + ", statistic regions")
    plan = tmp_path / "forged.json"
    plan.write_text(json.dumps(doc), encoding="utf-8")
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(plan, confirmed=True)
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    wizard.next()
    out = tmp_path / "never.zip"
    wizard.confirm.path.setText(str(out))
    wizard.next()
    qtbot.waitUntil(lambda: bool(dialogs.shown), timeout=60_000)
    _kind, _title, text = dialogs.shown[-1]
    assert "found privately in release abc123" in text and "--discovery" in text, text
    assert wizard.result is None and not out.exists()
    state = Ledger(window.session.home.ledger_path).state_without_creating("demo-survey")
    assert state.releases == []
