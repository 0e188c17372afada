"""The seeded source (the dry run's stand-in and the tests' reproducible bits) draws any number
of words: Python's randbytes takes at most 2**31 - 1 bits at once, so 2**25 words (64-bit) or
more raised OverflowError, and a 100M-row release failed in its dry run before the charge."""

import random

import numpy as np

from planner_app.core.dp import mechanisms
from planner_app.core.dp.mechanisms import SeededRandomSource


def test_more_words_than_one_randbytes_call_can_give():
    n = (1 << 25) + 3  # 2**31 bits and more: beyond one getrandbits call
    words = SeededRandomSource(7).words(n)
    assert words.shape == (n,)
    # the same stream as the Mersenne Twister's bytes read in order (an independent reading)
    rng = random.Random(7)
    head = np.frombuffer(rng.randbytes(8 * 1000), dtype=np.uint64)
    assert np.array_equal(words[:1000], head)


def test_chunked_words_are_the_same_stream(monkeypatch):
    whole = SeededRandomSource(3).words(1000)
    monkeypatch.setattr(mechanisms, "_SEEDED_CHUNK_WORDS", 7)
    chunked = SeededRandomSource(3).words(1000)
    assert np.array_equal(whole, chunked)
