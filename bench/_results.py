"""Shared by the benchmarks: replace one '## ' section of bench/results.md."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).with_name("results.md")


def write_section(mark: str, section: str) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n\n"
    if mark in text:
        head, _, tail = text.partition(mark)
        rest = tail.split("\n## ", 1)
        text = head + section + ("\n## " + rest[1] if len(rest) > 1 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text)
