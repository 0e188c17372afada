"""canonical_keys (the whole declared list at once) gives, value by value, what the scalar
canonical_key gives: on hostile lists of every kind it takes a fast path for."""

from __future__ import annotations

import random

import numpy as np
import pytest

from planner_app.core.model.values import canonical_key, canonical_keys

HOSTILE_TEXT = [
    "1", "01", "1.0", " 1 ", "\t2\n", "-0", "-0.0", "+0", "0.0", "1e3", "1E3", "1e-7", ".5",
    "-.5", "+.5", "5.", "1_000", "1,000", "0x10", "inf", "-inf", "+Infinity", "INF", "nan",
    "NaN", "-nan", "nana", "infinite", "true", "TRUE", " True ", "false", "False", "yes", "",
    " ", "\u00a0 7 \u00a0", "\u0661\u0662", "\uff11", "café", "Ölfeld", "日本", "1e309",
    "-1e309", "9007199254740993", "9223372036854775807", "9223372036854775808", "1e19",
    "123456789012345678901234567890", "0.1", "0.30000000000000004", "2.5e-324", "1e-400",
    "e5", "-", "+", ".", "..5", "1.2.3", "١", "NULL", "None", "abc", "  abc  ", "ABC",
]
HOSTILE_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.1, 1e-7, 1e16, 1e19, 2.0**53, 2.0**53 + 2,
                  2.0**63, -(2.0**63), 2.0**63 - 1024, 9.223372036854775e18, 1.5, -2.5,
                  float("inf"), float("-inf"), float("nan"), 5e-324, 1.7976931348623157e308,
                  123456.789, 1e22, 1e23]
HOSTILE_INTS = [0, 1, -1, 2**53, -(2**53), 2**53 + 1, 2**63, -(2**63), 2**63 - 1, 10**30,
                -(10**30), 10**400, 12345]


def scalar(values: list[object]) -> list[str]:
    return [canonical_key(v) for v in values]


@pytest.mark.parametrize("values", [
    HOSTILE_TEXT, HOSTILE_FLOATS, HOSTILE_INTS, [v for v in HOSTILE_INTS if abs(v) <= 2**53],
    HOSTILE_FLOATS + [v for v in HOSTILE_INTS if abs(v) <= 2**53],
    HOSTILE_TEXT + HOSTILE_FLOATS + HOSTILE_INTS + [True, False, np.int64(3), np.float64(-0.0),
                                                    np.bool_(True), np.str_(" 4 ")],
    [True, False], [], ["x"], [-0.0], [2.0**53 + 2, 3],
], ids=["text", "floats", "ints", "small-ints", "floats+ints", "mixed", "bools", "empty",
        "one", "minus-zero", "big-float-int"])
def test_the_list_at_once_equals_the_scalar_key(values: list[object]) -> None:
    assert canonical_keys(values) == scalar(values)
    assert canonical_keys(tuple(values)) == scalar(values)


def test_random_lists_equal_the_scalar_key() -> None:
    rng = random.Random(13)
    pool = HOSTILE_TEXT + [str(v) for v in HOSTILE_FLOATS + HOSTILE_INTS] + \
        [repr(v) for v in HOSTILE_FLOATS]
    for _ in range(200):
        n = rng.randint(1, 40)
        texts = [rng.choice(pool) + rng.choice(["", " ", "0", "e1", ".", "x"]) for _ in range(n)]
        floats = [rng.choice([rng.uniform(-1e6, 1e6), float(rng.randint(-99, 99)),
                              rng.choice(HOSTILE_FLOATS)]) for _ in range(n)]
        for values in (texts, floats):
            assert canonical_keys(values) == scalar(values)


def test_a_large_code_list_is_fast_and_equal() -> None:
    codes = list(range(-5, 200_000))
    assert canonical_keys(codes) == scalar(codes)
    texts = [f"{i:06d}" for i in range(200_000)] + ["a", "true"]
    assert canonical_keys(texts) == scalar(texts)


@pytest.mark.parametrize("values", [
    ["0", "7", "007", "10", " 12 ", "999999999999999"],  # the fast path: plain digits only
    ["1", "999999999999999", "1000000000000000", "9007199254740993"],  # 16 digits: not it
    ["1", "2", ""], ["1", "-2"], ["1", "\u0661"], ["1", "2 3"], ["00000000000000000001"],
], ids=["plain", "long", "empty-cell", "signed", "arabic-digit", "inner-space", "zeros"])
def test_codes_read_from_a_file(values: list[str]) -> None:
    """Integer codes as a CSV gives them (issue 24: 10^6 distinct codes at once)."""
    assert canonical_keys(values) == scalar(values)
