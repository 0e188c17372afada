"""A programme's releases as a user makes them (cal26, issue 26): one release per scheduled
date, refused (exit 3, nothing charged) on a day that is no date's, for a date released
already, or when the programme's plan changed; the refusal under the ledger's lock when two
releases for one date were both prepared; `ledger forecast`."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.model.plan import FORMAT_PROGRAMME
from planner_app.core.planfile import load_plan
from planner_app.core.records.audit import AuditLog
from planner_app.core.records.ledger import Ledger
from planner_app.core.records.programme import ProgrammeRefused
from planner_app.core.release.publish import charge_and_release, prepare
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE, ROWS_ARE_PEOPLE, plan_dict, run_in_process, write_json


def today() -> dt.date:
    return dt.datetime.now(dt.timezone.utc).date()


def programme_plan(path: Path, programme: dict[str, Any], epsilon: float = 1.0) -> Path:
    doc = plan_dict(format=FORMAT_PROGRAMME, privacy_unit=ROWS_ARE_PEOPLE,
                    budget={"epsilon": epsilon, "delta": 0.0},
                    queries=[{"id": "n", "kind": "count", "epsilon": epsilon}],
                    programme=programme)
    return write_json(path, doc)


def release(plan: Path, out: Path, home: Path) -> tuple[int, str]:
    done = run_in_process(["release", str(plan), "--data", str(DEMO_TABLE), "--out",
                           str(out)], home)
    return done.returncode, done.stderr


def rows(home: Path) -> int:
    return len(Ledger(home / "data" / "ledger.sqlite3").state("test").releases)


def monthly_from_today() -> dict[str, Any]:
    start = today()
    return {"name": "monthly", "start": start.isoformat(), "every": "month",
            "end": (start + dt.timedelta(days=366)).isoformat()}


def test_one_release_per_date_and_its_place_in_the_audit_entry(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = programme_plan(tmp_path / "p.json", monthly_from_today())
    code, err = release(plan, tmp_path / "a.zip", home)
    assert code == 0, err
    code, err = release(plan, tmp_path / "b.zip", home)
    assert code == 3, err
    assert err.strip().splitlines()[-1].startswith("planner-app: refused: programme 'monthly' "
                                                  f"already has its release for {today()}")
    assert "Traceback" not in err and not (tmp_path / "b.zip").exists()
    assert rows(home) == 1
    requested = [e for e in AuditLog(home / "data" / "audit.jsonl").read()
                 if e["event"] == "release requested"]
    assert requested[0]["params"]["programme"] == {
        "name": "monthly", "date": today().isoformat(),
        "schedule": monthly_from_today()}
    # the bundle verifies (its plan.json is a plan@2)
    assert run_in_process(["verify", str(tmp_path / "a.zip")], home).returncode == 0


def test_a_day_that_is_no_date_s_is_refused_before_anything(tmp_path: Path) -> None:
    home = tmp_path / "home"
    later = today() + dt.timedelta(days=3)
    plan = programme_plan(tmp_path / "p.json", {"name": "m", "dates": [later.isoformat()]})
    code, err = release(plan, tmp_path / "a.zip", home)
    assert code == 3, err
    assert err.count("\n") == 1
    assert f"is not a release date of programme 'm' (its next date is {later}" in err
    assert "nothing was charged" in err
    assert not (home / "data" / "audit.jsonl").exists()  # refused before the books


def test_a_changed_plan_is_not_the_programme_s_release(tmp_path: Path) -> None:
    home = tmp_path / "home"
    programme = monthly_from_today()
    assert release(programme_plan(tmp_path / "p.json", programme), tmp_path / "a.zip",
                   home)[0] == 0
    changed = programme_plan(tmp_path / "p2.json", programme, epsilon=0.5)
    code, err = release(changed, tmp_path / "b.zip", home)
    assert code == 3, err
    assert "the plan of programme 'monthly' changed since its first release" in err
    assert rows(home) == 1
    # under a new name it is a new programme: released
    renamed = programme_plan(tmp_path / "p3.json", {**programme, "name": "monthly-v2"},
                             epsilon=0.5)
    assert release(renamed, tmp_path / "c.zip", home)[0] == 0
    assert rows(home) == 2


def test_two_releases_for_one_date_prepared_at_once_charge_one(tmp_path: Path) -> None:
    """Both pass the check before the charge (neither is charged yet); the charge decides
    under the ledger's lock and refuses the second, with nothing charged and no noise."""
    home = app_home(tmp_path / "home")
    plan = load_plan(programme_plan(tmp_path / "p.json", monthly_from_today()))
    table = load_table(DEMO_TABLE)
    first = prepare(plan, table, tmp_path / "a.zip", home)
    second = prepare(plan, table, tmp_path / "b.zip", home)
    charge_and_release(first)
    with pytest.raises(ProgrammeRefused, match="already has its release for"):
        charge_and_release(second)
    assert rows(tmp_path / "home") == 1
    assert not (tmp_path / "b.zip").exists()
    assert Ledger(home.ledger_path).audit_problems() == []


def test_ledger_forecast_prints_past_and_planned_spending(tmp_path: Path) -> None:
    home = tmp_path / "home"
    start = today()
    plan = programme_plan(tmp_path / "p.json", {
        "name": "monthly", "start": start.isoformat(), "every": "month",
        "end": (start + dt.timedelta(days=31 * 20)).isoformat()}, epsilon=2.0)
    assert release(plan, tmp_path / "a.zip", home)[0] == 0
    done = run_in_process(["ledger", "forecast", "test"], home)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("test: lifetime cap ε = 10, δ = 1e-05 (the default); "
                               "programmes: monthly")
    # pure ε-DP counts of ε = 2 add up: 2 spent, then 4, 6, 8, 10 planned, 12 refused
    past = [line for line in lines if " past " in line]
    planned = [line for line in lines if "planned (monthly)" in line]
    assert len(past) == 1 and len(planned) == 5
    assert planned[-1].split()[-2:] == ["OVER:", "refused"]
    assert lines[-1].startswith("At this rate the cap of ε = 10 lasts until ")
    doc = json.loads(run_in_process(["ledger", "forecast", "test", "--json"], home).stdout)
    assert [p["epsilon"] for p in doc["points"]] == pytest.approx([2, 4, 6, 8, 10, 12])
    assert doc["runs_out"] == doc["points"][-1]["date"]


def test_ledger_forecast_of_a_plan_not_released_yet(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = programme_plan(tmp_path / "p.json", {"name": "q", "start": "2099-01-01",
                                                "every": "quarter", "end": "2099-12-31"})
    done = run_in_process(["ledger", "forecast", "test", "--plan", str(plan), "--json"], home)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [p["date"] for p in doc["points"]] == ["2099-01-01", "2099-04-01", "2099-07-01",
                                                  "2099-10-01"]
    assert doc["words"].startswith("All 4 planned release(s) fit the cap of ε = 10")


def test_ledger_forecast_refuses_a_plan_that_is_no_programme(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plain = write_json(tmp_path / "plain.json", plan_dict())
    done = run_in_process(["ledger", "forecast", "test", "--plan", str(plain)], home)
    assert done.returncode == 2
    assert done.stderr.strip() == ("planner-app: error: plain.json: programme: is required "
                                   "for a forecast: the plan is not released on a schedule")


def test_check_and_review_say_what_the_programme_is(tmp_path: Path) -> None:
    home = tmp_path / "home"
    later = today() + dt.timedelta(days=40)
    plan = programme_plan(tmp_path / "p.json", {"name": "m", "dates": [later.isoformat()]})
    done = run_in_process(["check", str(plan)], home)
    assert done.returncode == 0, done.stderr
    assert (f"Released on a schedule: programme 'm': released on {later}; each release within "
            f"7 days of its date; today ({today()}) is no release date: the next is {later}."
            in done.stdout)
    # the checklist says so too: not ready today
    assert "Ready to release: NO" in done.stdout
    assert f"is not a release date of programme 'm'. Release on its next date, {later}" \
        in done.stdout
    done = run_in_process(["review", str(plan), "--approve", "--reviewer", "Ann"], home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith(
        "This decision covers every release of programme 'm': released on ")
    # the approval is of the plan with its schedule: it still reads as a plan@2
    assert json.loads(plan.read_text())["format"] == FORMAT_PROGRAMME


def test_check_after_today_s_release_says_the_date_is_taken(tmp_path: Path) -> None:
    """walk2627: once today's date of a programme had its release, `check` still said
    "ok   Today's release is the one of … (one release per date)" and "Ready to release: yes",
    while the release refuses it. check reads the same books as the release."""
    home = tmp_path / "home"
    plan = programme_plan(tmp_path / "p.json", monthly_from_today())
    before = run_in_process(["check", str(plan)], home)
    assert f"ok   Today's release is the one of {today()}" in before.stdout
    code, err = release(plan, tmp_path / "a.zip", home)
    assert code == 0, err
    after = run_in_process(["check", str(plan)], home)
    assert "Traceback" not in after.stderr
    assert "Ready to release: NO" in after.stdout
    line = next(x for x in after.stdout.splitlines() if "already has its release" in x)
    assert line.strip().startswith(f"NO   Programme 'monthly' already has its release for "
                                   f"{today()}")
    assert "Today's release is the one of" not in after.stdout
    assert "Release on the programme's next date" in after.stdout
    # a changed plan under the same programme name: check says what the release refuses
    changed = programme_plan(tmp_path / "q.json", monthly_from_today(), epsilon=0.5)
    out = run_in_process(["check", str(changed)], home).stdout
    assert "NO   The plan of programme 'monthly' changed since its first release" in out
    assert "Rename the programme in the plan (programme.name)" in out
