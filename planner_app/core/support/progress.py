"""Progress as a plain callable (STYLE pattern 1): ``progress(fraction, message)``, fraction
from 0 to 1. The command line passes nothing or a printer, the app a worker signal."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[float, str], None] | None


def report(progress: Progress, fraction: float, message: str) -> None:
    """Tell ``progress`` (when there is one) how far the work is and what it is doing."""
    if progress is not None:
        progress(min(max(fraction, 0.0), 1.0), message)


def part(progress: Progress, start: float, end: float) -> Progress:
    """A progress for one stage of a longer task: its 0..1 is the caller's start..end."""
    if progress is None:
        return None
    outer = progress

    def inner(fraction: float, message: str) -> None:
        outer(start + (end - start) * min(max(fraction, 0.0), 1.0), message)
    return inner
