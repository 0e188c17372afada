"""Release → Spending over time… (cal26, issue 26): the open programme plan's planned
releases drawn against the cap, the forecast the core computes for `ledger forecast`."""

from __future__ import annotations

import json
from pathlib import Path

from planner_app.core.model.plan import FORMAT_PROGRAMME
from tests.conftest import ROWS_ARE_PEOPLE, plan_dict


def test_the_timeline_shows_the_open_programme_against_the_cap(window, qtbot,  # type: ignore[no-untyped-def]
                                                               tmp_path: Path) -> None:
    doc = plan_dict(format=FORMAT_PROGRAMME, dataset={"name": "visits"},
                    privacy_unit=ROWS_ARE_PEOPLE, budget={"epsilon": 4.0, "delta": 0.0},
                    queries=[{"id": "n", "kind": "count", "epsilon": 4.0}],
                    programme={"name": "yearly", "start": "2099-03-01", "every": "year",
                               "end": "2103-03-01"})
    path = tmp_path / "visits.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert window.files.open_plan(path, confirmed=True)
    window.menus.timeline_action.trigger()
    dialog = window.launchers.timeline_dialog
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.forecast is not None, timeout=60_000)
    assert dialog.datasets.currentText() == "visits"
    found = dialog.forecast
    # pure ε-DP counts of ε = 4 add up: 4 and 8 fit the default cap ε = 10, 12 is refused
    assert [(p.date, p.epsilon, p.fits) for p in found.points] == [
        ("2099-03-01", 4.0, True), ("2100-03-01", 8.0, True), ("2101-03-01", 12.0, False)]
    assert dialog.words.text() == found.words()
    assert dialog.words.text().startswith("At this rate the cap of ε = 10 lasts until "
                                          "March 2100")
    assert "this computer's ledger" in dialog.ledger.text()
    # drawn: the cap line, the planned steps and the refused release's cross
    labels = [t.get_text() for t in dialog.chart.axes.get_legend().get_texts()]
    assert labels == ["planned by the programme", "would cross the cap: refused",
                      "lifetime cap ε = 10"]


def test_a_second_release_for_the_same_date_is_refused_in_the_app(window, qtbot, dialogs,  # type: ignore[no-untyped-def]
                                                                  tmp_path: Path) -> None:
    """Release a programme's date already released: the app does not ask "Release this plan
    again?" (the release would refuse), it says the date has its release and when the next
    one is (walk2627: it asked, and the wizard's checklist said the date was free); nothing
    is charged."""
    import datetime as dt

    from planner_app.core.records.ledger import Ledger
    from tests.gui.conftest import demo_table_path, release_with_wizard

    today = dt.datetime.now(dt.timezone.utc).date()
    later = (today + dt.timedelta(days=30)).isoformat()
    doc = plan_dict(format=FORMAT_PROGRAMME, privacy_unit=ROWS_ARE_PEOPLE,
                    budget={"epsilon": 1.0, "delta": 0.0},
                    queries=[{"id": "n", "kind": "count", "epsilon": 1.0}],
                    programme={"name": "daily", "dates": [today.isoformat(), later]})
    path = tmp_path / "daily.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(path, confirmed=True)
    assert window.session.release_rules().get("schedule").passed
    release_with_wizard(window, qtbot, tmp_path / "first.zip").accept()
    assert window.launchers.release() is None
    assert not any(t == "Release this plan again?" for _, t, _ in dialogs.shown)
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("warning", "This plan cannot be released again")
    assert f"Programme 'daily' already has its release for {today.isoformat()}" in text
    assert f"Release on the programme's next date, {later}" in text
    # the wizard's checklist, the meter and `check` read the same rule
    assert window.session.release_rules().get("schedule").failed
    assert len(Ledger(window.session.home.ledger_path).state("test").releases) == 1
