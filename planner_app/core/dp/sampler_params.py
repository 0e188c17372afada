"""What planning needs of the samplers without the samplers: the source of random bits they
draw from (a Protocol), and their exact parameters, decided when a plan is calibrated
(measure.py) before any noise is drawn: randomized response's truth probability and a
quantile's proposal scale.

Pure Python on Fractions, apart from the samplers (mechanisms.py, on numpy, imported when
noise is drawn): the app's start reads the planning code (issue 24)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np


class RandomSource(Protocol):
    """Uniform random bits. Implementations must be uniform and independent."""

    def words(self, n: int) -> np.ndarray:
        """``n`` independent uniform 64-bit words (dtype uint64)."""

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n) for any positive Python int ``n``."""


def truth_probability(epsilon: float) -> Fraction:
    """Largest t on a 2^-32 grid with ln((1+t)/(1-t)) <= epsilon (t = tanh(epsilon/2))."""
    scale = 1 << 32
    t = Fraction(math.floor(math.tanh(epsilon / 2) * scale) - 1, scale)
    t = max(t, Fraction(0))
    while t > 0 and math.log((1 + t) / (1 - t)) > epsilon:
        t -= Fraction(1, scale)
    return t


MAX_QUANTILE_SCALE = 1 << 20  # 4Δ/ε above this: a quantile's ε is refused as too small


def quantile_proposal_scale(epsilon: float, sensitivity: int) -> Fraction:
    """4Δ/ε, the scale of a quantile's exponential weights exp(-|rank error| / scale); a
    ValueError when it exceeds MAX_QUANTILE_SCALE. Such an ε makes the release nearly uniform
    over the grid (it says nothing), and its exact arithmetic would need ever more digits: it
    is refused before any charge (measure.py)."""
    a = Fraction(repr(float(epsilon))) / (4 * sensitivity)
    if a <= 0 or 1 / a > MAX_QUANTILE_SCALE:
        raise ValueError("epsilon is too small for the quantile sampler")
    scale = Fraction(1) / a
    if scale.denominator >= 1 << 32 or scale.numerator >= 1 << 40:
        scale = Fraction(math.ceil(scale * (1 << 20)), 1 << 20)
    if scale.numerator >= 1 << 52 or scale.denominator >= 1 << 52:
        raise ValueError("epsilon is too small for the quantile sampler")
    return scale
