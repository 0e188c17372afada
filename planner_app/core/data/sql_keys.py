"""The SQL engine's ``KeyCounts`` (a discovery of keys): people per distinct present value of a
column, each person counted once in at most ``max_keys`` keys.

Over the bounded table ``b`` (each person's ``max_rows`` rows already kept, sql_plan.py): the
distinct (person, key) pairs; a person with more than ``max_keys`` keys keeps those whose
``sha256(salt || person || key)`` is smallest (the same secret salt as the rows' bounding,
never written anywhere), ties by the key's code. Under a rows unit every row is its own
person and counts once. The keys' codes index the column's distinct values by their
canonical text (``model.canonical_key``), sorted, so that nothing here follows the file's order.
"""

from __future__ import annotations

import numpy as np

from ..kinds.results import Aggregate, exact_integers
from ..kinds.shared_data import KeyCounts
from ..model import Query
from .source import literal
from .sql_runner import SqlRunner

#: the hex digits of the per-person key order's hash (as the rows' bounding key)
KEY_CHARS = 12


def key_counts(runner: SqlRunner, q: Query, what: KeyCounts, agg: Aggregate, code: str,
               labels: list[str], present: str, where: str, salt: bytes,
               person: bool, weight: str | None = None) -> Aggregate:
    """``agg`` with its cells, one (None, key) per key present, and part ``count``.
    ``weight``: ``b``'s column of the table's rows each of its rows stands for, where the
    engine keeps one row per distinct value (a rows unit reading one column)."""
    kept = f"({where}) AND {present} AND {code} >= 0"
    if person:
        salt_sql = literal(salt.hex() + ":")
        order = (f"substr(sha256(concat({salt_sql}, CAST(__id AS VARCHAR), ':', "
                 f"CAST(k AS VARCHAR))), 1, {KEY_CHARS}), k")
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
