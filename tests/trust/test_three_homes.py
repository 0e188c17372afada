"""Issue 12's "done when", as three people on three app homes would do it: an officer signs
an approval (and a policy), an owner releases with --require-approval --trust officer.pub and
--sign-with owner, a recipient verifies with planner-app and with Debian's minisign; a number
changed with every hash recomputed fails both."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.records.audit import AuditLog
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_PLAN, DEMO_TABLE

from .forge import forge
from .minisign_tool import minisign_verify


def run(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["--home", str(home), *args])
    out, err = capsys.readouterr()
    return code, out, err


def files_of(home: Path) -> dict[str, bytes]:
    h = app_home(home)
    return {p.name: p.read_bytes() for p in (h.ledger_path, h.audit_path) if p.exists()}


@pytest.fixture
def homes(tmp_path: Path) -> dict[str, Path]:
    return {who: tmp_path / who for who in ("officer", "owner", "recipient")}


def test_officer_owner_recipient(homes: dict[str, Path], tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    officer, owner, recipient = homes["officer"], homes["owner"], homes["recipient"]
    shared = tmp_path / "shared"  # what the three hand each other
    shared.mkdir()
    # each makes a key and hands out the public half
    assert run(capsys, officer, "keys", "new", "ada")[0] == 0
    assert run(capsys, officer, "keys", "export", "ada", "--out",
               str(shared / "ada.pub"))[0] == 0
    assert run(capsys, owner, "keys", "new", "owner")[0] == 0
    assert run(capsys, owner, "keys", "export", "owner", "--out",
               str(shared / "owner.pub"))[0] == 0
    # the officer signs an approval of the owner's plan (the plan file travels)
    plan = shared / "plan.json"
    shutil.copyfile(DEMO_PLAN, plan)
    code, out, err = run(capsys, officer, "review", str(plan), "--approve", "--key", "ada",
                         "--comment", "bounds from the form")
    assert code == 0, err
    # the owner releases, requiring that approval and signing the bundle
    bundle = shared / "release.zip"
    code, out, err = run(capsys, owner, "release", str(plan), "--data", str(DEMO_TABLE),
                         "--out", str(bundle), "--require-approval", "--trust",
                         str(shared / "ada.pub"), "--sign-with", "owner")
    assert code == 0, err
    # the recipient checks who released it, with planner-app and with minisign
    code, out, err = run(capsys, recipient, "verify", str(bundle), "--trust",
                         str(shared / "owner.pub"))
    assert code == 0, out + err
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(bundle) as z:
        z.extract("MANIFEST.sha256", unpacked)
        z.extract("MANIFEST.sha256.minisig", unpacked)
        record = json.loads(z.read("release.json"))
    done = minisign_verify(shared / "owner.pub", unpacked / "MANIFEST.sha256")
    assert done.returncode == 0, done.stderr
    assert record["approval"]["verified"] is True
    assert record["approval"]["reviewer"] == "ada"
    # someone changes a released number and recomputes every hash: both checks fail
    forged = tmp_path / "forged.zip"
    forge(bundle, forged)  # a count moved, every hash, seal and report rebuilt to match
    code, out, err = run(capsys, recipient, "verify", str(forged), "--trust",
                         str(shared / "owner.pub"))
    assert code == 1 and "MANIFEST.sha256.minisig" in out + err
    with zipfile.ZipFile(forged) as z:
        (unpacked / "MANIFEST.sha256").write_bytes(z.read("MANIFEST.sha256"))
    assert minisign_verify(shared / "owner.pub", unpacked / "MANIFEST.sha256").returncode != 0


def test_a_policy_requires_the_officers_signature(homes: dict[str, Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The policy names the officer: an approval signed by anyone else (even a key the owner
    trusts) or unsigned is refused, exit 3, nothing charged or written; the officer's goes."""
    officer, owner = homes["officer"], homes["owner"]
    shared = tmp_path / "shared"
    shared.mkdir()
    run(capsys, officer, "keys", "new", "ada")
    run(capsys, officer, "keys", "export", "ada", "--out", str(shared / "ada.pub"))
    run(capsys, owner, "keys", "new", "owner")
    run(capsys, owner, "keys", "export", "owner", "--out", str(shared / "owner.pub"))
    ada = (shared / "ada.pub").read_text().splitlines()[1]
    policy = shared / "policy.json"
    policy.write_text(json.dumps({"format": "planner-app/policy@1", "version": 1,
                                  "name": "Test office",
                                  "require_approval_by": [{"name": "Ada", "key": ada}]}))
    assert run(capsys, officer, "policy", "sign", str(policy), "--key", "ada")[0] == 0
    code, _, err = run(capsys, owner, "policy", "install", str(policy), "--trust",
                       str(shared / "ada.pub"))
    assert code == 0, err
    plan = shared / "plan.json"
    shutil.copyfile(DEMO_PLAN, plan)
    # the owner approves their own plan with their own key, and trusts it: not enough
    assert run(capsys, owner, "review", str(plan), "--approve", "--key", "owner")[0] == 0
    before = files_of(owner)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out, err = run(capsys, owner, "release", str(plan), "--data", str(DEMO_TABLE),
                         "--out", str(out_dir / "b.zip"), "--trust", str(shared / "owner.pub"))
    assert code == 3, err
    assert len(err.strip().splitlines()) == 1 and "not a trusted key" in err
    assert files_of(owner) == before and list(out_dir.iterdir()) == []
    # the officer's signed approval goes through
    assert run(capsys, officer, "review", str(plan), "--approve", "--key", "ada")[0] == 0
    code, out, err = run(capsys, owner, "release", str(plan), "--data", str(DEMO_TABLE),
                         "--out", str(out_dir / "b.zip"))
    assert code == 0, err
    assert AuditLog(app_home(owner).audit_path).verify() is None


def test_a_recipient_checks_the_approval_too(homes: dict[str, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """With the officer's public key as well, verify proves who approved the plan; an
    approval edited inside release.json (even re-signed by the owner) fails verify."""
    officer, owner, recipient = homes["officer"], homes["owner"], homes["recipient"]
    shared = tmp_path / "shared"
    shared.mkdir()
    for home, name in ((officer, "ada"), (owner, "owner")):
        run(capsys, home, "keys", "new", name)
        run(capsys, home, "keys", "export", name, "--out", str(shared / f"{name}.pub"))
    plan = shared / "plan.json"
    shutil.copyfile(DEMO_PLAN, plan)
    run(capsys, officer, "review", str(plan), "--approve", "--key", "ada")
    bundle = shared / "release.zip"
    code, _, err = run(capsys, owner, "release", str(plan), "--data", str(DEMO_TABLE), "--out",
                       str(bundle), "--trust", str(shared / "ada.pub"), "--sign-with", "owner")
    assert code == 0, err
    code, out, err = run(capsys, recipient, "verify", str(bundle), "--trust",
                         str(shared / "owner.pub"), "--trust", str(shared / "ada.pub"))
    assert code == 0, out + err
    assert "the approval by ada is signed by ada (key" in out and "a key you trust" in out
    code, out, _ = run(capsys, recipient, "verify", str(bundle), "--trust",
                       str(shared / "owner.pub"))
    assert code == 0 and "not checked against a key you trust" in out
    # the owner edits the approval's comment and re-signs the whole bundle with their key
    from planner_app.core.records.keys import KeyStore

    def edit(record: dict) -> None:  # type: ignore[type-arg]
        record["approval"]["comment"] = "approved without conditions"

    owner_key = KeyStore(app_home(owner)).secret("owner")
    forged = tmp_path / "forged.zip"
    forge(bundle, forged, change=edit, signature=owner_key)
    code, out, err = run(capsys, recipient, "verify", str(forged), "--trust",
                         str(shared / "owner.pub"))
    assert code == 1 and "release.json: approval: its signature does not match it" in out + err
