"""The session's plan model: the undoable plan document, the selected statistic, the held
set, and the engine's numbers for the plan as it stands (measurements, accuracy, the
composed total), each cached against what it depends on (memo.py).

Every change to the plan is a core edit applied to the document; the document's one
callback turns it into an ``OpChanges`` (what changed) that ``emit`` announces."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

from ..core.dp.accounting import Total, compose
from ..core.dp.accuracy import Accuracy
from ..core.dp.measure import Measurement
from ..core.kinds.shared_dp import accuracy_for, measurements_for
from ..core.model import Plan, PrivacyUnit, Query
from ..core.model.plan import Scalar
from ..core.planning import plan_edits, relation_edits
from ..core.planning.changes import OpChanges, plan_changes
from ..core.planning.editing import (
    GoalResult,
    HarmPreset,
    PlanDocument,
    add_query,
    duplicate_query,
    remove_query,
    replace_query,
    set_query_epsilon,
    split_remaining,
)
from ..core.planning.settings import Settings
from ..core.support.errors import InputError, PlannerError
from .memo import Key, Memo, MemoMap, same_key


class PlanModel:
    """The document and its derived numbers. ``emit`` announces a change set;
    ``selected_changed`` the newly selected statistic's id."""

    def __init__(self, settings: Settings, emit: Callable[[OpChanges], None],
                 selected_changed: Callable[[str | None], None]) -> None:
        self._settings = settings
        self._emit = emit
        self._selected_changed = selected_changed
        self.doc = PlanDocument()
        self.doc.subscribe(self._document_changed)
        self._shown_plan: Plan | None = None  # the plan the last notification described
        self._replacing = False
        self.held: frozenset[str] = frozenset()
        self.selected: str | None = None
        self._entries: MemoMap[str, tuple[list[Measurement], Accuracy]] = MemoMap(100_000)
        self._flat: Memo[list[Measurement]] = Memo()  # every measurement, in order
        self._accuracies: Memo[dict[str, Accuracy]] = Memo()
        self._total: Memo[Total] = Memo()
        # the last plan's statistics and their entries: a slider step reuses every entry but
        # the changed statistic's by identity, without a look-up per statistic
        self._walked: tuple[tuple[Query, ...], Key, list[tuple[list[Measurement], Accuracy]]] \
            | None = None

    @property
    def plan(self) -> Plan | None:
        return self.doc.plan

    def current(self) -> Plan:
        """The open plan; a one-line error when none is open."""
        plan = self.doc.plan
        if plan is None:
            raise PlannerError("no plan is open")
        return plan

    @property
    def selected_query(self) -> Query | None:
        plan, qid = self.plan, self.selected
        if plan is None or qid is None:
            return None
        try:
            return plan.query(qid)
        except KeyError:
            return None

    # -- changes ------------------------------------------------------------------------------

    def _document_changed(self) -> None:
        """The document's one callback: after an edit, undo, redo, load or save."""
        plan = self.doc.plan
        changes = plan_changes(self._shown_plan, plan) | OpChanges(history=True)
        if self._replacing:
            changes = changes | OpChanges(plan_replaced=True, statistic_list=True)
        self._shown_plan = plan
        ids = {q.id for q in plan.queries} if plan is not None else set()
        if self.held - ids:
            self.held = self.held & frozenset(ids)
            changes = changes | OpChanges(held=True)
        selected = self.selected
        if plan is None:
            selected = None
        elif selected not in ids:
            selected = plan.queries[0].id if plan.queries else None
        if selected != self.selected:
            self.selected = selected
            changes = changes | OpChanges(selection=True)
        self._emit(changes)

    def load(self, plan: Plan, path: Path | None = None, saved: bool = True) -> None:
        self._replacing = True
        try:
            self.doc.load(plan, path, saved=saved)
        finally:
            self._replacing = False

    def close(self) -> None:
        self._replacing = True
        try:
            self.doc.close()
        finally:
            self._replacing = False

    def set_held(self, query_id: str, held: bool) -> None:
        new = self.held | {query_id} if held else self.held - {query_id}
        if new != self.held:
            self.held = frozenset(new)
            self._emit(OpChanges(held=True))

    def select(self, query_id: str | None) -> None:
        if query_id != self.selected:
            self.selected = query_id
            self._selected_changed(query_id)
            self._emit(OpChanges(selection=True))

    # -- the named edits (each a core edit: one undo step) ----------------------------------

    def apply(self, description: str, plan: Plan, merge_key: str | None = None) -> None:
        self.doc.apply(description, plan, merge_key)

    def add_query(self, query: Query) -> None:
        self.apply(f"Add {query.title!r}", add_query(self.current(), query))
        self.select(query.id)

    def replace_query(self, query: Query, old_id: str | None = None) -> None:
        self.apply(f"Edit {query.title!r}", replace_query(self.current(), query, old_id))
        self.select(query.id)

    def duplicate_query(self, query_id: str) -> str:
        plan = self.current()
        new_plan, new_id = duplicate_query(plan, query_id)
        self.apply(f"Duplicate {plan.query(query_id).title!r}", new_plan)
        self.select(new_id)
        return new_id

    def remove_query(self, query_id: str) -> None:
        plan = self.current()
        self.apply(f"Remove {plan.query(query_id).title!r}", remove_query(plan, query_id))

    def set_epsilon(self, query_id: str, epsilon: float, dragging: bool = False) -> None:
        plan = self.current()
        epsilon = float(f"{epsilon:.6g}")
        label = plan.query(query_id).title
        self.apply(f"Set ε of {label!r} to {epsilon:g}",
                   set_query_epsilon(plan, query_id, epsilon),
                   merge_key=f"epsilon:{query_id}" if dragging else None)

    def split(self, weights: dict[str, float] | None = None) -> None:
        how = "by weights" if weights else "evenly"
        self.apply(f"Split the budget {how}", split_remaining(self.current(), self.held, weights))

    def set_budget(self, epsilon: float | None = None, delta: float | None = None) -> None:
        """The release budget; a δ the core refuses keeps the plan's."""
        self.apply("Change the release budget",
                   plan_edits.set_budget(self.current(), epsilon, delta))

    def use_preset(self, preset: HarmPreset) -> None:
        self.apply(f"Use the budget for {preset.name.lower()}",
                   plan_edits.use_preset(self.current(), preset))

    def use_goal(self, goal: GoalResult) -> None:
        self.apply("Use the ε that meet the accuracy targets", goal.apply(self.current()))

    def set_privacy_unit(self, unit: PrivacyUnit) -> None:
        self.apply("Change who one person is", plan_edits.set_privacy_unit(self.current(), unit))

    def use_person_id(self, column: str) -> None:
        """One person is ``column``, keeping the rows per person a person unit already states
        (none for a new one: the owner states it, as the number is published)."""
        unit = self.current().privacy_unit
        self.set_privacy_unit(PrivacyUnit("person", column,
                                          unit.max_rows if unit.kind == "person" else None))

    def set_rows_are_people(self, reason: str) -> None:
        """Each row is a different person, with the owner's reason recorded in the plan."""
        text = " ".join(reason.split())
        if not text:
            raise InputError("plan", "privacy_unit.rows_are_people.reason",
                             "is empty: say why the rows are different people")
        self.set_privacy_unit(PrivacyUnit(rows_reason=text))

    def set_relation(self, relation: str) -> None:
        self.apply("Change what is protected", plan_edits.set_relation(self.current(), relation))

    def set_dataset(self, name: str | None = None,
                    expected_rows: int | None | bool = False) -> None:
        self.apply("Change the dataset's name or row count",
                   plan_edits.set_dataset(self.current(), name, expected_rows))

    def set_reason(self, reason: str | None) -> None:
        """The plan's reason for its ε (blank: none); no undo step when unchanged."""
        plan = self.current()
        new = plan_edits.set_reason(plan, reason)
        if new is not plan:
            self.apply("Change the reason for ε", new)

    def attach_table(self, path_text: str, table_name: str) -> None:
        """Point the plan at another table (what it records: a relative path or a name)."""
        self.apply(f"Use the plan with {table_name}",
                   plan_edits.set_dataset(self.current(), path=path_text))

    # gui27: the plan's relations (core/planning/relation_edits.py), one undo step each
    def add_relation(self, total_id: str, parts_id: str,
                     within: Sequence[tuple[Scalar, Sequence[Scalar]]] = ()) -> None:
        plan = self.current()
        self.apply(f"Add the relation {plan.query(parts_id).title!r} to "
                   f"{plan.query(total_id).title!r}",
                   relation_edits.add_relation(plan, total_id, parts_id, within))

    def remove_relation(self, index: int) -> None:
        plan = self.current()
        assert plan.consistency is not None
        rel = plan.consistency.relations[index]
        self.apply(f"Remove the relation {plan.query(rel.parts).title!r} to "
                   f"{plan.query(rel.total).title!r}",
                   relation_edits.remove_relation(plan, index))

    def set_consistency_options(self, *, non_negative: bool | None = None,
                                integer: bool | None = None,
                                headline: str | None = None) -> None:
        """The consistent values' options or the headline values; no undo step when
        unchanged."""
        plan = self.current()
        new = relation_edits.set_options(plan, non_negative=non_negative, integer=integer,
                                         headline=headline)
        if new is not plan:
            self.apply("Choose the headline values" if headline is not None else
                       "Change how the consistent values are made", new)

    # -- the engine's numbers -----------------------------------------------------------------

    def _entry(self, query: Query) -> tuple[list[Measurement], Accuracy]:
        plan = self.current()
        confidence = self._settings.confidence

        def compute() -> tuple[list[Measurement], Accuracy]:
            ms = measurements_for(query, plan)
            return ms, accuracy_for(query, plan, confidence, ms)

        # what a statistic's noise depends on: itself, who one person is, what is protected,
        # the public row count and the confidence (not the other statistics)
        return self._entries.get(query.id, (query, plan.privacy_unit, plan.neighbouring,
                                            plan.dataset.expected_rows, confidence), compute)

    def measurements(self, query: Query) -> list[Measurement]:
        return self._entry(query)[0]

    def accuracy(self, query: Query) -> Accuracy:
        return self._entry(query)[1]

    def query_epsilon(self, query: Query) -> float:
        return math.fsum(m.epsilon for m in self.measurements(query))

    def _all_entries(self, plan: Plan) -> list[tuple[list[Measurement], Accuracy]]:
        """``_entry`` of every statistic of ``plan``, in order. A statistic that is the very
        object the last walk saw, at the same place and with the same unit, neighbouring, row
        count and confidence, keeps that walk's entry (what ``_entry`` would return: its key
        is the same); the others go through ``_entry``."""
        context: Key = (plan.privacy_unit, plan.neighbouring, plan.dataset.expected_rows,
                        self._settings.confidence)
        last = self._walked
        if (last is not None and len(last[0]) == len(plan.queries)
                and same_key(last[1], context)):
            entries = [entry if known is q else self._entry(q)
                       for q, known, entry in zip(plan.queries, last[0], last[2], strict=True)]
        else:
            entries = [self._entry(q) for q in plan.queries]
        self._walked = (plan.queries, context, entries)
        return entries

    def all_measurements(self, plan: Plan) -> list[Measurement]:
        """Every measurement of ``plan``, in order (once per plan: the total and the release
        rules both ask at each slider step, a walk of every statistic at 1,000)."""
        return self._flat.get((plan,), lambda: [m for ms, _ in self._all_entries(plan)
                                                for m in ms])

    def all_accuracies(self, plan: Plan) -> dict[str, Accuracy]:
        return self._accuracies.get(
            (plan, self._settings.confidence),
            lambda: {q.id: entry[1]
                     for q, entry in zip(plan.queries, self._all_entries(plan), strict=True)})

    def total(self) -> Total:
        plan = self.plan
        if plan is None:
            return Total(0.0, 0.0, "basic")

        def compute() -> Total:
            ms = self.all_measurements(plan)
            try:
                return compose(ms, plan.budget.delta, plan.budget.accountant)
            except PlannerError:
                return compose(ms, plan.budget.delta)

        return self._total.get((plan,), compute)
