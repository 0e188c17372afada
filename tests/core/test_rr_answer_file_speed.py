"""Randomized response's answer file, made cheaper (issue 13: one unstable sort per
permutation, the dry run on a small stand-in, the answer file's CSV built with numpy; issue
24: one permutation a file, not two).

The published answer file for a seeded source is pinned to an independent re-implementation
of its construction, and its order is checked to be uniform. (Issue 13 pinned it to digests of
the file before its change; issue 24 changes which draws make it, not its law.)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from planner_app.core.dp.mechanisms import U64, SeededRandomSource, randomized_answer_file
from planner_app.core.dp.mechanisms import randomized_response as rr_noise
from planner_app.core.kinds import shared_release as noise  # the answer file is drawn there
from planner_app.core.kinds.results import Aggregate
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.bundle import noised_csv
from planner_app.core.release.publish import DRY_RUN_ANSWERS, dry_run
from planner_app.core.support.errors import InputError
from tests.conftest import plan_dict


def seeded_answers(n: int) -> np.ndarray:
    return (SeededRandomSource(n + 1).words(n) & np.uint64(1)).astype(bool)


def permutation(source: Any, n: int) -> np.ndarray:
    """A uniform permutation as the code draws it, written again: 64-bit keys, a stable sort,
    drawn again while two keys are equal."""
    while True:
        keys = source.words(n)
        order = np.argsort(keys, kind="stable")
        ranked = keys[order]
        if n < 2 or not bool(np.any(ranked[1:] == ranked[:-1])):
            return order


def one_shuffle_answer_file(source: Any, answers: np.ndarray, truth: Fraction,
                            length: int) -> np.ndarray:
    """The answer file as issue 24 builds it, written again: the noised answers; then the
    first ``length`` of one uniform order of them, or all of them and the coins in one uniform
    order. (Issue 13's file drew a second permutation to pick "all of them" first, which a
    uniform shuffle of the whole file makes redundant: the same law, one sort of n keys
    less.)"""
    n = int(answers.size)
    noised = rr_noise(source, answers, truth)
    if length <= n:
        out: np.ndarray = noised[permutation(source, n)[:max(0, length)]]
        return out
    coins = (source.words(length - n) & U64(1)).astype(bool)
    both = np.concatenate([noised, coins])
    shuffled: np.ndarray = both[permutation(source, length)]
    return shuffled


@pytest.mark.parametrize("n,length", [(0, 0), (0, 5), (1, 0), (1, 1), (7, 3), (1000, 1000),
                                      (1000, 700), (1000, 1300), (50_000, 49_000),
                                      (50_000, 51_234)])
def test_seeded_answer_file_is_the_one_written_again(n: int, length: int) -> None:
    out = randomized_answer_file(SeededRandomSource(1000 + n + length), seeded_answers(n),
                                 Fraction(3, 5), length)
    again = one_shuffle_answer_file(SeededRandomSource(1000 + n + length), seeded_answers(n),
                                    Fraction(3, 5), length)
    assert out.dtype == bool and out.size == length
    assert np.array_equal(out, again)


@pytest.mark.parametrize("seed", range(12))
def test_answer_file_equals_the_construction_written_again(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000))
    length = max(0, n + int(rng.integers(-400, 400)))
    answers = rng.random(n) < 0.3
    truth = Fraction(int(rng.integers(1, 100)), 101)
    new = randomized_answer_file(SeededRandomSource(seed), answers, truth, length)
    again = one_shuffle_answer_file(SeededRandomSource(seed), answers, truth, length)
    assert new.dtype == again.dtype and np.array_equal(new, again)


def test_the_answer_file_draws_one_permutation(monkeypatch: Any) -> None:
    """Issue 24: one sort of 64-bit keys a file (two before), whether it is cut or padded."""
    from planner_app.core.dp import mechanisms

    sorted_sizes: list[int] = []
    real = mechanisms.uniform_permutation

    def counting(source: Any, n: int) -> np.ndarray:
        sorted_sizes.append(n)
        return real(source, n)

    monkeypatch.setattr(mechanisms, "uniform_permutation", counting)
    answers = seeded_answers(500)
    for length in (300, 500, 800):
        sorted_sizes.clear()
        randomized_answer_file(SeededRandomSource(length), answers, Fraction(3, 5), length)
        assert sorted_sizes == [max(500, length)]


@pytest.mark.parametrize("length", [2, 3, 5])
def test_every_order_of_the_file_is_equally_likely(length: int) -> None:
    """With every answer kept (truth 1), the file of [yes, no, no] cut to 2, whole, or padded
    with two coins: each position holds the yes equally often, and the file holds it with
    the chance a uniform subset gives (2/3 when cut to 2)."""
    src = SeededRandomSource(17 + length)
    answers = np.array([True, False, False])
    at = np.zeros(length)
    runs = 6000
    for _ in range(runs):
        out = randomized_answer_file(src, answers, Fraction(1), length)
        at += out
    # where the one yes lands, plus the coins' yes spread evenly (half a yes each)
    expected = (min(length, 3) / 3 + max(0, length - 3) / 2) / length * runs
    assert all(abs(c - expected) < 0.06 * runs for c in at), (at, expected)


def test_noised_csv_bytes_are_unchanged() -> None:
    def old(answers: list[bool]) -> bytes:
        return ("answer\n" + "".join("yes\n" if a else "no\n" for a in answers)).encode()

    rng = np.random.default_rng(5)
    for a in ([], [True], [False], [1, 0, 0, 1], list(rng.random(5001) < 0.4)):
        assert noised_csv(a) == old([bool(x) for x in a])
        assert noised_csv(np.asarray(a, dtype=bool)) == old([bool(x) for x in a])


RR = {"id": "r", "kind": "randomized_response", "column": "ok", "yes": ["yes"], "no": ["no"],
      "epsilon": 1.0}


def rr_aggregate(n: int) -> Aggregate:
    return Aggregate("r", [((), None)], answers=np.arange(n) % 3 == 0)


def test_dry_run_answer_file_does_not_grow_with_the_rows(monkeypatch: Any) -> None:
    from planner_app.core.dp import mechanisms  # the sampler shared_release calls at the draw

    seen: list[int] = []
    real = mechanisms.randomized_answer_file

    def spy(source: Any, answers: np.ndarray, truth: Fraction, length: int) -> np.ndarray:
        seen.append(int(answers.size))
        return real(source, answers, truth, length)

    monkeypatch.setattr(mechanisms, "randomized_answer_file", spy)
    plan = plan_from_dict(plan_dict(queries=[RR]))
    dry_run(plan, {"r": rr_aggregate(200_000)}, 0.95, False)
    assert seen == [DRY_RUN_ANSWERS]
    seen.clear()
    dry_run(plan, {"r": rr_aggregate(10)}, 0.95, False)  # small files run in full
    assert seen == [10]


def test_dry_run_still_fails_where_the_estimate_would(monkeypatch: Any) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError

    monkeypatch.setattr(noise, "rr_half_width", broken)
    plan = plan_from_dict(plan_dict(queries=[RR]))
    with pytest.raises(InputError, match="nothing was charged"):
        dry_run(plan, {"r": rr_aggregate(200_000)}, 0.95, False)
