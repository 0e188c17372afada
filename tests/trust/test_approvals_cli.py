"""Signed approvals on the command line: keys new/list/export/trust/untrust, review --key,
and release/check --trust. The bad approvals (forged, copied, stale, unsigned, signed by an
untrusted key, ...) are a table of cases, like tests/cli/test_corpus.py: each is refused with
its one-line reason and exit 3, with nothing charged or written."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.records.audit import AuditLog
from planner_app.core.records.keys import KeyStore
from planner_app.core.support.home import app_home
from tests.conftest import plan_dict, write_json

TABLE = "x\n" + "".join(f"{i % 7}\n" for i in range(40))


def run(args: list[str], home: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def fingerprint(home: Path) -> dict[str, str]:
    h = app_home(home)
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (h.ledger_path, h.audit_path) if p.exists()}


@pytest.fixture
def world(tmp_path: Path, capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """An officer's home with keys ada and mallory (their public keys exported), an owner's
    home with one release already charged, a table and a plan."""
    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    officer, owner = tmp_path / "officer", tmp_path / "owner"
    for name in ("ada", "mallory"):
        assert run(["keys", "new", name], officer, capsys)[0] == 0
        assert run(["keys", "export", name, "--out", str(tmp_path / f"{name}.pub")], officer,
                   capsys)[0] == 0
    table = tmp_path / "t.csv"
    table.write_text(TABLE)
    plan = write_json(tmp_path / "plan.json", plan_dict())
    first = run(["release", str(plan), "--data", str(table), "--out", str(tmp_path / "0.zip")],
                owner, capsys)
    assert first[0] == 0, first[2]
    out = tmp_path / "out"
    out.mkdir()
    return {"officer": officer, "owner": owner, "table": table, "plan": plan, "out": out,
            "folder": tmp_path}


def _review(world: dict[str, Path], plan: Path, capsys: pytest.CaptureFixture[str],
            *args: str) -> None:
    code, _, err = run(["review", str(plan), *args], world["officer"], capsys)
    assert code == 0, err


def _edit_last(plan: Path, change: Callable[[dict[str, Any]], None]) -> None:
    doc = json.loads(plan.read_text())
    change(doc["approvals"][-1])
    plan.write_text(json.dumps(doc))


def _flip_signature(entry: dict[str, Any]) -> None:
    lines = entry["signature"].splitlines()
    raw = bytearray(base64.b64decode(lines[1]))
    raw[20] ^= 0x01  # a byte of the Ed25519 signature itself
    lines[1] = base64.b64encode(bytes(raw)).decode()
    entry["signature"] = "\n".join(lines) + "\n"


def _change_plan(plan: Path) -> None:
    doc = json.loads(plan.read_text())
    doc["queries"][0]["epsilon"] = 0.5
    plan.write_text(json.dumps(doc))


def forged(w: dict[str, Path], plan: Path, capsys: Any) -> None:
    _review(w, plan, capsys, "--approve", "--key", "ada")
    _edit_last(plan, _flip_signature)


def edited(w: dict[str, Path], plan: Path, capsys: Any) -> None:
    _review(w, plan, capsys, "--reject", "--key", "ada", "--comment", "too wide")
    _edit_last(plan, lambda e: e.update(decision="approved"))


def copied(w: dict[str, Path], plan: Path, capsys: Any) -> None:
    other = write_json(w["folder"] / "other.json",
                       plan_dict(dataset={"name": "another"}))
    _review(w, other, capsys, "--approve", "--key", "ada")
    doc = json.loads(plan.read_text())
    doc["approvals"] = json.loads(other.read_text())["approvals"]
    plan.write_text(json.dumps(doc))


def stale(w: dict[str, Path], plan: Path, capsys: Any) -> None:
    _review(w, plan, capsys, "--approve", "--key", "ada")
    _change_plan(plan)


def unsigned(w: dict[str, Path], plan: Path, capsys: Any) -> None:
    _review(w, plan, capsys, "--approve", "--reviewer", "Ada Officer")


def untrusted(w: dict[str, Path], plan: Path, capsys: Any) -> None:
    _review(w, plan, capsys, "--approve", "--key", "mallory", "--reviewer", "Ada Officer")


def rejected_then_unsigned(w: dict[str, Path], plan: Path, capsys: Any) -> None:
    _review(w, plan, capsys, "--reject", "--key", "ada", "--comment", "bounds too wide")
    _review(w, plan, capsys, "--approve", "--reviewer", "Owner")


def hand_written_digest(w: dict[str, Path], plan: Path, capsys: Any) -> None:
    """A signed approval of another version, its digest edited to this plan's."""
    _review(w, plan, capsys, "--approve", "--key", "ada")
    digest = json.loads(plan.read_text())["approvals"][-1]["plan_sha256"]
    _change_plan(plan)
    _review(w, plan, capsys, "--approve", "--reviewer", "scratch")  # this version's digest
    now = json.loads(plan.read_text())["approvals"][-1]["plan_sha256"]
    assert now != digest
    doc = json.loads(plan.read_text())
    doc["approvals"] = doc["approvals"][:1]
    doc["approvals"][0]["plan_sha256"] = now
    plan.write_text(json.dumps(doc))


CASES = [  # name, how the approval is made, words of the refusal (one line, exit 3)
    ("forged: signature bytes changed", forged, "does not match its content"),
    ("edited: a signed rejection turned into an approval", edited,
     "does not match its content"),
    ("edited: the digest changed to this plan's", hand_written_digest,
     "does not match its content"),
    ("copied: an approval of another plan", copied, "is for another version of this plan"),
    ("stale: the plan changed after the approval", stale,
     "is for another version of this plan"),
    ("unsigned approval under --trust", unsigned, "is not signed"),
    ("signed by a key that is not trusted", untrusted, "which is not a trusted key"),
    ("a signed rejection, then an unsigned approval", rejected_then_unsigned,
     "Rejected by ada"),
]


@pytest.mark.parametrize(("name", "make", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_approval_is_refused(world: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                   name: str, make: Any, words: str) -> None:
    plan = world["plan"]
    make(world, plan, capsys)
    before = fingerprint(world["owner"])
    code, out, err = run(["release", str(plan), "--data", str(world["table"]), "--out",
                          str(world["out"] / "b.zip"), "--require-approval", "--trust",
                          str(world["folder"] / "ada.pub")], world["owner"], capsys)
    assert code == 3, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err + out, err
    assert lines[0].startswith("planner-app: refused: this release requires an approved plan")
    assert words in lines[0], lines[0]
    assert "Nothing was charged or written" in lines[0]
    if make is untrusted:  # names the key that signed it
        mallory = KeyStore(app_home(world["officer"])).public("mallory").fingerprint
        assert mallory in lines[0]
    assert fingerprint(world["owner"]) == before  # ledger and audit log untouched
    assert list(world["out"].iterdir()) == []
    # check --trust says the same, rule by rule, and exits 0 (it only reports)
    code, out, err = run(["check", str(plan), "--trust", str(world["folder"] / "ada.pub")],
                         world["owner"], capsys)
    assert code == 0 and "Ready to release: NO" in out and words in out, out + err
    # the app home's trusted keys are the same rule (the wizard's): --require-approval alone
    KeyStore(app_home(world["owner"])).trust(world["folder"] / "ada.pub")
    before = fingerprint(world["owner"])
    code, _, err = run(["release", str(plan), "--data", str(world["table"]), "--out",
                        str(world["out"] / "b.zip"), "--require-approval"], world["owner"],
                       capsys)
    assert code == 3 and words in err, err
    assert fingerprint(world["owner"]) == before and list(world["out"].iterdir()) == []


def test_a_signed_approval_is_released_and_recorded(world: dict[str, Path],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    plan = world["plan"]
    _review(world, plan, capsys, "--approve", "--key", "ada", "--comment", "bounds ok")
    entry = json.loads(plan.read_text())["approvals"][-1]
    ada = KeyStore(app_home(world["officer"])).public("ada")
    assert entry["reviewer"] == "ada" and entry["key_fingerprint"] == ada.fingerprint
    events = AuditLog(app_home(world["officer"]).audit_path).read()
    assert events[-1]["event"] == "plan approved"
    assert events[-1]["params"]["key_fingerprint"] == ada.fingerprint
    bundle = world["out"] / "b.zip"
    code, out, err = run(["release", str(plan), "--data", str(world["table"]), "--out",
                          str(bundle), "--trust", str(world["folder"] / "ada.pub")],
                         world["owner"], capsys)
    assert code == 0, err
    assert f"signed with key {ada.fingerprint}, verified against the trusted key ada" in out
    import zipfile

    record = json.loads(zipfile.ZipFile(bundle).read("release.json"))
    assert record["review"] == "approved"
    approval = record["approval"]
    assert approval["reviewer"] == "ada" and approval["verified"] is True
    assert approval["key_fingerprint"] == ada.fingerprint and approval["trusted_key"] == "ada"
    assert approval["signature"] == entry["signature"]
    assert run(["verify", str(bundle)], world["owner"], capsys)[0] == 0
    # without --trust (and no trusted key in the home) the same approval counts, unverified
    code, out, err = run(["release", str(plan), "--data", str(world["table"]), "--out",
                          str(world["out"] / "c.zip"), "--require-approval"], world["owner"],
                         capsys)
    assert code == 0, err
    record = json.loads(zipfile.ZipFile(world["out"] / "c.zip").read("release.json"))
    assert record["approval"]["verified"] is False and record["approval"]["signed"] is True
    assert "not verified against a trusted key" in out


def test_keys_new_list_export_trust_untrust(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    home = tmp_path / "home"
    code, out, err = run(["keys", "new", "owner"], home, capsys)
    key = KeyStore(app_home(home)).public("owner")
    assert code == 0 and key.fingerprint in out and "owner.key" in out and "owner.pub" in out
    # no terminal and no $PLANNER_APP_PASSPHRASE: one line, exit 2, nothing written
    monkeypatch.setattr("sys.stdin", open(os.devnull))  # noqa: SIM115
    code, out, err = run(["keys", "new", "officer", "--passphrase"], home, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "PLANNER_APP_PASSPHRASE" in err and "no terminal" in err
    assert KeyStore(app_home(home)).names() == ["owner"]
    monkeypatch.setenv("PLANNER_APP_PASSPHRASE", "correct horse")
    assert run(["keys", "new", "officer", "--passphrase"], home, capsys)[0] == 0
    code, out, _ = run(["keys", "list", "--json"], home, capsys)
    listing = json.loads(out)
    assert [(k["name"], k["protected"]) for k in listing["keys"]] == \
        [("officer", True), ("owner", False)]
    assert listing["keys"][1]["fingerprint"] == key.fingerprint
    assert Path(listing["keys"][1]["public_key"]).is_file() and listing["trusted"] == []
    # export: never over a file without --force
    pub = tmp_path / "owner.pub"
    assert run(["keys", "export", "owner", "--out", str(pub)], home, capsys)[0] == 0
    code, _, err = run(["keys", "export", "owner", "--out", str(pub)], home, capsys)
    assert code == 2 and "already exists" in err
    assert run(["keys", "export", "owner", "--out", str(pub), "--force"], home, capsys)[0] == 0
    code, _, err = run(["keys", "export", "nobody", "--out", str(tmp_path / "n.pub")], home,
                       capsys)
    assert code == 2 and "no key named 'nobody'" in err and not (tmp_path / "n.pub").exists()
    # trust on another home; listed; a different key under the same name is refused
    other = tmp_path / "other"
    code, out, _ = run(["keys", "trust", str(pub)], other, capsys)
    assert code == 0 and key.fingerprint in out
    assert run(["keys", "trust", str(pub)], other, capsys)[0] == 0  # the same key again
    officer_pub = tmp_path / "officer.pub"
    run(["keys", "export", "officer", "--out", str(officer_pub)], home, capsys)
    code, _, err = run(["keys", "trust", str(officer_pub), "--name", "owner"], other, capsys)
    assert code == 2 and "already exists" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run(["keys", "list"], other, capsys)
    assert "owner" in out and key.fingerprint in out and "Your keys: none" in out
    code, out, _ = run(["keys", "untrust", "owner"], other, capsys)
    assert code == 0 and KeyStore(app_home(other)).trusted() == []
    code, _, err = run(["keys", "untrust", "owner"], other, capsys)
    assert code == 2 and "no trusted key is named 'owner'" in err
    code, _, err = run(["keys", "trust", str(tmp_path / "missing.pub")], other, capsys)
    assert code == 2 and "missing.pub" in err


def test_a_new_key_asks_its_passphrase_twice_on_a_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from planner_app.cli import keys as cli_keys

    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    monkeypatch.setattr(cli_keys, "_interactive", lambda: True)
    answers = iter(["one", "two"])
    monkeypatch.setattr(cli_keys.getpass, "getpass", lambda prompt: next(answers))
    home = tmp_path / "home"
    code, _, err = run(["keys", "new", "k", "--passphrase"], home, capsys)
    assert code == 2 and "differ" in err and KeyStore(app_home(home)).names() == []
    answers = iter(["same", "same", "same"])
    assert run(["keys", "new", "k", "--passphrase"], home, capsys)[0] == 0
    assert KeyStore(app_home(home)).key_infos()[0].protected
    plan = write_json(tmp_path / "plan.json", plan_dict())
    assert run(["review", str(plan), "--approve", "--key", "k"], home, capsys)[0] == 0
    assert json.loads(plan.read_text())["approvals"][0]["reviewer"] == "k"


def test_a_wrong_passphrase_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("PLANNER_APP_PASSPHRASE", "right")
    assert run(["keys", "new", "officer", "--passphrase"], home, capsys)[0] == 0
    plan = write_json(tmp_path / "plan.json", plan_dict())
    before_plan, before_home = plan.read_bytes(), fingerprint(home)
    monkeypatch.setenv("PLANNER_APP_PASSPHRASE", "wrong")
    code, _, err = run(["review", str(plan), "--approve", "--key", "officer"], home, capsys)
    assert code == 2 and "passphrase of key 'officer' is wrong" in err
    assert len(err.strip().splitlines()) == 1
    assert plan.read_bytes() == before_plan and fingerprint(home) == before_home
    code, _, err = run(["review", str(plan), "--approve"], home, capsys)
    assert code == 2 and "--key NAME" in err and plan.read_bytes() == before_plan
    code, _, err = run(["review", str(plan), "--approve", "--key", "nobody"], home, capsys)
    assert code == 2 and "no key named 'nobody'" in err and plan.read_bytes() == before_plan
