"""One cache helper for the session's models: a value kept with the key it was computed
from, recomputed when the key changes.

A key is a tuple of what the value depends on (the plan, the table, the confidence, the
ledger's generation...). Objects in it are compared by identity (a plan or a table is
immutable or replaced whole, and comparing a 1,000-statistic plan by value at each slider
step would cost more than the answer); plain values (numbers, strings, None, enums and
tuples of them) by equality. ``MemoMap`` holds many such values by a hashable name (one per
statistic or column), bounded so a long session does not grow it without end."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from enum import Enum
from typing import Generic, TypeVar

V = TypeVar("V")
K = TypeVar("K", bound=Hashable)

Key = tuple[object, ...]

_VALUES = (bool, int, float, str, bytes, type(None), Enum)


def same_key(a: Key, b: Key) -> bool:
    """Whether two dependency tuples name the same inputs (identity; equality for values)."""
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))


def _same(a: object, b: object) -> bool:
    if a is b:
        return True
    if isinstance(a, tuple) and isinstance(b, tuple):
        return same_key(a, b)
    return isinstance(a, _VALUES) and type(a) is type(b) and a == b


class Memo(Generic[V]):
    """One value and the key it was computed from."""

    def __init__(self) -> None:
        self._key: Key | None = None
        self._value: V | None = None

    def get(self, key: Key, compute: Callable[[], V]) -> V:
        """The value for ``key``, computed (and kept) when the kept one is for another key."""
        if self._key is None or not same_key(self._key, key):
            value = compute()
            self._key, self._value = key, value
            return value
        return self._value  # type: ignore[return-value]

    def has(self, key: Key) -> bool:
        return self._key is not None and same_key(self._key, key)

    def peek(self, key: Key) -> V | None:
        """The kept value when it is for ``key``, else None (nothing is computed)."""
        return self._value if self.has(key) else None

    def put(self, key: Key, value: V) -> None:
        self._key, self._value = key, value

    def clear(self) -> None:
        self._key, self._value = None, None


class MemoMap(Generic[K, V]):
    """Many values, one ``Memo`` per name; emptied when it passes ``limit`` names."""

    def __init__(self, limit: int = 256) -> None:
        self._memos: dict[K, Memo[V]] = {}
        self._limit = limit

    def _memo(self, name: K) -> Memo[V]:
        memo = self._memos.get(name)
        if memo is None:
            if len(self._memos) >= self._limit:
                self._memos.clear()
            memo = self._memos[name] = Memo()
        return memo

    def get(self, name: K, key: Key, compute: Callable[[], V]) -> V:
        return self._memo(name).get(key, compute)

    def has(self, name: K, key: Key = ()) -> bool:
        memo = self._memos.get(name)
        return memo is not None and memo.has(key)

    def peek(self, name: K, key: Key = ()) -> V | None:
        memo = self._memos.get(name)
        return None if memo is None else memo.peek(key)

    def put(self, name: K, value: V, key: Key = ()) -> None:
        self._memo(name).put(key, value)

    def clear(self) -> None:
        self._memos.clear()
