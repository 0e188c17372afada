"""The calendar of releases (cal26, issue 26): a dataset's past and planned spending against
its lifetime cap, and when the cap runs out at the programmes' rate.

Past: each charged release, the dataset's lifetime total after it. Planned: each programme of
the dataset (known from its charged releases, or a programme plan not yet released) spends at
each of its remaining dates what its last release spent (a plan not yet released: what its
check composes). Every total is composed the way the ledger composes a dataset's lifetime
(``ledger_state.lifetime_total``: the tightest valid accountant, not a sum when one is
tighter). Only the ledger's public ε, δ and measurements and the plans' dates are used:
nothing here depends on any data. `ledger forecast` prints it; the app draws it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..dp.accounting import Total, within
from ..model.plan import Plan
from ..planfile.programme import MAX_DATES, scheduled_dates, slot_for
from ..planfile.validation import plan_from_dict
from ..records.books import audit_for, has_ledger, ledger_for
from ..records.ledger_state import Cap, LedgerState, ReleaseRecord, lifetime_total
from ..records.policy import effective_state, policy_or_error
from ..records.programme import programme_releases, today_utc
from ..support.errors import InputError
from ..support.home import AppHome
from ..support.numbers import shown
from .check import check_plan

MAX_SHOWN = 36  # planned releases listed one by one (three years of monthly ones)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")


@dataclass(frozen=True)
class ForecastPoint:
    """One release on the timeline and the dataset's lifetime total after it."""

    date: str  # YYYY-MM-DD: the day it was charged (past) or its scheduled date (planned)
    epsilon: float
    delta: float
    accountant: str
    planned: bool
    programme: str | None
    fits: bool  # within the cap

    def to_dict(self) -> dict[str, Any]:
        return {"date": self.date, "epsilon": self.epsilon, "delta": self.delta,
                "accountant": self.accountant, "planned": self.planned,
                "programme": self.programme, "fits": self.fits}


@dataclass(frozen=True)
class Forecast:
    dataset: str
    cap: Cap
    today: str
    points: list[ForecastPoint]
    programmes: list[str] = field(default_factory=list)
    # planned releases within the cap left out of ``points`` (after the first MAX_SHOWN,
    # before the last one within the cap); the totals of those shown are exact
    hidden: int = 0

    @property
    def planned_count(self) -> int:
        """How many planned releases the forecast covers, shown or not (up to the first
        one over the cap)."""
        return len(self.planned) + self.hidden

    @property
    def past(self) -> list[ForecastPoint]:
        return [p for p in self.points if not p.planned]

    @property
    def planned(self) -> list[ForecastPoint]:
        return [p for p in self.points if p.planned]

    @property
    def last_within(self) -> ForecastPoint | None:
        """The last planned release within the cap, when a later one crosses it."""
        planned = self.planned
        first_over = next((i for i, p in enumerate(planned) if not p.fits), None)
        if first_over is None or first_over == 0:
            return None
        return planned[first_over - 1]

    @property
    def gap(self) -> tuple[ForecastPoint, ForecastPoint] | None:
        """The two planned releases shown between which ``hidden`` ones are left out (the
        last of the first MAX_SHOWN and the next one shown), or None when none is."""
        if not self.hidden:
            return None
        at = len(self.past) + MAX_SHOWN
        return self.points[at - 1], self.points[at]

    @property
    def runs_out(self) -> str | None:
        """The date of the first planned release that would cross the cap, or None."""
        return next((p.date for p in self.planned if not p.fits), None)

    def words(self) -> str:
        """The forecast in one sentence ("at this rate the cap of ε = 10 lasts until March
        2028")."""
        cap = f"the cap of ε = {self.cap.epsilon:g}"
        planned = self.planned
        if not planned:
            return (f"No release of {self.dataset!r} is planned: no programme of it has a "
                    f"date left; ε = {shown(max(0.0, self.cap.epsilon - self._spent()))} of "
                    f"{cap} is left.")
        if self.runs_out is None:
            last = planned[-1]
            return (f"All {self.planned_count} planned release(s) fit {cap}: after the last, on "
                    f"{last.date}, the lifetime total is ε = {shown(last.epsilon)}.")
        fits = self.last_within
        if fits is None:
            return (f"The next planned release ({planned[0].date}) would already cross {cap}"
                    f" (ε = {shown(planned[0].epsilon)}): it would be refused.")
        return (f"At this rate {cap} lasts until {month_words(fits.date)}: the release of "
                f"{self.runs_out} would cross it (ε = "
                f"{shown(next(p.epsilon for p in planned if not p.fits))}) and be refused.")

    def _spent(self) -> float:
        past = self.past
        return past[-1].epsilon if past else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "cap": self.cap.to_dict(), "today": self.today,
                "hidden": self.hidden,
                "programmes": self.programmes, "runs_out": self.runs_out,
                "last_within": None if self.last_within is None else self.last_within.date,
                "words": self.words(), "points": [p.to_dict() for p in self.points]}


def month_words(date: str) -> str:
    """"March 2028" for 2028-03-01."""
    day = dt.date.fromisoformat(date)
    return f"{MONTHS[day.month - 1]} {day.year}"


@dataclass(frozen=True)
class _Plan:
    """A programme's planned releases: its dates to come and what each spends."""

    name: str
    dates: list[str]
    spends: ReleaseRecord  # the template of each planned release


def _remaining(schedule: Plan, done: set[str], today: dt.date) -> list[str]:
    assert schedule.programme is not None
    open_now = slot_for(schedule.programme, today)
    return [d for d in scheduled_dates(schedule.programme)
            if d not in done and (d == open_now or dt.date.fromisoformat(d) > today)]


def _schedule_plan(name: str, schedule: dict[str, Any], dataset: str) -> Plan | None:
    """A stand-in plan holding only the programme recorded in the audit log (its dates)."""
    doc = {"format": "planner-app/plan@2", "dataset": {"name": dataset},
           "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 1},
           "queries": [{"id": "q", "kind": "count", "epsilon": 1}],
           "programme": {**schedule, "name": name}}
    try:
        return plan_from_dict(doc, "audit log")
    except InputError:
        return None  # an entry written by a later version: its dates are not known here


def forecast(state: LedgerState, entries: Sequence[dict[str, Any]],
             plans: Sequence[Plan] = (), today: dt.date | None = None) -> Forecast:
    """The dataset's timeline: ``state`` (its records and effective cap), the audit log's
    ``entries`` (which releases belong to which programme), ``plans``: programme plans of this
    dataset not (or not only) known from the books, each spending what its check composes."""
    today = today or today_utc()
    records = state.releases
    cap = state.cap
    points: list[ForecastPoint] = []
    for i, r in enumerate(records):
        total = lifetime_total(records[:i + 1], [], None, cap.delta)
        points.append(_point(r.time[:10], total, cap, False, None))
    known = programme_releases(records, entries)
    by_id = {r.id: r for r in records}
    programmes: dict[str, _Plan] = {}
    for pr in known:  # the last release of each programme: its schedule and what it spends
        stand_in = _schedule_plan(pr.name, pr.schedule, state.dataset)
        if stand_in is None:
            continue
        done = {k.date for k in known if k.name == pr.name}
        programmes[pr.name] = _Plan(pr.name, _remaining(stand_in, done, today),
                                    by_id[pr.release_id])
    for plan in plans:
        assert plan.programme is not None
        compiled = check_plan(plan).compiled
        assert compiled is not None
        done = {k.date for k in known if k.name == plan.programme.name}
        total = compiled.total
        template = ReleaseRecord(
            id="planned", dataset=state.dataset, time="", file_name="", file_sha256="",
            plan_sha256=compiled.digest, epsilon=total.epsilon, delta=total.delta,
            rho=total.rho, accountant=total.accountant, status="planned", bundle_sha256=None,
            measurements=list(compiled.measurement_dicts))
        programmes[plan.programme.name] = _Plan(plan.programme.name,
                                                _remaining(plan, done, today), template)
    upcoming = sorted((d, name) for name, p in programmes.items() for d in p.dates)
    upcoming = upcoming[:MAX_DATES]
    history = list(records)
    for date, name in upcoming:
        history.append(_planned(state.dataset, date, name, programmes[name].spends))

    def after(n: int) -> ForecastPoint:
        """The point of the n-th planned release (from 1): the lifetime total after it."""
        date, name = upcoming[n - 1]
        total = lifetime_total(history[:len(records) + n], [], None, cap.delta)
        return _point(date, total, cap, True, name)

    shown = 0
    for n in range(1, min(len(upcoming), MAX_SHOWN) + 1):
        points.append(after(n))
        shown = n
        if not points[-1].fits:  # the ledger refuses this one: nothing after it is charged
            return Forecast(state.dataset, cap, today.isoformat(), points, sorted(programmes))
    hidden = 0
    if shown < len(upcoming):
        # beyond the table's rows: the lifetime total only grows with each release, so the
        # first one over the cap is found by halving (each total composed exactly, as the
        # ledger will), and shown with the last one within it
        last = after(len(upcoming))
        if last.fits:
            hidden, tail = len(upcoming) - shown - 1, [last]
        else:
            lo, hi = shown, len(upcoming)  # after(lo) fits, after(hi) does not
            over = last
            while hi - lo > 1:
                mid = (lo + hi) // 2
                point = after(mid)
                if point.fits:
                    lo = mid
                else:
                    hi, over = mid, point
            tail = ([after(lo)] if lo > shown else []) + [over]
            hidden = hi - shown - len(tail)
        points += tail
    return Forecast(state.dataset, cap, today.isoformat(), points, sorted(programmes),
                    hidden)


def _planned(dataset: str, date: str, name: str, t: ReleaseRecord) -> ReleaseRecord:
    """A planned release as a ledger row: what the programme's template spends, on its date."""
    return ReleaseRecord(
        id=f"planned:{name}:{date}", dataset=dataset, time=date, file_name="",
        file_sha256="", plan_sha256=t.plan_sha256, epsilon=t.epsilon, delta=t.delta,
        rho=t.rho, accountant=t.accountant, status="planned", bundle_sha256=None,
        measurements=t.measurements)


def _point(date: str, total: Total, cap: Cap, planned: bool, name: str | None
           ) -> ForecastPoint:
    return ForecastPoint(date, total.epsilon, total.delta, total.accountant, planned, name,
                         within(total, cap.epsilon, cap.delta))


def home_forecast(home: AppHome, dataset: str, plans: Sequence[Plan] = (),
                  today: dt.date | None = None) -> Forecast:
    """The forecast of ``dataset`` from the books this home charges (its own ledger or the
    office's shared one), under the cap in force (the policy's where it is lower)."""
    for plan in plans:
        if plan.programme is None:
            raise InputError("plan", "programme", "is required for a forecast: the plan is "
                                                  "not released on a schedule")
        if plan.dataset.name != dataset:
            raise InputError("plan", "dataset.name",
                             f"is {plan.dataset.name!r}, not the dataset {dataset!r} forecast")
    ledger = ledger_for(home, for_reading=True)
    state = effective_state(ledger.state(dataset), policy_or_error(home))
    return forecast(state, audit_for(home, ledger).read(), plans, today)



def forecast_lines(found: Forecast) -> list[str]:
    """The forecast as `ledger forecast` prints it: a line on the cap, a table of the
    releases (the lifetime total after each), and the sentence of when the cap runs out."""
    cap = found.cap
    head = (f"{found.dataset}: lifetime cap ε = {cap.epsilon:g}, δ = {cap.delta:g}"
            f"{' (the default)' if cap.is_default else ''}"
            f"{' (set by the organisation' + chr(39) + 's policy)' if cap.by_policy else ''}; "
            f"programmes: {', '.join(found.programmes) or 'none'}; today {found.today}")
    lines = [head, f"  {'date':<10}  {'release':<22}  {'lifetime ε':>10}  {'δ':>8}  "
                   f"{'of the cap':>10}"]
    gap = found.gap  # the releases left out sit between the first MAX_SHOWN and the tail
    for p in found.points:
        if gap is not None and p is gap[1]:
            lines.append(f"  {'…':<10}  {found.hidden} more planned release(s), all within "
                         "the cap")
        what = (f"planned ({p.programme})" if p.planned else "past")[:22]
        share = f"{p.epsilon / cap.epsilon:.0%}" if p.fits else "OVER: refused"
        lines.append(f"  {p.date:<10}  {what:<22}  {shown(p.epsilon):>10}  "
                     f"{p.delta:>8.2g}  {share:>10}")
    if not found.points:
        lines.append("  (no release yet, none planned)")
    lines.append(found.words())
    return lines


def timeline_datasets(home: AppHome, plan: Plan | None = None) -> list[str]:
    """The datasets a timeline can show: those of the ledger this home charges, and the
    open plan's (first, when it has a programme)."""
    ledger = ledger_for(home, for_reading=True)
    names = ledger.datasets() if has_ledger(home) else []
    if plan is not None and plan.dataset.name:
        names = [plan.dataset.name, *(n for n in names if n != plan.dataset.name)]
    return names


def plan_forecast(home: AppHome, dataset: str, plan: Plan | None = None) -> Forecast:
    """The app's timeline of ``dataset``: the books' programmes, and the open plan's when it
    is a programme of this dataset (planned as it stands, before its first release)."""
    plans = [plan] if plan is not None and plan.programme is not None and \
        plan.dataset.name == dataset else []
    return home_forecast(home, dataset, plans)
