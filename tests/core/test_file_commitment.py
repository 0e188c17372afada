"""The data file's plain SHA-256 stays in the private ledger; a bundle carries only a keyed
commitment, which the owner can open for an auditor who holds the file."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import shutil
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import load_plan
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.commitment import (
    KeyMissing,
    dataset_secret,
    keys_dir,
    opens,
    prove_file,
)
from planner_app.core.release.publish import prepare, publish
from planner_app.core.support.home import AppHome, app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE, run_in_process


@pytest.fixture
def home(tmp_path: Path) -> AppHome:
    return app_home(tmp_path / "home").ensure()


def sha256_hex(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bundle_texts(bundle: Path) -> dict[str, str]:
    from pypdf import PdfReader

    files = read_bundle(bundle)
    out = {name: data.decode("utf-8", "replace") for name, data in files.items()}
    pdf = PdfReader(io.BytesIO(files["report.pdf"]))
    out["report.pdf"] = " ".join(p.extract_text() for p in pdf.pages) + repr(
        dict(pdf.metadata or {}))
    return out


def release(tmp_path: Path, home: AppHome, name: str, data: Path = DEMO_TABLE) -> Path:
    out = tmp_path / name
    publish(load_plan(demo_plan_path()), load_table(data), out, home)
    return out


def test_the_file_hash_is_in_the_ledger_only(tmp_path: Path, home: AppHome) -> None:
    digest = sha256_hex(DEMO_TABLE)  # computed here, not by the code under test
    bundle = release(tmp_path, home, "a.zip")
    for name, text in bundle_texts(bundle).items():
        assert digest not in text, f"the file's SHA-256 is in {name}"
    assert digest not in home.audit_path.read_text(), "the file's SHA-256 is in the audit log"
    con = sqlite3.connect(home.ledger_path)
    assert con.execute("SELECT file_sha256 FROM releases").fetchall() == [(digest,)]
    con.close()


def test_an_auditor_opens_the_commitment_with_the_release_key(tmp_path: Path,
                                                              home: AppHome) -> None:
    bundle = release(tmp_path, home, "a.zip")
    record = json.loads(read_bundle(bundle)["release.json"])
    proof = prove_file(home, "demo-survey", DEMO_TABLE, bundle)
    [opening] = proof.openings
    assert opening.opens is True and opening.release_id == record["release_id"]
    # the auditor's own computation, from the documented formula and nothing of the app
    expected = hmac.new(bytes.fromhex(opening.key), sha256_hex(DEMO_TABLE).encode("ascii"),
                        hashlib.sha256).hexdigest()
    assert record["dataset"]["file_commitment"]["value"] == expected
    assert opens(record["dataset"]["file_commitment"], opening.key, sha256_hex(DEMO_TABLE))
    if shutil.which("openssl"):  # and with a tool that is not Python at all
        out = subprocess.run(
            ["openssl", "dgst", "-sha256", "-mac", "HMAC", "-macopt",
             f"hexkey:{opening.key}"], input=sha256_hex(DEMO_TABLE).encode(),
            capture_output=True, check=True).stdout.decode()
        assert out.strip().endswith(expected)


def test_a_commitment_does_not_open_to_another_file_or_with_another_key(
        tmp_path: Path, home: AppHome) -> None:
    other = tmp_path / "survey.csv"
    lines = DEMO_TABLE.read_text().splitlines(keepends=True)
    other.write_text("".join(lines[:-1]))  # one person fewer
    a = release(tmp_path, home, "a.zip")
    b = release(tmp_path, home, "b.zip")
    ca = json.loads(read_bundle(a)["release.json"])["dataset"]["file_commitment"]
    cb = json.loads(read_bundle(b)["release.json"])["dataset"]["file_commitment"]
    # the same file twice: unlinkable values, so two bundles do not show whether it changed
    assert ca["value"] != cb["value"]
    key_a = prove_file(home, "demo-survey", DEMO_TABLE, a).openings[0].key
    assert not opens(cb, key_a, sha256_hex(DEMO_TABLE))  # one key opens one release
    assert not opens(ca, key_a, sha256_hex(other))
    assert prove_file(home, "demo-survey", other, a).openings[0].opens is False
    # without a bundle: every release made from the file, found through the ledger
    assert len(prove_file(home, "demo-survey", DEMO_TABLE).openings) == 2
    assert prove_file(home, "demo-survey", other).openings == []


def test_the_secret_is_private_made_once_and_never_in_a_bundle(tmp_path: Path,
                                                               home: AppHome) -> None:
    bundle = release(tmp_path, home, "a.zip")
    [key_file] = keys_dir(home).iterdir()
    if os.name == "posix":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    secret = json.loads(key_file.read_text())["secret"]
    assert dataset_secret(home, "demo-survey") == bytes.fromhex(secret)  # not made again
    for name, text in bundle_texts(bundle).items():
        assert secret not in text, name
    with pytest.raises(KeyMissing, match="no commitment key for dataset 'demo-survey'"):
        prove_file(app_home(tmp_path / "elsewhere").ensure(), "demo-survey", DEMO_TABLE)


def test_the_owner_notes_still_use_the_plain_hash(tmp_path: Path, home: AppHome) -> None:
    plan = load_plan(demo_plan_path())
    table = load_table(DEMO_TABLE)
    publish(plan, table, tmp_path / "a.zip", home)
    # the notes are made before the charge (publish.prepare, which publish returns them
    # from): the releases after the first need not be charged (issue 23)
    again = prepare(plan, table, tmp_path / "b.zip", home)
    assert not any("SHA-256 changed" in n for n in again.notes)
    doc = json.loads(demo_plan_path().read_text())
    doc["dataset"] = {"name": "renamed"}
    from planner_app.core.planfile import plan_from_dict

    result = prepare(plan_from_dict(doc), table, tmp_path / "c.zip", home)
    assert any("released before as dataset 'demo-survey'" in n for n in result.notes)


def run_cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return run_in_process(["--home", str(home), *args])  # in this process (issue 23)


def test_prove_file_on_the_command_line(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home").ensure()
    bundle = release(tmp_path, home, "a.zip")
    value = json.loads(read_bundle(bundle)["release.json"])["dataset"]["file_commitment"]["value"]
    done = run_cli("ledger", "prove-file", "demo-survey", "--data", str(DEMO_TABLE),
                   "--bundle", str(bundle), "--json", home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    [opening] = json.loads(done.stdout)["openings"]
    assert opening["opens"] is True and opening["commitment"] == value
    done = run_cli("ledger", "prove-file", "demo-survey", "--data", str(DEMO_TABLE),
                   home=tmp_path / "home")
    assert done.returncode == 0 and value in done.stdout and opening["key"] in done.stdout
    other = tmp_path / "other.csv"
    other.write_text("a\n1\n")
    done = run_cli("ledger", "prove-file", "demo-survey", "--data", str(other), "--bundle",
                   str(bundle), home=tmp_path / "home")
    assert done.returncode == 1 and "does NOT open" in done.stdout
    done = run_cli("ledger", "prove-file", "demo-survey", "--data", str(tmp_path / "nope.csv"),
                   home=tmp_path / "home")
    assert done.returncode == 2 and "nope.csv" in done.stderr
    assert "Traceback" not in done.stderr
    done = run_cli("ledger", "prove-file", "demo-survey", "--data", str(DEMO_TABLE),
                   home=tmp_path / "other-home")
    assert done.returncode == 4 and "no commitment key" in done.stderr
