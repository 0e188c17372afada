"""A release's place in its programme (cal26, issue 26), checked before the charge and again
by the charge under the ledger's lock.

A programme's releases are known from the books alone: each charged release of a plan on a
schedule has a ``release requested`` audit entry carrying its ``programme`` (name, the
scheduled date it belongs to, the schedule) and the plan's SHA-256, linked to its ledger row
(crosscheck.py). A release is refused, with nothing charged, when today is no scheduled
date's, when its date already has a charged release, or when the programme's plan changed
since its first release. Everything here is public: the plan's dates and digests."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..model.plan import Plan, Programme
from ..planfile.programme import next_date, programme_to_dict, slot_for
from ..support.errors import PlannerError
from .crosscheck import REQUESTED
from .ledger_state import ReleaseRecord

#: the charge's extra rule under the ledger's lock: (the dataset's records, the audit log)
Admit = Callable[[Sequence[ReleaseRecord], Sequence[dict[str, Any]]], None]


class ProgrammeRefused(PlannerError):
    """A release that has no place in its programme (exit 3, nothing charged)."""


@dataclass(frozen=True)
class ProgrammeRelease:
    """One charged release of a programme, as its audit entry recorded it."""

    release_id: str
    dataset: str
    name: str
    date: str
    plan_sha256: str
    schedule: dict[str, Any]
    time: str


def today_utc() -> dt.date:
    """The day a release is made on (UTC): the programme's dates are days, not times."""
    return dt.datetime.now(dt.timezone.utc).date()


def programme_releases(records: Sequence[ReleaseRecord], entries: Sequence[dict[str, Any]]
                       ) -> list[ProgrammeRelease]:
    """The charged releases among ``records`` that belong to a programme, in ledger order."""
    charged = {r.id: r for r in records}
    found: dict[str, ProgrammeRelease] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("event") != REQUESTED:
            continue
        params = entry.get("params")
        if not isinstance(params, dict):
            continue
        rid, programme = params.get("release_id"), params.get("programme")
        if rid not in charged or not isinstance(programme, dict):
            continue
        schedule = programme.get("schedule")
        found[rid] = ProgrammeRelease(
            release_id=rid, dataset=str(params.get("dataset")),
            name=str(programme.get("name")), date=str(programme.get("date")),
            plan_sha256=str(params.get("plan_sha256")),
            schedule=schedule if isinstance(schedule, dict) else {},
            time=charged[rid].time)
    return [found[r.id] for r in records if r.id in found]


def release_date(programme: Programme, today: dt.date) -> str:
    """The scheduled date a release made on ``today`` belongs to, or ProgrammeRefused."""
    slot = slot_for(programme, today)
    if slot is None:
        upcoming = next_date(programme, today)
        when = (f"its next date is {upcoming}" if upcoming is not None else
                "it has no date left")
        raise ProgrammeRefused(
            f"{today.isoformat()} is not a release date of programme {programme.name!r} "
            f"({when}; a release is made on its date or within {programme.window_days} "
            f"day{'s' if programme.window_days != 1 else ''} after); nothing was charged")
    return slot


def place_problem(plan: Plan, plan_sha256: str, slot: str,
                  earlier: Sequence[ProgrammeRelease]) -> str | None:
    """Why the release for ``slot`` has no place in its programme given its ``earlier``
    releases (any programme of the dataset), or None."""
    assert plan.programme is not None
    name = plan.programme.name
    mine = [r for r in earlier if r.name == name and r.dataset == plan.dataset.name]
    if mine and mine[0].plan_sha256 != plan_sha256:
        return (f"the plan of programme {name!r} changed since its first release "
                f"(on its date {mine[0].date}, plan {mine[0].plan_sha256[:12]}; this plan is "
                f"{plan_sha256[:12]}): a changed plan is a new programme, with a new name, "
                "reviewed again; nothing was charged")
    same = next((r for r in mine if r.date == slot), None)
    if same is not None:
        return (f"programme {name!r} already has its release for {slot} "
                f"(release {same.release_id}); one release per scheduled date; nothing was "
                "charged")
    return None


def programme_params(plan: Plan, slot: str) -> dict[str, Any]:
    """What the release's ``release requested`` audit entry says of its programme."""
    assert plan.programme is not None
    return {"name": plan.programme.name, "date": slot,
            "schedule": programme_to_dict(plan.programme)}


def admit_rule(plan: Plan, plan_sha256: str, slot: str) -> Admit:
    """The place check for the charge to run under its lock (two releases for one date at
    once: the second is refused there)."""

    def admit(records: Sequence[ReleaseRecord], entries: Sequence[dict[str, Any]]) -> None:
        problem = place_problem(plan, plan_sha256, slot, programme_releases(records, entries))
        if problem is not None:
            raise ProgrammeRefused(problem)

    return admit
