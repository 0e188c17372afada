"""The privacy officer's review: approve or reject a plan, bound to the plan's SHA-256.

A decision is stored in the plan file's ``approvals`` (and in the audit log by the caller).
``plan_digest`` leaves approvals out, so adding a decision does not change what was approved;
changing anything else does, and a release that requires approval then refuses. A decision is
a workflow record, not a signature: the audit log on the officer's machine is its
tamper-evident trace.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..model import Plan, plan_digest, plan_to_json
from ..support.errors import InputError, PlannerError
from ..support.files import atomic_write_text, refuse_unless_replaceable
from .audit import AuditLog, utc_now

DECISIONS = ("approved", "rejected")


class ApprovalRequired(PlannerError):
    """A release that requires approval has none for this exact plan (exit 3)."""


@dataclass(frozen=True)
class ApprovalStatus:
    state: str  # approved | rejected | changed | none
    latest: dict[str, Any] | None
    digest: str

    @property
    def sentence(self) -> str:
        a = self.latest or {}
        who = f"{a.get('reviewer', '?')} on {a.get('time', '?')}"
        if self.state == "approved":
            return f"Approved by {who}."
        if self.state == "rejected":
            return f"Rejected by {who}: {a.get('comment') or 'no comment'}."
        if self.state == "changed":
            return (f"The plan changed after the last review ({who}); it must be reviewed "
                    "again.")
        return "Not reviewed yet."


def review(plan: Plan, reviewer: str, decision: str, comment: str = "") -> Plan:
    """The plan with one more decision bound to its current content."""
    reviewer = reviewer.strip()
    if not reviewer:
        raise InputError("argument", "--reviewer", "a reviewer name is required")
    if decision not in DECISIONS:
        raise InputError("argument", None, f"the decision must be one of {', '.join(DECISIONS)}")
    entry = {"reviewer": reviewer, "decision": decision, "comment": comment.strip(),
             "plan_sha256": plan_digest(plan), "time": utc_now()}
    return replace(plan, approvals=(*plan.approvals, entry))


def record_review(path: Path, plan: Plan, reviewer: str, decision: str, comment: str,
                  audit: AuditLog) -> Plan:
    """Decide, log the decision in the audit log, then write it into the plan file."""
    reviewed = review(plan, reviewer, decision, comment)
    entry = reviewed.approvals[-1]
    refuse_unless_replaceable(Path(path), True)  # a link, pipe or device: before the log
    audit.append(f"plan {decision}", {"dataset": plan.dataset.name,
                                      "plan_sha256": entry["plan_sha256"],
                                      "reviewer": entry["reviewer"], "comment": entry["comment"]})
    atomic_write_text(path, plan_to_json(reviewed))
    return reviewed


def approval_status(plan: Plan) -> ApprovalStatus:
    digest = plan_digest(plan)
    if not plan.approvals:
        return ApprovalStatus("none", None, digest)
    latest = dict(plan.approvals[-1])
    if latest.get("plan_sha256") != digest:
        return ApprovalStatus("changed", latest, digest)
    state = "approved" if latest.get("decision") == "approved" else "rejected"
    return ApprovalStatus(state, latest, digest)


def require_approval(plan: Plan) -> ApprovalStatus:
    """Raise ApprovalRequired unless the latest decision approves this exact plan."""
    status = approval_status(plan)
    if status.state != "approved":
        raise ApprovalRequired(f"this release requires an approved plan: {status.sentence} "
                               "Nothing was charged or written.")
    return status
