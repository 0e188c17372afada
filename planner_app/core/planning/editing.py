"""Plan editing for the desktop app, Qt-free: an undoable document and the budget tools.

Every edit replaces the immutable Plan with a new one through ``PlanDocument.apply``, which
records an undoable command (glue's CommandStack pattern: all front ends map interactions to
command objects). Consecutive edits with the same ``merge_key`` (dragging a slider) merge into
one command, so one undo takes the whole drag back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

from ..dp.accounting import Total, compose
from ..dp.accuracy import DEFAULT_CONFIDENCE
from ..kinds.shared_dp import epsilon_for_shown_target, measurements_for
from ..model import Plan, Query

EPSILON_DIGITS = 6  # per-statistic ε shares are multiples of 10^-6


@dataclass(frozen=True)
class Command:
    description: str
    before: Plan
    after: Plan
    merge_key: str | None = None


class PlanDocument:
    """The plan being edited, its file, its undo history and who to tell about changes."""

    def __init__(self) -> None:
        self.plan: Plan | None = None
        self.path: Path | None = None
        self._saved: Plan | None = None
        self._undo: list[Command] = []
        self._redo: list[Command] = []
        self._listeners: list[Callable[[], None]] = []
        self._merging = True

    # -- observers ---------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener()

    # -- state -------------------------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        return self.plan is not None and self.plan != self._saved

    def load(self, plan: Plan, path: Path | None = None, saved: bool = True) -> None:
        self.plan = plan
        self.path = path
        self._saved = plan if saved else None
        self._undo.clear()
        self._redo.clear()
        self._notify()

    def close(self) -> None:
        self.plan = None
        self.path = None
        self._saved = None
        self._undo.clear()
        self._redo.clear()
        self._notify()

    def mark_saved(self, path: Path) -> None:
        self.path = path
        self._saved = self.plan
        self._notify()

    # -- commands ----------------------------------------------------------------------------

    def apply(self, description: str, new_plan: Plan, merge_key: str | None = None) -> None:
        if self.plan is None or new_plan == self.plan:
            return
        top = self._undo[-1] if self._undo else None
        if merge_key is not None and self._merging and top is not None \
                and top.merge_key == merge_key:
            self._undo[-1] = Command(description, top.before, new_plan, merge_key)
        else:
            self._undo.append(Command(description, self.plan, new_plan, merge_key))
        self._merging = True
        self._redo.clear()
        self.plan = new_plan
        self._notify()

    def end_merge(self) -> None:
        """The next edit starts a new command even with the same merge key (a drag ended)."""
        self._merging = False

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def undo_text(self) -> str:
        return self._undo[-1].description if self._undo else ""

    @property
    def redo_text(self) -> str:
        return self._redo[-1].description if self._redo else ""

    def undo(self) -> None:
        if not self._undo:
            return
        command = self._undo.pop()
        self._redo.append(command)
        self.plan = command.before
        self._merging = False
        self._notify()

    def redo(self) -> None:
        if not self._redo:
            return
        command = self._redo.pop()
        self._undo.append(command)
        self.plan = command.after
        self._merging = False
        self._notify()


# ----------------------------------------------------------------------------- plan edits


def replace_query(plan: Plan, query: Query, old_id: str | None = None) -> Plan:
    key = old_id or query.id
    out = plan.with_queries(query if q.id == key else q for q in plan.queries)
    return _relations_follow(out, key, query.id) if key != query.id else out


def add_query(plan: Plan, query: Query) -> Plan:
    return plan.with_queries([*plan.queries, query])


def remove_query(plan: Plan, query_id: str) -> Plan:
    return _relations_follow(plan.with_queries(q for q in plan.queries if q.id != query_id),
                             query_id, None)


def _relations_follow(plan: Plan, old: str, new: str | None) -> Plan:
    """The plan's relations (issue 27) after statistic ``old`` is renamed ``new`` or removed
    (None): they follow the rename; a relation naming a removed statistic goes with it (a
    plan saved with it could not be read again)."""
    c = plan.consistency
    if c is None:
        return plan
    kept = []
    for rel in c.relations:
        if old in (rel.total, rel.parts):
            if new is None:
                continue
            rel = replace(rel, total=new if rel.total == old else rel.total,
                          parts=new if rel.parts == old else rel.parts)
        kept.append(rel)
    return replace(plan, consistency=replace(c, relations=tuple(kept)) if kept else None)


def unique_id(plan: Plan, base: str) -> str:
    ids = {q.id.lower() for q in plan.queries}  # ids differing only in case collide
    if base.lower() not in ids:
        return base
    n = 2
    stem = base[:58]
    while f"{stem}_{n}".lower() in ids:
        n += 1
    return f"{stem}_{n}"


def duplicate_query(plan: Plan, query_id: str) -> tuple[Plan, str]:
    original = plan.query(query_id)
    new_id = unique_id(plan, f"{original.id}_copy")
    copy = replace(original, id=new_id, label=f"{original.title} (copy)")
    index = [q.id for q in plan.queries].index(query_id)
    queries = list(plan.queries)
    queries.insert(index + 1, copy)
    return plan.with_queries(queries), new_id


def set_query_epsilon(plan: Plan, query_id: str, epsilon: float) -> Plan:
    return replace_query(plan, replace(plan.query(query_id), epsilon=epsilon))


def round_share(x: Fraction) -> Fraction:
    """Round an ε share down to a multiple of 10^-6 (never above what is available)."""
    scale = 10**EPSILON_DIGITS
    return Fraction(math.floor(x * scale), scale)


def exact(x: float) -> Fraction:
    return Fraction(repr(float(x)))


def split_remaining(plan: Plan, locked: Iterable[str],
                    weights: Mapping[str, float] | None = None) -> Plan:
    """Give the unlocked statistics what the locked ones leave of the budget's ε, evenly or by
    weights. Exact arithmetic: the ε shares, added up, never exceed the budget."""
    locked = set(locked)
    free = [q for q in plan.queries if q.id not in locked]
    if not free:
        return plan
    left = exact(plan.budget.epsilon) - sum((exact(q.epsilon) for q in plan.queries
                                             if q.id in locked), Fraction(0))
    if left <= 0:
        raise ValueError("the held statistics already use the whole budget")
    w = {q.id: Fraction(repr(float((weights or {}).get(q.id, 1.0)))) for q in free}
    if any(v < 0 for v in w.values()) or sum(w.values()) <= 0:
        raise ValueError("weights must be positive")
    total_w = sum(w.values())
    shares = {qid: round_share(left * wi / total_w) for qid, wi in w.items()}
    if any(s <= 0 for s in shares.values()):
        raise ValueError("the budget left is too small to share")
    return plan.with_queries(
        replace(q, epsilon=float(shares[q.id])) if q.id in shares else q for q in plan.queries)


# ----------------------------------------------------------------------------- goals


@dataclass(frozen=True)
class GoalResult:
    epsilons: dict[str, float]  # the smallest ε per statistic that meets its target
    unreachable: list[str]  # targets no ε up to 1000 meets
    total: Total | None  # the composed total of the whole plan with those ε

    def apply(self, plan: Plan) -> Plan:
        """The plan with these ε and a budget just large enough for their total."""
        queries = [replace(q, epsilon=self.epsilons[q.id]) if q.id in self.epsilons else q
                   for q in plan.queries]
        out = plan.with_queries(queries)
        if self.total is not None:
            budget = _round_up(self.total.epsilon)
            out = replace(out, budget=replace(out.budget, epsilon=budget))
        return out


def _round_up(x: float, digits: int = 4) -> float:
    if x <= 0:
        return x
    power = digits - 1 - math.floor(math.log10(x))
    scale: float = 10**power  # an int, or a float when power < 0
    return math.ceil(x * scale - 1e-9) / scale


def solve_goal(plan: Plan, targets: Mapping[str, float],
               confidence: float = DEFAULT_CONFIDENCE) -> GoalResult:
    """The smallest total ε that meets every accuracy target.

    Targets are in the unit each statistic is shown in (``accuracy.shown_unit``: percentage
    points for a share, percentiles for a quantile), as a person types them. A statistic's
    accuracy depends on its own ε only, and every accountant's total grows with each ε, so the
    smallest ε meeting each target separately gives the smallest total."""
    epsilons: dict[str, float] = {}
    unreachable: list[str] = []
    for qid, target in targets.items():
        eps = epsilon_for_shown_target(plan.query(qid), plan, target, confidence)
        if eps is None:
            unreachable.append(qid)
        else:
            epsilons[qid] = eps
    total = None
    if not unreachable:
        trial = plan.with_queries(replace(q, epsilon=epsilons.get(q.id, q.epsilon))
                                  for q in plan.queries)
        ms = [m for q in trial.queries for m in measurements_for(q, trial)]
        total = compose(ms, trial.budget.delta, trial.budget.accountant)
    return GoalResult(epsilons, unreachable, total)


# ----------------------------------------------------------------------------- presets


@dataclass(frozen=True)
class HarmPreset:
    name: str
    epsilon: float
    delta: float
    reason: str


HARM_PRESETS = (
    HarmPreset("Very sensitive data", 0.5, 1e-7,
               "Health, sexuality, religion, criminal records: a leak could cause serious "
               "harm. At ε = 0.5 an attacker who was 50% sure can reach at most 62%."),
    HarmPreset("Sensitive data", 1.0, 1e-6,
               "Income, detailed demographics: a leak could embarrass or disadvantage "
               "someone. At ε = 1 a 50% guess can reach at most 73%."),
    HarmPreset("Moderately sensitive data", 3.0, 1e-6,
               "General survey answers with little harm if revealed. At ε = 3 a 50% guess can "
               "reach 95%: the protection is real but weaker."),
    HarmPreset("Low-sensitivity data", 8.0, 1e-6,
               "Aggregate usage of a service, already largely public facts. At ε = 8 the "
               "guarantee mostly limits what many releases together reveal."),
)
