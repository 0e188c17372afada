"""The organisation's policy as release rules: one function, ``policy_rules``, that ``check``,
``release`` (through ``readiness`` and ``require_ready``) and the app's checklist, meter and
wizard all use. The policy itself (the file, its signature, its installation) is
records/policy.py.

The rules (each refuses a release with exit 3, nothing charged or written):

* ``policy-release``  the release's composed ε and δ within ``max_*_per_release``
* ``policy-columns``  no forbidden column anywhere in the plan (statistic column, group-by,
                      filter, the privacy unit's id column), compared case-insensitively
* ``policy-reasons``  with ``require_reasons``: every reason the ``reasons`` rule asks for,
                      and the budget's own reason for its ε
* ``policy-same-file`` the same file (by its bytes) under a new dataset name (``refuse``,
                      the default; ``allow`` sets no rule)
* ``policy``          the installed policy cannot be trusted (exit 4)

The policy's lifetime caps lower the ledger's cap (``effective_state``): the ``lifetime``
rule and the ledger's charge then test against the smaller of the two. The policy's
``require_approval_by`` makes the ``approval`` rule apply (``approval_rule``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..dp.accounting import Total
from ..model import Plan
from ..records.policy import Policy, PolicyError
from .rule_results import FAIL, NOTHING_SPENT, PASS, RuleResult, is_reason, missing_reasons

POLICY_RULES = ("policy", "policy-release", "policy-columns", "policy-reasons",
                "policy-same-file")


def plan_columns(plan: Plan) -> list[tuple[str, str]]:
    """(column, where in the plan) for every column a plan reads (``Plan.columns_read``; an id
    column named with a row unit counts too: it is in the plan)."""
    unit = plan.privacy_unit
    out = [(column, where) for where, column in plan.columns_read()]
    if unit.id_column and unit.kind != "person":
        out.insert(0, (unit.id_column, "privacy_unit.id_column"))
    return out


def _refused(rule: str, policy: Policy, message: str, action: str, where: str | None,
             refusal: str) -> RuleResult:
    return RuleResult(rule, FAIL, message, action, where=where,
                      refusal=f"{policy.title} refuses this release: {refusal}. "
                              f"{NOTHING_SPENT}")


def policy_rules(policy: Policy | PolicyError | None, plan: Plan, total: Total, *,
                 file_datasets: Sequence[str] | None = None,
                 known_datasets: Sequence[str] | None = None) -> list[RuleResult]:
    """The policy's rules for ``plan`` released at ``total``. ``file_datasets``: the
    datasets the ledger has released this exact data file as (None: no table or ledger to
    ask, so the same-file rule is left out); ``known_datasets``: every dataset the ledger
    holds (None: not asked, so the dataset-name rule is left out)."""
    if policy is None:
        return []
    if isinstance(policy, PolicyError):
        return [RuleResult("policy", FAIL, f"The organisation's policy cannot be trusted: "
                                           f"{policy}.",
                           "If you (the data owner) no longer have the officer's signed files "
                           "(POLICY.json and POLICY.json.minisig), ask the privacy officer for "
                           "them.",
                           refusal=str(policy))]
    out: list[RuleResult] = []
    spelling = policy.spelling_of(plan.dataset.name, known_datasets or ())
    if spelling is not None:  # a new lifetime budget for the same dataset: refused
        out.append(_refused(
            "policy-name", policy,
            f"Dataset {plan.dataset.name!r} is another spelling of {spelling!r}, which the "
            "ledger already holds (names are compared without regard to letter case or "
            "Unicode form).",
            f"Name the dataset {spelling!r}, as in its earlier releases.", "dataset.name",
            f"dataset {plan.dataset.name!r} is another spelling of {spelling!r}, which this "
            f"ledger already holds (names are compared without regard to letter case or "
            f"Unicode form); release it as {spelling!r}"))
    limits = []
    if policy.max_epsilon_per_release is not None:
        limits.append(("ε", total.epsilon, policy.max_epsilon_per_release, ".4g"))
    if policy.max_delta_per_release is not None:
        limits.append(("δ", total.delta, policy.max_delta_per_release, ".3g"))
    over = [(s, v, m, f) for s, v, m, f in limits if v > m]
    if over:
        s, v, m, f = over[0]
        out.append(_refused(
            "policy-release", policy,
            f"{policy.title[0].upper()}{policy.title[1:]} allows at most {s} = {m:g} per "
            f"release; this release's total is {s} = {v:{f}}.",
            f"Lower some statistics' {s}.", "budget",
            f"this release's total {s} = {v:{f}} is above its limit of {s} = {m:g} per "
            "release"))
    elif limits:
        allowed = ", ".join(f"{s} = {m:g}" for s, _, m, _ in limits)
        out.append(RuleResult("policy-release", PASS,
                              f"Within the policy's limit per release ({allowed})."))
    if policy.forbidden_columns:
        used = [(c, w) for c, w in plan_columns(plan) if policy.forbids(c)]
        if used:
            column, where = used[0]
            names = ", ".join(sorted({c for c, _ in used}))
            out.append(_refused(
                "policy-columns", policy,
                f"The plan uses a column the policy forbids: {names}.",
                "Remove the statistics, groups or filters that use it.", where,
                f"the plan uses the forbidden column {column!r} ({where})"))
        else:
            out.append(RuleResult("policy-columns", PASS,
                                  "The plan uses no column the policy forbids."))
    if policy.require_reasons:
        missing = [(f"{q.title} ({what})", f"queries[{q.id}].justification.{key}")
                   for q in plan.queries for key, what in missing_reasons(q)]
        if not _has_text(plan.justification):
            missing.insert(0, ("the budget's ε", "justification"))
        if missing:
            names = ", ".join(m for m, _ in missing)
            out.append(_refused(
                "policy-reasons", policy,
                f"The policy requires a written reason for: {names}.",
                "Write each reason (the budget's reason is on the Budget tab).",
                missing[0][1], f"it requires a written reason for {missing[0][0]}"
                + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")))
        else:
            out.append(RuleResult("policy-reasons", PASS,
                                  "Every reason the policy requires is written."))
    if file_datasets is not None and policy.same_file_new_name == "refuse":
        name = plan.dataset.name
        others = sorted(d for d in file_datasets if d != name)
        new_name = bool(others) and name not in file_datasets
        if new_name:
            out.append(_refused(
                "policy-same-file", policy,
                f"This exact data file was released before as dataset {others[0]!r}; the "
                "policy does not allow it under a new name.",
                f"Release it under its dataset name {others[0]!r}.", "dataset.name",
                f"this exact data file was released before as dataset {others[0]!r}, and a "
                "new dataset name does not give the same people a new budget"))
    return out


def _has_text(text: str | None) -> bool:
    """A real reason: the rule of ``has_reason`` (readiness.is_reason)."""
    return is_reason(text)
