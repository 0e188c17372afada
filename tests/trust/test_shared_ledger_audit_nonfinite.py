"""Audit entries carrying numbers JSON has no words for (core25, issue 25 item 4): a
discovery's bound at ±inf, an ε of inf (a total that fails closed), a NaN. The file's audit
log writes them as the words "inf", "-inf", "nan" before hashing; the office's shared
ledger on PostgreSQL must do the same, so that both chains hold the same entry and verify,
rather than failing the append with a traceback.

Independent answers: the entries as a plain file log (audit.py) writes them, the chain read
back from the table with SQL, and verify_chain on it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import psycopg
import pytest

from planner_app.core.records.audit import AuditLog, verify_chain
from planner_app.core.records.ledger_pg import SharedAudit, SharedLedger
from planner_app.core.records.ledger_schema import migrate
from planner_app.core.records.office_config import OfficeLedger

PARAMS: dict[str, Any] = {
    "statistic": "wage_range", "bounds": [-math.inf, math.inf], "epsilon": math.inf,
    "delta": math.nan, "nested": {"values": [1.5, -math.inf], "total": (math.nan, 2.0)}}
WORDS = {"statistic": "wage_range", "bounds": ["-inf", "inf"], "epsilon": "inf",
         "delta": "nan", "nested": {"values": [1.5, "-inf"], "total": ["nan", 2.0]}}


def test_non_finite_numbers_are_the_same_words_in_both_audit_logs(
        office_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_OFFICE_SECRET", "office-secret-for-tests-0123456789")
    with psycopg.connect(office_db, autocommit=True) as con:
        migrate(con)
    shared = SharedAudit(SharedLedger(OfficeLedger(office_db)))
    file_log = AuditLog(tmp_path / "audit.jsonl")
    time = "2026-11-27T12:00:00Z"

    on_file = file_log.append("discovery checked", PARAMS, time)
    in_office = shared.append("discovery checked", PARAMS, time)
    assert on_file["params"] == in_office["params"] == WORDS
    # the same entry but for the user-independent chain fields: the same hash on both
    assert (on_file["seq"], on_file["prev"]) == (in_office["seq"], in_office["prev"])
    assert on_file["hash"] == in_office["hash"]

    shared.append("after it", {"epsilon": 1.0}, time)
    with psycopg.connect(office_db) as con:
        chain = [json.loads(text) for (text,) in con.execute(
            "SELECT entry FROM planner_audit ORDER BY seq")]
    assert [e["params"] for e in chain] == [WORDS, {"epsilon": 1.0}]
    assert verify_chain(chain) is None
    assert shared.verify() is None and file_log.verify() is None
    assert all("Infinity" not in json.dumps(e) and "NaN" not in json.dumps(e) for e in chain)
