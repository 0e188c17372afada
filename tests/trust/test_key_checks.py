"""The reviewers' findings on keys and approvals (issue 12): a key id can be copied, so a key
is compared by a hash of the key itself and matched by its full bytes; a rejection cannot be
undone by reordering the list; an unsigned entry names no key; key folders are private; a
release whose key is lost can be completed unsigned; messages name the right option."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.planfile import load_plan, plan_from_dict, plan_to_dict
from planner_app.core.records.keys import KeyStore, PublicKey, verify_signature
from planner_app.core.records.review import ApprovalStatus, approval_status, review
from planner_app.core.release.signing import approval_words
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import AppHome, app_home
from planner_app.core.support.resources import demo_plan_path

TWO_KEYS = ("ada", "mallory")


@pytest.fixture
def officer(tmp_path: Path) -> KeyStore:
    store = KeyStore(app_home(tmp_path / "officer"))
    for name in TWO_KEYS:
        store.create(name)
    return store


def run(args: list[str], home: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def expected_hash(key: bytes) -> str:
    """The key hash as the docs define it: the first 80 bits of SHA-256 of the 32-byte key,
    hex in groups of four."""
    digest = hashlib.sha256(key).hexdigest()[:20]
    return " ".join(digest[i:i + 4] for i in range(0, 20, 4))


# ----------------------------------------------------------------------------- 1: key hash


def test_a_key_hash_is_derived_from_the_key_not_its_id(officer: KeyStore) -> None:
    ada, mallory = officer.public("ada"), officer.public("mallory")
    forged = PublicKey(ada.key_id, mallory.key, "ada")  # ada's id on mallory's key
    assert forged.fingerprint == ada.fingerprint
    assert ada.key_hash == expected_hash(ada.key)
    assert forged.key_hash == expected_hash(mallory.key) != ada.key_hash


def test_two_trusted_keys_with_one_id_are_both_tried(officer: KeyStore) -> None:
    ada, mallory = officer.public("ada"), officer.public("mallory")
    forged = PublicKey(ada.key_id, mallory.key, "forged")
    signature = officer.secret("ada").sign(b"data", "comment")
    assert verify_signature(b"data", signature, [forged, ada]).key == ada
    plan = review(load_plan(demo_plan_path()), "Ada", "approved", key=officer.secret("ada"))
    status = approval_status(plan, [forged, ada])
    assert status.state == "approved" and status.signer == ada
    # and mallory signing under ada's id is not ada: the forged key is the only one that
    # verifies, so a person who trusted only ada's real key refuses it
    plan = review(load_plan(demo_plan_path()), "Ada", "approved", key=officer.secret("ada"))
    assert approval_status(plan, [forged]).state == "unverified"


def test_keys_commands_show_the_key_hash(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    home, other = tmp_path / "home", tmp_path / "other"
    code, out, _ = run(["keys", "new", "ada"], home, capsys)
    key = KeyStore(app_home(home)).public("ada")
    assert code == 0 and expected_hash(key.key) in out
    code, out, _ = run(["keys", "list", "--json"], home, capsys)
    assert json.loads(out)["keys"][0]["key_hash"] == expected_hash(key.key)
    code, out, _ = run(["keys", "export", "ada", "--out", str(tmp_path / "ada.pub")], home,
                       capsys)
    assert expected_hash(key.key) in out
    code, out, _ = run(["keys", "trust", str(tmp_path / "ada.pub")], other, capsys)
    assert code == 0 and expected_hash(key.key) in out and "compare this with the owner's" \
        in out.lower()
    code, out, _ = run(["keys", "list"], other, capsys)
    assert expected_hash(key.key) in out
    code, out, _ = run(["keys", "list", "--json"], other, capsys)
    assert json.loads(out)["trusted"][0]["key_hash"] == expected_hash(key.key)


# ----------------------------------------------------------------------------- 2: order


def _decision(plan: Any, store: KeyStore, decision: str, when: str,
              monkeypatch: pytest.MonkeyPatch) -> Any:
    import planner_app.core.records.review as review_module

    monkeypatch.setattr(review_module, "utc_now", lambda: when)
    return review(plan, "Ada", decision, "why", key=store.secret("ada"))


def test_reordering_the_approvals_cannot_undo_a_signed_rejection(
        officer: KeyStore, monkeypatch: pytest.MonkeyPatch) -> None:
    plan = load_plan(demo_plan_path())
    plan = _decision(plan, officer, "approved", "2026-01-01T10:00:00Z", monkeypatch)
    plan = _decision(plan, officer, "rejected", "2026-01-02T10:00:00Z", monkeypatch)
    approve, reject = plan.approvals
    trusted = [officer.public("ada")]
    assert approval_status(plan, trusted).state == "rejected"
    swapped = replace(plan, approvals=(reject, approve))  # the owner moves it up the list
    assert approval_status(swapped, trusted).state == "rejected"
    assert approval_status(swapped).state == "rejected"  # without keys: the same order


def test_at_the_same_time_a_rejection_wins(officer: KeyStore,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    plan = load_plan(demo_plan_path())
    plan = _decision(plan, officer, "rejected", "2026-01-01T10:00:00Z", monkeypatch)
    plan = _decision(plan, officer, "approved", "2026-01-01T10:00:00Z", monkeypatch)
    assert approval_status(plan, [officer.public("ada")]).state == "rejected"


# ----------------------------------------------------------------------------- 3: unsigned


def test_an_unsigned_entry_cannot_name_a_key(officer: KeyStore) -> None:
    plan = review(load_plan(demo_plan_path()), "Ada", "approved")
    doc = plan_to_dict(plan)
    doc["approvals"][-1]["key_fingerprint"] = officer.public("ada").fingerprint
    with pytest.raises(InputError, match=r"approvals\[0\].key_fingerprint.*without a "
                                         "signature"):
        plan_from_dict(doc, "plan.json")


def test_an_unsigned_approval_is_reported_unsigned_whatever_key_it_names(
        officer: KeyStore) -> None:
    fingerprint = officer.public("ada").fingerprint
    plan = review(load_plan(demo_plan_path()), "Ada", "approved")
    entry = {**plan.approvals[-1], "key_fingerprint": fingerprint, "public_key": "x"}
    status = ApprovalStatus("approved", entry, entry["plan_sha256"])
    record = status.to_record()
    assert record is not None and record["key_fingerprint"] is None \
        and record["public_key"] is None and record["signed"] is False
    words = approval_words({**entry, "verified": False})
    assert "unsigned" in words and fingerprint not in words


def test_a_verified_approval_says_whose_trust(officer: KeyStore) -> None:
    ada = officer.public("ada")
    plan = review(load_plan(demo_plan_path()), "Ada", "approved", key=officer.secret("ada"))
    record = approval_status(plan, [ada]).to_record()
    words = approval_words(record)
    assert f"verified at release against a key the data owner trusted (ada, key " \
           f"{ada.fingerprint})" in words


# ----------------------------------------------------------------------------- 4: folders


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_key_folders_are_private(tmp_path: Path, officer: KeyStore) -> None:
    assert stat.S_IMODE(officer.keys_dir.stat().st_mode) == 0o700
    officer.trust(officer.keys_dir / "ada.pub", "ada-self")
    assert stat.S_IMODE(officer.trusted_dir.stat().st_mode) == 0o700
    home = app_home(tmp_path / "loose").ensure()
    (home.data_dir / "keys").mkdir(mode=0o755)
    os.chmod(home.data_dir / "keys", 0o755)
    KeyStore(home).create("k")
    assert stat.S_IMODE((home.data_dir / "keys").stat().st_mode) == 0o700


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_a_keys_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    home = app_home(tmp_path / "linked").ensure()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home.data_dir / "keys").symlink_to(elsewhere)
    with pytest.raises(InputError, match="symbolic link"):
        KeyStore(home).create("k")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_readable_private_key_gets_a_one_line_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    assert run(["keys", "new", "ada"], home, capsys)[0] == 0
    secret = app_home(home).data_dir / "keys" / "ada.key"
    code, out, _ = run(["keys", "list"], home, capsys)
    assert "can be read by other users" not in out
    os.chmod(secret, 0o644)
    code, out, _ = run(["keys", "list"], home, capsys)
    assert code == 0 and f"chmod 600 {secret}" in out
    plan = tmp_path / "plan.json"
    plan.write_bytes(demo_plan_path().read_bytes())
    code, _, err = run(["review", str(plan), "--approve", "--key", "ada"], home, capsys)
    assert code == 0 and [ln for ln in err.splitlines() if "other users" in ln] == \
        [ln for ln in err.splitlines() if "chmod 600" in ln] != []


# ----------------------------------------------------------------------------- 6: messages


def test_a_wrong_passphrase_names_the_option_that_chose_the_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("PLANNER_APP_PASSPHRASE", "right one")
    assert run(["keys", "new", "owner", "--passphrase"], home, capsys)[0] == 0
    monkeypatch.setenv("PLANNER_APP_PASSPHRASE", "wrong one")
    plan = tmp_path / "plan.json"
    plan.write_bytes(demo_plan_path().read_bytes())
    table = tmp_path / "t.csv"
    table.write_text("x\n1\n")
    code, _, err = run(["release", str(plan), "--data", str(table), "--out",
                        str(tmp_path / "b.zip"), "--sign-with", "owner"], home, capsys)
    assert code == 2 and "--sign-with: the passphrase of key 'owner' is wrong" in err
    assert "--key" not in err
    # the app names no option at all
    with pytest.raises(InputError) as info:
        KeyStore(app_home(home)).secret("owner", lambda _n: "wrong", None)
    assert str(info.value).startswith("the passphrase of key 'owner' is wrong")


def test_trust_with_a_bad_name_names_the_option_and_a_valid_form(
        tmp_path: Path, officer: KeyStore, capsys: pytest.CaptureFixture[str]) -> None:
    pub = officer.export("ada", tmp_path / "ada.pub")
    code, _, err = run(["keys", "trust", str(pub), "--name", "Ada Officer"],
                       tmp_path / "home", capsys)
    assert code == 2 and "--name" in err and "ada-officer" in err and "NAME:" not in err


def test_the_private_key_file_shows_the_fingerprint(officer: KeyStore) -> None:
    text = (officer.keys_dir / "ada.key").read_text()
    ada = officer.public("ada")
    header = text.split("-----BEGIN")[0]
    # minisign's fingerprint: the key id read as a little-endian number, upper-case hex
    assert f"fingerprint: {int.from_bytes(ada.key_id, 'little'):X}" in header
    assert ada.key_id.hex() not in header


# ----------------------------------------------------------------------------- 5: resume


def test_a_signed_release_whose_key_is_lost_completes_unsigned(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from planner_app.core.records.ledger import Ledger
    from planner_app.core.release.bundle import RECORD, SIGNATURE, read_bundle
    from planner_app.core.release.verify_release import verify_bundle

    from .test_signed_bundles import PASSPHRASE
    from .test_signed_resume import unfinished

    home: AppHome = app_home(tmp_path / "home").ensure()
    KeyStore(home).create("guarded", PASSPHRASE)
    release_id, out, saved = unfinished(home, tmp_path, monkeypatch)
    for suffix in (".key", ".pub"):  # the key is lost
        (home.data_dir / "keys" / f"guarded{suffix}").unlink()
    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    code, _, err = run(["release", "--resume", release_id], tmp_path / "home", capsys)
    assert code == 2 and "--unsigned" in err and not out.exists()
    code, _, err = run(["release", "--resume", release_id, "--unsigned"], tmp_path / "home",
                       capsys)
    assert code == 0, err
    files = read_bundle(out)
    record = json.loads(files[RECORD])
    assert "signed_by" not in record and SIGNATURE not in files
    assert record["results"] == saved["record"]["results"]  # no new noise
    assert {k: v for k, v in saved["record"].items() if k != "signed_by"} == record
    rows = [(r.id, r.status) for r in Ledger(home.ledger_path).state("signed-test").releases]
    assert rows == [(release_id, "completed")]  # one charge
    assert verify_bundle(out).valid
    events = [json.loads(line) for line in home.audit_path.read_text().splitlines()]
    unsigned = [e for e in events if "unsigned" in json.dumps(e)]
    assert unsigned and unsigned[0]["params"]["release_id"] == release_id


# ----------------------------------------------------------------------------- 7: diff


def _plans(tmp_path: Path, approvals_by: KeyStore | None = None) -> tuple[Path, Path]:
    """An old plan and a new one approved (unsigned, or signed with ``approvals_by``'s ada)."""
    old = load_plan(demo_plan_path())
    new = replace(old, queries=old.queries[:-1])
    key = approvals_by.secret("ada") if approvals_by is not None else None
    new = review(new, "Ada", "approved", key=key)
    from planner_app.core.planfile import plan_to_json

    (tmp_path / "old.json").write_text(plan_to_json(old))
    (tmp_path / "new.json").write_text(plan_to_json(new))
    return tmp_path / "old.json", tmp_path / "new.json"


def test_diff_checks_approvals_against_the_keys_release_requires(
        tmp_path: Path, officer: KeyStore, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = _plans(tmp_path)
    home = tmp_path / "owner"
    ada_pub = officer.export("ada", tmp_path / "ada.pub")
    # no keys anywhere: the unsigned approval counts, and says what it is worth
    code, out, _ = run(["diff", str(old), str(new), "--json"], home, capsys)
    approval = json.loads(out)["approval"]
    assert code == 0 and approval["new_state"] == "approved"
    assert "anyone could have written it" in approval["new"]
    # --trust FILE: an unsigned approval is not one release would accept
    code, out, _ = run(["diff", str(old), str(new), "--json", "--trust", str(ada_pub)], home,
                       capsys)
    assert code == 0 and json.loads(out)["approval"]["new_state"] == "unverified"
    # the app home's trusted keys, as check and release use them
    KeyStore(app_home(home)).trust(ada_pub)
    code, out, _ = run(["diff", str(old), str(new), "--json"], home, capsys)
    assert json.loads(out)["approval"]["new_state"] == "unverified"
    code, out, _ = run(["diff", str(old), str(new)], home, capsys)
    assert "No decision verifies against a trusted key" in out
    # and a signed approval by ada counts
    old, new = _plans(tmp_path, officer)
    code, out, _ = run(["diff", str(old), str(new), "--json"], home, capsys)
    assert json.loads(out)["approval"]["new_state"] == "approved"


# ----------------------------------------------------------------------------- 8: check


def test_check_warns_that_an_unverified_approval_proves_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, new = _plans(tmp_path)
    code, out, _ = run(["check", str(new), "--require-approval"], tmp_path / "home", capsys)
    assert code == 0
    [line] = [ln for ln in out.splitlines() if "Approval:" in ln]
    assert line.strip().startswith("warn") and "anyone could have written it" in line
    assert "keys trust" in line and "--trust" in line


# ----------------------------------------------------------------------------- 10: hints


def test_a_signed_release_names_the_real_bundle_and_the_export(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from .test_signed_bundles import small_plan

    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    home = tmp_path / "home"
    assert run(["keys", "new", "owner"], home, capsys)[0] == 0
    table = tmp_path / "t.csv"
    table.write_text("colour\n" + "red\nblue\n" * 40)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(small_plan()))
    code, out, err = run(["release", str(plan), "--data", str(table), "--out",
                          str(tmp_path / "march.zip"), "--sign-with", "owner"], home, capsys)
    assert code == 0, err
    assert "planner-app verify march.zip --trust owner.pub" in out
    assert "planner-app keys export owner --out owner.pub" in out
    assert "BUNDLE.zip" not in out


def test_verify_tries_every_trusted_key_with_the_signatures_id(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from planner_app.core.release.verify_release import verify_bundle

    from .test_signed_bundles import small_plan

    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    home = tmp_path / "home"
    assert run(["keys", "new", "owner"], home, capsys)[0] == 0
    assert run(["keys", "new", "other"], home, capsys)[0] == 0
    table = tmp_path / "t.csv"
    table.write_text("colour\n" + "red\nblue\n" * 40)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(small_plan()))
    out = tmp_path / "b.zip"
    assert run(["release", str(plan), "--data", str(table), "--out", str(out),
                "--sign-with", "owner"], home, capsys)[0] == 0
    store = KeyStore(app_home(home))
    owner, other = store.public("owner"), store.public("other")
    forged = PublicKey(owner.key_id, other.key, "forged")  # the owner's id, another key
    assert verify_bundle(out, trusted=[forged, owner]).origin["origin_proven"]
    assert not verify_bundle(out, trusted=[forged]).valid


def test_the_installed_policy_folder_is_private(tmp_path: Path) -> None:
    """The policy folder holds what binds the owner: like keys/ and trusted/, only its owner
    may change it (another local user could otherwise swap it)."""
    import json
    import stat as st

    from planner_app.core.records.policy import PolicyStore, sign_policy

    officer = KeyStore(app_home(tmp_path / "officer"))
    officer.create("ada")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"format": "planner-app/policy@1", "version": 1,
                                  "name": "Office"}))
    sign_policy(policy, officer.secret("ada"))
    store = PolicyStore(app_home(tmp_path / "owner"))
    store.install(policy, officer.public("ada"))
    assert st.S_IMODE(os.stat(store.folder).st_mode) == 0o700


def test_the_review_status_does_not_repeat_the_latest_entry(tmp_path: Path) -> None:
    """With trusted keys, the review window's status said what the checked rule finds and
    then, in parentheses, the same latest entry again; it names each decision once."""
    from planner_app.core.records.review import review_status_words

    store = KeyStore(app_home(tmp_path / "h"))
    store.create("owner")
    store.create("ada")
    plan = review(load_plan(demo_plan_path()), "owner", "approved",
                  key=store.secret("owner"))
    words = review_status_words(plan, [store.public("ada")])
    assert words.startswith("A release here accepts only decisions signed with a trusted key")
    assert words.count("owner on ") == 1, words
    assert "not a trusted key" in words
