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


def test_releases_left_out_of_a_long_forecast_are_not_drawn_as_a_flat_step(qtbot) -> None:  # type: ignore[no-untyped-def]
    """walk2627: weekly counts of ε = 0.25 for a year and a half against a cap of ε = 1000:
    36 planned releases are listed, then the last (the 78th); the chart drew the 41 left out
    as a flat step at ε = 9 up to the last date and a jump there. Now the step ends at the
    36th and a dotted line joins it to the last, named in the legend."""
    import datetime as dt

    from planner_app.core.planfile import parse_plan_text
    from planner_app.core.planfile.programme import scheduled_dates
    from planner_app.core.planning.forecast import forecast
    from planner_app.core.records.ledger_state import Cap, LedgerState, lifetime_total
    from planner_app.gui.widgets.timeline_chart import TimelineChart, _day

    doc = plan_dict(format=FORMAT_PROGRAMME, budget={"epsilon": 0.25, "delta": 0.0},
                    queries=[{"id": "n", "kind": "count", "epsilon": 0.25}],
                    programme={"name": "w", "start": "2030-01-07", "every": "week",
                               "end": "2031-06-30"})
    plan = parse_plan_text(json.dumps(doc), "p.json")
    dates = scheduled_dates(plan.programme)
    cap = Cap(1000.0, 1e-6)
    found = forecast(LedgerState("test", cap, lifetime_total([], [], None, 1e-6), []), [],
                     [plan], today=dt.date(2029, 12, 1))
    assert found.hidden == len(dates) - 37
    chart = TimelineChart()
    qtbot.addWidget(chart)
    chart.show_forecast(found)
    lines = {line.get_label(): line for line in chart.axes.get_lines()}
    step = lines["planned by the programme"]
    # the dashed step ends at the 36th planned release (ε = 9), not at the last date
    assert max(step.get_xdata()) == _day(dates[35])
    assert max(step.get_ydata()) == 9.0
    gap = lines[f"{len(dates) - 37} more planned release(s), not drawn one by one"]
    assert list(gap.get_xdata()) == [_day(dates[35]), _day(dates[-1])]
    assert list(gap.get_ydata()) == [9.0, 0.25 * len(dates)]
