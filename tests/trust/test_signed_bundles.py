"""Signed bundles (issue 12): ``release --sign-with NAME`` signs MANIFEST.sha256, and
``verify --trust OWNER.pub`` proves who released a bundle. Compatibility with the independent
``minisign`` tool is checked by running it; a forger who recomputes every hash is caught."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.keys import KeyStore, SecretKey
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.bundle import MANIFEST, RECORD, SIGNATURE, read_bundle
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.home import AppHome, app_home
from tests.conftest import plan_dict, with_reasons

from .forge import DROP, forge
from .minisign_tool import minisign_verify

PASSPHRASE = "correct horse battery staple"


def small_plan() -> dict[str, Any]:
    return with_reasons(plan_dict(
        dataset={"name": "signed-test"},
        budget={"epsilon": 1.0, "delta": 0.0},
        queries=[{"id": "n", "kind": "count", "epsilon": 0.5},
                 {"id": "by_colour", "kind": "histogram", "column": "colour",
                  "categories": ["red", "blue"], "epsilon": 0.5}]))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An owner's app home with an open key and a protected one, a forger's home with a key
    of their own, exported public keys, and one bundle signed by the owner."""
    folder = tmp_path_factory.mktemp("signed")
    owner_home = app_home(folder / "owner-home").ensure()
    store = KeyStore(owner_home)
    store.create("owner")
    store.create("guarded", PASSPHRASE)
    forger = KeyStore(app_home(folder / "forger-home").ensure())
    forger.create("owner")  # the same name, another key
    table = folder / "t.csv"
    table.write_text("colour\n" + "red\nblue\n" * 40)
    plan = folder / "plan.json"
    plan.write_text(json.dumps(small_plan()))
    bundle = folder / "signed.zip"
    publish(plan_from_dict(small_plan()), load_table(table), bundle, owner_home,
            sign_with=store.secret("owner"))
    unsigned = folder / "unsigned.zip"
    publish(plan_from_dict(small_plan()), load_table(table), unsigned, owner_home)
    return {"folder": folder, "home": owner_home, "store": store, "table": table,
            "plan": plan, "bundle": bundle, "unsigned": unsigned,
            "owner_pub": store.export("owner", folder / "owner.pub"),
            "guarded_pub": store.export("guarded", folder / "guarded.pub"),
            "forger": forger.secret("owner"),
            "forger_pub": forger.export("owner", folder / "forger.pub")}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def extract(bundle: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(bundle) as zf:
        for name in (MANIFEST, SIGNATURE):
            if name in zf.namelist():
                (folder / name).write_bytes(zf.read(name))
    return folder / MANIFEST


def state_of(home: AppHome, *paths: Path) -> dict[str, str | None]:
    """The ledger, the audit log and the given paths, by content (None: absent)."""
    out: dict[str, str | None] = {}
    for p in (home.ledger_path, home.audit_path, *paths):
        out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None
    return out


# ----------------------------------------------------------------------------- the good path


def test_a_signed_bundle_verifies_with_minisign_and_with_trust(
        world: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = world["bundle"]
    files = read_bundle(bundle)
    record = json.loads(files[RECORD])
    key = world["store"].public("owner")
    assert record["signed_by"] == {"name": "owner", "fingerprint": key.fingerprint,
                                   "public_key": key.line}
    assert list(files)[-2:] == [MANIFEST, SIGNATURE]  # the signature after the manifest
    assert SIGNATURE not in files[MANIFEST].decode()  # a manifest cannot list its signature
    manifest = extract(bundle, tmp_path / "x")
    done = minisign_verify(world["owner_pub"], manifest)  # the independent tool
    assert done.returncode == 0, done.stderr
    comment = next(line for line in done.stdout.splitlines()
                   if line.startswith("Trusted comment:"))
    # signer, fingerprint, release id and the record's own time: nothing finer
    for part in ("owner", key.fingerprint, record["release_id"], record["created_utc"]):
        assert part in comment
    code, out, err = run(["verify", str(bundle), "--trust", str(world["owner_pub"])], capsys)
    assert code == 0, err
    assert "origin proven" in out and key.fingerprint in out
    assert "integrity only" not in out


def test_without_trust_verify_says_integrity_only_and_how_to_check(
        world: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    fingerprint = world["store"].public("owner").fingerprint
    code, out, _ = run(["verify", str(world["bundle"])], capsys)
    assert code == 0
    assert "integrity only, not origin" in out
    assert fingerprint in out and "'owner'" in out
    assert "--trust owner.pub" in out and "minisign -Vm MANIFEST.sha256 -p owner.pub" in out
    code, out, _ = run(["verify", str(world["unsigned"])], capsys)
    assert code == 0 and "integrity only, not origin" in out and "not signed" in out
    code, out, _ = run(["verify", str(world["bundle"]), "--json"], capsys)
    doc = json.loads(out)
    assert doc["valid"] is True
    assert doc["origin"]["signed"] is True and doc["origin"]["fingerprint"] == fingerprint
    assert doc["origin"]["signer"] == "owner" and doc["origin"]["origin_proven"] is False
    assert any("integrity only" in line for line in doc["origin_words"])
    code, out, _ = run(["verify", str(world["bundle"]), "--json", "--trust",
                        str(world["owner_pub"])], capsys)
    doc = json.loads(out)
    assert doc["origin"]["origin_proven"] is True
    assert doc["origin"]["checked_against"] == [fingerprint]


def test_the_report_and_readme_name_the_signer(world: dict[str, Any]) -> None:
    files = read_bundle(world["bundle"])
    fingerprint = world["store"].public("owner").fingerprint
    html = files["report.html"].decode()
    assert "Signed by" in html and fingerprint in html
    readme = files["README.txt"].decode()
    assert SIGNATURE in readme and "--trust owner.pub" in readme
    from io import BytesIO

    from pypdf import PdfReader

    text = " ".join(page.extract_text() for page in PdfReader(BytesIO(files["report.pdf"])).pages)
    assert fingerprint in text.replace("\n", "")
    unsigned = read_bundle(world["unsigned"])["report.html"].decode()
    assert "not signed" in unsigned


# ----------------------------------------------------------------------------- forgeries


def test_a_changed_number_with_every_hash_recomputed_fails_both_checks(
        world: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged = tmp_path / "forged.zip"
    forge(world["bundle"], forged)  # results.csv, release.json, reports, seal, manifest
    before = json.loads(read_bundle(world["bundle"])[RECORD])["results"]
    after = json.loads(read_bundle(forged)[RECORD])["results"]
    assert before != after
    manifest = extract(forged, tmp_path / "x")
    assert minisign_verify(world["owner_pub"], manifest).returncode != 0
    code, _, err = run(["verify", str(forged), "--trust", str(world["owner_pub"])], capsys)
    assert code == 1
    assert SIGNATURE in err and "changed after it was signed" in err
    # the bundle's own checks alone would pass: only the signature tells
    unsigned_forgery = tmp_path / "unsigned-forgery.zip"
    forge(world["bundle"], unsigned_forgery, signature=DROP, signed_by=DROP)
    assert verify_bundle(unsigned_forgery).valid
    verdict = verify_bundle(unsigned_forgery, trusted=[world["store"].public("owner")])
    assert not verdict.valid and SIGNATURE in verdict.problems[0]


def test_a_bundle_signed_by_another_key_names_its_fingerprint(
        world: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forger: SecretKey = world["forger"]
    forged = tmp_path / "resigned.zip"
    forge(world["bundle"], forged, signature=forger, signed_by=forger)
    manifest = extract(forged, tmp_path / "x")
    assert minisign_verify(world["owner_pub"], manifest).returncode != 0
    assert minisign_verify(world["forger_pub"], manifest).returncode == 0
    code, out, _ = run(["verify", str(forged)], capsys)  # consistent, so integrity passes
    assert code == 0 and "integrity only" in out and forger.public.fingerprint in out
    code, _, err = run(["verify", str(forged), "--trust", str(world["owner_pub"])], capsys)
    assert code == 1 and SIGNATURE in err and forger.public.fingerprint in err
    assert "not a trusted key" in err


def test_the_wrong_owner_key_fails_naming_the_signers_fingerprint(
        world: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["verify", str(world["bundle"]), "--trust", str(world["guarded_pub"])],
                       capsys)
    assert code == 1
    assert world["store"].public("owner").fingerprint in err and SIGNATURE in err


def test_an_unsigned_bundle_fails_with_trust(world: dict[str, Any],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["verify", str(world["unsigned"]), "--trust", str(world["owner_pub"])],
                       capsys)
    assert code == 1 and SIGNATURE in err and "not signed" in err


def test_two_trusted_keys_accept_either(world: dict[str, Any],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["verify", str(world["bundle"]), "--trust", str(world["guarded_pub"]),
                          "--trust", str(world["owner_pub"])], capsys)
    assert code == 0, err
    assert "origin proven" in out


# ----------------------------------------------------------------------------- before the charge


@pytest.mark.parametrize("key, passphrase, why", [
    ("nobody", None, "no key named 'nobody'"),
    ("guarded", "wrong", "passphrase of key 'guarded' is wrong"),
    ("guarded", None, "PLANNER_APP_PASSPHRASE"),
    ("../x", None, "not a key name"),
])
def test_a_key_that_cannot_be_used_costs_nothing(
        world: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], key: str, passphrase: str | None,
        why: str) -> None:
    home: AppHome = world["home"]
    out = tmp_path / "b.zip"
    if passphrase is None:
        monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    else:
        monkeypatch.setenv("PLANNER_APP_PASSPHRASE", passphrase)
    before = state_of(home, out)
    releases = len(Ledger(home.ledger_path).state("signed-test").releases)
    code, _, err = run(["--home", str(home.data_dir.parent), "release", str(world["plan"]),
                        "--data", str(world["table"]), "--out", str(out), "--sign-with", key],
                       capsys)
    assert code == 2, err
    assert why in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert state_of(home, out) == before
    assert len(Ledger(home.ledger_path).state("signed-test").releases) == releases
    assert list(tmp_path.iterdir()) == []


def test_a_protected_key_signs_with_its_passphrase(
        world: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PLANNER_APP_PASSPHRASE", PASSPHRASE)
    out = tmp_path / "b.zip"
    code, stdout, err = run(["--home", str(world["home"].data_dir.parent), "release",
                             str(world["plan"]), "--data", str(world["table"]), "--out",
                             str(out), "--sign-with", "guarded", "--json"], capsys)
    assert code == 0, err
    assert json.loads(stdout)["signed_by"]["name"] == "guarded"
    assert minisign_verify(world["guarded_pub"], extract(out, tmp_path / "x")).returncode == 0
    assert verify_bundle(out, trusted=[world["store"].public("guarded")]).valid


@pytest.mark.subprocess
def test_owner_and_recipient_on_two_app_homes_as_processes(tmp_path: Path) -> None:
    """The owner releases signed with a protected key in one app home (a process, the
    passphrase from the environment); a recipient with another app home and only the public
    key file proves the origin, and the independent minisign agrees."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    owner_home, recipient_home = tmp_path / "owner", tmp_path / "recipient"
    store = KeyStore(app_home(owner_home))
    store.create("owner", PASSPHRASE)
    public = store.export("owner", tmp_path / "owner.pub")
    table = tmp_path / "t.csv"
    table.write_text("colour\n" + "red\nblue\n" * 40)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(small_plan()))
    bundle = tmp_path / "b.zip"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PLANNER_APP_PASSPHRASE": PASSPHRASE}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "planner_app", *args], env=env,
                              capture_output=True, text=True, timeout=180, cwd=tmp_path,
                              stdin=subprocess.DEVNULL)

    done = cli("--home", str(owner_home), "release", str(plan), "--data", str(table), "--out",
               str(bundle), "--sign-with", "owner")
    assert done.returncode == 0, done.stderr
    env.pop("PLANNER_APP_PASSPHRASE")
    done = cli("--home", str(recipient_home), "verify", str(bundle), "--trust", str(public))
    assert done.returncode == 0, done.stderr
    assert "origin proven" in done.stdout
    assert minisign_verify(public, extract(bundle, tmp_path / "x")).returncode == 0
    forged = tmp_path / "forged.zip"
    forge(bundle, forged)
    done = cli("--home", str(recipient_home), "verify", str(forged), "--trust", str(public))
    assert done.returncode == 1 and SIGNATURE in done.stderr
    assert minisign_verify(public, extract(forged, tmp_path / "y")).returncode != 0


def test_an_impostor_key_with_the_owners_id_is_named_not_a_changed_manifest(
        world: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 22 part 6: a genuine bundle checked against another key that carries the owner's
    key id: the manifest was not changed, the signature does not verify against that key."""
    import dataclasses

    owner = world["store"].public("owner")
    impostor = dataclasses.replace(world["forger"].public, key_id=owner.key_id)
    assert impostor.fingerprint == owner.fingerprint and impostor.key != owner.key
    impostor_pub = tmp_path / "impostor.pub"
    impostor_pub.write_text(impostor.to_text())
    code, _, err = run(["verify", str(world["bundle"]), "--trust", str(impostor_pub)], capsys)
    assert code == 1
    assert "changed after it was signed" not in err
    assert (f"{SIGNATURE}: the signature does not verify against impostor (key "
            f"{owner.fingerprint}), the key you trust with this id (key hash "
            f"{impostor.key_hash}): the bundle was signed by another key with the same id (key "
            f"hash {owner.key_hash})") in err, err
    # a changed manifest is still named as such with the owner's own key
    verdict = verify_bundle(world["bundle"], trusted=[owner])
    assert verdict.valid and verdict.origin["origin_proven"]
