"""Was this plan released before? The one rule, for the app's window and the command line.

A plan is "the same plan" when its canonical digest (``plan_digest``: the plan's canonical
JSON without its approvals, the ``plan_sha256`` every bundle and ledger row records) is the
same: a re-approved copy is the same plan, a plan with any statistic, ε, bound or unit changed
is not. The ledger (private, in the app home) has each release's plan digest, time and
(ε, δ); the app home's audit log has the name of the bundle each release wrote. Everything
here is for the owner's screen and terminal, never published.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..dp.accounting import Total, compose
from ..kinds.shared_dp import measurements_for
from ..model import Plan
from ..planfile import plan_digest
from ..support.errors import PlannerError
from ..support.home import AppHome
from .books import audit_for, ledger_for
from .headroom import Headroom, again_words, headroom
from .ledger import LedgerState
from .policy import effective_state, policy_or_error


@dataclass(frozen=True)
class EarlierRelease:
    """One earlier release of a plan (owner-only)."""

    release_id: str
    time: str  # UTC, to the minute: "2026-11-27 00:45 UTC"
    epsilon: float
    delta: float
    bundle: str | None  # the bundle's file name (a full path when the caller knows it)
    completed: bool  # the bundle was written (else the charge stands, the bundle is missing)

    def words(self) -> str:
        bundle = f"bundle {self.bundle}" if self.bundle else "its bundle was not written"
        return f"on {self.time} ({bundle}, ε = {self.epsilon:.4g})"


def _minute(time: str) -> str:
    """The ledger's time ("2026-11-27T00:45:12.345678Z") to the minute, in words."""
    return f"{time[:10]} {time[11:16]} UTC" if len(time) >= 16 else time


def bundle_names(home: AppHome) -> dict[str, str]:
    """Each release's bundle file name, from the app home's audit log ("bundle written");
    empty when the log cannot be read (the banner then names no bundle)."""
    try:
        entries = audit_for(home).read()
    except PlannerError:
        return {}
    out = {}
    for e in entries:
        params = e.get("params")
        if e.get("event") == "bundle written" and isinstance(params, dict):
            rid, name = params.get("release_id"), params.get("bundle_name")
            if isinstance(rid, str) and isinstance(name, str):
                out[rid] = name
    return out


def earlier_releases(plan: Plan, state: LedgerState | None,
                     bundles: Mapping[str, str] = {}) -> list[EarlierRelease]:  # noqa: B006
    """The releases of this exact plan (its digest) in the dataset's ledger whose bundle was
    written, oldest first. One charged but never completed is not counted: the release
    wizard and ``release --resume`` offer to complete it, with no new noise or charge."""
    completed = [] if state is None else [r for r in state.releases if r.status == "completed"]
    if not completed:  # no digest to compare (the editor asks at every slider step)
        return []
    digest = plan_digest(plan)
    return [EarlierRelease(r.id, _minute(r.time), r.epsilon, r.delta, bundles.get(r.id), True)
            for r in completed if r.plan_sha256 == digest]


def released_line(releases: Sequence[EarlierRelease]) -> str | None:
    """The window's banner: the latest release of this plan (and how many in all)."""
    if not releases:
        return None
    last = releases[-1]
    more = f" It was released {len(releases)} times in all." if len(releases) > 1 else ""
    return f"This plan was released {last.words()}.{more}"


def again_question(releases: Sequence[EarlierRelease], room: Headroom) -> str:
    """What the app asks (and the command line warns) before releasing the same plan again:
    when it was released, and what releasing it again adds to the dataset's lifetime total
    (``room``: ``headroom`` of the release against the dataset's ledger state, the charge's
    own composition; not the release's ε, as composition is not additive)."""
    last = releases[-1]
    times = "" if len(releases) == 1 else f" ({len(releases)} releases so far)"
    return (f"This plan was released {last.words()}{times}. Releasing it again publishes new "
            "noise for the same statistics; averaging the releases reveals more than either "
            f"alone. {again_words(room)}.")


def again_room(state: LedgerState, plan: Plan) -> Headroom:
    """The plan's release against ``state`` (the dataset's ledger state, with its effective
    cap), as the charge composes it."""
    ms = [m for q in plan.queries for m in measurements_for(q, plan)]
    return headroom(state, ms, plan_total(plan))


def plan_total(plan: Plan) -> Total:
    """The plan's composed total, as `check` and the app compose it (the plan's accountant,
    or the tightest valid one when the plan's cannot be used)."""
    ms = [m for q in plan.queries for m in measurements_for(q, plan)]
    try:
        return compose(ms, plan.budget.delta, plan.budget.accountant)
    except PlannerError:
        return compose(ms, plan.budget.delta)


def again_warning(home: AppHome, plan: Plan) -> str | None:
    """The command line's warning before it releases a plan that was released before (None
    when it was not, or when the ledger cannot be read: the release itself then says so)."""
    try:
        state = ledger_for(home, for_reading=True).state_without_creating(plan.dataset.name)
    except PlannerError:
        return None
    earlier = earlier_releases(plan, state, bundle_names(home))
    if not earlier:
        return None
    state = effective_state(state, policy_or_error(home))  # the cap the charge tests against
    return (f"{again_question(earlier, again_room(state, plan))} It is released again as asked "
            "(and charged to the dataset's lifetime cap like any release).")
