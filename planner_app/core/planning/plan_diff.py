"""What changed between two versions of a plan, so that an officer re-approves a change
without rereading everything: statistics added, removed and changed field by field, the plan's
own fields, and what the change does to the composed total and to each statistic's ±.

Totals and accuracies come from ``check_plan`` (the report ``planner-app check`` prints), run
on each plan separately, so the diff can never disagree with what check says of either plan.
Approvals are not a change (``plan_digest`` leaves them out); the diff says whether the newer
plan's latest decision is bound to the newer plan, checked against the keys release would
require (``diff_keys``), so the diff never calls approved a plan that release refuses.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..dp.accounting import FIT_TOLERANCE, Total
from ..dp.accuracy import (
    DEFAULT_CONFIDENCE,
    Accuracy,
    format_half_width,
    shown_half_width,
    shown_unit,
)
from ..kinds import title_of
from ..kinds.params import (
    BoundedParams,
    CellsParams,
    YesNoParams,
    answers_of,
    bounded_of,
    cells_of,
    quantile_level,
    synth_columns_of,
    synth_rows_of,
)
from ..model import Plan, Query, canonical_key
from ..planfile import plan_digest
from ..records.keys import PublicKey
from ..records.policy import approval_rule, policy_or_error
from ..records.review import approval_keys, approval_status
from ..support.errors import InputError
from ..support.home import AppHome
from ..support.words import confidence_percent, relation_words, unit_of
from .check import CheckReport, check_plan

ADDED, REMOVED, CHANGED = "added", "removed", "changed"


@dataclass(frozen=True)
class FieldChange:
    """One field that differs: its name as a person reads it, the old and the new value as
    text, and for lists the values added and removed."""

    name: str
    old: str
    new: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def line(self) -> str:
        if self.added or self.removed:
            parts = []
            if self.added:
                parts.append("added " + _listing(self.added))
            if self.removed:
                parts.append("removed " + _listing(self.removed))
            return f"{self.name}: {'; '.join(parts)}"
        return f"{self.name}: {self.old} → {self.new}"

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.name, "old": self.old, "new": self.new,
                "added": list(self.added), "removed": list(self.removed)}


@dataclass(frozen=True)
class AccuracyChange:
    """A statistic's ± at the diff's confidence, before and after, in the shown unit."""

    old: str | None  # format_half_width text; None: the statistic is not in that plan
    new: str | None
    old_value: float | None = None  # shown half-widths, for comparison
    new_value: float | None = None
    comparable: bool = True  # same unit (a change of kind may change the unit)

    @property
    def changed(self) -> bool:
        return self.old != self.new

    @property
    def words(self) -> str:
        """The change in words: more or less accurate, and by how much."""
        if self.old is None:
            return f"{self.new}"
        if self.new is None:
            return f"was {self.old}"
        if not self.changed:
            return f"unchanged ({self.new})"
        text = f"{self.old} → {self.new}"
        a, b = self.old_value, self.new_value
        if not self.comparable or a is None or b is None:
            return text
        if not (math.isfinite(a) and math.isfinite(b)):
            return text + (" (less accurate)" if not math.isfinite(b) else " (more accurate)")
        if b < a:
            share = f"{100 * (a - b) / a:.3g}% narrower" if a > 0 else "narrower"
            return f"{text} (more accurate: the ± is {share})"
        share = f"{100 * (b - a) / a:.3g}% wider" if a > 0 else "wider"
        return f"{text} (less accurate: the ± is {share})"

    def to_dict(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "old_half_width": self.old_value,
                "new_half_width": self.new_value, "words": self.words}


@dataclass(frozen=True)
class StatisticChange:
    id: str
    status: str  # added | removed | changed
    title: str
    kind: str
    fields: tuple[FieldChange, ...]
    accuracy: AccuracyChange
    old_epsilon: float | None  # the ε the statistic spends, as check computes it
    new_epsilon: float | None

    @property
    def heading(self) -> str:
        label = f" {self.title!r}" if self.title != self.id else ""
        return f"{self.id}{label} ({title_of(self.kind)})"

    @property
    def lines(self) -> list[str]:
        """The statistic's lines below its heading."""
        if self.status == ADDED:
            return [f"ε {_pair_one(self.new_epsilon)}; accuracy {self.accuracy.words}"]
        if self.status == REMOVED:
            return [f"ε {_pair_one(self.old_epsilon)}; accuracy {self.accuracy.words}"]
        out = [f.line for f in self.fields]
        if not self.fields:
            out.append("none of its own fields changed; the plan-wide changes above change it")
        if not any(f.name == "ε" for f in self.fields) and \
                not _same(self.old_epsilon, self.new_epsilon):
            out.append(f"ε spent: {_pair(self.old_epsilon, self.new_epsilon)}")
        out.append(f"accuracy: {self.accuracy.words}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "title": self.title, "kind": self.kind,
                "fields": [f.to_dict() for f in self.fields],
                "accuracy": self.accuracy.to_dict(),
                "old_epsilon": self.old_epsilon, "new_epsilon": self.new_epsilon}


@dataclass(frozen=True)
class PlanDiff:
    old_digest: str
    new_digest: str
    confidence: float
    plan_fields: tuple[FieldChange, ...]
    statistics: tuple[StatisticChange, ...]  # added, removed and changed; sorted by id
    unchanged: tuple[str, ...]  # ids of the statistics with no change at all
    old_total: Total
    new_total: Total
    new_fits_budget: bool
    old_approval: str  # sentences (approval_status) about each plan's latest decision
    new_approval: str
    new_approval_state: str  # approved | rejected | changed | none
    old_name: str = "old plan"
    new_name: str = "new plan"
    notes: tuple[str, ...] = field(default=())

    @property
    def identical(self) -> bool:
        return self.old_digest == self.new_digest

    def of_status(self, status: str) -> list[StatisticChange]:
        return [s for s in self.statistics if s.status == status]

    @property
    def total_line(self) -> str:
        o, n = self.old_total, self.new_total
        accountants = o.accountant if o.accountant == n.accountant else \
            f"{o.accountant} → {n.accountant}"
        return (f"composed total: ε {_pair(o.epsilon, n.epsilon)}, δ "
                f"{_pair(o.delta, n.delta)}, {accountants} accountant; fits the new budget: "
                f"{'yes' if self.new_fits_budget else 'NO'}")

    def lines(self) -> list[str]:
        """The diff as plain-words text, one line each, in a stable order."""
        out = [f"Changes from {self.old_name} to {self.new_name} (± at "
               f"{confidence_percent(self.confidence)} confidence, as planner-app check "
               "computes them):"]
        if self.identical:
            out.append("No change: the two plans are the same (approvals aside).")
        else:
            if self.plan_fields:
                out.append("The plan:")
                out.extend(f"  {f.line}" for f in self.plan_fields)
            out.append(self.total_line[0].upper() + self.total_line[1:] + ".")
            for status, title, mark in ((REMOVED, "Removed statistics", "-"),
                                        (ADDED, "Added statistics", "+"),
                                        (CHANGED, "Changed statistics", "~")):
                group = self.of_status(status)
                if group:
                    out.append(f"{title} ({len(group)}):")
                    for s in group:
                        out.append(f"  {mark} {s.heading}")
                        out.extend(f"      {line}" for line in s.lines)
            if self.unchanged:
                out.append(f"Unchanged statistics ({len(self.unchanged)}): "
                           f"{', '.join(self.unchanged)}.")
        out.append(f"Approval of {self.old_name}: {self.old_approval}")
        out.append(f"Approval of {self.new_name}: {self.new_approval}")
        return out

    @property
    def text(self) -> str:
        return "\n".join(self.lines()) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "identical": self.identical, "old": self.old_name, "new": self.new_name,
            "old_plan_sha256": self.old_digest, "new_plan_sha256": self.new_digest,
            "confidence": self.confidence,
            "plan": [f.to_dict() for f in self.plan_fields],
            "total": {"old": self.old_total.to_dict(), "new": self.new_total.to_dict(),
                      "new_fits_budget": self.new_fits_budget},
            "statistics": [s.to_dict() for s in self.statistics],
            "unchanged": list(self.unchanged),
            "approval": {"old": self.old_approval, "new": self.new_approval,
                         "new_state": self.new_approval_state},
        }


# ----------------------------------------------------------------------------- values as text

MAX_LISTED = 20  # values named in one line; to_dict() has every one


def _listing(values: Sequence[str]) -> str:
    shown = ", ".join(values[:MAX_LISTED])
    return shown + (f" and {len(values) - MAX_LISTED} more" if len(values) > MAX_LISTED else "")



def _num(x: float | None) -> str:
    if x is None:
        return "none"
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.12g}"


def _same(a: float | None, b: float | None) -> bool:
    """Equal up to floating-point rounding of the accountants (FIT_TOLERANCE)."""
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=FIT_TOLERANCE, abs_tol=1e-15)


def _pair_one(x: float | None) -> str:
    return "none" if x is None else f"{x:.4g}"


def _pair(a: float | None, b: float | None) -> str:
    """``a → b (+d)`` with the fewest digits that show a difference; "x (no change)"."""
    if a is None or b is None:
        return f"{_pair_one(a)} → {_pair_one(b)}"
    if _same(a, b):
        return f"{a:.4g} (no change)"
    for digits in (4, 6, 9, 12, 17):
        ta, tb = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if ta != tb:
            break
    return f"{ta} → {tb} ({'+' if b > a else '-'}{abs(b - a):.{3}g})"


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return _num(value)
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _scalar(value: Any) -> str:
    return repr(value) if isinstance(value, str) else _text(value)


def _list_change(name: str, old: Sequence[Any] | None, new: Sequence[Any] | None,
                 show: Any = _scalar) -> FieldChange | None:
    """Declared values added and removed (compared as the engine matches cells)."""
    if old is None and new is None:
        return None
    if old is None or new is None:
        return FieldChange(name, "none" if old is None else f"{len(old)} values",
                           "none" if new is None else f"{len(new)} values",
                           tuple(show(v) for v in new or ()), tuple(show(v) for v in old or ()))
    old_keys = {canonical_key(v) for v in old}
    new_keys = {canonical_key(v) for v in new}
    added = tuple(show(v) for v in new if canonical_key(v) not in old_keys)
    removed = tuple(show(v) for v in old if canonical_key(v) not in new_keys)
    if added or removed:
        return FieldChange(name, f"{len(old)} values", f"{len(new)} values", added, removed)
    if [canonical_key(v) for v in old] != [canonical_key(v) for v in new]:
        return FieldChange(name, "same values", "same values in a new order")
    return None


def _simple(name: str, old: Any, new: Any) -> FieldChange | None:
    return None if old == new else FieldChange(name, _text(old), _text(new))


def _conditions(q: Query) -> list[str]:
    return [f"{c.column} {c.op} {list(c.value) if c.op == 'in' else _scalar(c.value)}"
            for c in q.where]


def _missing(q: Query) -> str:
    return "drop" if q.missing.policy == "drop" else f"impute {_scalar(q.missing.value)}"


def query_field_changes(old: Query, new: Query) -> list[FieldChange]:
    """Every field of a statistic that differs, in the plan file's order."""
    oc, nc = cells_of(old) or CellsParams(), cells_of(new) or CellsParams()
    oa, na = answers_of(old) or YesNoParams(), answers_of(new) or YesNoParams()
    ob, nb = bounded_of(old) or BoundedParams(), bounded_of(new) or BoundedParams()
    out: list[FieldChange | None] = [
        _simple("kind", old.kind, new.kind),
        _simple("label", old.title, new.title),
        _simple("column", old.column, new.column),
        None if (ob.lower, ob.upper) == (nb.lower, nb.upper) else FieldChange(
            "bounds", _bounds(ob), _bounds(nb)),
        _list_change("categories", oc.categories, nc.categories),
        _list_change("bins", oc.bins, nc.bins, _text),
        _simple("quantile", quantile_level(old), quantile_level(new)),
        _simple("grouped by", old.group_by.column if old.group_by else None,
                new.group_by.column if new.group_by else None),
        _list_change("group keys", old.group_by.keys if old.group_by else None,
                     new.group_by.keys if new.group_by else None),
        _list_change("yes values", oa.yes, na.yes),
        _list_change("no values", oa.no, na.no),
    ]
    ow, nw = _conditions(old), _conditions(new)
    if ow != nw:
        out.append(FieldChange("where", "; ".join(ow) or "all rows", "; ".join(nw) or "all rows",
                               tuple(c for c in nw if c not in ow),
                               tuple(c for c in ow if c not in nw))
                   if set(ow) != set(nw) else FieldChange("where", "; ".join(ow), "; ".join(nw)))
    out += [
        None if _missing(old) == _missing(new) else FieldChange(
            "missing values", _missing(old), _missing(new)),
        _simple("mechanism", old.mechanism, new.mechanism),
        _simple("ε", old.epsilon, new.epsilon),
        _simple("δ", old.delta, new.delta),
        _simple("grid step", ob.grid_step, nb.grid_step),
        _simple("expected count", old.expected_count, new.expected_count),
        _synth_change(old, new),
        _simple("rows to generate", synth_rows_of(old), synth_rows_of(new)),
    ]
    oj, nj = dict(old.justification or {}), dict(new.justification or {})
    for key in sorted(set(oj) | set(nj)):
        what = {"epsilon": "ε", "delta": "δ"}.get(key, key)
        out.append(_simple(f"reason for the {what}", oj.get(key), nj.get(key)))
    return [c for c in out if c is not None]


def _synth_columns(q: Query) -> list[str]:
    """A synthetic table's columns with their domains, one text each."""
    return [f"{c.column}: " + (", ".join(_scalar(v) for v in c.categories)
                               if c.categories is not None
                               else "bins " + ", ".join(_text(float(b)) for b in c.bins or ()))
            for c in synth_columns_of(q)]


def _synth_change(old: Query, new: Query) -> FieldChange | None:
    """A synthetic table's columns and domains: the columns added, removed or changed."""
    was, now = _synth_columns(old), _synth_columns(new)
    if was == now:
        return None
    return FieldChange("table columns", f"{len(was)} columns", f"{len(now)} columns",
                       tuple(c for c in now if c not in was), tuple(c for c in was if c not in now))


def _bounds(p: BoundedParams) -> str:
    return "none" if p.lower is None else f"[{_num(p.lower)}, {_num(p.upper)}]"


def plan_field_changes(old: Plan, new: Plan) -> list[FieldChange]:
    """The plan's own fields that differ: dataset, unit of privacy, relation, budget and its
    reason."""
    ou, nu = old.privacy_unit, new.privacy_unit
    out = [
        _simple("dataset name", old.dataset.name, new.dataset.name),
        _simple("data file", old.dataset.path, new.dataset.path),
        _simple("expected rows", old.dataset.expected_rows, new.dataset.expected_rows),
        None if (ou.kind, ou.id_column, ou.rows_per_unit, ou.rows_reason) == (
            nu.kind, nu.id_column, nu.rows_per_unit, nu.rows_reason)
        else FieldChange("unit of privacy", unit_of(ou), unit_of(nu)),
        None if old.neighbouring == new.neighbouring else FieldChange(
            "what is protected", relation_words(old.neighbouring),
            relation_words(new.neighbouring)),
        _simple("budget ε", old.budget.epsilon, new.budget.epsilon),
        _simple("budget δ", old.budget.delta, new.budget.delta),
        _simple("accountant", old.budget.accountant or "the tightest",
                new.budget.accountant or "the tightest"),
        _simple("reason for the budget", old.justification, new.justification),
    ]
    return [c for c in out if c is not None]


# ----------------------------------------------------------------------------- the diff


def _report(plan: Plan, confidence: float, name: str) -> CheckReport:
    try:
        return check_plan(plan, confidence=confidence)
    except InputError as exc:  # name which of the two plans cannot be checked
        if exc.source != "plan":
            raise
        raise InputError(name, exc.where, exc.problem) from None


def _accuracy(old: Accuracy | None, new: Accuracy | None) -> AccuracyChange:
    def text(a: Accuracy | None) -> str | None:
        return None if a is None else format_half_width(a)

    def value(a: Accuracy | None) -> float | None:
        return None if a is None else shown_half_width(a)

    comparable = old is None or new is None or shown_unit(old) == shown_unit(new)
    return AccuracyChange(text(old), text(new), value(old), value(new), comparable)


def diff_keys(home: AppHome, trust_files: Sequence[str | os.PathLike[str]] = ()
              ) -> list[PublicKey]:
    """The keys a diff checks approvals against, exactly as check and release do: the
    installed policy's officers when it names them, else the ``--trust`` files, else the app
    home's trusted keys (review.approval_keys; policy.approval_rule)."""
    return approval_rule(policy_or_error(home), True, approval_keys(home, trust_files))[1]


def diff_plans(old: Plan, new: Plan, confidence: float = DEFAULT_CONFIDENCE, *,
               old_name: str = "old plan", new_name: str = "new plan",
               trusted: Sequence[PublicKey] = ()) -> PlanDiff:
    """What changed from ``old`` to ``new``, with totals and accuracies from ``check_plan``
    of each. ``old_name`` and ``new_name`` name the plans in the text and in an error. With
    ``trusted`` keys (``diff_keys``), an approval counts only when signed by one of them, as
    at release."""
    old_report = _report(old, confidence, old_name)
    new_report = _report(new, confidence, new_name)
    old_checks = {c.query.id: c for c in old_report.queries}
    new_checks = {c.query.id: c for c in new_report.queries}
    changes: list[StatisticChange] = []
    unchanged: list[str] = []
    for qid in sorted(set(old_checks) | set(new_checks)):
        oc, nc = old_checks.get(qid), new_checks.get(qid)
        accuracy = _accuracy(oc.accuracy if oc else None, nc.accuracy if nc else None)
        o_eps = oc.accounted_epsilon(old) if oc else None  # as the plan's accountant counts
        n_eps = nc.accounted_epsilon(new) if nc else None
        if oc is None:
            assert nc is not None
            changes.append(StatisticChange(qid, ADDED, nc.query.title, nc.query.kind, (),
                                           accuracy, None, n_eps))
            continue
        if nc is None:
            changes.append(StatisticChange(qid, REMOVED, oc.query.title, oc.query.kind, (),
                                           accuracy, o_eps, None))
            continue
        fields = tuple(query_field_changes(oc.query, nc.query))
        if fields or accuracy.changed or not _same(o_eps, n_eps):
            changes.append(StatisticChange(qid, CHANGED, nc.query.title, nc.query.kind, fields,
                                           accuracy, o_eps, n_eps))
        else:
            unchanged.append(qid)
    new_status = approval_status(new, list(trusted) or None)
    return PlanDiff(
        old_digest=plan_digest(old), new_digest=plan_digest(new), confidence=confidence,
        plan_fields=tuple(plan_field_changes(old, new)), statistics=tuple(changes),
        unchanged=tuple(unchanged), old_total=old_report.total, new_total=new_report.total,
        new_fits_budget=new_report.fits_budget,
        old_approval=approval_status(old, list(trusted) or None).sentence,
        new_approval=_approval_words(new_status.state, new_status.sentence),
        new_approval_state=new_status.state, old_name=old_name, new_name=new_name)


def _approval_words(state: str, sentence: str) -> str:
    if state in ("approved", "rejected"):
        return f"{sentence} The decision is bound to this exact plan."
    if state == "changed":
        return f"{sentence} Its latest decision was made on another version of the plan."
    return sentence
