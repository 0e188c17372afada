"""How a text is written in a CSV cell the bundle publishes (results.csv, synthetic/<id>.csv):
a text a spreadsheet would run as a formula gets a leading quote. The one rule, here at the
bottom of the core so the plan's validation (a synthetic table's declared values and column
names must stay distinct once escaped) and the bundle's writers use the same one."""

from __future__ import annotations

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def is_number_text(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def formula_escaped(text: str) -> str:
    """``text`` as a CSV cell: a leading quote when a spreadsheet would run it as a formula
    (it starts with = + - @ a tab or a carriage return and is not a number, so "+1" is kept)."""
    if text.startswith(FORMULA_START) and not is_number_text(text):
        return "'" + text
    return text
