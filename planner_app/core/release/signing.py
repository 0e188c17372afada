"""Signed bundles: the owner's key signs the bundle's manifest, so that a recipient who trusts
only the owner's public key can prove who released it.

A signed bundle holds ``MANIFEST.sha256.minisig``, a minisign signature (records/keys.py) of
the exact bytes of ``MANIFEST.sha256``, whose trusted comment names the signer, the key's
fingerprint, the release id and the release's recorded time (``created_utc``: never a finer
time than the record publishes). ``release.json`` names the signer in ``signed_by`` (the key's
name, fingerprint and public key line: public, the same for any data). Since the manifest
lists the SHA-256 of every other file, the signature covers them all; a number changed with
every hash recomputed changes the manifest, and the signature no longer verifies.

Two checks, both in ``check_origin``:

* without trusted keys: the signature must verify against the key ``signed_by`` names (the
  bundle is consistent), but that proves nothing about who made it: anyone can sign a bundle
  with a key of their own and name it in ``signed_by``. Verify says so (integrity only).
* with trusted keys (``verify --trust OWNER.pub``): the signature must verify against one of
  them, else the bundle is not valid, and the problem names the signature file and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..records.keys import (
    PublicKey,
    SecretKey,
    parse_public_key,
    parse_signature,
    verify_signature,
)
from ..records.review import approval_payload
from ..support.errors import PlannerError
from .bundle import MANIFEST, RECORD, SIGNATURE, bundle_json


def signed_by_entry(key: SecretKey) -> dict[str, str]:
    """release.json's ``signed_by``: public facts of the key, the same for any data."""
    return {"name": key.name, "fingerprint": key.public.fingerprint,
            "public_key": key.public.line}


def trusted_comment(record: dict[str, Any]) -> str:
    """The signature's trusted comment (signed too): signer, key, release and its time."""
    signer = record["signed_by"]
    return (f"planner-app release {record['release_id']} of {record['created_utc']} signed by "
            f"{signer['name']} (key {signer['fingerprint']})")


def sign_manifest(key: SecretKey, manifest: bytes, record: dict[str, Any]) -> bytes:
    """The text of MANIFEST.sha256.minisig for these manifest bytes. Ed25519 is deterministic:
    the same key, manifest and record give the same signature."""
    signer = record.get("signed_by")
    if not isinstance(signer, dict) or signer.get("fingerprint") != key.public.fingerprint:
        raise PlannerError(f"the release names {_who(signer)} as its signer, not the key "
                           f"{key.name} ({key.public.fingerprint})")
    return key.sign(manifest, trusted_comment(record),
                    untrusted_comment=f"signature of {MANIFEST} by planner-app key {key.name} "
                                      f"({key.public.fingerprint})").encode("utf-8")


def recorded_signer(record: dict[str, Any]) -> str | None:
    """The name of the key a (saved) release record says signs it, or None."""
    signer = record.get("signed_by")
    name = signer.get("name") if isinstance(signer, dict) else None
    return name if isinstance(name, str) else None


def _who(signer: Any) -> str:
    if not isinstance(signer, dict):
        return "no signer" if signer is None else "a signer"
    return f"{signer.get('name')!s} (key {signer.get('fingerprint')!s})"


# ----------------------------------------------------------------------------- verifying


def _claimed_key(signer: Any) -> PublicKey | str:
    """The public key ``signed_by`` names, or why it cannot be read."""
    if not isinstance(signer, dict) or not all(isinstance(signer.get(k), str) for k in
                                               ("name", "fingerprint", "public_key")):
        return f"{RECORD}: signed_by must hold the text fields name, fingerprint, public_key"
    try:
        key = parse_public_key(signer["public_key"], f"{RECORD} signed_by", signer["name"])
    except PlannerError as exc:
        return str(exc)
    if key.fingerprint != signer["fingerprint"]:
        return (f"{RECORD}: signed_by names the fingerprint {signer['fingerprint']}, but its "
                f"public key is key {key.fingerprint}")
    return key


def _other_key_with_the_id(manifest: bytes, sig_text: str, given: Sequence[PublicKey],
                           claimed: PublicKey | str | None) -> PublicKey | None:
    """The bundle's own named key when it, and not the key(s) ``given`` under the same id,
    verifies the signature: then the manifest was not changed, the key given is another."""
    if not isinstance(claimed, PublicKey) or any(k.key == claimed.key for k in given):
        return None
    try:
        verify_signature(manifest, sig_text, [claimed], SIGNATURE)
    except PlannerError:
        return None
    return claimed


def check_origin(files: dict[str, bytes],
                 trusted: Sequence[PublicKey] = ()) -> tuple[dict[str, Any], list[str]]:
    """What the bundle's signature proves: (origin fields for the verdict, problems).

    The origin fields: ``signed`` (the bundle has a signature), ``signer`` and
    ``fingerprint`` (the key that signed, as the bundle claims it), ``trusted_comment``,
    ``checked_against`` (fingerprints of the trusted keys given), ``origin_proven`` (the
    signature verifies against one of them), ``trusted_signer`` (that key, as given)."""
    manifest = files.get(MANIFEST, b"")
    text = files.get(SIGNATURE)
    try:
        record = bundle_json(files[RECORD]) if RECORD in files else {}
    except (UnicodeDecodeError, ValueError, RecursionError):
        record = {}  # the contents check names it
    signer = record.get("signed_by") if isinstance(record, dict) else None
    origin: dict[str, Any] = {
        "signed": text is not None, "signer": None, "fingerprint": None,
        "trusted_comment": None, "checked_against": [k.fingerprint for k in trusted],
        "origin_proven": False, "trusted_signer": None}
    problems: list[str] = []
    trusted_words = ", ".join(k.describe() for k in trusted)
    if text is None:
        if signer is not None:
            problems.append(f"{SIGNATURE}: missing, but {RECORD} says {_who(signer)} signed "
                            "the bundle (the signature was removed)")
        if trusted:
            problems.append(f"{SIGNATURE}: missing: the bundle is not signed, so nothing "
                            f"shows it comes from {trusted_words}")
        return origin, problems
    try:
        sig_text = text.decode("utf-8")
        sig = parse_signature(sig_text, SIGNATURE)
    except (UnicodeDecodeError, PlannerError) as exc:
        problems.append(str(exc) if isinstance(exc, PlannerError) else
                        f"{SIGNATURE}: is not a minisign signature (not text)")
        return origin, problems
    origin["fingerprint"] = sig.fingerprint
    origin["trusted_comment"] = sig.trusted_comment
    claimed = _claimed_key(signer) if signer is not None else None
    if signer is None or claimed is None:
        problems.append(f"{SIGNATURE}: the bundle carries a signature by key {sig.fingerprint}"
                        f", but {RECORD} names no signer (signed_by); it was added or the "
                        "record changed")
    elif isinstance(claimed, str):
        problems.append(claimed)
    else:
        origin["signer"] = claimed.name
        if claimed.key_id != sig.key_id:
            problems.append(f"{SIGNATURE}: signed by key {sig.fingerprint}, but {RECORD} "
                            f"names {claimed.describe()} as the signer")
        elif any(k.key_id == claimed.key_id for k in trusted) and \
                not any(k.key == claimed.key for k in trusted):
            problems.append(f"{SIGNATURE}: {RECORD} names a public key with the id "
                            f"{claimed.fingerprint} but not the key you trust under that id "
                            f"(key hash {claimed.key_hash})")
    if trusted:
        matching = [k for k in trusted if k.key_id == sig.key_id]
        if not matching:
            problems.insert(0, f"{SIGNATURE}: signed by key {sig.fingerprint}"
                            + (f" (claimed signer {origin['signer']})" if origin["signer"]
                               else "")
                            + f", which is not a trusted key (trusted: {trusted_words}); "
                            "the bundle does not come from the owner you trust")
            return origin, problems
        checked_with = matching
    elif isinstance(claimed, PublicKey) and claimed.key_id == sig.key_id:
        checked_with = [claimed]
    else:
        return origin, problems
    try:
        verified = verify_signature(manifest, sig_text, checked_with, SIGNATURE)
    except PlannerError as exc:
        by = checked_with[0].describe()
        impostor = _other_key_with_the_id(manifest, sig_text, checked_with, claimed)
        if impostor is not None:  # the manifest is intact: the key given is not the signer's
            problems.insert(0, f"{SIGNATURE}: the signature does not verify against {by}, "
                            f"the key you trust with this id (key hash "
                            f"{checked_with[0].key_hash}): the bundle was signed by another key "
                            f"with the same id (key hash {impostor.key_hash}), so it does not "
                            "come from the owner you trust")
            return origin, problems
        problems.insert(0, f"{SIGNATURE}: its trusted comment was changed after signing (the "
                        f"signature by {by} does not cover it)" if "trusted comment" in str(exc)
                        else f"{SIGNATURE}: {MANIFEST} was changed after it was signed (the "
                        f"signature by {by} does not match it)")
        return origin, problems
    release_id = record.get("release_id") if isinstance(record, dict) else None
    if not isinstance(release_id, str) or release_id not in verified.trusted_comment:
        problems.append(f"{SIGNATURE}: its trusted comment names another release than "
                        f"{RECORD} ({verified.trusted_comment[:120]!r})")
    if trusted and not problems:
        origin["origin_proven"] = True
        origin["trusted_signer"] = verified.key.describe()
    return origin, problems


def origin_lines(origin: dict[str, Any], bundle: str = "BUNDLE.zip") -> list[str]:
    """What verify proved about who released the bundle, in words (CLI and app alike)."""
    fingerprint, signer = origin.get("fingerprint"), origin.get("signer")
    if origin.get("origin_proven"):
        return [f"origin proven: {MANIFEST} is signed by {origin.get('trusted_signer')}, a "
                "key you trust"]
    if origin.get("checked_against"):
        return [f"origin NOT proven: the signature does not verify against the trusted "
                f"key(s) {', '.join(origin['checked_against'])}"]
    lines = ["checked integrity only, not origin: these checks show the bundle is "
             "consistent, not who released it (anyone can rebuild a consistent bundle)"]
    if origin.get("signed") and fingerprint:
        name = signer or "?"
        lines.append(f"the bundle is signed by key {fingerprint}, which claims to be {name!r}; "
                     f"to prove it, get {name}'s public key from them and run: planner-app "
                     f"verify {bundle} --trust {name}.pub   (or unzip {MANIFEST} and "
                     f"{SIGNATURE} and run: minisign -Vm {MANIFEST} -p {name}.pub)")
    else:
        lines.append("the bundle is not signed, so nothing in it shows who released it")
    return lines


def signature_words(record: dict[str, Any]) -> str:
    """The report's answer to "who signed this release"."""
    signer = record.get("signed_by")
    if not isinstance(signer, dict):
        return ("not signed: nothing in the bundle shows who released it (ask the owner for a "
                "signed release)")
    name, fingerprint = signer.get("name"), signer.get("fingerprint")
    return (f"{name} (key {fingerprint}) signed {MANIFEST}, which lists the SHA-256 of every "
            f"file; check it against {name}'s public key: planner-app verify BUNDLE.zip --trust "
            f"{name}.pub, or unzip {MANIFEST} and {SIGNATURE} and run minisign -Vm {MANIFEST} "
            f"-p {name}.pub")


def approval_words(approval: Any) -> str:
    """The report's answer to "who approved this plan" (record["approval"]); a signed
    approval names its key's fingerprint and whether its signature verified."""
    if not isinstance(approval, dict):
        return "no approval recorded"
    text = (f"approved by {approval.get('reviewer', '?')} on {approval.get('time', '?')}"
            + (f" ({approval['comment']})" if approval.get("comment") else ""))
    fingerprint = approval.get("key_fingerprint")
    if not approval.get("signature"):  # a key named without a signature proves nothing
        return text + "; unsigned: anyone could have written it"
    if fingerprint:
        text += f"; signed with key {fingerprint}"
        if "verified" in approval:
            owner_key = approval.get("trusted_key")
            whose = f" ({owner_key}, key {fingerprint})" if owner_key else \
                f" (key {fingerprint})"
            text += (", signature verified at release against a key the data owner trusted"
                     + whose if approval.get("verified")
                     else ", signature NOT verified at release")
    return text


def check_approval(files: dict[str, bytes],
                   trusted: Sequence[PublicKey] = ()) -> tuple[str | None, list[str]]:
    """What the approval recorded in release.json proves: (a line for verify's checks, or
    None when there is no approval; problems). A signed approval must verify against the
    public key it carries and be for the plan the record names; it is *proven* to be the
    officer's only when that key is among ``trusted`` (the officer's public key, given to
    verify with --trust beside the owner's)."""
    try:
        record = bundle_json(files[RECORD]) if RECORD in files else {}
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, []  # the contents check names it
    approval = record.get("approval") if isinstance(record, dict) else None
    if not isinstance(approval, dict):
        return None, []
    who = str(approval.get("reviewer") or "?")
    text, line = approval.get("signature"), approval.get("public_key")
    if not text:
        return f"the approval by {who} is unsigned: nothing shows who approved", []
    where = f"{RECORD}: approval"
    if approval.get("plan_sha256") != record.get("plan_sha256"):
        return None, [f"{where}: is for another plan than the one released (its plan_sha256 "
                      "differs)"]
    try:
        own = parse_public_key(str(line or ""), where)
        verify_signature(approval_payload(approval), str(text), [own], where)
    except PlannerError as exc:
        return None, [f"{where}: its signature does not match it ({exc}); it was changed"]
    if own.fingerprint != approval.get("key_fingerprint"):
        return None, [f"{where}: its key_fingerprint is not the key that signed it"]
    officer = [k for k in trusted if k.key_id == own.key_id and k.key == own.key]
    if officer:
        return (f"the approval by {who} is signed by {officer[0].describe()}, a key you "
                "trust"), []
    return (f"the approval by {who} is signed by key {own.fingerprint}; not checked against "
            "a key you trust (add the officer's public key: --trust OFFICER.pub)"), []

