"""The SQL engine's ``KeyCounts`` (a discovery of keys): people per distinct present value of a
column, each person counted once in at most ``max_keys`` keys.

Over the bounded table ``b`` (each person's ``max_rows`` rows already kept, sql_plan.py): the
distinct (person, key) pairs; a person with more than ``max_keys`` keys keeps those whose
``salted_key(salt, person, ':', key)`` is smallest (the same secret salt and key rule as the
rows' bounding, never written anywhere), ties by the key's code. Under a rows unit every row
is its own person and counts once. The keys' codes index the column's distinct values by their
canonical text (``model.canonical_key``), sorted, so that nothing here follows the file's order.
"""

from __future__ import annotations

import base64

import numpy as np

from ..kinds.results import Aggregate, exact_integers
from ..kinds.shared_data import KeyCounts
from ..model import Query
from .source import literal
from .sql_runner import SqlRunner

#: the hex digits of a salted key kept: 48 bits, a short text the engines compare fast
KEY_CHARS = 12


def salt_text(salt: bytes) -> str:
    """The salt as the salted keys' text prefix: its bytes in URL-safe base64 without padding
    (43 characters for 32 bytes), then ``:``. With a row position of up to 11 digits the
    message is at most 55 bytes, one block of SHA-256; the salt's 64 hex digits made every
    key two blocks (bench/results.md: the bounding's cost, issue 24)."""
    return base64.urlsafe_b64encode(salt).decode("ascii").rstrip("=") + ":"


def salted_key(salt: bytes, *texts: str) -> str:
    """SQL: the first ``KEY_CHARS`` lowercase hex digits of ``sha256(salt_text(salt) ‖ texts)``
    (``texts``: SQL text expressions). Every salted order of the engines is this one rule:
    the rows' bounding (sql_plan.py) and a person's keys (below); docs/engine.md has the
    privacy argument, which models it as a random function of its texts."""
    parts = ", ".join((literal(salt_text(salt)), *texts))
    return f"substr(sha256(concat({parts})), 1, {KEY_CHARS})"


def key_counts(runner: SqlRunner, q: Query, what: KeyCounts, agg: Aggregate, code: str,
               labels: list[str], present: str, where: str, salt: bytes,
               person: bool, weight: str | None = None) -> Aggregate:
    """``agg`` with its cells, one (None, key) per key present, and part ``count``.
    ``weight``: ``b``'s column of the table's rows each of its rows stands for, where the
    engine keeps one row per distinct value (a rows unit reading one column)."""
    kept = f"({where}) AND {present} AND {code} >= 0"
    if person:
        key = salted_key(salt, "CAST(__id AS VARCHAR)", "':'", "CAST(k AS VARCHAR)")
        order = f"{key}, k"
        sql = (f"SELECT k, count(*) AS n FROM (SELECT k, row_number() OVER (PARTITION BY "
               f"__id ORDER BY {order}) AS r FROM (SELECT DISTINCT __id, {code} AS k FROM b "
               f"WHERE {kept}) d) s WHERE r <= {int(what.max_keys)} GROUP BY k ORDER BY k")
    else:
        rows = "count(*)" if weight is None else f"CAST(sum({weight}) AS BIGINT)"
        sql = f"SELECT {code} AS k, {rows} AS n FROM b WHERE {kept} GROUP BY k ORDER BY k"
    t = runner.query(sql)
    k = np.asarray(t["k"], dtype=np.int64)
    n = np.asarray(t["n"], dtype=np.int64)
    agg.cells = [(None, labels[int(i)]) for i in k.tolist()]
    agg.parts["count"] = exact_integers([int(x) for x in n.tolist()])
    agg.facts.rows_considered = int(n.sum())
    return agg
