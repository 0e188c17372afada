"""AIM's workload in the plan (kind ``synthetic``, ``"method": "aim"``): the pairs of columns
whose counts the synthetic table should keep (``pairs``; without it every pair) and the
triples (``triples``; without it none). Only AIM reads them: MST measures a tree of pairs.

    {"kind": "synthetic", "method": "aim", "columns": [...],
     "pairs": [["region", "age"], ["age", "smoker"]], "triples": [["region", "age", "smoker"]]}
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.plan import SynthColumn
from ..model.reader import FieldReader

#: cells of one declared triple (its three columns' values multiplied)
MAX_TRIPLE_CELLS = 1_000_000
MAX_TRIPLES = 64

Cliques = tuple[tuple[str, ...], ...]


def _read_cliques(r: FieldReader, key: str, size: int, columns: Sequence[SynthColumn],
                  ) -> Cliques:
    raw = r.obj[key]
    what = "pairs" if size == 2 else "triples"
    if not isinstance(raw, list):
        r.fail(key, f"must be a list of {what} of declared columns, each a list of {size} "
                    "column names")
    sizes = {c.column: c.size for c in columns}
    seen: set[frozenset[str]] = set()
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, list) or len(item) != size \
                or not all(isinstance(c, str) for c in item):
            r.fail(f"{key}[{i}]", f"must be a list of {size} column names")
        unknown = next((c for c in item if c not in sizes), None)
        if unknown is not None:
            r.fail(f"{key}[{i}]", f"{unknown!r} is not one of this table's columns")
        if len(set(item)) != size:
            r.fail(f"{key}[{i}]", "names a column twice")
        if frozenset(item) in seen:
            r.fail(f"{key}[{i}]", f"is already one of the {what}")
        seen.add(frozenset(item))
        cells = 1
        for c in item:
            cells *= sizes[c]
        if size == 3 and cells > MAX_TRIPLE_CELLS:
            r.fail(f"{key}[{i}]", f"has {cells:,} cells; at most {MAX_TRIPLE_CELLS:,} are "
                                  "allowed (use fewer categories or wider bins)")
        out.append(tuple(item))
    if size == 3 and len(out) > MAX_TRIPLES:
        r.fail(key, f"has {len(out)} triples; at most {MAX_TRIPLES} are allowed")
    return tuple(out)


def read_workload(r: FieldReader, method: str, columns: Sequence[SynthColumn]
                  ) -> tuple[Cliques | None, Cliques]:
    """The declared pairs (None: every pair) and triples of an AIM table; refused for MST."""
    for key in ("pairs", "triples"):
        if r.has(key) and method != "aim":
            r.fail(key, 'is AIM\'s workload; it needs "method": "aim" (MST measures a tree '
                        "of pairs it chooses itself)")
    pairs = _read_cliques(r, "pairs", 2, columns) if r.has("pairs") else None
    if pairs is not None and not pairs and len(columns) > 1:
        r.fail("pairs", "must name at least one pair (leave it out for every pair)")
    triples = _read_cliques(r, "triples", 3, columns) if r.has("triples") else ()
    return pairs, triples


def workload_words(columns: Sequence[SynthColumn], pairs: Cliques | None,
                   triples: Cliques) -> str:
    """The workload in words, for the statistic's public parameters."""
    n = len(columns) * (len(columns) - 1) // 2
    parts = [f"every pair of columns ({n})" if pairs is None else
             "; ".join(" × ".join(p) for p in pairs)]
    parts += [" × ".join(t) for t in triples]
    return "; ".join(parts)


def kept_workload(pairs: Cliques | None, triples: Cliques, method: str,
                  columns: Sequence[str]) -> dict[str, list[list[str]]]:
    """The plan fields of an edited table's workload (the app's form does not edit it): the
    declared pairs and triples whose columns are all still the table's, for AIM only. A
    list left empty is dropped (no pairs: every pair)."""
    if method != "aim":
        return {}
    present = set(columns)
    out: dict[str, list[list[str]]] = {}
    if pairs is not None:
        kept = [list(p) for p in pairs if set(p) <= present]
        if kept:
            out["pairs"] = kept
    kept_triples = [list(t) for t in triples if set(t) <= present]
    if kept_triples:
        out["triples"] = kept_triples
    return out
