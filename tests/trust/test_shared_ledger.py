"""The office's shared ledger on a real PostgreSQL server (issue 26): two app homes with the
same policy share one budget; evasions are refused; an unreachable ledger refuses with exit 4
and charges nothing; doctor, migrate and import; the audit chain across both homes' bundles."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import psycopg
import pytest

from planner_app.core.records.audit import verify_chain
from planner_app.core.records.office_config import file_identity
from tests.conftest import DEMO_TABLE

from .shared_office import SECRET, Office, office_policy


@pytest.fixture
def office(tmp_path: Path, office_db: str, monkeypatch: pytest.MonkeyPatch) -> Office:
    monkeypatch.setenv("PLANNER_OFFICE_SECRET", SECRET)
    return Office(tmp_path, office_db)


def _ready(office: Office, **fields: object) -> tuple[Path, Path]:
    """Two homes with the office's policy, the schema made by `ledger migrate`."""
    policy = office.signed_policy(office_policy(office.url, **fields))
    a, b = office.home("home-a", policy), office.home("home-b", policy)
    code, out, err = office.run(a, "ledger", "migrate")
    assert code == 0 and "version 1" in out, err
    return a, b


def _rows(url: str) -> list[tuple[str, str]]:
    with psycopg.connect(url) as con:
        return [(str(r[0]), str(r[1])) for r in con.execute(
            "SELECT id, dataset FROM planner_releases ORDER BY time").fetchall()]


def _segment(bundle: Path) -> list[dict[str, object]]:
    with zipfile.ZipFile(bundle) as z:
        return [json.loads(line) for line in z.read("audit.jsonl").decode().splitlines()]


def test_two_homes_share_one_budget_and_one_audit_chain(office: Office) -> None:
    a, b = _ready(office)  # the policy's cap: ε = 2.5 for every dataset
    plan = office.plan(1.0)
    assert office.release(a, plan, "a1.zip")[0] == 0
    code, _, err = office.release(b, plan, "b1.zip")
    assert code == 0, err
    # a third release from either home would bring the office's total to ε = 3 > 2.5
    code, _, err = office.release(b, plan, "b2.zip")
    assert code == 3, err
    assert err.count("\n") == 1 and "left of its lifetime cap ε = 2.5" in err
    assert "Nothing was charged" in err
    assert not (office.tmp / "out" / "b2.zip").exists()
    assert len(_rows(office.url)) == 2  # nothing charged by the refusal
    # each home shows the office's spending, and says which ledger it is
    for home in (a, b):
        code, out, _ = office.run(home, "ledger", "show", "test")
        assert code == 0 and "spent ε = 2" in out and "2 release(s)" in out
        assert "the office's shared ledger" in out
    # both bundles verify, and their segments are links of the one shared chain
    with psycopg.connect(office.url) as con:
        chain = [json.loads(t) for (t,) in con.execute(
            "SELECT entry FROM planner_audit ORDER BY seq")]
    assert verify_chain(chain) is None
    hashes = [e["hash"] for e in chain]
    for bundle in ("a1.zip", "b1.zip"):
        code, _, err = office.run(a, "verify", str(office.tmp / "out" / bundle))
        assert code == 0, err
        segment = _segment(office.tmp / "out" / bundle)
        assert verify_chain(segment, first_prev=None) is None
        assert all(e["hash"] in hashes for e in segment)
    for home in (a, b):
        code, out, _ = office.run(home, "ledger", "doctor")
        assert code == 0 and "Audit log: " in out and "chain intact" in out


def test_renaming_copies_and_second_homes_are_refused(office: Office) -> None:
    a, b = _ready(office)
    assert office.release(a, office.plan(1.0), "a1.zip")[0] == 0
    # the same file under a new dataset name, from the other home
    code, _, err = office.release(b, office.plan(1.0, dataset="renamed", name="r.json"),
                                  "r.zip")
    assert code == 3 and "released before as dataset 'test'" in err, err
    # a copy of the file under a new file name: the same content, the same identity
    copy = office.tmp / "copy-of-survey.csv"
    shutil.copyfile(DEMO_TABLE, copy)
    code, _, err = office.release(b, office.plan(1.0, dataset="other", name="o.json"),
                                  "o.zip", data=copy)
    assert code == 3, err
    # another spelling of the dataset's name
    code, _, err = office.release(b, office.plan(1.0, dataset="TEST", name="t.json"), "t.zip")
    assert code == 3, err
    assert _rows(office.url) == [(_rows(office.url)[0][0], "test")]
    # the ledger holds the keyed digest of the file, never its plain SHA-256
    import hashlib

    plain = hashlib.sha256(DEMO_TABLE.read_bytes()).hexdigest()
    with psycopg.connect(office.url) as con:
        (stored,) = con.execute("SELECT file_id FROM planner_releases").fetchone() or ("",)
        dump = " ".join(str(t) for (t,) in con.execute("SELECT entry FROM planner_audit"))
    assert stored == file_identity(SECRET.encode(), plain) and stored != plain
    assert plain not in dump


def test_an_unreachable_ledger_refuses_with_exit_4_and_charges_nothing(
        office: Office, tmp_path: Path) -> None:
    nowhere = f"postgresql://planner@/planner?host={tmp_path / 'no-server'}"
    policy = office.signed_policy(office_policy(nowhere))
    home = office.home("home-x", policy)
    code, _, err = office.release(home, office.plan(1.0), "x.zip")
    assert code == 4, err
    assert err.count("\n") == 1 and "cannot be reached" in err and "nothing was" in err
    assert "Traceback" not in err
    assert not (office.tmp / "out" / "x.zip").exists()
    assert not (home / "data" / "ledger.sqlite").exists()
    code, out, _ = office.run(home, "ledger", "doctor")
    assert code == 4 and "PROBLEM" in out
    # check still answers, offline: not ready, because the office's ledger cannot be read
    code, out, err = office.run(home, "check", str(office.plan(1.0)), "--data",
                               str(DEMO_TABLE))
    assert code == 0, err
    assert "Ready to release: NO" in out and "Charged to the office's shared ledger" in out
    assert "shared ledger at" in out and "cannot be reached" in out
    assert "network connection to the office's ledger" in out


def test_a_ledger_without_schema_or_secret_refuses(office: Office,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    policy = office.signed_policy(office_policy(office.url))
    home = office.home("home-a", policy)
    code, _, err = office.release(home, office.plan(1.0), "x.zip")
    assert code == 4 and "ledger migrate" in err, err
    assert office.run(home, "ledger", "migrate")[0] == 0
    monkeypatch.delenv("PLANNER_OFFICE_SECRET")
    code, _, err = office.release(home, office.plan(1.0), "x.zip")
    assert code == 4 and "office secret" in err, err
    assert _rows(office.url) == []


def test_a_policy_with_a_password_in_its_url_is_refused(office: Office) -> None:
    policy = office.signed_policy(office_policy("postgresql://u:hunter2@db.example/planner"))
    code, _, err = office.run(office.tmp / "h", "policy", "install", str(policy), "--trust",
                              str(office.officer_pub))
    assert code == 2 and "ledger.url: holds a password" in err, err


def test_the_audit_table_is_append_only(office: Office) -> None:
    a, _ = _ready(office)
    assert office.release(a, office.plan(1.0), "a1.zip")[0] == 0
    with psycopg.connect(office.url, autocommit=True) as con:
        for sql in ("DELETE FROM planner_audit", "UPDATE planner_audit SET entry = '{}'",
                    "TRUNCATE planner_audit", "DELETE FROM planner_releases",
                    "UPDATE planner_releases SET epsilon = 0"):
            with pytest.raises(psycopg.errors.RaiseException):
                con.execute(sql)


def test_import_moves_a_homes_history_in_once(office: Office, tmp_path: Path) -> None:
    # a home releases on its own ledger first (no policy), then installs the office's
    home = tmp_path / "old-home"
    assert office.release(home, office.plan(1.0), "local.zip")[0] == 0
    assert office.run(home, "ledger", "set-cap", "test", "--epsilon", "2")[0] == 0
    policy = office.signed_policy(office_policy(office.url))
    office.home("old-home", policy)
    assert office.run(home, "ledger", "migrate")[0] == 0
    code, out, err = office.run(home, "ledger", "import")
    assert code == 0 and "Imported 1 release(s)" in out, err
    # the same chain, continued: the local entries are the shared chain's first ones
    local = [json.loads(x) for x in (home / "data" / "audit.jsonl").read_text().splitlines()] \
        if (home / "data" / "audit.jsonl").exists() else None
    with psycopg.connect(office.url) as con:
        chain = [json.loads(t) for (t,) in con.execute(
            "SELECT entry FROM planner_audit ORDER BY seq")]
    assert verify_chain(chain) is None and chain[-1]["event"] == "ledger imported"
    if local is not None:
        assert chain[:len(local)] == local
    # the imported charge counts: ε = 1 spent of the cap ε = 2 (the ledger's, lower)
    code, out, _ = office.run(home, "ledger", "show", "test")
    assert "spent ε = 1" in out and "1 release(s)" in out
    assert office.release(home, office.plan(1.0), "s1.zip")[0] == 0
    assert office.release(home, office.plan(1.0), "s2.zip")[0] == 3
    # once: a second import is refused, nothing changed
    code, _, err = office.run(home, "ledger", "import")
    assert code == 4 and "already in" in err and "twice" in err
