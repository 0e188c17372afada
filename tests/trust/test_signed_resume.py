"""A signed release that fails after its charge is completed (``release --resume``) with the
same key: no new noise, no new charge, the record as saved, the signature by the recorded
key. A missing key or a wrong passphrase fails before anything is written."""

from __future__ import annotations

import hashlib
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

import planner_app.core.release.publish as publish_module
from planner_app.cli import main
from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.keys import KeyStore
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.bundle import MANIFEST, RECORD, SIGNATURE, read_bundle
from planner_app.core.release.publish import ReleaseUnfinished
from planner_app.core.release.resume import pending_signer
from planner_app.core.release.signing import sign_manifest
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.home import AppHome, app_home
from tests.core.test_resume import failing_on_call

from .minisign_tool import minisign_verify
from .test_signed_bundles import PASSPHRASE, small_plan


@pytest.fixture
def home(tmp_path: Path) -> AppHome:
    home = app_home(tmp_path / "home").ensure()
    KeyStore(home).create("guarded", PASSPHRASE)
    KeyStore(home).create("other")
    return home


def unfinished(home: AppHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               key: str = "guarded") -> tuple[str, Path, dict[str, Any]]:
    """A release signed with ``key`` whose bundle failed after the charge."""
    table = tmp_path / "t.csv"
    table.write_text("colour\n" + "red\nblue\n" * 40)
    out = tmp_path / "r.zip"
    secret = KeyStore(home).secret(key, lambda _name: PASSPHRASE)
    monkeypatch.setattr(publish_module, "report_pdf",
                        failing_on_call(publish_module.report_pdf, 2))
    with pytest.raises(ReleaseUnfinished) as info:
        publish_module.publish(plan_from_dict(small_plan()), load_table(table), out, home,
                               sign_with=secret)
    monkeypatch.undo()
    assert not out.exists()
    [saved] = (home.data_dir / "pending").glob("*.json")
    return info.value.release_id, out, json.loads(saved.read_text())


def ledger_rows(home: AppHome) -> list[tuple[str, str]]:
    return [(r.id, r.status) for r in Ledger(home.ledger_path).state("signed-test").releases]


def test_a_signed_release_resumes_signed_by_the_same_key(
        home: AppHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    release_id, out, saved = unfinished(home, tmp_path, monkeypatch)
    assert saved["record"]["signed_by"]["name"] == "guarded"
    assert pending_signer(home, release_id) == "guarded"
    monkeypatch.setenv("PLANNER_APP_PASSPHRASE", PASSPHRASE)
    code = main(["--home", str(tmp_path / "home"), "release", "--resume", release_id])
    err = capsys.readouterr().err
    assert code == 0, err
    files = read_bundle(out)
    # the record as saved (its noised values, its signer): no new noise
    assert json.loads(files[RECORD]) == saved["record"]
    assert ledger_rows(home) == [(release_id, "completed")]  # one charge
    public = KeyStore(home).export("guarded", tmp_path / "guarded.pub")
    assert verify_bundle(out, trusted=[KeyStore(home).public("guarded")]).valid
    folder = tmp_path / "x"
    folder.mkdir()
    with zipfile.ZipFile(out) as zf:
        for name in (MANIFEST, SIGNATURE):
            (folder / name).write_bytes(zf.read(name))
    assert minisign_verify(public, folder / MANIFEST).returncode == 0
    # the same key signs the same manifest into the same bytes (Ed25519 is deterministic)
    secret = KeyStore(home).secret("guarded", lambda _name: PASSPHRASE)
    again = sign_manifest(secret, files[MANIFEST], saved["record"])
    assert again == files[SIGNATURE]


@pytest.mark.parametrize("env, args, why", [
    ("wrong", [], "passphrase of key 'guarded' is wrong"),
    (None, [], "PLANNER_APP_PASSPHRASE"),
    (None, ["--sign-with", "other"], "the same key must sign it"),
])
def test_a_resume_whose_key_cannot_be_used_writes_nothing(
        home: AppHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], env: str | None, args: list[str],
        why: str) -> None:
    release_id, out, _ = unfinished(home, tmp_path, monkeypatch)
    if env is None:
        monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    else:
        monkeypatch.setenv("PLANNER_APP_PASSPHRASE", env)
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest()
              for p in (home.ledger_path, home.audit_path)}
    code = main(["--home", str(tmp_path / "home"), "release", "--resume", release_id, *args])
    err = capsys.readouterr().err
    assert code == 2 and why in err and "Traceback" not in err
    assert not out.exists()
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in before} == before
    assert pending_signer(home, release_id) == "guarded"  # still there, to complete later
    assert ledger_rows(home) == [(release_id, "charged")]


def test_a_terminal_asks_the_passphrase_with_getpass(
        home: AppHome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import getpass

    asked: list[str] = []
    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(getpass, "getpass", lambda prompt: asked.append(prompt) or PASSPHRASE)
    table = tmp_path / "t.csv"
    table.write_text("colour\n" + "red\nblue\n" * 40)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(small_plan()))
    code = main(["--home", str(tmp_path / "home"), "release", str(plan), "--data", str(table),
                 "--out", str(tmp_path / "b.zip"), "--sign-with", "guarded"])
    assert code == 0, capsys.readouterr().err
    assert asked == ["Passphrase of key guarded: "]
    assert verify_bundle(tmp_path / "b.zip", trusted=[KeyStore(home).public("guarded")]).valid
