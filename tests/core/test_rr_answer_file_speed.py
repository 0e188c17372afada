"""Randomized response's answer file, made cheaper without changing what is published
(issue 13): one unstable sort per permutation, the two index steps composed, the dry run on a
small stand-in, the answer file's CSV built with numpy.

The published answer file for a seeded source is pinned to what the code before the change
gave (digests recorded by running it), and to an independent re-implementation of that code.
"""

from __future__ import annotations

import hashlib
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

# (answers, length) -> (sha256 of np.packbits(file) [:16], yes, size), recorded from the code
# before this change (mechanisms.randomized_answer_file at 12a861f)
RECORDED = {
    (0, 0): ("e3b0c44298fc1c14", 0, 0),
    (0, 5): ("9e076ceaf246b600", 2, 5),
    (1, 0): ("e3b0c44298fc1c14", 0, 0),
    (1, 1): ("76be8b528d0075f7", 1, 1),
    (7, 3): ("e4ff5e7d7a7f08e9", 2, 3),
    (1000, 1000): ("387cee73bfaafeef", 492, 1000),
    (1000, 700): ("6ec665466af26b4e", 353, 700),
    (1000, 1300): ("a3149c8c6ade63d1", 652, 1300),
    (50_000, 49_000): ("e94a094a5e4c0826", 24591, 49000),
    (50_000, 51_234): ("4048042912d74633", 25611, 51234),
}


def seeded_answers(n: int) -> np.ndarray:
    return (SeededRandomSource(n + 1).words(n) & np.uint64(1)).astype(bool)


@pytest.mark.parametrize("n,length", sorted(RECORDED))
def test_seeded_answer_file_is_the_one_recorded_before_the_change(n: int, length: int) -> None:
    out = randomized_answer_file(SeededRandomSource(1000 + n + length), seeded_answers(n),
                                 Fraction(3, 5), length)
    digest = hashlib.sha256(np.packbits(out).tobytes()).hexdigest()[:16]
    assert out.dtype == bool
    assert (digest, int(out.sum()), int(out.size)) == RECORDED[(n, length)]


def old_permutation(source: Any, n: int) -> np.ndarray:
    """The permutation as the code before the change drew it (stable sort of 64-bit keys)."""
    while True:
        keys = source.words(n)
        order = np.argsort(keys, kind="stable")
        ranked = keys[order]
        if n < 2 or not bool(np.any(ranked[1:] == ranked[:-1])):
            return order


def old_answer_file(source: Any, answers: np.ndarray, truth: Fraction, length: int) -> np.ndarray:
    """The answer file as the code before the change built it: subset, coins, shuffle."""
    n = int(answers.size)
    noised = rr_noise(source, answers, truth)
    kept = noised[old_permutation(source, n)[:max(0, length)]]
    coins = (source.words(max(0, length - n)) & U64(1)).astype(bool)
    out = np.concatenate([kept, coins])
    result: np.ndarray = out[old_permutation(source, out.size)]
    return result


@pytest.mark.parametrize("seed", range(12))
def test_answer_file_equals_the_old_construction(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000))
    length = max(0, n + int(rng.integers(-400, 400)))
    answers = rng.random(n) < 0.3
    truth = Fraction(int(rng.integers(1, 100)), 101)
    new = randomized_answer_file(SeededRandomSource(seed), answers, truth, length)
    old = old_answer_file(SeededRandomSource(seed), answers, truth, length)
    assert new.dtype == old.dtype and np.array_equal(new, old)


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
    seen: list[int] = []
    real = noise.randomized_answer_file

    def spy(source: Any, answers: np.ndarray, truth: Fraction, length: int) -> np.ndarray:
        seen.append(int(answers.size))
        return real(source, answers, truth, length)

    monkeypatch.setattr(noise, "randomized_answer_file", spy)
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
