"""The owner's comparison of a released synthetic table with the real one: the total
variation distance of every one- and two-way marginal, on screen only.

This reads the private table, so what it returns is for the data owner's eyes: the app draws
it and never writes it to a file, the bundle or the log. The real marginals are the engine's
(the rows the synthetic table counts: every declared column holds a declared value, at most
the plan's rows a person); the synthetic ones are counted from the bundle's
``synthetic/<id>.csv``.
"""

from __future__ import annotations

import csv
import io
import itertools
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..data.engine_names import DEFAULT_ENGINE
from ..data.engines import open_engine
from ..data.tables import Table
from ..dp.mechanisms import SystemRandomSource
from ..kinds import kind_of
from ..kinds.params import synth_columns_of
from ..model import Plan, Query
from ..support.errors import InputError
from .bundle import RECORD, bundle_json
from .synthetic import SYNTH_DIR, csv_header, csv_texts, total_variation

__all__ = ["total_variation"]  # the rule lives in synthetic.py (verify measures with it too)


@dataclass(frozen=True)
class MarginalDistance:
    """One marginal of a synthetic table against the real table's."""

    columns: tuple[str, ...]  # one column, or a pair
    tvd: float  # total variation distance of the two distributions, 0 to 1
    measured: bool  # a one-way marginal, or a pair inside a marginal the release measured


def synthetic_codes_from_csv(query: Query, data: bytes) -> np.ndarray:
    """The rows of a synthetic CSV as value indices (rows × columns), by its declared texts;
    InputError when the file is not the table's shape."""
    cols = list(synth_columns_of(query))
    where = f"{SYNTH_DIR}/{query.id}.csv"
    reader = csv.reader(io.StringIO(data.decode("utf-8")))
    header = next(reader, None)
    if header != csv_header(query):
        raise InputError(where, None, "its header is not the synthetic table's columns")
    index = [{t: k for k, t in enumerate(csv_texts(c))} for c in cols]
    out = []
    for line, row in enumerate(reader, start=2):
        try:
            out.append([index[i][v] for i, v in enumerate(row)])
        except (KeyError, IndexError):
            raise InputError(where, f"line {line}", "holds a value that is not declared") \
                from None
    return np.asarray(out, dtype=np.int64).reshape(-1, len(cols))


def compare_synthetic(query: Query, true_parts: Mapping[str, np.ndarray], codes: np.ndarray,
                      selected: list[tuple[str, ...]]) -> list[MarginalDistance]:
    """Every one-way marginal, then every pair, of the synthetic rows ``codes`` against the
    real table's (``true_parts``: ``oneway:<column>`` and ``pair:<i>:<j>``, row-major). A
    pair is measured when a selected marginal holds it (MST's pairs; AIM's rounds, whose
    marginals have 1 to 3 columns: a triple measures its pairs)."""
    cols = list(synth_columns_of(query))
    sizes = [c.size for c in cols]
    chosen = {frozenset(pair) for p in selected for pair in itertools.combinations(p, 2)}
    out = []
    for i, c in enumerate(cols):
        synth = np.bincount(codes[:, i], minlength=sizes[i])
        out.append(MarginalDistance((c.column,),
                                    total_variation(true_parts[f"oneway:{c.column}"], synth),
                                    True))
    for i in range(len(cols)):
        for j in range(i + 1, len(cols)):
            synth = np.bincount(codes[:, i] * sizes[j] + codes[:, j],
                                minlength=sizes[i] * sizes[j])
            pair = (cols[i].column, cols[j].column)
            out.append(MarginalDistance(pair, total_variation(true_parts[f"pair:{i}:{j}"],
                                                              synth),
                                        frozenset(pair) in chosen))
    return out


def compare_bundle_with_table(plan: Plan, table: Table, bundle: Path,
                              query_id: str) -> list[MarginalDistance]:
    """The owner's comparison for one synthetic table of a bundle released from ``plan``
    over ``table`` (for the screen only: it reads the private table)."""
    query = plan.query(query_id)
    if not kind_of(query).makes_table:
        raise InputError("plan", f"queries[{query_id}].kind", "is not a synthetic table")
    name = f"{SYNTH_DIR}/{query_id}.csv"
    try:
        with zipfile.ZipFile(bundle) as z:
            data = z.read(name)
            record: dict[str, Any] = bundle_json(z.read(RECORD))
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as exc:
        raise InputError(str(bundle), None, f"cannot read {name} ({exc})") from None
    selected = [tuple(map(str, p)) for p in
                record.get("synthetic", {}).get(query_id, {}).get("selected", [])]
    codes = synthetic_codes_from_csv(query, data)
    engine = open_engine(DEFAULT_ENGINE, plan, table, SystemRandomSource())
    try:
        parts = engine.aggregate(query).parts
    finally:
        engine.close()
    return compare_synthetic(query, parts, codes, selected)
