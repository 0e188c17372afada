"""One rule for JSON read from outside (a plan file, a bundle's members): an object that names
one key twice is refused, since readers disagree on which of the two counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def refusing_duplicate_keys(
        error: type[ValueError] = ValueError,
) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An ``object_pairs_hook`` for ``json.loads`` that raises ``error`` on a repeated key."""

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise error(f"the key {key!r} appears twice in one object")
            out[key] = value
        return out

    return hook
