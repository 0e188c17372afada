"""The privacy officer's review: approve or reject a plan, bound to the plan's SHA-256, and
signed with the officer's key.

A decision is stored in the plan file's ``approvals`` (and in the audit log by the caller).
``plan_digest`` leaves approvals out, so adding a decision does not change what was approved;
changing anything else does, and a release that requires approval then refuses.

A signed decision also holds a minisign signature of its canonical *payload* (``approval
_payload``: JSON with sorted keys of the format name, the plan's SHA-256, the decision, the
reviewer, the time and the comment), the signing key's fingerprint and its public key line.
Checked against trusted keys (``approval_status(plan, trusted)``), only a decision whose
signature verifies against one of them counts, and the latest such decision decides: an
unsigned, edited or copied entry added after it changes nothing. Without trusted keys a
decision is a workflow record only, and every sentence says it is not verified.

"Latest" is by each decision's own ``time`` (signed with it), not its place in the list, so
reordering the list cannot undo a rejection; at the same time a rejection wins over an
approval. The plan file is the owner's, though: they can delete an entry from it, so a
rejection binds only while the file keeps it (a revocation that cannot be deleted needs the
organisation's policy).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..model import Plan
from ..planfile import plan_digest, plan_to_json
from ..planfile.compiled import CompiledPlan
from ..support.errors import InputError, PlannerError
from ..support.files import atomic_write_text, existing_kind, refuse_unless_replaceable
from ..support.home import AppHome
from .audit import AuditLog, utc_now
from .keys import (
    KeyStore,
    PublicKey,
    SecretKey,
    SignatureError,
    load_trusted,
    parse_signature,
    verify_signature,
)

DECISIONS = ("approved", "rejected")
APPROVAL_FORMAT = "planner-app/approval@1"


class ApprovalRequired(PlannerError):
    """A release that requires approval has none for this exact plan (exit 3)."""


def approval_payload(entry: Mapping[str, Any]) -> bytes:
    """The bytes a decision's signature covers: canonical JSON (sorted keys, no spaces,
    UTF-8) of the format name, plan_sha256, decision, reviewer, time and comment."""
    doc = {"format": APPROVAL_FORMAT, "plan_sha256": str(entry.get("plan_sha256") or ""),
           "decision": str(entry.get("decision") or ""),
           "reviewer": str(entry.get("reviewer") or ""), "time": str(entry.get("time") or ""),
           "comment": str(entry.get("comment") or "")}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


@dataclass(frozen=True)
class ApprovalStatus:
    """What the plan's decisions say. ``state``: approved | rejected | changed (the deciding
    decision is about another version of the plan) | unverified (trusted keys were given and
    no decision verifies) | none. ``latest`` is the deciding entry (with trusted keys, the
    latest that verifies; else the latest, or the latest that failed when none verifies)."""

    state: str
    latest: dict[str, Any] | None
    digest: str
    checked: bool = False  # trusted keys were given
    signer: PublicKey | None = None  # the trusted key that verified ``latest``
    problem: str = ""  # why the latest decision does not count (with trusted keys)
    ignored: int = 0  # later decisions that did not verify (with trusted keys)

    @property
    def verified(self) -> bool:
        return self.signer is not None

    @property
    def how(self) -> str:
        """How far the deciding decision is proven, in words."""
        a = self.latest or {}
        if self.signer is not None:
            trusted_as = f"the trusted key {self.signer.name}" if self.signer.name else \
                "a trusted key"
            return f"signed with key {self.signer.fingerprint}, verified against {trusted_as}"
        if a.get("signature"):
            return f"signed with key {a.get('key_fingerprint') or '?'}, not verified " \
                   "against a trusted key"
        return "unsigned: anyone could have written it"

    @property
    def sentence(self) -> str:
        a = self.latest or {}
        who = f"{a.get('reviewer', '?')} on {a.get('time', '?')}"
        later = (f" {self.ignored} later decision{'s' if self.ignored > 1 else ''} that "
                 f"did not verify {'were' if self.ignored > 1 else 'was'} ignored "
                 f"({self.problem})." if self.ignored else "")
        if self.state == "approved":
            return f"Approved by {who} ({self.how}).{later}"
        if self.state == "rejected":
            return f"Rejected by {who} ({self.how}): {a.get('comment') or 'no comment'}.{later}"
        if self.state == "changed":
            if self.checked:
                return (f"The decision by {who} ({self.how}) is for another version of this "
                        f"plan: its plan SHA-256 {str(a.get('plan_sha256'))[:16]}… differs "
                        f"from this plan's {self.digest[:16]}… (the plan changed after it, or "
                        f"it was copied from another plan); it must be reviewed again.{later}")
            return (f"The plan changed after the last review ({who}, {self.how}); it must be "
                    "reviewed again.")
        if self.state == "unverified":
            return f"No decision verifies against a trusted key: {self.problem}."
        return "Not reviewed yet."

    def to_record(self) -> dict[str, Any] | None:
        """What release.json says about the approval (None unless approved): who, when,
        the signing key and whether it was verified against a trusted key."""
        if self.state != "approved" or self.latest is None:
            return None
        a = self.latest
        signed = bool(a.get("signature"))  # an unsigned entry names no key, whatever it says
        return {"reviewer": a.get("reviewer"), "decision": a.get("decision"),
                "comment": a.get("comment", ""), "time": a.get("time"),
                "plan_sha256": a.get("plan_sha256"), "signed": signed,
                "key_fingerprint": a.get("key_fingerprint") if signed else None,
                "public_key": a.get("public_key") if signed else None,
                "signature": a.get("signature") if signed else None,
                "verified": self.verified,
                "trusted_key": self.signer.name if self.signer is not None else None}


def review(plan: Plan, reviewer: str, decision: str, comment: str = "", *,
           key: SecretKey | None = None) -> Plan:
    """The plan with one more decision bound to its current content; signed when ``key``
    is given (the entry then holds the signature, the key's fingerprint and public key)."""
    reviewer = reviewer.strip()
    if not reviewer:
        raise InputError("argument", "--reviewer", "a reviewer name is required")
    if decision not in DECISIONS:
        raise InputError("argument", None, f"the decision must be one of {', '.join(DECISIONS)}")
    entry: dict[str, Any] = {"reviewer": reviewer, "decision": decision,
                             "comment": comment.strip(), "plan_sha256": plan_digest(plan),
                             "time": utc_now()}
    if key is not None:
        entry["signature"] = key.sign(
            approval_payload(entry),
            f"{APPROVAL_FORMAT} {decision} plan {entry['plan_sha256']} by {reviewer}",
            f"planner-app approval signed with key {key.name} ({key.public.fingerprint})")
        entry["key_fingerprint"] = key.public.fingerprint
        entry["public_key"] = key.public.line
    return replace(plan, approvals=(*plan.approvals, entry))


def record_review(path: Path, plan: Plan, reviewer: str, decision: str, comment: str,
                  audit: AuditLog, *, key: SecretKey | None = None) -> Plan:
    """Decide (signed when ``key`` is given), log the decision in the audit log, then write
    it into the plan file."""
    reviewed = review(plan, reviewer, decision, comment, key=key)
    entry = reviewed.approvals[-1]
    refuse_unless_reviewable(Path(path))  # a link, pipe or device: before the log
    refuse_unless_replaceable(Path(path), True)
    params = {"dataset": plan.dataset.name, "plan_sha256": entry["plan_sha256"],
              "reviewer": entry["reviewer"], "comment": entry["comment"]}
    if key is not None:
        params["key_fingerprint"] = key.public.fingerprint
    audit.append(f"plan {decision}", params)
    atomic_write_text(path, plan_to_json(reviewed))
    return reviewed


def refuse_unless_reviewable(path: Path) -> None:
    """A decision is written into the plan file itself, which is replaced whole; a link, a
    pipe or a device is never replaced (support/files.py). The reviewer did not choose the
    file's name, so the refusal says what they can review instead."""
    kind = existing_kind(path)
    if kind is None or kind == "file":
        return
    if kind == "a symbolic link":
        target = os.path.realpath(path)
        instead = (f"a decision is written into the plan file itself, never through a link: "
                   f"review {target} instead (the file the link points to)")
    else:
        instead = ("a decision is written into the plan file itself: copy the plan to a "
                   "regular file and review the copy")
    raise InputError(path.name, None, f"is {kind}, not a regular file; {instead}")


def check_decision(entry: Mapping[str, Any], trusted: Sequence[PublicKey]) -> PublicKey | str:
    """The trusted key whose signature this decision carries, or why it has none (a
    phrase: unsigned, signed by a key not trusted, signature not matching its content)."""
    noun = {"approved": "approval", "rejected": "rejection"}.get(str(entry.get("decision")),
                                                                  "decision")
    who = f"the {noun} by {entry.get('reviewer', '?')} on {entry.get('time', '?')}"
    text = entry.get("signature")
    if not text:
        return f"{who} is not signed (sign it: planner-app review PLAN --approve --key NAME)"
    try:
        sig = parse_signature(str(text), "approval")
    except InputError:
        return f"{who} has a signature that does not decode (it was edited or forged)"
    claimed = entry.get("key_fingerprint")
    if not any(k.key_id == sig.key_id for k in trusted):
        names = ", ".join(k.describe() for k in trusted)
        return f"{who} is signed by key {sig.fingerprint}, which is not a trusted key " \
               f"(trusted: {names})"
    if claimed is not None and claimed != sig.fingerprint:
        return f"{who} names key {claimed} but its signature is by key {sig.fingerprint} " \
               "(it was edited)"
    try:
        verified = verify_signature(approval_payload(entry), str(text), trusted, "approval")
    except (SignatureError, InputError):
        return f"{who}: its signature by key {sig.fingerprint} does not match its content " \
               "(it was edited after signing, or forged)"
    return verified.key


def _when(entry: Mapping[str, Any]) -> datetime:
    """A decision's own time (an unreadable one counts as the earliest)."""
    try:
        when = datetime.fromisoformat(str(entry.get("time") or "").replace("Z", "+00:00"))
        return when.replace(tzinfo=None) - (when.utcoffset() or timedelta(0))
    except (ValueError, OverflowError):
        return datetime.min


def in_time_order(approvals: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The decisions from earliest to latest by their own ``time``; at the same time a
    rejection counts as the later (it wins); then list order."""
    order = sorted(range(len(approvals)),
                   key=lambda i: (_when(approvals[i]),
                                  approvals[i].get("decision") == "rejected", i))
    return [approvals[i] for i in order]


def approval_status(plan: Plan | CompiledPlan,
                    trusted: Sequence[PublicKey] | None = None) -> ApprovalStatus:
    """What the plan's decisions say; with ``trusted`` keys, only decisions signed by one of
    them count, and the latest of those by their own time decides (see the module
    docstring). A decision counts for the digest of this plan, computed here or by the
    compiled plan from its own document: no caller can hand in another (an edited plan never
    reads as approved), and a release serialises its plan once."""
    if isinstance(plan, CompiledPlan):
        digest, plan = plan.digest, plan.plan
    else:
        digest = plan_digest(plan)
    if not plan.approvals:
        return ApprovalStatus("none", None, digest, checked=bool(trusted))
    ordered = in_time_order(plan.approvals)
    if not trusted:
        latest = dict(ordered[-1])
        if latest.get("plan_sha256") != digest:
            return ApprovalStatus("changed", latest, digest)
        state = "approved" if latest.get("decision") == "approved" else "rejected"
        return ApprovalStatus(state, latest, digest)
    checked = [(dict(raw), check_decision(raw, trusted)) for raw in reversed(ordered)]
    problems = [found for _, found in checked if isinstance(found, str)]
    deciding = next(((e, k) for e, k in checked if not isinstance(k, str)), None)
    if deciding is None:
        return ApprovalStatus("unverified", dict(ordered[-1]), digest, checked=True,
                          problem=problems[0] if problems else "")
    entry, signer = deciding
    assert isinstance(signer, PublicKey)
    # entries that do not verify and are not older than the deciding one (by their time)
    later = [k for e, k in checked if isinstance(k, str) and _when(e) >= _when(entry)]
    if entry.get("plan_sha256") != digest:
        state = "changed"
    else:
        state = "approved" if entry.get("decision") == "approved" else "rejected"
    return ApprovalStatus(state, entry, digest, checked=True, signer=signer,
                          problem=later[0] if later else "", ignored=len(later))


def review_status_words(plan: Plan, trusted: Sequence[PublicKey] | None,
                        own: Sequence[PublicKey] = (), plan_name: str = "the plan") -> str:
    """The review window's status: with keys a release requires (``trusted``), that rule
    first, then what the file's latest entry says; without them, a decision just signed
    with one of the reviewer's ``own`` keys says it is signed and what to do next."""
    plain = approval_status(plan)
    if not trusted or not plan.approvals:
        found = check_decision(plain.latest, own) if plain.latest and own else None
        if isinstance(found, PublicKey) and plain.state in ("approved", "rejected"):
            return (f"Signed: you {plain.state} this exact plan with your key {found.name} "
                    f"(key {found.fingerprint}). Next, send {plan_name} and your public key "
                    f"(File → Keys… → Export public key…, {found.name}.pub) to the data "
                    "owner; their release accepts the decision once they trust your key.")
        return plain.sentence
    checked = approval_status(plan, trusted)
    # the checked sentence already names the latest entry and why it does not count (or
    # the later entries it ignored): the file's own reading would only repeat it
    return "A release here accepts only decisions signed with a trusted key: " + \
        checked.sentence


def require_approval(plan: Plan, trusted: Sequence[PublicKey] | None = None) -> ApprovalStatus:
    """Raise ApprovalRequired unless the deciding decision approves this exact plan (with
    ``trusted`` keys: signed by one of them)."""
    status = approval_status(plan, trusted)
    if status.state != "approved":
        raise ApprovalRequired(f"this release requires an approved plan: {status.sentence} "
                               "Nothing was charged or written.")
    return status


def approval_keys(home: AppHome,
                  trust_files: Sequence[str | os.PathLike[str]] = ()) -> list[PublicKey]:
    """The keys an approval must be signed by, one rule for the command line and the app:
    the ``--trust`` files when any are named, else the app home's trusted keys (``keys
    trust``, the Keys dialog). Empty: approvals are not checked against keys."""
    if trust_files:
        return load_trusted(trust_files)
    return KeyStore(home).trusted()
