"""The salted key every SQL engine orders by (the rows' bounding, a person's keys): what it
is, computed independently here with hashlib, and that each key costs one SHA-256 block."""

from __future__ import annotations

import base64
import hashlib

import duckdb

from planner_app.core.data.sql_keys import salt_text, salted_key

SALT = bytes(range(200, 232))  # 32 bytes


def test_the_key_is_sha256_of_the_salts_base64_and_the_text() -> None:
    con = duckdb.connect()
    sql = salted_key(SALT, "CAST(range AS VARCHAR)")
    rows = f"range(0, {10**11}, {10**9 + 7})"
    got = [r[0] for r in con.execute(f"SELECT {sql} FROM {rows}").fetchall()]
    prefix = base64.urlsafe_b64encode(SALT).decode().rstrip("=") + ":"
    want = [hashlib.sha256(f"{prefix}{i}".encode()).hexdigest()[:12]
            for i in range(0, 10**11, 10**9 + 7)]
    assert got == want


def test_a_rows_key_is_one_sha256_block() -> None:
    """SHA-256 pads a message with a byte and its 8-byte length: up to 55 bytes take one
    64-byte block. A key of a position below 10^11 (11 digits) stays within that."""
    longest = len(salt_text(SALT).encode()) + len(str(10**11 - 1))
    assert longest <= 55
    assert len(salt_text(SALT)) == 44  # 43 characters of base64 (no padding) and ':'
