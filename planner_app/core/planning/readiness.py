"""The release rules, once: whether a plan is ready to release, rule by rule, in plain words.

``readiness`` returns one ``RuleResult`` per rule (passed, failed or a warning, a message and
what to do). ``check`` prints them, ``release`` (the CLI) and the wizard refuse on the same
failures through ``publish`` -> ``require_ready``, the wizard's checklist, the statistic pane
and the budget meter show them. No front end decides any of these on its own.

Which rules block a release (docs/engine.md, "Release rules"):

* ``table``       a table is loaded (the app; the CLI's ``--data`` is required)   blocks
* ``statistics``  the plan has at least one statistic                            blocks
* ``reasons``     every bound, bin list, category list and group-key list has a  blocks
                  reason (a blank or "TODO…" reason is none)
* ``budget``      the composed total fits this release's budget (ε and δ)        blocks
* ``lifetime``    the dataset's lifetime cap leaves room for it (the ledger's    blocks
                  own composition; the charge re-checks it under its lock);
                  ``ledger`` when the ledger cannot be read (exit 4)
* ``approval``    an approval of this exact plan, when approval is required      blocks
                  (``--require-approval`` or the app setting, both read by both)
* ``people``      with the table: no column repeats like a person's id while     blocks
                  each row is taken as a person, unless the plan records that the
                  rows are different people, with a reason (data/repeats.py)
* ``rows``        a person unit states how many rows one person may have (the   blocks
                  app's plan may hold it unstated; a plan file must state it)
* ``unit``        the unit of privacy is confirmed: the wizard's tick box; on    blocks
                  the CLI the plan file's required ``privacy_unit`` states it
* ``policy-…``    the organisation's policy, when installed (policy_rules.py)    blocks

A statistic whose ± covers most of its possible range, and a quantile the sampler could not
finish, are the per-statistic warnings of ``check.statistic_warnings`` (one function, shown by
``check``, the statistics list, the wizard and the report); the second also refuses a release
before the charge.

A rule whose input is not given (no ledger, no table, approval not required) is left out.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..data.repeats import Repeats
from ..dp.accounting import Total, within
from ..dp.measure import Measurement
from ..kinds import kind_of
from ..model import Plan, PrivacyUnit, Query, max_rows_problem
from ..planfile.compiled import CompiledPlan
from ..planfile.programme import next_date
from ..planfile.serialisation import plan_digest
from ..records.headroom import headroom, headroom_sentence
from ..records.keys import PublicKey
from ..records.ledger import (
    POLICY_CAP,
    BudgetExceeded,
    LedgerError,
    LedgerState,
)
from ..records.policy import Policy, PolicyError, PolicyRefused, effective_state
from ..records.programme import (
    ProgrammeRefused,
    ProgrammeRelease,
    place_problem,
    release_date,
    today_utc,
)
from ..records.review import ApprovalRequired, approval_status
from ..support.errors import InputError, PlannerError
from ..support.optional import mbi_problem
from ..support.words import unit_of
from .policy_rules import policy_rules

# their home was this module: callers still import them from here
from .rule_results import FAIL as FAIL
from .rule_results import NOTHING_SPENT as NOTHING_SPENT
from .rule_results import PASS as PASS
from .rule_results import PLACEHOLDER
from .rule_results import WARN as WARN
from .rule_results import Readiness as Readiness
from .rule_results import RuleResult as RuleResult
from .rule_results import has_reason as has_reason
from .rule_results import is_reason as is_reason
from .rule_results import missing_reasons as missing_reasons

RULES = ("table", "statistics", "reasons", "budget", "lifetime", "ledger", "approval", "people",
         "rows", "unit", "schedule",
         "relations")  # gui27: with the table, a plan's relations hold in it (check.py)


class NotReady(InputError):
    """A plan that is not complete enough to release (a missing reason, no statistic, no
    table, an unconfirmed unit): exit 2, nothing charged or written."""


# ----------------------------------------------------------------------------- the rules


def unit_sentence(unit: PrivacyUnit) -> str:
    """Who one person is, in words (the wizard's tick box, `check`)."""
    return unit_of(unit)


_last_reasons: list[tuple[tuple[Query, ...], list[list[tuple[str, str]]]]] = []


def _missing_by_query(queries: tuple[Query, ...]) -> list[list[tuple[str, str]]]:
    """``missing_reasons`` of each statistic. What a statistic lacks depends on it alone, and
    statistics are immutable: one that is the very object the last call saw at the same place
    keeps that answer (the editor asks at every slider step, a walk of 1,000 statistics)."""
    last = _last_reasons[0] if _last_reasons else None
    if last is not None and len(last[0]) == len(queries):
        out = [before if q is known else missing_reasons(q)
               for q, known, before in zip(queries, last[0], last[1], strict=True)]
    else:
        out = [missing_reasons(q) for q in queries]
    _last_reasons[:] = [(queries, out)]
    return out


def reasons_rule(plan: Plan) -> RuleResult:
    missing = [(q, key, what) for q, lacking in zip(plan.queries,
                                                     _missing_by_query(plan.queries),
                                                     strict=True)
               for key, what in lacking]
    if not missing:
        return RuleResult("reasons", PASS, "Every bound and list is declared public with a "
                                           "reason.")
    named = ", ".join(f"{q.title} ({what})" for q, _, what in missing)
    q, key, what = missing[0]
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    return RuleResult(
        "reasons", FAIL, f"Give a reason for: {named}.",
        "Say where each comes from (a form's limits, an official list; never the data): "
        "Edit the definition… in the app, or the statistic's \"justification\" in the plan "
        "file.",
        where=f"queries[{q.id}].justification.{key}",
        refusal=f"no reason is recorded for the {what} of {q.title!r}{more}; say where they "
                f"come from (knowledge of the domain, never the data). {NOTHING_SPENT}")


def synthesis_rule(plan: Plan) -> RuleResult | None:
    """A synthetic table needs mbi installed (support/optional.py); None: no synthetic
    table in the plan."""
    tables = [q for q in plan.queries if kind_of(q).makes_table]
    if not tables:
        return None
    problem = mbi_problem()
    if problem is None:
        return RuleResult("synthesis", PASS, "The synthetic table can be made here (mbi is "
                                             "installed).")
    return RuleResult("synthesis", FAIL, problem[0].upper() + problem[1:] + ".",
                      "Install it, then check again.", where=f"queries[{tables[0].id}].kind",
                      refusal=f"{problem}. {NOTHING_SPENT}")


def budget_rule(plan: Plan, total: Total) -> RuleResult:
    b = plan.budget
    if within(total, b.epsilon, b.delta):
        return RuleResult("budget", PASS,
                          f"The total ε = {total.epsilon:.4g}, δ = {total.delta:.3g} "
                          f"({total.accountant}) is within this release's budget ε = "
                          f"{b.epsilon:g}, δ = {b.delta:g}.")
    declared = sum(q.delta for q in plan.queries)
    if declared >= b.delta and not math.isfinite(total.epsilon):  # walk25: not "ε = inf"
        said = (f"the statistics' δ add up to {declared:.3g}, which leaves nothing of this "
                f"release's budget δ = {b.delta:g}, so no ε can be stated")
        return RuleResult("budget", FAIL, f"Over budget: {said}.",
                          "Lower some statistics' δ or raise the budget's δ.", where="budget",
                          refusal=f"{said}. {NOTHING_SPENT}")
    return RuleResult(
        "budget", FAIL,
        f"Over budget: the total ε = {total.epsilon:.4g}, δ = {total.delta:.3g} "
        f"({total.accountant}) exceeds this release's budget ε = {b.epsilon:g}, δ = "
        f"{b.delta:g}.", "Lower some statistics' ε or raise the budget.", where="budget",
        refusal=f"the plan's composed total ε = {total.epsilon:.4g}, δ = {total.delta:.3g} "
                f"exceeds its budget ε = {b.epsilon:g}, δ = {b.delta:g}. {NOTHING_SPENT}")


#: pg26: what to do when the office's shared ledger cannot be reached
OFFICE_UNREACHABLE = ("Check the network connection to the office's ledger, or ask the "
                      "privacy officer (planner-app ledger doctor says what is wrong).")


def lifetime_rule(plan: Plan, total: Total, measurements: Sequence[Measurement],
                  ledger: LedgerState | PlannerError,
                  policy: Policy | PolicyError | None = None) -> RuleResult:
    if isinstance(ledger, PlannerError):
        from ..records.ledger_pg import LedgerUnreachable

        return RuleResult("ledger", FAIL, f"The budget ledger cannot be read: {ledger}",
                          OFFICE_UNREACHABLE if isinstance(ledger, LedgerUnreachable) else
                          "Check that the app's folder is readable and writable.",
                          refusal=str(ledger))
    if isinstance(policy, PolicyError):  # its cap may be lower than the ledger's: unknown
        return RuleResult(
            "lifetime", FAIL,
            f"The lifetime cap of dataset {ledger.dataset!r} is unknown: the "
            "organisation's policy cannot be used (see the policy line).",
            "Install the officer's signed policy file again: planner-app policy install "
            "POLICY.json --trust OFFICER.pub.", refusal=str(policy))
    cap = ledger.cap
    ask = "ask whoever manages the dataset's lifetime cap (planner-app ledger set-cap)"
    if cap.by_policy and isinstance(policy, Policy):
        who = policy.signer.describe() if policy.signer is not None else "its privacy officer"
        ask = (f"ask {who}, who signed {policy.title} that sets this cap")
    room = headroom(ledger, measurements, total)  # "left" in the cap's own accounting
    after = room.after
    default = " (the default)" if cap.is_default else POLICY_CAP if cap.by_policy else ""
    if room.fits:
        return RuleResult("lifetime", PASS, f"{headroom_sentence(room)}.")
    return RuleResult(
        "lifetime", FAIL,
        f"{headroom_sentence(room)}.",
        f"Lower some statistics' ε, or {ask}.",
        refusal=f"dataset {ledger.dataset!r} has ε = {ledger.remaining_epsilon:.4g} (δ = "
                f"{ledger.remaining_delta:.3g}) left of its lifetime cap ε = {cap.epsilon:g}, "
                f"δ = {cap.delta:g}{default}; this release would bring the total to ε = "
                f"{after.epsilon:.4g}, δ = {after.delta:.3g}"
                + (f" (to raise the cap, {ask})" if cap.by_policy else "")
                + f". {NOTHING_SPENT}")


def again_blocked(plan: Plan, total: Total, measurements: Sequence[Measurement],
                  ledger: LedgerState | PlannerError,
                  policy: Policy | PolicyError | None = None,
                  programme_history: Sequence[ProgrammeRelease] | None = None
                  ) -> RuleResult | None:
    """Before the app asks "Release again?": the checklist's schedule rule when it fails (a
    programme's date already released, given ``programme_history``), else its lifetime rule
    when it fails (the cap cannot cover this release, or the ledger or policy cannot be
    read), else None. A release that cannot happen is not asked about; the rule's words say
    why instead (walk 2, finding 22; walk2627)."""
    schedule = schedule_rule(plan, history=programme_history)
    if schedule is not None and schedule.failed:
        return schedule
    rule = lifetime_rule(plan, total, measurements, ledger, policy)
    return None if rule.passed else rule


def approval_rule(plan: Plan | CompiledPlan, trusted: Sequence[PublicKey] = (),
                  officers: str = "", trust_ignored: str = "") -> RuleResult:
    """An approval of this exact plan (a compiled plan's digest is its own document's);
    with ``trusted`` keys, one signed by one of them.
    ``officers``: the policy's officers in words, when the policy names who may approve
    (``trust_ignored``: the note that the caller's own keys are not used)."""
    status = approval_status(plan, trusted)
    if status.state == "approved" and not trusted:  # it passes, but proves nothing
        return RuleResult(
            "approval", WARN, f"Approval: {status.sentence} No key is trusted, so an "
            "unverified approval counts: anyone could have written it.",
            "To require a signed approval, trust the officer's public key (planner-app keys "
            "trust OFFICER.pub, File → Keys…, or release --trust OFFICER.pub).",
            where="approvals")
    if status.state == "approved":
        return RuleResult("approval", PASS, f"Approval: {status.sentence}")
    action = ("Send this exact plan file to your privacy officer (one whose key you trust) "
              "to review and sign (they use Release → Review this plan…, or planner-app "
              "review PLAN --approve --key NAME), then open the plan they send back and try "
              "again." if trusted else
              "Send this exact plan file to your privacy officer to review (they use Release "
              "→ Review this plan…, or planner-app review), then open the plan they send "
              "back and try again.")
    by = ""
    if officers:
        by = (f" The organisation's policy accepts only approvals signed by: {officers}"
              + (f" ({trust_ignored})" if trust_ignored else "") + ".")
        action = ("Send this exact plan file to one of the policy's officers to review and "
                  "sign (planner-app review PLAN --approve --key NAME), then open the plan "
                  "they send back and try again.")
    return RuleResult(
        "approval", FAIL, f"Approval: {status.sentence}{by}", action, where="approvals",
        refusal=f"this release requires an approved plan: {status.sentence}"
                f"{by.replace(' The organisation', ' the organisation')} {NOTHING_SPENT}")


def unit_rule(plan: Plan, confirmed: bool) -> RuleResult:
    who = unit_sentence(plan.privacy_unit)
    if confirmed:
        return RuleResult("unit", PASS, f"The unit of privacy is confirmed: {who}.")
    return RuleResult("unit", FAIL, f"Confirm the unit of privacy: {who}.",
                      "Tick the confirmation once you know who one person is.",
                      where="privacy_unit",
                      refusal=f"the unit of privacy ({who}) is not confirmed. {NOTHING_SPENT}")


def rows_are_people_recorded(unit: PrivacyUnit) -> bool:
    """The row unit with a real reason recorded for it (a "TODO…" is none)."""
    text = (unit.rows_reason or "").strip()
    return unit.kind == "row" and bool(text) and not PLACEHOLDER.match(text)


def people_rule(plan: Plan, repeating: Sequence[Repeats]) -> RuleResult:
    """Whether one person may be several rows while each row is taken as a person:
    ``repeating`` holds the table's id-like repeating columns (``repeats.id_like_columns``,
    the likeliest id first). Owner-only: its words hold counts read from the table."""
    unit = plan.privacy_unit
    if unit.kind == "person" and unit.max_rows is None:  # the ``rows`` rule asks for it
        return RuleResult("people", PASS, f"One person is identified by {unit.id_column}.")
    if unit.kind == "person":
        return RuleResult("people", PASS, f"One person is identified by {unit.id_column}, with "
                                          f"at most {unit.rows_per_unit:,} "
                                          f"row{'' if unit.rows_per_unit == 1 else 's'}.")
    if rows_are_people_recorded(unit):
        return RuleResult("people", PASS, "Each row is a different person: your recorded "
                                          f"decision (“{unit.rows_reason}”).")
    if not repeating:
        return RuleResult("people", PASS, "No column repeats like a person's id: each row can "
                                          "be a different person.")
    first = repeating[0]
    more = "".join(f" {r.column} repeats too (up to {r.most:,} rows share a value)."
                   for r in repeating[1:3])
    rows = f"{first.most:,} row{'' if first.most == 1 else 's'}"
    return RuleResult(
        "people", FAIL,
        f"{first.column} repeats: up to {first.most:,} rows share a value — is one person "
        f"several rows?{more}",
        f"Either choose {first.column} as the person id, with at most {rows} (Data tab, "
        "“Who is one person?”), or record that the rows are different people, with a "
        "reason (Data tab, “Record the reason”).",
        where="privacy_unit",
        in_file="(In the plan file: privacy_unit.id_column and max_rows, or "
                "privacy_unit.rows_are_people.reason.)",
        refusal=f"{first.column} repeats like a person's id (up to {first.most:,} rows share a "
                "value) while each row is taken as a different person: choose it as the "
                "person id, or record that the rows are different people with a reason "
                f"(privacy_unit.rows_are_people.reason). {NOTHING_SPENT}")


def rows_rule(plan: Plan) -> RuleResult | None:
    """A person unit whose rows per person are not stated yet (``max_rows_problem``: the
    owner's number, never a default); None: nothing to ask (the row unit, or it is stated)."""
    unit = plan.privacy_unit
    problem = max_rows_problem(unit.max_rows) if unit.kind == "person" else None
    if problem is None:
        return None
    return RuleResult(
        "rows", FAIL,
        f"How many rows one person ({unit.id_column}) may have is not stated.",
        "Type it after “A person has up to” on the Data tab (“Who is one person?”), from how "
        "the data was collected (the number of waves or visits), never from the table: it is "
        "published with the plan.",
        where="privacy_unit.max_rows",
        refusal=f"{problem}. {NOTHING_SPENT}")


def unit_unanswered(plan: Plan, repeating: Sequence[Repeats]) -> str | None:
    """Why statistics wait (the app asks who one person is before any is added, as their
    accuracy depends on it): a column repeats like an id and the owner has neither chosen an
    id nor recorded that the rows are different people, or the rows per person of the chosen
    id are not stated. None: answered. Owner-only (it names a column of the table)."""
    unit = plan.privacy_unit
    if unit.kind == "person":
        if max_rows_problem(unit.max_rows) is None:
            return None
        return (f"Say how many rows one person ({unit.id_column}) may have first, on the Data "
                "tab (“Who is one person?”): every statistic's accuracy depends on it.")
    if rows_are_people_recorded(unit) or not repeating:
        return None
    return (f"Say who one person is first, on the Data tab: {repeating[0].column} repeats like "
            "a person's id, and every statistic's protection and accuracy depend on the "
            "answer.")


def people_unchecked(plan: Plan) -> str | None:
    """Without the table, what the ``people`` rule cannot say (None: nothing to say)."""
    unit = plan.privacy_unit
    if unit.kind == "person":
        return None
    if rows_are_people_recorded(unit):
        return ("Whether a column of the table repeats like a person's id is checked only "
                "with the table; the owner's recorded reason is above.")
    return ("Not checked without the table: whether a column repeats like a person's id (one "
            "person on several rows, while each row is taken as a person). The owner's "
            "check with the data (planner-app check PLAN --data TABLE) checks it.")


def schedule_rule(plan: Plan, today: dt.date | None = None,
                  history: Sequence[ProgrammeRelease] | None = None,
                  digest: str | None = None) -> RuleResult | None:
    """cal26: a programme's plan is released on one of its dates (None: no programme).
    ``history``: the dataset's programme releases from the books (``programme_history``):
    then also, as the release checks, that today's date has no release yet and that the
    programme's plan (``digest``: this plan's SHA-256) is the one first released."""
    if plan.programme is None:
        return None
    today = today or today_utc()
    try:
        slot = release_date(plan.programme, today)
    except ProgrammeRefused as exc:
        upcoming = next_date(plan.programme, today)
        return RuleResult("schedule", FAIL, f"Today ({today.isoformat()}) is not a release "
                          f"date of programme {plan.programme.name!r}.",
                          f"Release on its next date, {upcoming}, or within "
                          f"{plan.programme.window_days} days after." if upcoming else
                          "The programme has no date left: a new programme needs a new plan.",
                          where="programme", refusal=str(exc))
    problem = None if history is None else place_problem(
        plan, digest or plan_digest(plan), slot, history)
    if problem is not None:  # the words the release refuses with (records/programme.py)
        upcoming = next_date(plan.programme, today)
        changed = "changed since its first release" in problem
        return RuleResult(
            "schedule", FAIL, problem[:1].upper() + problem[1:].removesuffix(
                "; nothing was charged") + ".",
            "Rename the programme in the plan (programme.name), then send it for review."
            if changed else
            f"Release on the programme's next date, {upcoming}, or within "
            f"{plan.programme.window_days} days after." if upcoming else
            "The programme has no date left: a new programme needs a new plan.",
            where="programme", refusal=problem)
    return RuleResult("schedule", PASS, f"Today's release is the one of {slot} in programme "
                                        f"{plan.programme.name!r} (one release per date).")


def readiness(plan: Plan, total: Total, measurements: Sequence[Measurement], *,
              ledger: LedgerState | PlannerError | None = None,
              require_approval: bool = False, unit_confirmed: bool | None = None,
              table_loaded: bool | None = None, table_name: str = "",
              accuracies: Mapping[str, Any] | None = None,
              extra: Iterable[RuleResult] = (),
              trusted: Sequence[PublicKey] = (),
              policy: Policy | PolicyError | None = None,
              file_datasets: Sequence[str] | None = None,
              known_datasets: Sequence[str] | None = None,
              trust_ignored: str = "",
              repeating: Sequence[Repeats] | None = None,
              compiled: CompiledPlan | None = None,
              programme_history: Sequence[ProgrammeRelease] | None = None) -> Readiness:
    """Every release rule for ``plan`` whose inputs are given (see the module docstring).

    ``ledger``: the dataset's ledger state, or the error reading it, or None (not consulted).
    ``unit_confirmed`` / ``table_loaded``: None when the front end does not ask.
    ``extra``: more rules from other checks (plan against table, …), kept in order.
    ``trusted``: the keys an approval must be signed by (review.approval_keys); empty: any
    approval of this exact plan counts, as a workflow record.
    ``policy``: the installed policy (or the error loading it): its caps lower the ledger's,
    its rules follow (policy_rules.py); ``file_datasets``: the datasets this exact file was
    released as (the same-file rule; None leaves it out); ``known_datasets``: the datasets
    the ledger holds (the dataset-name rule; None leaves it out). ``trust_ignored``: what the
    approval refusal adds when the policy's officers override the caller's --trust keys.
    ``repeating``: the table's id-like repeating columns (the ``people`` rule); None: no
    table was read, the rule is left out. ``compiled``: ``plan`` compiled (its digest is made
    once, from the document the release writes). ``programme_history``: the dataset's
    programme releases from the books (``programme_history``; None: not consulted), for the
    schedule rule's one release per date.
    """
    if isinstance(ledger, LedgerState):
        ledger = effective_state(ledger, policy)
    out: list[RuleResult] = []
    if table_loaded is not None:
        out.append(RuleResult("table", PASS, f"The table is loaded ({table_name}).")
                   if table_loaded else
                   RuleResult("table", FAIL, "No table is loaded.",
                              "Open the table to release (File → Open data…).",
                              refusal=f"no table is loaded. {NOTHING_SPENT}"))
    n = len(plan.queries)
    out.append(RuleResult("statistics", PASS,
                          f"{n} statistic{'' if n == 1 else 's'} to release.") if n else
               RuleResult("statistics", FAIL, "The plan has no statistic.",
                          "Add at least one statistic.", where="queries",
                          refusal=f"the plan has no statistic. {NOTHING_SPENT}"))
    out.append(reasons_rule(plan))
    synthesis = synthesis_rule(plan)
    if synthesis is not None:
        out.append(synthesis)
    out.append(budget_rule(plan, total))
    if ledger is not None:
        out.append(lifetime_rule(plan, total, measurements, ledger, policy))
    if require_approval:
        named = isinstance(policy, Policy) and bool(policy.require_approval_by)
        out.append(approval_rule(compiled or plan, trusted,
                                 policy.officers_words() if isinstance(policy, Policy) else "",
                                 trust_ignored if named else ""))
    out.extend(policy_rules(policy, plan, total, file_datasets=file_datasets,
                            known_datasets=known_datasets))
    out.extend(extra)
    if repeating is not None:
        out.append(people_rule(plan, repeating))
    rows = rows_rule(plan)
    if rows is not None:
        out.append(rows)
    if unit_confirmed is not None:
        out.append(unit_rule(plan, unit_confirmed))
    schedule = schedule_rule(plan, history=programme_history,
                             digest=compiled.digest if compiled is not None else None)
    if schedule is not None:
        out.append(schedule)
    return Readiness(tuple(out))


def readiness_of(compiled: CompiledPlan, **given: Any) -> Readiness:
    """``readiness`` of a compiled plan: its total, measurements and accuracies as the check
    computed them (planfile/compiled.py), the other inputs as ``readiness`` takes them."""
    return readiness(compiled.plan, compiled.total, compiled.all_measurements,
                     accuracies=compiled.accuracies, compiled=compiled, **given)


_REFUSALS: dict[str, type[PlannerError]] = {
    "budget": BudgetExceeded, "lifetime": BudgetExceeded, "approval": ApprovalRequired,
    "ledger": LedgerError, "policy": PolicyError, "policy-release": PolicyRefused,
    "policy-columns": PolicyRefused, "policy-reasons": PolicyRefused,
    "policy-same-file": PolicyRefused, "policy-name": PolicyRefused,
    "schedule": ProgrammeRefused,  # cal26
}


def require_ready(result: Readiness) -> None:
    """Raise the first failure as the error of its kind: BudgetExceeded / ApprovalRequired
    (exit 3), LedgerError (exit 4), NotReady (exit 2). Warnings never raise. The policy's
    failures come first: PolicyError (exit 4), PolicyRefused (exit 3)."""
    failures = result.failures
    for r in sorted(failures, key=lambda r: not r.rule.startswith("policy")):
        cls = _REFUSALS.get(r.rule)
        if cls is not None:
            raise cls(r.refusal or r.message)
        raise NotReady("plan", r.where, r.refusal or r.line)
