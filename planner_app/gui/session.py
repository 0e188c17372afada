"""The bridge between the Qt views and the core: the plan document, the loaded table, the
selection and cached engine results, with Qt signals. Views subscribe here; they keep no
state of their own."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..core.accounting import Total, compose
from ..core.accuracy import Accuracy, accuracy_for
from ..core.editing import PlanDocument, set_query_epsilon, split_remaining
from ..core.errors import InputError, PlannerError
from ..core.fit import YesNoTally
from ..core.home import AppHome
from ..core.ledger import Ledger, LedgerError, LedgerState
from ..core.measure import Measurement, measurements_for
from ..core.plan import YES_NO_KINDS, Budget, Dataset, Plan, PrivacyUnit, Query
from ..core.readiness import Readiness, readiness
from ..core.settings import Settings
from ..core.tables import ColumnInfo, Table


@dataclass
class _Cached:
    query: Query
    unit: PrivacyUnit
    relation: str
    rows: int | None
    confidence: float
    measurements: list[Measurement]
    accuracy: Accuracy


class Session(QObject):
    planChanged = Signal()
    tableChanged = Signal()
    selectionChanged = Signal(str)
    message = Signal(str)

    def __init__(self, home: AppHome, settings: Settings) -> None:
        super().__init__()
        self.home = home
        self.settings = settings
        self.doc = PlanDocument()
        self.doc.subscribe(self._plan_changed)
        self.table: Table | None = None
        self.table_path: Path | None = None
        self.columns: list[ColumnInfo] = []
        self.column_types: dict[str, str] = {}
        self.held: set[str] = set()
        self.selected: str | None = None
        self._cache: dict[str, _Cached] = {}
        self._total: tuple[Plan, Total] | None = None
        self._lifetime: tuple[str, LedgerState | None] | None = None
        self._observed: dict[tuple[int, str], Any] = {}
        self._fit: tuple[Plan, Table, list[InputError]] | None = None
        self._query_fit: dict[tuple[int, Query], tuple[Table, list[InputError],
                                                       YesNoTally | None]] = {}
        self._rules: tuple[tuple[Any, ...], Readiness] | None = None

    # -- plan -------------------------------------------------------------------------------

    def keep_recovery_copy(self) -> Path | None:
        """Save the plan being edited (if it has unsaved changes) to a recovery file in the app
        home; its path, or None when there was nothing to keep or it could not be written."""
        from datetime import datetime, timezone

        from ..core.plan import save_plan

        plan = self.doc.plan
        if plan is None or not self.doc.dirty:
            return None
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        target = self.home.data_dir / "recovery" / f"plan-{stamp}.json"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            save_plan(plan, target)
        except Exception:  # never let keeping the work raise a second error
            return None
        return target

    @property
    def plan(self) -> Plan | None:
        return self.doc.plan

    def _plan_changed(self) -> None:
        plan = self.doc.plan
        if plan is None:
            self.selected = None
        elif self.selected not in {q.id for q in plan.queries}:
            self.selected = plan.queries[0].id if plan.queries else None
        self.held &= {q.id for q in plan.queries} if plan else set()
        self.planChanged.emit()

    def new_plan(self, name: str) -> None:
        plan = Plan(dataset=Dataset(name=name, path=self.table.name if self.table else None,
                                    expected_rows=None),
                    privacy_unit=PrivacyUnit(), budget=Budget(epsilon=1.0, delta=1e-6),
                    queries=())
        self.doc.load(plan, None, saved=False)

    def apply(self, description: str, plan: Plan, merge_key: str | None = None) -> None:
        self.doc.apply(description, plan, merge_key)

    def select(self, query_id: str | None) -> None:
        if query_id != self.selected:
            self.selected = query_id
            self.selectionChanged.emit(query_id or "")

    def set_epsilon(self, query_id: str, epsilon: float, dragging: bool = False) -> None:
        assert self.plan is not None
        epsilon = float(f"{epsilon:.6g}")
        label = self.plan.query(query_id).title
        self.apply(f"Set ε of {label!r} to {epsilon:g}",
                   set_query_epsilon(self.plan, query_id, epsilon),
                   merge_key=f"epsilon:{query_id}" if dragging else None)

    def split(self, weights: dict[str, float] | None = None) -> None:
        assert self.plan is not None
        how = "by weights" if weights else "evenly"
        self.apply(f"Split the budget {how}", split_remaining(self.plan, self.held, weights))

    # -- engine results (cached per query object) ---------------------------------------------

    def _entry(self, query: Query) -> _Cached:
        plan = self.plan
        assert plan is not None
        hit = self._cache.get(query.id)
        rows = plan.dataset.expected_rows
        if (hit is not None and hit.query is query and hit.unit == plan.privacy_unit
                and hit.relation == plan.neighbouring and hit.rows == rows
                and hit.confidence == self.settings.confidence):
            return hit
        ms = measurements_for(query, plan)
        acc = accuracy_for(query, plan, self.settings.confidence, ms)
        entry = _Cached(query, plan.privacy_unit, plan.neighbouring, rows,
                        self.settings.confidence, ms, acc)
        self._cache[query.id] = entry
        return entry

    def measurements(self, query: Query) -> list[Measurement]:
        return self._entry(query).measurements

    def accuracy(self, query: Query) -> Accuracy:
        return self._entry(query).accuracy

    def query_epsilon(self, query: Query) -> float:
        return math.fsum(m.epsilon for m in self.measurements(query))

    def total(self) -> Total:
        plan = self.plan
        if plan is None:
            return Total(0.0, 0.0, "basic")
        if self._total is not None and self._total[0] is plan:
            return self._total[1]
        ms = [m for q in plan.queries for m in self.measurements(q)]
        try:
            total = compose(ms, plan.budget.delta, plan.budget.accountant)
        except PlannerError:
            total = compose(ms, plan.budget.delta)
        self._total = (plan, total)
        return total

    def lifetime(self) -> LedgerState | None:
        """The dataset's ledger state (None when the ledger cannot be read)."""
        plan = self.plan
        if plan is None:
            return None
        name = plan.dataset.name
        if self._lifetime is None or self._lifetime[0] != name:
            try:
                state: LedgerState | None = Ledger(self.home.ledger_path).state(name)
            except PlannerError:
                state = None
            self._lifetime = (name, state)
        return self._lifetime[1]

    def release_rules(self, unit_confirmed: bool | None = None) -> Readiness:
        """The core's release rules (readiness.py) for the plan as it stands: what the
        wizard's checklist, the meter and `planner-app check` / `release` all decide by."""
        plan = self.plan
        assert plan is not None
        state = self.lifetime()
        key = (plan, state, self.table, self.settings.require_approval,
               self.settings.confidence, unit_confirmed)
        if self._rules is not None and all(
                a is b or (type(a) in (bool, float) and a == b)
                for a, b in zip(self._rules[0], key, strict=True)):
            return self._rules[1]  # the meter asks on every slider step
        result = readiness(
            plan, self.total(), [m for q in plan.queries for m in self.measurements(q)],
            ledger=state if state is not None else LedgerError(
                f"the budget ledger {self.home.ledger_path} cannot be read"),
            require_approval=self.settings.require_approval, unit_confirmed=unit_confirmed,
            table_loaded=self.table is not None,
            table_name=self.table.name if self.table is not None else "",
            accuracies={q.id: self.accuracy(q) for q in plan.queries})
        self._rules = (key, result)
        return result

    def refresh_lifetime(self) -> None:
        self._lifetime = None
        self.planChanged.emit()

    # -- table ------------------------------------------------------------------------------

    def set_table(self, table: Table, path: Path, columns: list[ColumnInfo]) -> None:
        self.table = table
        self._observed.clear()
        self.table_path = path
        self.columns = columns
        self.column_types = {c.name: c.detected_type for c in columns}
        self.tableChanged.emit()

    def set_column_type(self, name: str, kind: str) -> None:
        self.column_types[name] = kind
        self.tableChanged.emit()

    def fit_problems(self) -> list[InputError]:
        """Every way the plan does not fit the loaded table (the core's one rule), cached for
        this plan and table; empty without a plan or a table."""
        from ..core.fit import plan_problems

        plan, table = self.plan, self.table
        if plan is None or table is None:
            return []
        if self._fit is None or self._fit[0] is not plan or self._fit[1] is not table:
            self._fit = (plan, table, plan_problems(plan, table.frame, table.name))
        return self._fit[2]

    def query_fit(self, query: Query) -> tuple[list[InputError], YesNoTally | None]:
        """One statistic against the loaded table: its problems, and for a yes/no statistic
        how its column reads (owner-only, never exported)."""
        from ..core.fit import query_problems, yes_no_tally

        table = self.table
        if table is None:
            return [], None
        # what the answer depends on (not the label, ε or reasons): a form's keystrokes and
        # a slider's moves do not scan the column again
        key = (id(table), replace(query, label="", epsilon=1.0, justification=None,
                                  expected_count=None))
        hit = self._query_fit.get(key)
        if hit is not None and hit[0] is table:
            return hit[1], hit[2]
        problems = query_problems(query, table.frame, table.name)
        tally = None
        if not problems and query.kind in YES_NO_KINDS and query.column is not None:
            tally = yes_no_tally(query, table.frame[query.column])
        if len(self._query_fit) > 256:
            self._query_fit.clear()
        self._query_fit[key] = (table, problems, tally)
        return problems, tally

    def column_facts(self, column: str):  # type: ignore[no-untyped-def]
        """What the data shows about a column (owner-only warnings), cached per table."""
        from ..core.check import column_facts

        if self.table is None or column not in self.table.frame.columns:
            return None
        key = (id(self.table), column)
        if key not in self._observed:
            self._observed[key] = column_facts(self.table.frame[column])
        return self._observed[key]


def with_budget(plan: Plan, epsilon: float | None = None, delta: float | None = None) -> Plan:
    budget = plan.budget
    if epsilon is not None:
        budget = replace(budget, epsilon=epsilon)
    if delta is not None:
        budget = replace(budget, delta=delta)
    return replace(plan, budget=budget)
