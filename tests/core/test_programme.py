"""A programme: a plan released on a schedule (cal26, issue 26): its section of the plan file,
its dates, which date a release belongs to, and the forecast of its lifetime spending."""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Any

import pytest

from planner_app.core.model.plan import FORMAT, FORMAT_PROGRAMME
from planner_app.core.planfile import parse_plan_text
from planner_app.core.planfile.programme import scheduled_dates, slot_for
from planner_app.core.planfile.serialisation import plan_to_dict, plan_to_json
from planner_app.core.planning.forecast import forecast, month_words
from planner_app.core.records.ledger_state import Cap, LedgerState, lifetime_total
from planner_app.core.records.programme import ProgrammeRefused, release_date
from planner_app.core.support.errors import InputError
from tests.conftest import plan_dict


def programme_plan(programme: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return plan_dict(format=FORMAT_PROGRAMME, programme=programme, **changes)


def read(doc: dict[str, Any]) -> Any:
    return parse_plan_text(json.dumps(doc), "p.json")


def test_a_programme_reads_and_writes_back_as_plan_at_2() -> None:
    doc = programme_plan({"name": "monthly", "start": "2027-01-31", "every": "month",
                          "end": "2027-12-31"})
    plan = read(doc)
    assert plan.programme is not None and plan.programme.name == "monthly"
    again = plan_to_dict(plan)
    assert again["format"] == FORMAT_PROGRAMME and again["programme"] == doc["programme"]
    assert read(json.loads(plan_to_json(plan))).programme == plan.programme
    # a plan without one is written as before: plan@1, no programme key
    plain = read(plan_dict())
    assert plan_to_dict(plain)["format"] == FORMAT and "programme" not in plan_to_dict(plain)


def test_monthly_dates_keep_the_day_or_the_month_end() -> None:
    plan = read(programme_plan({"name": "m", "start": "2027-01-31", "every": "month",
                                "end": "2027-05-31"}))
    assert scheduled_dates(plan.programme) == ["2027-01-31", "2027-02-28", "2027-03-31",
                                               "2027-04-30", "2027-05-31"]
    weekly = read(programme_plan({"name": "w", "start": "2027-12-27", "every": "week",
                                  "end": "2028-01-10"}))
    assert scheduled_dates(weekly.programme) == ["2027-12-27", "2028-01-03", "2028-01-10"]
    quarterly = read(programme_plan({"name": "q", "start": "2028-02-29", "every": "quarter",
                                     "end": "2029-02-28"}))
    assert scheduled_dates(quarterly.programme) == ["2028-02-29", "2028-05-29", "2028-08-29",
                                                    "2028-11-29", "2029-02-28"]


@pytest.mark.parametrize("programme, where, words", [
    ({"name": "m", "start": "2027-02-30", "every": "month"}, "programme.start",
     "not a date of the calendar"),
    ({"name": "m", "start": "1 Jan 2027", "every": "month"}, "programme.start", "YYYY-MM-DD"),
    ({"name": "m", "start": "2027-01-01", "every": "fortnight"}, "programme.every",
     "not one of: week, month, quarter, year"),
    ({"name": "m", "start": "2027-01-01", "every": "month", "end": "2026-12-01"},
     "programme.end", "must not come before start"),
    ({"name": "m", "dates": ["2027-01-01", "2027-01-01"]}, "programme.dates[1]",
     "must come after"),
    ({"name": "m", "dates": ["2027-01-01"], "every": "month"}, "programme.every",
     "not used with dates"),
    ({"name": "m"}, "programme.start", "is required"),
    ({"name": "a b", "dates": ["2027-01-01"]}, "programme.name", "letters, digits"),
    ({"name": "m", "dates": ["2027-01-01"], "window_days": 0}, "programme.window_days",
     "from 1 to 366"),
    ({"name": "m", "start": "2027-01-01", "every": "week", "end": "2040-01-01"},
     "programme.end", "more than 240 dates"),
    ({"name": "m", "dates": ["2027-01-01"], "when": "x"}, "programme.when", "unknown field"),
])
def test_a_bad_programme_names_its_field(programme: dict[str, Any], where: str,
                                         words: str) -> None:
    with pytest.raises(InputError) as raised:
        read(programme_plan(programme))
    assert raised.value.where == where and words in raised.value.problem


def test_a_programme_needs_plan_at_2() -> None:
    with pytest.raises(InputError) as raised:
        read(plan_dict(programme={"name": "m", "dates": ["2027-01-01"]}))
    assert raised.value.where == "programme" and FORMAT_PROGRAMME in raised.value.problem


def test_which_date_a_release_belongs_to() -> None:
    plan = read(programme_plan({"name": "m", "dates": ["2027-01-01", "2027-01-05",
                                                       "2027-03-01"], "window_days": 7}))
    p = plan.programme
    day = dt.date.fromisoformat
    assert slot_for(p, day("2026-12-31")) is None
    assert slot_for(p, day("2027-01-01")) == "2027-01-01"
    assert slot_for(p, day("2027-01-04")) == "2027-01-01"
    assert slot_for(p, day("2027-01-05")) == "2027-01-05"  # the window ends at the next date
    assert slot_for(p, day("2027-01-11")) == "2027-01-05"
    assert slot_for(p, day("2027-01-12")) is None  # seven days after 5 January
    assert slot_for(p, day("2027-03-07")) == "2027-03-01"
    assert slot_for(p, day("2027-03-08")) is None
    with pytest.raises(ProgrammeRefused, match=r"2027-02-01 is not a release date of "
                                               r"programme 'm' \(its next date is 2027-03-01"):
        release_date(p, day("2027-02-01"))
    with pytest.raises(ProgrammeRefused, match="it has no date left"):
        release_date(p, day("2027-04-01"))


def _empty(cap: Cap) -> LedgerState:
    return LedgerState("test", cap, lifetime_total([], [], None, cap.delta), [])


def test_pure_releases_add_up_and_the_cap_runs_out_in_march_2028() -> None:
    """Laplace counts of ε = 1 compose to 1, 2, 3, ... (no accountant does better on pure
    ε-DP at δ = 0): with a cap of ε = 3.5 the third release is the last within it."""
    plan = read(programme_plan({"name": "m", "start": "2028-01-15", "every": "month",
                                "end": "2028-12-15"}))
    found = forecast(_empty(Cap(3.5, 1e-6)), [], [plan], today=dt.date(2027, 12, 1))
    assert [p.date for p in found.planned] == ["2028-01-15", "2028-02-15", "2028-03-15",
                                               "2028-04-15"]
    assert [p.epsilon for p in found.planned] == pytest.approx([1.0, 2.0, 3.0, 4.0])
    assert [p.fits for p in found.planned] == [True, True, True, False]
    assert found.runs_out == "2028-04-15"
    assert found.words().startswith("At this rate the cap of ε = 3.5 lasts until March 2028")
    assert month_words("2028-03-15") == "March 2028"


def test_gaussian_releases_compose_tighter_than_their_sum() -> None:
    """Twelve monthly Gaussian counts: the forecast's lifetime ε is within zCDP's bound for
    twelve releases (ρ each, ε = 12ρ + 2√(12ρ ln 1/δ)) and far below twelve times one
    release's ε: composed as the ledger composes a lifetime, not added up."""
    delta = 1e-6
    plan = read(programme_plan(
        {"name": "m", "start": "2028-01-01", "every": "month", "end": "2028-12-01"},
        budget={"epsilon": 5.0, "delta": 1e-5},
        queries=[{"id": "n", "kind": "count", "mechanism": "gaussian", "epsilon": 1.0,
                  "delta": delta}]))
    found = forecast(_empty(Cap(1000.0, 1e-3)), [], [plan], today=dt.date(2027, 12, 1))
    assert len(found.planned) == 12 and all(p.fits for p in found.planned)
    first, last = found.planned[0], found.planned[-1]
    assert last.epsilon < 12 * first.epsilon * 0.6
    # an independent upper bound: zCDP of twelve Gaussians of the calibrated σ at the same δ
    from planner_app.core.planning.check import check_plan

    compiled = check_plan(plan).compiled
    assert compiled is not None
    (m,) = compiled.all_measurements
    assert m.sigma_sq is not None  # the discrete Gaussian's σ² in steps², Δ₂² in steps²
    rho = 12 * m.component.l2_sq / (2 * float(m.sigma_sq))
    bound = rho + 2 * math.sqrt(rho * math.log(1 / last.delta))
    assert last.epsilon <= bound * (1 + 1e-9)


def test_a_programme_with_no_date_left_plans_nothing() -> None:
    plan = read(programme_plan({"name": "m", "dates": ["2027-01-01"]}))
    found = forecast(_empty(Cap(10.0, 1e-5)), [], [plan], today=dt.date(2027, 6, 1))
    assert found.planned == [] and found.runs_out is None
    assert "is planned" in found.words()


def test_the_json_schema_describes_a_programme() -> None:
    import jsonschema

    from planner_app.core.support.resources import resource_path

    schema = json.loads(resource_path("plan.schema.json").read_text(encoding="utf-8"))
    for programme in ({"name": "m", "start": "2027-01-31", "every": "month", "end": "2027-12-31"},
                      {"name": "m", "dates": ["2027-01-01", "2027-06-01"], "window_days": 3}):
        doc = plan_to_dict(read(programme_plan(programme)))
        jsonschema.validate(doc, schema)
    with pytest.raises(jsonschema.ValidationError):  # dates and a cadence at once
        jsonschema.validate(programme_plan({"name": "m", "dates": ["2027-01-01"],
                                            "every": "month"}), schema)


def test_the_schedule_rule_of_the_checklist() -> None:
    from planner_app.core.planning.readiness import schedule_rule

    plan = read(programme_plan({"name": "m", "dates": ["2027-01-01", "2027-03-01"]}))
    on = schedule_rule(plan, dt.date(2027, 1, 3))
    assert on is not None and on.passed and "2027-01-01" in on.message
    off = schedule_rule(plan, dt.date(2027, 2, 1))
    assert off is not None and off.failed and off.where == "programme"
    assert off.line == ("Today (2027-02-01) is not a release date of programme 'm'. Release "
                        "on its next date, 2027-03-01, or within 7 days after.")
    assert off.refusal.startswith("2027-02-01 is not a release date of programme 'm'")
    assert schedule_rule(read(plan_dict())) is None  # a plan on no schedule: no rule


def test_a_long_programme_lists_three_years_and_finds_the_run_out_by_halving() -> None:
    """Weekly counts of ε = 0.25 against a cap of ε = 10: the 40th fits exactly (0.25 is
    exact in binary), the 41st is refused. The first 36 are listed, then the last within the
    cap and the first over it, with the three between them counted."""
    from planner_app.core.planfile.programme import scheduled_dates
    from planner_app.core.planning.forecast import MAX_SHOWN, forecast_lines

    plan = read(programme_plan(
        {"name": "w", "start": "2030-01-07", "every": "week", "end": "2031-06-30"},
        budget={"epsilon": 0.25, "delta": 0.0},
        queries=[{"id": "n", "kind": "count", "epsilon": 0.25}]))
    dates = scheduled_dates(plan.programme)
    found = forecast(_empty(Cap(10.0, 1e-6)), [], [plan], today=dt.date(2029, 12, 1))
    assert MAX_SHOWN == 36 and found.hidden == 3
    assert [p.date for p in found.planned] == dates[:36] + [dates[39], dates[40]]
    assert [p.epsilon for p in found.planned] == pytest.approx(
        [0.25 * n for n in range(1, 37)] + [10.0, 10.25])
    assert found.last_within is not None and found.last_within.date == dates[39]
    assert found.runs_out == dates[40]
    assert found.words().startswith(f"At this rate the cap of ε = 10 lasts until "
                                    f"{month_words(dates[39])}")
    assert any("3 more planned release(s), all within the cap" in line
               for line in forecast_lines(found))
    # a cap that holds them all: the last date's total, and how many releases it covers
    roomy = forecast(_empty(Cap(1000.0, 1e-6)), [], [plan], today=dt.date(2029, 12, 1))
    assert roomy.runs_out is None and roomy.planned_count == len(dates)
    assert roomy.planned[-1].date == dates[-1]
    assert roomy.planned[-1].epsilon == pytest.approx(0.25 * len(dates))
    assert roomy.words().startswith(f"All {len(dates)} planned release(s) fit")


def test_a_damaged_audit_entry_is_skipped_by_the_programme_reader() -> None:
    from planner_app.core.records.ledger_state import ReleaseRecord
    from planner_app.core.records.programme import programme_releases

    record = ReleaseRecord(id="r1", dataset="test", time="2027-01-01T00:00:00Z",
                           file_name="t.csv", file_sha256="0" * 64, plan_sha256="a" * 64,
                           epsilon=1.0, delta=0.0, rho=None, accountant="basic",
                           status="completed", bundle_sha256=None)
    good = {"event": "release requested", "params": {
        "release_id": "r1", "dataset": "test", "plan_sha256": "a" * 64,
        "programme": {"name": "m", "date": "2027-01-01", "schedule": {"name": "m"}}}}
    found = programme_releases([record], [42, ["x"], good])
    assert [(r.release_id, r.name, r.date) for r in found] == [("r1", "m", "2027-01-01")]


def test_the_forecast_table_has_no_gap_line_when_no_release_is_left_out() -> None:
    """walk2627: a forecast that lists every planned release (a few, or exactly one past the
    36 listed) printed "… 0 more planned release(s)" as its first row, above the releases."""
    from planner_app.core.planning.forecast import MAX_SHOWN, forecast_lines

    few = forecast(_empty(Cap(3.5, 1e-6)), [], [read(programme_plan(
        {"name": "m", "start": "2028-01-15", "every": "month", "end": "2028-12-15"}))],
        today=dt.date(2027, 12, 1))
    plan = read(programme_plan(
        {"name": "w", "start": "2030-01-07", "every": "week", "end": "2030-09-16"},
        budget={"epsilon": 0.25, "delta": 0.0},
        queries=[{"id": "n", "kind": "count", "epsilon": 0.25}]))
    assert len(scheduled_dates(plan.programme)) == MAX_SHOWN + 1
    one_more = forecast(_empty(Cap(1000.0, 1e-6)), [], [plan], today=dt.date(2029, 12, 1))
    for found in (few, one_more):
        assert found.hidden == 0
        lines = forecast_lines(found)
        assert not any("more planned release(s)" in line for line in lines)
        # the header, the column names, one row per point, the sentence
        assert len(lines) == 2 + len(found.points) + 1
