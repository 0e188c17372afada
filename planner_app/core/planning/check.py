"""The pre-release report: sensitivity, noise, accuracy, ε and risk for every statistic,
the composed total, whether it fits the budget, and warnings.

With a table it also checks that the plan fits the data and warns when public parameters
look as if they were read off the data (bounds equal to the observed min/max, categories equal
to exactly the values present). Those warnings are for the owner's eyes: the report is shown,
never written into a bundle.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..data.engine_names import DEFAULT_ENGINE
from ..data.engines import ReleaseEngine, open_engine
from ..data.facts import ColumnFacts, ColumnInfo, cell_facts
from ..data.facts import column_facts as source_column_facts
from ..data.fit import plan_only_notes, require_fit
from ..data.relations_fit import relation_problems
from ..data.repeats import Repeats, id_like_columns
from ..data.source import TableSource
from ..data.sql_plan import SqlEngine
from ..data.tables import Table, describe_columns, source_of
from ..dp.accounting import Total, compose, composes_pld, valid_totals, within
from ..dp.accuracy import DEFAULT_CONFIDENCE, Accuracy, check_confidence
from ..dp.measure import Measurement
from ..dp.mechanisms import SystemRandomSource
from ..dp.risk import explain
from ..dp.sensitivity import headline_index
from ..kinds import kind_of
from ..kinds.params import bounds_of, cells_of, synth_columns_of
from ..kinds.registry import make_query
from ..kinds.shared_dp import (
    accuracy_for,
    measurements_for,
    quantile_refusal,
    rr_refusal,
    useless_warning,
)
from ..kinds.shared_release import FOUND_PRIVATELY
from ..kinds.synthetic import id_column_problem, stated_epsilon
from ..model import Plan, Query, canonical_keys
from ..planfile.compiled import CompiledPlan
from ..records.keys import PublicKey
from ..records.ledger import LedgerState
from ..records.policy import Policy, PolicyError
from ..records.programme import ProgrammeRelease
from ..support.errors import InputError, PlannerError
from ..support.progress import Progress
from ..support.progress import report as report_progress
from .readiness import Readiness, readiness_of, rows_are_people_recorded
from .rule_results import FAIL, PASS, RuleResult

HIGH_EPSILON = 10.0


@dataclass
class QueryCheck:
    query: Query
    measurements: list[Measurement]
    accuracy: Accuracy
    risk_sentence: str

    @property
    def headline(self) -> Measurement:
        return self.measurements[headline_index([m.component.name for m in self.measurements])]

    @property
    def epsilon_spent(self) -> float:
        return math.fsum(m.epsilon for m in self.measurements)

    def accounted_epsilon(self, plan: Plan) -> float:
        """The ε this statistic is stated to spend, as its report, registry entry and the
        bundle viewer show it (``stated_epsilon``, one rule): a synthetic table's measurements
        compose in zCDP to exactly its planned (ε, δ), so its ε is the plan's; the sum of
        their ε (``epsilon_spent``) overstates it about twofold. Any other statistic's is the
        sum of its measurements' ε (``epsilon_spent``, as its release record holds)."""
        del plan  # the same whatever the plan's accountant: the table's own (ε, δ)
        return stated_epsilon({"kind": self.query.kind, "epsilon": self.query.epsilon,
                               "epsilon_spent": self.epsilon_spent})

    def to_dict(self) -> dict[str, Any]:
        q, h = self.query, self.headline
        gaussian = h.mechanism == "gaussian"
        out: dict[str, Any] = {
            "id": q.id,
            "label": q.title,
            "kind": q.kind,
            "column": q.column,
            "mechanism": q.mechanism,
            "sensitivity": h.component.l2_value if gaussian else h.component.l1_value,
            "sensitivity_norm": "L2" if gaussian else "L1",
            # one sentence per distinct derivation (a discovery of bounds' two are the same)
            "derivation": " | ".join(dict.fromkeys(m.component.derivation
                                                   for m in self.measurements)),
            "epsilon": q.epsilon,
            "delta": q.delta,
            "epsilon_spent": self.epsilon_spent,
            "rho": math.fsum(m.rho for m in self.measurements),
            "accuracy": self.accuracy.to_dict(),
            "cells": h.component.cells,
            "risk": self.risk_sentence,
            "components": [_component_dict(m) for m in self.measurements],
        }
        if gaussian:
            out["sigma"] = h.sigma_value
        else:
            out["scale"] = h.scale_value
        if h.truth is not None:
            out["truth_probability"] = float(h.truth)
        return out


def _component_dict(m: Measurement) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": m.component.name,
        "mechanism": m.mechanism,
        "sensitivity_l1": m.component.l1_value,
        "sensitivity_l2": m.component.l2_value,
        "step": m.component.step,
        "epsilon": m.epsilon,
        "delta": m.delta,
        "derivation": m.component.derivation,
    }
    if m.scale is not None:
        out["scale"] = m.scale_value
        out["scale_steps"] = str(m.scale)
    if m.sigma_sq is not None:
        out["sigma"] = m.sigma_value
        out["sigma_sq_steps"] = str(m.sigma_sq)
    return out


@dataclass
class CheckReport:
    plan: Plan
    queries: list[QueryCheck]
    total: Total
    alternatives: list[Total]
    warnings: list[str] = field(default_factory=list)
    owner_facts: list[str] = field(default_factory=list)
    readiness: Readiness | None = None  # the release rules (readiness.py)
    # what every later stage takes instead of computing it again (compiled.py)
    compiled: CompiledPlan | None = None

    @property
    def fits_budget(self) -> bool:
        return within(self.total, self.plan.budget.epsilon, self.plan.budget.delta)

    def to_dict(self) -> dict[str, Any]:
        p = self.plan
        risk = explain(self.total.epsilon, self.total.delta, relation=p.neighbouring)
        return {
            "plan": {
                "dataset": p.dataset.name,
                "privacy_unit": {"kind": p.privacy_unit.kind,
                                 "id_column": p.privacy_unit.id_column,
                                 "max_rows": p.privacy_unit.rows_per_unit,
                                 **({"rows_are_people": {"reason": p.privacy_unit.rows_reason}}
                                    if p.privacy_unit.rows_reason else {})},
                "neighbouring": p.neighbouring,
                "budget": {"epsilon": p.budget.epsilon, "delta": p.budget.delta,
                           "accountant": p.budget.accountant},
            },
            "queries": [q.to_dict() for q in self.queries],
            "total": self.total.to_dict(),
            "alternatives": [t.to_dict() for t in self.alternatives],
            "fits_budget": self.fits_budget,
            "risk": risk.summary(),
            "warnings": list(self.warnings),
            "owner_facts": list(self.owner_facts),
            **(self.readiness.to_dict() if self.readiness is not None else {}),
        }


def all_measurements(checks: list[QueryCheck]) -> list[Measurement]:
    return [m for c in checks for m in c.measurements]


def alternatives_for(measurements: list[Measurement], delta: float,
                     accountant: str | None = None, every: bool = True) -> list[Total]:
    """Every accountant's total that can compose the plan (``valid_totals``: the one rule).
    ``every=False`` (a release): the pld alternative only when the total itself composed a
    PLD (``composes_pld``); `check` and the app list every one."""
    with_pld = every or composes_pld(measurements, delta, accountant)
    out = valid_totals(measurements, delta, with_pld=with_pld)
    # an accountant that cannot compute here fails closed with ε = inf: no alternative (and
    # no number a JSON record can hold)
    return [t for t in out if math.isfinite(t.epsilon)] or out[:1]


def check_plan(plan: Plan, table: Table | None = None,
               confidence: float = DEFAULT_CONFIDENCE,
               engine: ReleaseEngine | None = None, *,
               ledger: LedgerState | PlannerError | None = None,
               require_approval: bool = False,
               trusted: Sequence[PublicKey] = (),
               policy: Policy | PolicyError | None = None,
               file_datasets: Sequence[str] | None = None,
               known_datasets: Sequence[str] | None = None,
               trust_ignored: str = "",
               engine_name: str = DEFAULT_ENGINE,
               progress: Progress = None,
               columns: Sequence[ColumnInfo] | None = None,
               every_alternative: bool = True,
               programme_history: Sequence[ProgrammeRelease] | None = None) -> CheckReport:
    """The report; with a table, also its fit to the data (pass ``engine`` to reuse one, or
    ``engine_name`` to choose which engine reads the table: duckdb, pandas or spark).
    Its ``readiness`` holds the release rules (with the lifetime rule when ``ledger`` is
    given, the approval rule when ``require_approval``: signed by one of ``trusted`` when
    any are given; the organisation's rules when ``policy``; see readiness()).
    ``progress(fraction, message)``: one step per statistic, then the composed total.
    ``columns``: the table's column facts when the caller read them already
    (``tables.describe_columns``): the ``people`` rule then reads the table no more.
    ``every_alternative=False`` (the release): the pld alternative only when the total
    composed a PLD (``alternatives_for``). ``programme_history``: the dataset's programme
    releases from the books, for the schedule rule (readiness)."""
    check_confidence(confidence)  # before any work: every caller (release too) comes here
    checks = []
    warnings: list[str] = []
    for i, q in enumerate(plan.queries):
        report_progress(progress, 0.3 * i / max(len(plan.queries), 1),
                        f"Working out the noise and accuracy of statistic {i + 1} of "
                        f"{len(plan.queries)}…")
        listed_id = id_column_problem(plan.privacy_unit, q)  # the unit changed after the table
        if listed_id is not None:
            raise InputError("plan", *listed_id)
        ms = measurements_for(q, plan)
        refused = rr_refusal(q, ms)
        if refused is not None:  # before any charge: a release would divide by 0
            raise InputError("plan", f"queries[{q.id}].epsilon", refused)
        acc = accuracy_for(q, plan, confidence, ms)
        eps = math.fsum(m.epsilon for m in ms)
        if kind_of(q).makes_table:  # its measurements compose in zCDP to its stated ε
            eps = q.epsilon
        sentence = explain(eps, q.delta, relation=plan.neighbouring,
                           what=f"the release of {q.title!r}").sentence
        checks.append(QueryCheck(q, ms, acc, sentence))
    report_progress(progress, 0.3, "Adding up the ε of the statistics…")
    own = table is not None and engine is None
    if table is not None and engine is None:  # after the plan's own refusals
        engine = open_engine(engine_name, plan, table, SystemRandomSource())
    try:
        return _finish_check(plan, table, confidence, engine, checks, warnings,
                             ledger=ledger, require_approval=require_approval,
                             trusted=trusted, policy=policy, file_datasets=file_datasets,
                             known_datasets=known_datasets, trust_ignored=trust_ignored,
                             columns=columns, every_alternative=every_alternative,
                             programme_history=programme_history)
    finally:
        if own and engine is not None:
            engine.close()


def _finish_check(plan: Plan, table: Table | None, confidence: float,
                  engine: ReleaseEngine | None, checks: list[QueryCheck], warnings: list[str],
                  *, ledger: LedgerState | PlannerError | None, require_approval: bool,
                  trusted: Sequence[PublicKey], policy: Policy | PolicyError | None,
                  file_datasets: Sequence[str] | None, known_datasets: Sequence[str] | None,
                  trust_ignored: str, columns: Sequence[ColumnInfo] | None,
                  every_alternative: bool = True,
                  programme_history: Sequence[ProgrammeRelease] | None = None
                  ) -> CheckReport:
    # the quantile's work rule reads the public row count the release reads (never the
    # table's own): check --data and the release refuse the same plans
    rows = plan.dataset.expected_rows
    for c in checks:
        q, ms, acc = c.query, c.measurements, c.accuracy
        warnings.extend(_query_warnings(q, plan, ms, acc))
        if table is None:  # with the data, the fit check decides instead (fit.py)
            warnings.extend(plan_only_notes(q))
        warnings.extend(f"{q.id}: {w}" for w in statistic_warnings(q, acc, rows))
        warnings.extend(f"{q.id}: {w}" for w in kind_of(q).plan_warnings(q, plan, acc))
    measurements = all_measurements(checks)
    total = compose(measurements, plan.budget.delta, plan.budget.accountant)
    alternatives = alternatives_for(measurements, plan.budget.delta, plan.budget.accountant,
                                    every=every_alternative)
    compiled = CompiledPlan(plan=plan, confidence=confidence,
                            measurements={c.query.id: tuple(c.measurements) for c in checks},
                            accuracies={c.query.id: c.accuracy for c in checks},
                            total=total, alternatives=tuple(alternatives))
    report = CheckReport(plan, checks, total, alternatives, compiled=compiled)
    # issue 27: a relation the table breaks is refused by the release; say so first (the
    # owner's screen only: the messages name no number)
    in_data = [] if table is None else relations_rules(plan, engine)
    # over budget and missing reasons are release rules: report.readiness, not warnings
    report.readiness = readiness_of(
        compiled, ledger=ledger, require_approval=require_approval, trusted=trusted,
        policy=policy, file_datasets=file_datasets, known_datasets=known_datasets,
        trust_ignored=trust_ignored,
        repeating=None if table is None else unit_repeats(plan, table, columns),
        extra=in_data, programme_history=programme_history)
    report.warnings = warnings
    if table is not None:
        assert engine is not None
        _check_against_table(report, table, engine)
    return report


def relations_rules(plan: Plan, engine: ReleaseEngine | None) -> list[RuleResult]:
    """With the table: whether each of the plan's relations holds in it (none without
    relations), as a release rule, since the release refuses a relation the data breaks."""
    if plan.consistency is None or engine is None:
        return []
    problems = relation_problems(plan, engine)
    if not problems:
        return [RuleResult("relations", PASS, "The plan's relations hold in this table: each "
                                              "total is the sum of its parts.")]
    return [RuleResult("relations", FAIL, f"{p.where}: {p.problem[0].upper()}{p.problem[1:]}.",
                       where=p.where, refusal=p.problem) for p in problems]


def unit_repeats(plan: Plan, table: Table,
                 columns: Sequence[ColumnInfo] | None = None) -> list[Repeats]:
    """The table's id-like repeating columns (the ``people`` rule), read only when each row is
    taken as a person with no recorded reason; else [] (the rule passes without them).
    ``columns``: the table's facts already read (``describe_columns``), else they are read
    here, once per table (``tables.described``)."""
    if plan.privacy_unit.kind == "person" or rows_are_people_recorded(plan.privacy_unit):
        return []
    if columns is None:
        columns = describe_columns(table)
    return id_like_columns(c.repeats for c in columns)


def statistic_warnings(q: Query, acc: Accuracy, rows: int | None = None) -> list[str]:
    """The words branch's rules, kept apart so the readiness rules can call them: a ± that
    covers most of the possible range, and a quantile grid the sampler cannot finish.
    ``rows``: the plan's public ``dataset.expected_rows`` (what the release decides from),
    never a table's true row count."""
    out = []
    useless = useless_warning(q, acc)
    if useless is not None:
        out.append(useless)
    costly = quantile_refusal(q, rows)
    if costly is not None:
        out.append(costly)
    return out


def _query_warnings(q: Query, plan: Plan, ms: list[Measurement], acc: Accuracy) -> list[str]:
    out = []
    name = f"{q.id}:"
    if any(m.mechanism == "none" for m in ms) and kind_of(q).publishes_answers:
        out.append(f"{name} every row answers (missing answers are imputed), so under "
                   "replace-one the number of answers is public and is not noised")
    elif any(m.mechanism == "none" for m in ms):
        out.append(f"{name} a count of all rows is public under replace-one, so it is used "
                   "without noise")
    if acc.half_width is None:
        out.append(f"{name} {acc.note}")
    if q.epsilon > HIGH_EPSILON:
        out.append(f"{name} ε = {q.epsilon:g} is above {HIGH_EPSILON:g}: it gives little "
                   "protection")
    return out


def column_facts(data: pd.Series | TableSource, column: str | None = None) -> ColumnFacts:
    """What the data shows about one column (min, max, share of numbers, values present),
    from the engine: a column of a source, or a series (read as a one-column table)."""
    if isinstance(data, TableSource):
        assert column is not None
        return source_column_facts(data, [column])[column]
    frame = pd.DataFrame({"c": data})
    source = TableSource(name="table", format="frame", columns=("c",), frame=frame)
    return source_column_facts(source, ["c"])["c"]


def declared_columns(query: Query) -> list[str]:
    """The columns whose declared bounds, bins or lists ``copied_from_data`` compares with
    the data (the app and the check read these columns' facts)."""
    named = [query.column, query.group_by.column if query.group_by is not None else None]
    named += [c.column for c in synth_columns_of(query)]
    return list(dict.fromkeys(c for c in named if c is not None))


def found_privately(query: Query) -> frozenset[str]:
    """The reasons (justification keys) of ``query`` that say their values were found
    privately by a discovery: copied_from_data does not warn about those."""
    return frozenset(k for k, v in (query.justification or {}).items()
                     if isinstance(v, str) and v.startswith(FOUND_PRIVATELY))


def copied_from_data(query: Query, facts: Callable[[str], ColumnFacts | None]) -> list[str]:
    """Warnings when a query's public parameters look read off the data: bounds (or a
    synthetic column's outer bin edges) equal to the observed minimum and maximum, or a
    declared list (categories, group keys, a synthetic column's categories) equal to exactly
    the values present."""
    out = []
    found = found_privately(query)  # fixdisc: found privately, not copied
    bounds = bounds_of(query) if "bounds" not in found else None
    ranges = [("bounds", query.column, *(bounds or (None, None)))]
    ranges += [("outer bin edges", c.column, c.bins[0], c.bins[-1])
               for c in synth_columns_of(query) if c.bins]
    for what, column, lower, upper in ranges:
        seen = facts(column) if column and lower is not None else None
        if seen is not None and seen.minimum == lower and seen.maximum == upper:
            out.append(f"the {what} of {column} equal the data's own minimum and maximum; "
                       "bounds must come from knowledge of the domain, not from the data")
    cells = cells_of(query)
    lists = [("categories", query.column, cells.categories
              if cells is not None and "categories" not in found else None)]
    if query.group_by is not None and "keys" not in found:
        lists.append(("group keys", query.group_by.column, query.group_by.keys))
    lists += [("categories", c.column, c.categories) for c in synth_columns_of(query)]
    for what, column, declared in lists:
        seen = facts(column) if column and declared is not None else None
        if seen is not None and seen.present and \
                seen.present == set(canonical_keys(declared or ())):
            out.append(f"the {what} of {column} are exactly the values present in the data; a "
                       "public list must come from knowledge of the domain (which values occur "
                       "is itself private)")
    return out


def _check_against_table(report: CheckReport, table: Table,
                         engine: ReleaseEngine | None = None) -> None:
    """The owner's facts and the warnings that need the data: engine queries over the
    columns the plan names (facts.py), never a scan of every column in Python. With a
    release's engine, the counts are those of the rows it aggregates."""
    plan = report.plan
    source = source_of(table)
    warn = report.warnings
    owner = report.owner_facts
    counts: dict[str, Any]
    con = None  # the engine's own DuckDB connection, when it has one: no second read
    if engine is not None:  # the release: the facts of the rows it aggregates
        dropped = engine.rows_dropped_by_bound
        counts = {q.id: engine.aggregate(q).facts for q in plan.queries}
        if isinstance(engine, SqlEngine):
            con = engine.facts_connection()
    else:
        require_fit(plan, source, table.name)
        dropped, by_query = cell_facts(source, plan)
        counts = dict(by_query)
    named = list(dict.fromkeys(c for q in plan.queries for c in declared_columns(q)
                               if c in source.columns))
    cache = source_column_facts(source, named, con)  # values present read when asked

    def facts(column: str) -> ColumnFacts | None:
        return cache.get(column)

    if dropped:
        owner.append(f"{dropped:,} rows beyond "
                     f"{plan.privacy_unit.max_rows} per person will be dropped at random")
    for q in plan.queries:
        f = counts[q.id]
        if kind_of(q).makes_table:  # its facts column by column (its marginals' are partial)
            owner.extend(synthetic_cell_notes(q, plan, source, con))
            warn.extend(f"{q.id}: {w}" for w in copied_from_data(q, facts))
            continue
        if f.missing_dropped:
            owner.append(f"{q.id}: {f.missing_dropped:,} missing or unreadable cells of "
                         f"{q.column} will be dropped")
        if f.missing_imputed:
            owner.append(f"{q.id}: {f.missing_imputed:,} missing or unreadable cells of "
                         f"{q.column} will be imputed")
        if f.not_yes_no:
            owner.append(f"{q.id}: {f.not_yes_no:,} cells of {q.column} are neither a yes "
                         f"nor a no value; they count as missing (the query's missing-value "
                         "policy)")
        if f.outside_declared:
            owner.append(f"{q.id}: {f.outside_declared:,} rows fall outside the declared "
                         "categories, bins or keys and are left out")
        warn.extend(f"{q.id}: {w}" for w in copied_from_data(q, facts))
        if bounds_of(q) is not None and q.column is not None:
            seen = facts(q.column)
            if seen is not None and seen.numeric_share < 0.5:
                warn.append(f"{q.id}: most cells of {q.column} are not numbers")
    # walk25c: what the table's own row count means for bounds found privately (owner only)
    readers = [qc for qc in report.queries if kind_of(qc.query).reads_row_count]
    if readers:
        rows = table.n_rows
        for qc in readers:
            owner.extend(f"{qc.query.id}: {n}" for n in kind_of(qc.query).owner_row_notes(
                qc.query, plan, qc.accuracy, rows))


def synthetic_cell_notes(q: Query, plan: Plan, source: TableSource,
                         con: Any = None) -> list[str]:
    """The owner's facts of a synthetic table, one line a column: its rows with no readable
    value, or a value outside the declared categories or bins (a list of texts on a column of
    numbers, say), which the synthetic table counts in none of its marginals. Read over the
    whole table (``facts.cell_facts`` of each column as a histogram); shown, never exported."""
    columns = [c for c in synth_columns_of(q) if c.column in source.columns]
    if not columns:
        return []
    per_column = [make_query("histogram", id=f"c{i}", epsilon=1.0, column=c.column,
                             categories=c.categories, bins=c.bins)
                  for i, c in enumerate(columns)]
    _, by_column = cell_facts(source, plan.with_queries(per_column), con)

    def rows(n: int) -> str:
        return f"{n:,} row{'s' if n != 1 else ''}"

    out = []
    for i, c in enumerate(columns):
        f = by_column[f"c{i}"]
        parts = []
        if f.missing_dropped:
            parts.append(f"{rows(f.missing_dropped)} with no readable value in {c.column}")
        if f.outside_declared:
            what = "categories" if c.categories is not None else "bins"
            parts.append(f"{rows(f.outside_declared)} with a value of {c.column} outside its "
                         f"declared {what}")
        if parts:
            out.append(f"{q.id}: {' and '.join(parts)}; the synthetic table counts none of "
                       "them")
    return out
