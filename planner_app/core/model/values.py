"""How a plan's declared values meet table cells: the key that matches categories and group
keys with cells, the number a cell's text spells, and the yes/no vocabulary."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .plan import Scalar


def _number_key(value: Any) -> str:
    """The key of a number: through the (correctly rounded) float, so an integer cell, a
    float cell and the text of either give one key whatever type the column was read as."""
    try:
        x = float(value)
    except OverflowError:  # an integer beyond the float range
        x = math.inf if value > 0 else -math.inf
    if math.isfinite(x) and x == int(x) and abs(x) < 2**63:
        return str(int(x))
    return repr(x)


def text_number(text: str) -> float | None:
    """The number a cell's text spells (ASCII decimal or exponent notation, ``inf``), or None.
    A function of the text alone: the same whatever else its column holds."""
    if not text.isascii() or "_" in text:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def canonical_key(value: Any) -> str:
    """The text form used to match declared categories and keys with table cells.

    It depends on the cell alone, never on the type a table reader inferred for its whole
    column (one added text cell turns a column of numbers into text): ``1``, ``1.0``, ``"1"``,
    ``"1.0"`` and ``"01"`` all match (text that spells a number is the number);
    ``True`` and ``"true"``/``"True"``/``"TRUE"`` match; other text is compared after trimming
    spaces. Numbers match through their float value (integers beyond 2**53 may share a key).
    """
    # a numpy scalar (a cell of a table read) exists only once numpy is imported: plans are
    # read and keyed without it (the desktop app's start, issue 24)
    np = sys.modules.get("numpy")
    if isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, float)) or (np is not None
                                           and isinstance(value, (np.integer, np.floating))):
        return _number_key(value)
    text = str(value).strip()
    low = text.lower()
    if low in ("true", "false"):
        return low
    number = text_number(text)
    return text if number is None else _number_key(number)


# Text that can spell a number for float(): a sign, then a digit, a point and a digit, or
# inf/nan (float() reads "infinity" too). Anything else is no number without calling float().
_MAYBE_NUMBER = re.compile(r"[+-]?(?:[0-9]|\.[0-9]|inf|nan)", re.IGNORECASE)
_EXACT_INT = 2**53  # integers up to this are their float exactly: the key is str(int)


def _float_keys(xs: list[float]) -> list[str]:
    """canonical_key of every float at once: integral finite values below 2**63 as the
    integer's text, the others as repr (numpy picks them; the texts are Python's)."""
    import numpy as np  # a table's column of floats: numpy is loaded with the table

    a = np.asarray(xs, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        integral = np.isfinite(a) & (a == np.trunc(a)) & (np.abs(a) < 2.0**63)
    if integral.all():
        return list(map(str, a.astype(np.int64).tolist()))
    out = list(map(float.__repr__, a.tolist()))
    where = np.flatnonzero(integral)
    for i, text in zip(where.tolist(), map(str, a[where].astype(np.int64).tolist()),
                       strict=True):
        out[i] = text
    return out


def _text_keys(texts: list[str]) -> list[str]:
    """canonical_key of every str at once: trimmed; true/false in lower case; text that
    spells a number (text_number) as that number's key."""
    out = list(map(str.strip, texts))
    joined = "".join(out)
    if joined.isascii() and joined.isdigit() and all(map(str.isdigit, out)) \
            and max(map(len, out)) <= 15:
        # only plain unsigned integers below 10^15 < 2**53 (codes read from a file): each is
        # its float exactly, whose key is the integer's text without leading zeros
        return list(map(str, map(int, out)))
    spots = [i for i, m in enumerate(map(_MAYBE_NUMBER.match, out)) if m is not None]
    lows = {"true", "false"}
    for i, t in enumerate(out):  # the rare true/false texts
        if len(t) in (4, 5) and t.lower() in lows:
            out[i] = t.lower()
    numbers: list[float] = []
    numbered: list[int] = []
    texts_of = [out[i] for i in spots]
    joined = "".join(texts_of)
    if joined.isascii() and "_" not in joined:  # text_number's own tests, for all at once
        try:
            numbers, numbered = list(map(float, texts_of)), spots
        except ValueError:  # some are no number: each on its own
            pass
    if not numbered:
        for i in spots:
            x = text_number(out[i])
            if x is not None:
                numbers.append(x)
                numbered.append(i)
    for i, key in zip(numbered, _float_keys(numbers) if numbers else [], strict=True):
        out[i] = key
    return out


def canonical_keys(values: Sequence[Any]) -> list[str]:
    """``[canonical_key(v) for v in values]``, at the cost of a few C passes for the lists a
    plan declares (all integers, all floats or all text; 10^6 categories): numpy for the
    numbers, str methods and one pattern for the text. Other lists take canonical_key per
    value; the result is the same (tests/core/test_canonical_keys.py)."""
    values = values if isinstance(values, list) else list(values)
    if not values:
        return []
    types = set(map(type, values))
    if types == {int}:
        if -_EXACT_INT <= min(values) and max(values) <= _EXACT_INT:
            return list(map(str, values))
    elif types == {float} or types == {int, float}:
        if all(type(v) is float or -_EXACT_INT <= v <= _EXACT_INT for v in values):
            return _float_keys(values)
    elif types == {str}:
        return _text_keys(values)
    return [canonical_key(v) for v in values]


# The fixed vocabulary, read only when a query declares no "yes"/"no" lists. Single letters
# (y/n, t/f) are not in it: "F" is as likely to mean female as false.
_YES = {"yes", "true", "1"}
_NO = {"no", "false", "0"}
FIXED_YES_NO = "yes/no, true/false or 1/0"


def yes_no(value: Any) -> bool | None:
    """The fixed, public vocabulary of yes/no answers (any case)."""
    key = canonical_key(value).lower()
    if key in _YES:
        return True
    if key in _NO:
        return False
    return None


def declared_answer(yes: Iterable[Scalar], no: Iterable[Scalar] | None,
                     value: Any) -> bool | None:
    key = canonical_key(value)
    if key in {canonical_key(v) for v in yes}:
        return True
    if key in {canonical_key(v) for v in no or ()}:
        return False
    return None


def answer_reader(yes: Iterable[Scalar] | None,
                  no: Iterable[Scalar] | None) -> Callable[[Any], bool | None]:
    """How a statistic reads a cell as yes (True), no (False) or neither (None): its declared
    lists when it has them (exact text, as categories match), else the fixed vocabulary
    (kinds.shared_plan.answer_reader_of takes them from a statistic)."""
    if yes is None:
        return yes_no
    yes_keys = {canonical_key(v) for v in yes}
    no_keys = {canonical_key(v) for v in no or ()}

    def read(value: Any) -> bool | None:
        key = canonical_key(value)
        return True if key in yes_keys else False if key in no_keys else None

    return read
