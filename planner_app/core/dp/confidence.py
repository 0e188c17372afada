"""The confidence the accuracy is shown at: its default and the range it may take.

A module of its own, with no numerics, so that the app's settings (read at start) and the
command line's option check know the range without importing the accuracy code."""

from __future__ import annotations

from ..support.errors import InputError

DEFAULT_CONFIDENCE = 0.95
# The confidences the half-widths are computed for: closer to 1, 1 - confidence loses its
# digits in floating point (at 1 - 2^-53 it is 0 and the half-width divides by it)
MIN_CONFIDENCE = 0.5
MAX_CONFIDENCE = 0.999999


def check_confidence(confidence: float) -> float:
    """``confidence``, or InputError when the half-widths cannot be computed for it."""
    if not (isinstance(confidence, (int, float)) and MIN_CONFIDENCE <= confidence
            <= MAX_CONFIDENCE):
        raise InputError("argument", "confidence",
                         f"must lie in [{MIN_CONFIDENCE:g}, {MAX_CONFIDENCE:g}], not "
                         f"{confidence!r}")
    return confidence
