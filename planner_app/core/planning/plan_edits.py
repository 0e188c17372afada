"""Whole-plan edits the desktop app's panes used to assemble themselves: the budget, who one
person is, what is protected, the dataset. Each returns a new Plan (or the same object when
nothing changes); the session applies it as one undoable command. Qt-free."""

from __future__ import annotations

from dataclasses import replace

from ..dp.accounting import accountant_delta_problem
from ..kinds.synthetic import id_column_problem
from ..model import Budget, Plan, PrivacyUnit, delta_problem
from ..model.reader import name_problem, visible_text
from ..support.errors import InputError
from .editing import HARM_PRESETS, HarmPreset

RELATIONS = ("add-remove", "replace-one")


def set_budget(plan: Plan, epsilon: float | None = None, delta: float | None = None) -> Plan:
    """The plan with this release budget; a δ the core refuses keeps the plan's (out of
    range, or 0 with an accountant that needs δ above 0)."""
    budget = plan.budget
    if epsilon is not None and epsilon != budget.epsilon:
        budget = replace(budget, epsilon=float(epsilon))
    if delta is not None and delta != budget.delta and not delta_problem(delta) \
            and not accountant_delta_problem(budget.accountant, float(delta)):
        budget = replace(budget, delta=float(delta))
    return plan if budget is plan.budget else replace(plan, budget=budget)


def use_preset(plan: Plan, preset: HarmPreset) -> Plan:
    return set_budget(plan, preset.epsilon, preset.delta)


def preset_for(budget: Budget) -> HarmPreset | None:
    """The harm preset whose ε and δ this budget is, if any (what the Preset field shows)."""
    return next((p for p in HARM_PRESETS
                 if p.epsilon == budget.epsilon and p.delta == budget.delta), None)


def set_privacy_unit(plan: Plan, unit: PrivacyUnit) -> Plan:
    """The plan with another privacy unit. InputError when the unit's id column is a column
    of a synthetic table (the plan's own rule, ``id_column_problem``): the plan stays valid."""
    for q in plan.queries:
        problem = id_column_problem(unit, q)
        if problem is not None:
            raise InputError("plan", *problem)
    return plan if unit == plan.privacy_unit else replace(plan, privacy_unit=unit)


def set_relation(plan: Plan, relation: str) -> Plan:
    if relation not in RELATIONS:
        raise ValueError(f"unknown neighbouring relation {relation!r}")
    return plan if relation == plan.neighbouring else replace(plan, neighbouring=relation)


def set_dataset(plan: Plan, name: str | None = None, expected_rows: int | None | bool = False,
                path: str | None = None) -> Plan:
    """The plan with another dataset name, public row count (None: not stated; False: keep)
    or table path. A blank name keeps the plan's; a name the plan file would refuse
    (reader.name_problem: a line break, an invisible character, one the report cannot draw)
    raises InputError and the plan keeps its name."""
    dataset = plan.dataset
    if name is not None and visible_text(name):
        problem = name_problem(name.strip())
        if problem:
            raise InputError("plan", "dataset.name", problem)
        dataset = replace(dataset, name=name.strip())
    if expected_rows is not False:
        dataset = replace(dataset, expected_rows=expected_rows or None)
    if path is not None:
        dataset = replace(dataset, path=path)
    return plan if dataset == plan.dataset else replace(plan, dataset=dataset)


def set_reason(plan: Plan, reason: str | None) -> Plan:
    """The plan's reason for its ε (what the review window and the report print); blank
    is none; runs of spaces and line breaks become one space."""
    text = " ".join((reason or "").split()) or None
    return plan if text == plan.justification else replace(plan, justification=text)
