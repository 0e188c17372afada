"""Which of a dataset's releases were discoveries (disc25c), read from the audit log: a
release whose plan holds discovery statistics names them in its ``release requested``
entry (``discoveries``: their ids, public plan parameters), so ``ledger show`` can mark it.
Releases charged before this entry existed carry no mark (the ledger keeps no plan)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .crosscheck import REQUESTED

#: the ``release requested`` entry's parameter naming the discovery statistics released
DISCOVERIES = "discoveries"


def discovery_marks(entries: Sequence[dict[str, Any]]) -> dict[str, tuple[str, ...]]:
    """Release id -> the ids of the discovery statistics it released (only releases that
    released some)."""
    out: dict[str, tuple[str, ...]] = {}
    for e in entries:
        params = e.get("params")
        if e.get("event") != REQUESTED or not isinstance(params, dict):
            continue
        ids = params.get(DISCOVERIES)
        if isinstance(ids, list) and ids:
            out[str(params.get("release_id"))] = tuple(str(i) for i in ids)
    return out


def discovery_mark_words(ids: Sequence[str]) -> str:
    """The mark ``ledger show`` puts on a discovery's line."""
    return f"discovery ({', '.join(ids)})"
