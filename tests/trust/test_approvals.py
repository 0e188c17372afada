"""Signed approvals: a decision signed with the officer's key counts only when its signature
verifies against a trusted key and its digest matches the plan; the latest verified decision
decides. The payload is rebuilt here by hand and checked with Debian's minisign."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from planner_app.core.planfile import load_plan, plan_digest, plan_from_dict, plan_to_dict
from planner_app.core.records.audit import AuditLog
from planner_app.core.records.keys import KeyStore, PublicKey
from planner_app.core.records.review import (
    ApprovalRequired,
    approval_keys,
    approval_status,
    record_review,
    require_approval,
    review,
)
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path, plan_schema_path

from .minisign_tool import minisign_verify


@pytest.fixture
def officer(tmp_path: Path) -> KeyStore:
    store = KeyStore(app_home(tmp_path / "officer"))
    store.create("ada")
    store.create("mallory")
    return store


def _trusted(store: KeyStore, name: str = "ada") -> list[PublicKey]:
    return [store.public(name)]


def _changed(plan):  # type: ignore[no-untyped-def]
    return plan.with_queries([replace(plan.queries[0], epsilon=plan.queries[0].epsilon / 2),
                              *plan.queries[1:]])


def test_a_signed_approval_holds_a_minisign_signature_of_its_payload(
        officer: KeyStore, tmp_path: Path) -> None:
    plan = load_plan(demo_plan_path())
    signed = review(plan, "Ada Officer", "approved", "bounds from the form",
                    key=officer.secret("ada"))
    entry = dict(signed.approvals[-1])
    ada = officer.public("ada")
    assert entry["key_fingerprint"] == ada.fingerprint and entry["public_key"] == ada.line
    # the payload as the docs describe it, built here without the code under test
    payload = json.dumps({"format": "planner-app/approval@1",
                          "plan_sha256": plan_digest(plan), "decision": "approved",
                          "reviewer": "Ada Officer", "time": entry["time"],
                          "comment": "bounds from the form"},
                         sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    (tmp_path / "approval.json").write_text(payload, encoding="utf-8")
    (tmp_path / "approval.json.minisig").write_text(entry["signature"])
    # the officer's public key, rebuilt from the line the entry carries
    raw = base64.b64decode(entry["public_key"])
    assert raw[:2] == b"Ed" and len(raw) == 42
    (tmp_path / "ada.pub").write_text(f"untrusted comment: ada\n{entry['public_key']}\n")
    done = minisign_verify(tmp_path / "ada.pub", tmp_path / "approval.json")
    assert done.returncode == 0, done.stderr
    (tmp_path / "approval.json").write_text(payload.replace("approved", "rejected"))
    assert minisign_verify(tmp_path / "ada.pub", tmp_path / "approval.json").returncode != 0


def test_a_signed_approval_survives_the_plan_file_and_the_schema(officer: KeyStore) -> None:
    plan = review(load_plan(demo_plan_path()), "ada", "approved", key=officer.secret("ada"))
    doc = plan_to_dict(plan)
    again = plan_from_dict(json.loads(json.dumps(doc)))
    assert again.approvals == plan.approvals
    jsonschema.validate(doc, json.loads(plan_schema_path().read_text()))
    assert approval_status(again, _trusted(officer)).state == "approved"


def test_verified_against_a_trusted_key(officer: KeyStore) -> None:
    plan = review(load_plan(demo_plan_path()), "ada", "approved", key=officer.secret("ada"))
    status = require_approval(plan, _trusted(officer))
    assert status.verified and status.signer is not None
    assert status.signer.fingerprint == officer.public("ada").fingerprint
    assert "verified against the trusted key ada" in status.sentence
    record = status.to_record()
    assert record is not None and record["verified"] is True and record["signed"] is True
    assert record["key_fingerprint"] == officer.public("ada").fingerprint
    # without trusted keys today's rule holds, and the sentence says it is not verified
    plain = approval_status(plan)
    assert plain.state == "approved" and not plain.verified
    assert "not verified against a trusted key" in plain.sentence
    assert plain.to_record()["verified"] is False  # type: ignore[index]
    unsigned = review(load_plan(demo_plan_path()), "Ada", "approved")
    assert "unsigned" in approval_status(unsigned).sentence


def _entry_changed(plan, **fields: Any):  # type: ignore[no-untyped-def]
    last = {**plan.approvals[-1], **fields}
    return replace(plan, approvals=(*plan.approvals[:-1], last))


def _flip_signature_byte(text: str) -> str:
    lines = text.splitlines()
    raw = bytearray(base64.b64decode(lines[1]))
    raw[-1] ^= 0x01
    lines[1] = base64.b64encode(bytes(raw)).decode()
    return "\n".join(lines) + "\n"


CASES = [  # name, how the plan's approvals are made bad, the words of the refusal
    ("unsigned", lambda p, s: review(p, "Ada", "approved"), "is not signed"),
    ("untrusted key", lambda p, s: review(p, "ada", "approved", key=s.secret("mallory")),
     "which is not a trusted key"),
    ("forged signature bytes",
     lambda p, s: (lambda a: _entry_changed(a, signature=_flip_signature_byte(
         a.approvals[-1]["signature"])))(review(p, "ada", "approved", key=s.secret("ada"))),
     "does not match its content"),
    ("edited decision",
     lambda p, s: _entry_changed(review(p, "ada", "rejected", "no", key=s.secret("ada")),
                                 decision="approved"),
     "does not match its content"),
    ("edited digest",
     lambda p, s: _entry_changed(review(_changed(p), "ada", "approved", key=s.secret("ada")),
                                 plan_sha256=plan_digest(p)),
     "does not match its content"),
    ("copied from another plan",
     lambda p, s: replace(p, approvals=review(_changed(p), "ada", "approved",
                                              key=s.secret("ada")).approvals),
     "is for another version of this plan"),
    ("stale: the plan changed after it",
     lambda p, s: _changed(review(p, "ada", "approved", key=s.secret("ada"))),
     "is for another version of this plan"),
    ("signed rejection, then an unsigned approval",
     lambda p, s: review(review(p, "ada", "rejected", "bounds too wide",
                                key=s.secret("ada")), "Owner", "approved"),
     "Rejected by ada"),
    ("signed rejection, then an approval by an untrusted key",
     lambda p, s: review(review(p, "ada", "rejected", "bounds too wide",
                                key=s.secret("ada")), "ada", "approved",
                         key=s.secret("mallory")),
     "Rejected by ada"),
]


@pytest.mark.parametrize(("name", "make", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_approval_is_refused_saying_why(officer: KeyStore, name: str, make: Any,
                                               words: str) -> None:
    plan = make(load_plan(demo_plan_path()), officer)
    with pytest.raises(ApprovalRequired, match=words) as refused:
        require_approval(plan, _trusted(officer))
    assert "\n" not in str(refused.value)
    if "untrusted" in name:
        assert officer.public("mallory").fingerprint in str(refused.value)


def test_the_latest_verified_decision_decides(officer: KeyStore,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import planner_app.core.records.review as review_module

    times = iter(f"2026-01-01T10:00:0{i}Z" for i in range(9))  # one decision a second
    monkeypatch.setattr(review_module, "utc_now", lambda: next(times))
    plan = load_plan(demo_plan_path())
    rejected = review(plan, "ada", "rejected", "no", key=officer.secret("ada"))
    then_unsigned = review(rejected, "Owner", "approved")
    status = approval_status(then_unsigned, _trusted(officer))
    assert status.state == "rejected" and status.ignored == 1
    assert "1 later decision that did not verify was ignored" in status.sentence
    # without trusted keys the unsigned entry decides, as before (and says it is unsigned)
    assert approval_status(then_unsigned).state == "approved"
    approved = review(then_unsigned, "ada", "approved", key=officer.secret("ada"))
    assert approval_status(approved, _trusted(officer)).state == "approved"


def test_the_keys_an_approval_needs(officer: KeyStore, tmp_path: Path) -> None:
    home = app_home(tmp_path / "owner")
    assert approval_keys(home) == []
    exported = officer.export("ada", tmp_path / "ada.pub")
    store = KeyStore(home)
    store.trust(exported)
    assert [k.fingerprint for k in approval_keys(home)] == [officer.public("ada").fingerprint]
    other = officer.export("mallory", tmp_path / "mallory.pub")
    # named files win over the app home's trusted keys
    assert [k.fingerprint for k in approval_keys(home, [other])] == \
        [officer.public("mallory").fingerprint]


def test_a_key_id_with_leading_zeros_signs_a_valid_plan(tmp_path: Path) -> None:
    """minisign prints key ids without leading zeros (1 key in 16 has a shorter fingerprint):
    the plan file must still validate, by the code and by the JSON Schema."""
    import dataclasses
    import json

    import jsonschema

    from planner_app.core.planfile import load_plan, plan_to_json
    from planner_app.core.records.keys import KeyStore
    from planner_app.core.records.review import review
    from planner_app.core.support.home import app_home
    from tests.conftest import DEMO_PLAN, ROOT

    store = KeyStore(app_home(tmp_path / "h"))
    store.create("ada")
    key = store.secret("ada")
    short = dataclasses.replace(key.public, key_id=bytes([1, 2, 3, 4, 5, 6, 7, 0]))
    key = dataclasses.replace(key, public=short)
    assert len(short.fingerprint) < 16
    signed = review(load_plan(DEMO_PLAN), "ada", "approved", key=key)
    out = tmp_path / "plan.json"
    out.write_text(plan_to_json(signed))
    assert load_plan(out).approvals[-1]["key_fingerprint"] == short.fingerprint
    schema = json.loads((ROOT / "resources" / "plan.schema.json").read_text())
    jsonschema.validate(json.loads(out.read_text()), schema)


def test_the_status_reads_the_digest_of_the_plan_it_is_given(officer: KeyStore) -> None:
    """approval_status took a ``digest`` "when the caller holds it": the GUI never did, and a
    digest that was not the plan's own made an edited plan read as approved. The plan alone
    decides now: an approval of the plan before an edit never approves the edited plan."""
    approved = review(load_plan(demo_plan_path()), "ada", "approved", key=officer.secret("ada"))
    edited = replace(approved, queries=approved.queries[:1])
    assert plan_digest(edited) != plan_digest(approved)  # independent answer: not this plan
    assert approval_status(edited, _trusted(officer)).state == "changed"
    with pytest.raises(TypeError):  # no other digest can be handed in
        approval_status(edited, _trusted(officer),
                        digest=plan_digest(approved))  # type: ignore[call-arg]


def test_a_plan_file_that_is_a_link_says_what_the_reviewer_can_do(tmp_path: Path) -> None:
    """The reviewer never chose the plan file's name: "choose another name" gave them
    nothing to do. A link is still never replaced (nothing is logged or written); the
    refusal names the file it points to, which they can review instead."""
    real = tmp_path / "real-plan.json"
    real.write_text(demo_plan_path().read_text())
    link = tmp_path / "plan.json"
    link.symlink_to(real)
    audit = AuditLog(tmp_path / "audit.jsonl")
    before = real.read_bytes()
    with pytest.raises(InputError) as refused:
        record_review(link, load_plan(link), "Ada", "approved", "", audit)
    text = str(refused.value)
    assert text.startswith("plan.json: is a symbolic link")
    assert "another name" not in text
    assert f"review {real} instead" in text
    assert real.read_bytes() == before and link.is_symlink()
    assert not (tmp_path / "audit.jsonl").exists() or audit.read() == []
    # the file it points to takes the decision
    reviewed = record_review(real, load_plan(real), "Ada", "approved", "", audit)
    assert load_plan(real).approvals == reviewed.approvals


def test_a_plan_file_that_is_a_pipe_says_to_review_a_copy(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)
    plan = load_plan(demo_plan_path())
    with pytest.raises(InputError) as refused:
        record_review(fifo, plan, "Ada", "approved", "", AuditLog(tmp_path / "audit.jsonl"))
    text = str(refused.value)
    assert text.startswith("plan.json: is a pipe (FIFO)") and "another name" not in text
    assert "copy" in text and "regular file" in text
