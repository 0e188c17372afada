"""A programme: one plan released on a schedule (cal26, issue 26). Read and written here, with
its dates and the rule of which scheduled date a release on a given day belongs to.

Only the plan's public dates are used: nothing here depends on any data."""

from __future__ import annotations

import calendar
import datetime as dt
import re
from typing import Any

from ..model.plan import CADENCES, Programme
from ..model.reader import FieldReader

MAX_DATES = 240  # twenty years of monthly releases; an open-ended programme is shown this far
MAX_WINDOW_DAYS = 366
DEFAULT_WINDOW_DAYS = 7
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
PROGRAMME_FIELDS = ("name", "start", "every", "end", "dates", "window_days")


def _date(r: FieldReader, key: str, value: Any) -> dt.date:
    if not isinstance(value, str) or not _DATE_RE.fullmatch(value):
        r.fail(key, "must be a date written YYYY-MM-DD (for example \"2027-01-31\")")
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        r.fail(key, f"{value!r} is not a date of the calendar")


def read_programme(plan: FieldReader) -> Programme | None:
    """The plan's ``programme`` section, or None; an InputError naming the field otherwise."""
    if not plan.has("programme"):
        return None
    r = FieldReader(plan.source, plan.obj["programme"], plan.where("programme"),
                    PROGRAMME_FIELDS)
    name = r.text("name")
    assert name is not None
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
        r.fail("name", "must be 1 to 64 letters, digits, '.', '_' or '-'")
    window = r.integer("window_days", required=False, default=DEFAULT_WINDOW_DAYS)
    assert window is not None
    if not 1 <= window <= MAX_WINDOW_DAYS:
        r.fail("window_days", f"must be from 1 to {MAX_WINDOW_DAYS} days")
    if r.has("dates"):
        for other in ("start", "every", "end"):
            if r.has(other):
                r.fail(other, "is not used with dates: give either dates, or start and every")
        raw = r.obj["dates"]
        if not isinstance(raw, list) or not raw:
            r.fail("dates", "must be a list of one or more dates written YYYY-MM-DD")
        if len(raw) > MAX_DATES:
            r.fail("dates", f"has {len(raw)} dates; at most {MAX_DATES} are allowed")
        days = [_date(r, f"dates[{i}]", v) for i, v in enumerate(raw)]
        for i in range(1, len(days)):
            if days[i] <= days[i - 1]:
                r.fail(f"dates[{i}]", "must come after the date before it (in order, no "
                                      "repeats)")
        return Programme(name=name, dates=tuple(d.isoformat() for d in days),
                         window_days=window)
    if not r.has("start"):
        r.fail("start", "is required (or give the list of dates)")
    start = _date(r, "start", r.obj["start"])
    every = r.choice("every", CADENCES)
    end = _date(r, "end", r.obj["end"]) if r.has("end") else None
    if end is not None and end < start:
        r.fail("end", "must not come before start")
    if end is not None and _step(start, every, MAX_DATES) <= end:
        r.fail("end", f"gives more than {MAX_DATES} dates; end the programme sooner")
    return Programme(name=name, start=start.isoformat(), every=every,
                     end=None if end is None else end.isoformat(), window_days=window)


def programme_to_dict(p: Programme) -> dict[str, Any]:
    out: dict[str, Any] = {"name": p.name}
    if p.dates:
        out["dates"] = list(p.dates)
    else:
        out["start"] = p.start
        out["every"] = p.every
        if p.end is not None:
            out["end"] = p.end
    if p.window_days != DEFAULT_WINDOW_DAYS:
        out["window_days"] = p.window_days
    return out


def _step(start: dt.date, every: str, n: int) -> dt.date:
    """The n-th date from ``start``: a month on from 31 January is the last of February."""
    if every == "week":
        return start + dt.timedelta(weeks=n)
    months = n * {"month": 1, "quarter": 3, "year": 12}[every]
    year, month = divmod(start.month - 1 + months, 12)
    year += start.year
    day = min(start.day, calendar.monthrange(year, month + 1)[1])
    return dt.date(year, month + 1, day)


def scheduled_dates(p: Programme) -> list[str]:
    """Every date of the programme, in order (an open-ended one: its first MAX_DATES)."""
    if p.dates:
        return list(p.dates)
    assert p.start is not None and p.every is not None
    start = dt.date.fromisoformat(p.start)
    end = None if p.end is None else dt.date.fromisoformat(p.end)
    out = []
    for n in range(MAX_DATES):
        day = _step(start, p.every, n)
        if end is not None and day > end:
            break
        out.append(day.isoformat())
    return out


def slot_for(p: Programme, today: dt.date) -> str | None:
    """The scheduled date a release on ``today`` belongs to: the latest date on or before
    today, when today is within its window (``window_days`` from it, and before the next
    date); None when today is no scheduled date's."""
    dates = [dt.date.fromisoformat(d) for d in scheduled_dates(p)]
    for i, day in enumerate(dates):
        closes = day + dt.timedelta(days=p.window_days)
        if i + 1 < len(dates):
            closes = min(closes, dates[i + 1])
        if day <= today < closes:
            return day.isoformat()
    return None


def next_date(p: Programme, today: dt.date) -> str | None:
    """The first scheduled date after ``today``, or None when none is left."""
    return next((d for d in scheduled_dates(p) if dt.date.fromisoformat(d) > today), None)


def schedule_words(p: Programme) -> str:
    """The schedule in a line, for the review, the checklist and `check`."""
    dates = scheduled_dates(p)
    if p.dates:
        when = (f"on {dates[0]}" if len(dates) == 1 else
                f"on {len(dates)} dates from {dates[0]} to {dates[-1]}")
    else:
        until = (f" until {p.end} ({len(dates)} releases)" if p.end is not None
                 else " with no end date")
        when = f"every {p.every} from {p.start}{until}"
    return (f"programme {p.name!r}: released {when}; each release within {p.window_days} "
            f"day{'s' if p.window_days != 1 else ''} of its date")


def programme_decision_words(p: Programme, decision: str) -> str:
    """What a review of a programme's plan decides: every scheduled release, at once (the
    decision is bound to the plan's SHA-256, which holds the schedule)."""
    return (f"This decision covers every release of {schedule_words(p)}; each is checked "
            "against its date when it is made, and a changed plan or schedule is a new "
            f"plan to review{'' if decision == 'approved' else ' (none is approved now)'}.")


def today_words(p: Programme, today: dt.date) -> str:
    """Where ``today`` stands in the programme, for `check` (the release decides the same)."""
    slot = slot_for(p, today)
    if slot is not None:
        return f"today ({today.isoformat()}) a release belongs to its date {slot}"
    upcoming = next_date(p, today)
    return (f"today ({today.isoformat()}) is no release date: "
            + (f"the next is {upcoming}" if upcoming else "it has no date left"))
