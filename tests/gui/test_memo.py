"""The session's one cache helper (gui/memo.py): a value is computed again exactly when what
it depends on changes; objects count by identity, plain values by equality."""

from __future__ import annotations

from planner_app.gui.memo import Memo, MemoMap


class _Plan:  # an object: compared by identity, as the session's plans and tables are
    def __eq__(self, other: object) -> bool:
        return True  # equal to everything: only identity may decide

    __hash__ = object.__hash__


def test_a_memo_computes_again_only_when_its_key_changes() -> None:
    calls: list[int] = []
    memo: Memo[int] = Memo()
    plan, other = _Plan(), _Plan()

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert memo.get((plan, 0.95), compute) == 1
    assert memo.get((plan, 0.95), compute) == 1  # the same plan and confidence
    assert memo.get((plan, float("0.95")), compute) == 1  # an equal number is the same
    assert memo.get((other, 0.95), compute) == 2  # another plan object, however equal
    assert memo.get((other, 0.9), compute) == 3
    assert memo.get((other, (1, "a")), compute) == 4
    assert memo.get((other, (1, "a")), compute) == 4  # tuples of values by value
    assert memo.peek((plan, 0.95)) is None and not memo.has((plan, 0.95))
    memo.put((plan,), 7)
    assert memo.peek((plan,)) == 7
    assert memo.get((True,), compute) == 5 and memo.get((1,), compute) == 6  # bool is not int
    memo.clear()
    assert not memo.has((1,))


def test_a_memo_map_keeps_one_value_per_name_and_is_bounded() -> None:
    cache: MemoMap[str, str] = MemoMap(limit=2)
    assert cache.get("a", (1,), lambda: "a1") == "a1"
    assert cache.get("a", (1,), lambda: "never") == "a1"
    assert cache.get("a", (2,), lambda: "a2") == "a2"
    assert cache.get("b", (1,), lambda: "b1") == "b1"
    assert cache.peek("a", (2,)) == "a2"
    cache.put("c", "c1")  # a third name: the map starts again
    assert cache.peek("c") == "c1" and cache.peek("a", (2,)) is None
