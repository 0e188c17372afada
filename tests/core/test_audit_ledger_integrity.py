"""Issue 10 §8: the audit log is written all or nothing; a partial line left by a full disk
is rolled back with an entry saying so; deleted ledger rows and a truncated or deleted audit
log are noticed; a damaged ledger is exit 4."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from planner_app.core.records import audit as audit_module
from planner_app.core.records.audit import AuditError, AuditLog, verify_chain
from tests.conftest import DEMO_PLAN, DEMO_TABLE, run_in_process


def test_a_short_write_leaves_the_log_as_it_was(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append("first", {"a": 1})
    before = log.path.read_bytes()
    real_write = os.write

    def full_disk(fd: int, data) -> int:  # writes a few bytes, then the disk is full
        if len(data) > 10:
            return real_write(fd, bytes(data[:10]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(audit_module.os, "write", full_disk)
    with pytest.raises(AuditError, match="cannot be written"):
        log.append("second", {"b": 2})
    monkeypatch.setattr(audit_module.os, "write", real_write)
    assert log.path.read_bytes() == before
    log.append("third", {"c": 3})
    entries = log.read()
    assert [e["event"] for e in entries] == ["first", "third"]
    assert verify_chain(entries) is None


def test_a_partial_last_line_is_rolled_back_with_an_entry(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append("first", {"a": 1})
    good = log.path.read_bytes()
    with open(log.path, "ab") as fh:
        fh.write(b'{"seq": 2, "time": "2026-')  # what a full disk left behind
    assert log.verify() is None  # rolled back, not "broken for good"
    entries = log.read()
    assert log.path.read_bytes().startswith(good)
    assert [e["event"] for e in entries] == ["first", "audit log repaired"]
    assert entries[1]["params"]["removed_partial_entry_bytes"] == len(b'{"seq": 2, "time": "2026-')
    log.append("next", {})
    assert verify_chain(log.read()) is None


def test_a_damaged_complete_line_is_still_refused(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append("first", {"a": 1})
    with open(log.path, "ab") as fh:
        fh.write(b"not json\n")
    with pytest.raises(AuditError, match=r"^audit\.jsonl: line 2: is not JSON"):
        log.verify()


# ----------------------------------------------------------------------------- CLI


def run(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, in this process (issue 23: no Python start each time)."""
    return run_in_process(args, home)


def release(home: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return run(["release", str(DEMO_PLAN), "--data", str(DEMO_TABLE), "--out", str(out)], home)


def paths(home: Path) -> tuple[Path, Path]:
    return home / "data" / "ledger.sqlite3", home / "data" / "audit.jsonl"


@pytest.fixture(scope="module")
def home_released_twice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An app home after two releases of the demo plan, built once for this file."""
    where = tmp_path_factory.mktemp("released-twice")
    home = where / "home"
    for name in ("a.zip", "b.zip"):
        done = release(home, where / name)
        assert done.returncode == 0, done.stderr
    return home


@pytest.fixture
def released_twice(home_released_twice: Path, tmp_path: Path) -> Path:
    """A copy of that home for one test to damage."""
    return Path(shutil.copytree(home_released_twice, tmp_path / "home"))


def _one_line_exit_4(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 4, (done.returncode, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    for w in words:
        assert w in done.stderr, done.stderr


def test_a_deleted_ledger_row_is_noticed(released_twice: Path, tmp_path: Path) -> None:
    ledger_path, audit_path = paths(released_twice)
    audit_before = audit_path.read_bytes()
    con = sqlite3.connect(ledger_path)
    con.execute("DELETE FROM releases WHERE rowid = (SELECT MIN(rowid) FROM releases)")
    con.commit()
    con.close()
    done = release(released_twice, tmp_path / "c.zip")
    _one_line_exit_4(done, "ledger", "audit log")
    assert not (tmp_path / "c.zip").exists()
    assert audit_path.read_bytes() == audit_before
    shown = run(["ledger", "show"], released_twice)
    assert shown.returncode == 4 and "rows were deleted" in shown.stderr
    assert "demo-survey: spent" in shown.stdout  # what is left is still shown


@pytest.mark.parametrize("damage", ["truncate", "delete", "cut-last-release"])
def test_a_truncated_or_deleted_audit_log_is_noticed(released_twice: Path, tmp_path: Path,
                                                      damage: str) -> None:
    ledger_path, audit_path = paths(released_twice)
    lines = audit_path.read_bytes().splitlines(keepends=True)
    if damage == "truncate":
        audit_path.write_bytes(b"".join(lines[:2]))
    elif damage == "delete":
        audit_path.unlink()
    else:  # remove every entry of the last release: the chain alone still verifies
        last_id = json.loads(lines[-1])["params"]["release_id"]
        keep = [ln for ln in lines if json.loads(ln)["params"].get("release_id") != last_id]
        audit_path.write_bytes(b"".join(keep))
        assert verify_chain([json.loads(ln) for ln in keep]) is None
    ledger_before = ledger_path.read_bytes()
    done = release(released_twice, tmp_path / "c.zip")
    _one_line_exit_4(done, "audit log")
    assert ledger_path.read_bytes() == ledger_before
    assert not (tmp_path / "c.zip").exists()


@pytest.mark.parametrize("sql", [
    "UPDATE releases SET measurements = 'not json'",
    "UPDATE releases SET measurements = '[{\"mechanism\": 3}]'",
    "UPDATE releases SET epsilon = 'abc'",
    "UPDATE datasets SET cap_epsilon = 'x'",
])
def test_damaged_ledger_contents_are_exit_4(released_twice: Path, tmp_path: Path,
                                            sql: str) -> None:
    ledger_path, _ = paths(released_twice)
    con = sqlite3.connect(ledger_path)
    if "datasets" in sql:
        con.execute("INSERT OR REPLACE INTO datasets(name, cap_epsilon, cap_delta, updated) "
                    "VALUES ('demo-survey', 10, 1e-5, 'now')")
    con.execute(sql)
    con.commit()
    con.close()
    done = release(released_twice, tmp_path / "c.zip")
    _one_line_exit_4(done, "ledger")
    done = run(["ledger", "show"], released_twice)
    _one_line_exit_4(done, "ledger")
