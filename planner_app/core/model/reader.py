"""Reading one JSON object of a plan: each field by its expected type, every problem an
InputError that names the file and the field's path (``queries[age].lower``)."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable
from typing import Any, NoReturn

from ..support.errors import InputError
from ..support.fonts import undrawable
from .plan import MAX_LIST, MAX_TEXT, Scalar
from .values import canonical_key, canonical_keys


class FieldReader:
    """Reads one JSON object, naming the field in every error."""

    def __init__(self, source: str, obj: Any, path: str, allowed: Iterable[str]) -> None:
        self.source = source
        self.path = path
        if not isinstance(obj, dict):
            self.fail(None, f"must be a JSON object, not {json_type(obj)}")
        unknown = [k for k in obj if k not in allowed]
        if unknown:
            self.fail(unknown[0], "unknown field (check its spelling)")
        self.obj: dict[str, Any] = obj

    def where(self, key: str | None) -> str:
        if key is None:
            return self.path or "plan"
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str | None, problem: str) -> NoReturn:
        raise InputError(self.source, self.where(key), problem)

    def has(self, key: str) -> bool:
        return key in self.obj and self.obj[key] is not None

    def text(self, key: str, required: bool = True, default: str | None = None) -> str | None:
        if not self.has(key):
            if required:
                self.fail(key, "is required")
            return default
        value = self.obj[key]
        if not isinstance(value, str):
            self.fail(key, f"must be a string, not {json_type(value)}")
        problem = text_problem(value)
        if problem:
            self.fail(key, problem)
        return value

    def choice(self, key: str, choices: Iterable[str], default: str | None = None) -> str:
        choices = tuple(choices)
        value = self.text(key, required=default is None, default=default)
        assert value is not None
        if value not in choices:
            self.fail(key, f"'{value}' is not one of: {', '.join(choices)}")
        return value

    def number(self, key: str, required: bool = True, default: float | None = None) -> float | None:
        if not self.has(key):
            if required:
                self.fail(key, "is required")
            return default
        return as_number(self.obj[key], lambda p: self.fail(key, p))

    def integer(self, key: str, required: bool = True, default: int | None = None) -> int | None:
        if not self.has(key):
            if required:
                self.fail(key, "is required")
            return default
        value = self.obj[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(key, f"must be a whole number, not {json_type(value)}")
        if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
            self.fail(key, "must be a whole number")
        if abs(value) > 2**53:
            self.fail(key, f"is a {digit_count(int(value)):,}-digit number, too large to be "
                           "a count of rows")
        return int(value)

    def scalars(self, key: str, what: str) -> tuple[Scalar, ...]:
        value = self.obj[key]
        if not isinstance(value, list):
            self.fail(key, f"must be a list of {what}, not {json_type(value)}")
        if not value:
            self.fail(key, f"must not be empty: declare the public list of {what}")
        if len(value) > MAX_LIST:
            self.fail(key, f"has {len(value)} entries; at most {MAX_LIST:,} are allowed")
        if self._plain_scalars(value):
            return tuple(value)
        seen: set[str] = set()
        composed: dict[str, int] = {}  # the key of the text in Unicode's composed form (NFC)
        for i, item in enumerate(value):
            if isinstance(item, (dict, list)) or item is None:
                self.fail(f"{key}[{i}]", f"must be a string or number, not {json_type(item)}")
            if isinstance(item, float) and not math.isfinite(item):
                self.fail(f"{key}[{i}]", "must be a finite number")
            if isinstance(item, str):
                problem = text_problem(item)
                if problem:
                    self.fail(f"{key}[{i}]", problem)
            canon = canonical_key(item)
            if canon in seen:
                self.fail(f"{key}[{i}]", f"repeats an earlier entry ({canon!r})")
            seen.add(canon)
            nfc = _composed_key(item)
            if nfc in composed:  # prints as the earlier entry: a reviewer could not tell them
                self.fail(f"{key}[{i}]", f"{item!r} is {key}[{composed[nfc]}] written with "
                                         "other Unicode code points (they look the same; "
                                         "NFC normalisation makes them one); keep one of them")
            composed[nfc] = i
        return tuple(value)

    @staticmethod
    def _plain_scalars(value: list[Any]) -> bool:
        """The common case of a long list read at once: only ints, finite floats and clean
        text, no two with one key. False sends the list through the loop above, which names
        the first bad entry."""
        types = set(map(type, value))
        if not types <= {int, float, str}:
            return False
        if float in types and not all(math.isfinite(v) for v in value if type(v) is float):
            return False
        if str in types:
            texts = [v for v in value if type(v) is str] if len(types) > 1 else value
            if max(map(len, texts)) > MAX_TEXT or not all(map(_clean_text, texts)):
                return False
        keys = canonical_keys(value)
        if len(set(keys)) != len(keys):
            return False
        if str in types and not all(v.isascii() for v in value if type(v) is str):
            composed = [_composed_key(v) for v in value]  # ASCII text is its own NFC
            return len(set(composed)) == len(composed)
        return True


def _composed_key(value: Any) -> str:
    """canonical_key of text in Unicode's composed form (NFC): 'é' as one code point or as
    'e' and a combining accent print alike, so a declared list may hold only one of them."""
    if isinstance(value, str) and not value.isascii():
        value = unicodedata.normalize("NFC", value)
    return canonical_key(value)


def _clean_text(text: str) -> bool:
    """No character text_problem refuses (printable ASCII is the common, fast case)."""
    return (text.isascii() and text.isprintable()) or text_problem(text) is None


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def digit_count(n: int) -> int:
    """How many decimal digits ``n`` has, without writing it out (str() of an int past 4,300
    digits raises: "use sys.set_int_max_str_digits()", no message for a person)."""
    n = abs(n)
    if n == 0:
        return 1
    k = int((n.bit_length() - 1) * 0.30102999566398120)  # floor(log10 n) is k or k + 1
    return k + 1 + int(n >= int(10 ** (k + 1)))


def as_number(value: Any, fail: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(f"must be a number, not {json_type(value)}")
    try:
        number = float(value)
    except OverflowError:  # a JSON integer of hundreds of digits
        fail(f"is a {digit_count(value):,}-digit number, too large for any computation")
    if not math.isfinite(number):
        fail("must be a finite number")
    return number


_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}


def text_problem(value: str) -> str | None:
    """Reject text that could hide what a reviewer reads (bidi overrides, control chars)."""
    if len(value) > MAX_TEXT:
        return f"is {len(value)} characters long; at most {MAX_TEXT} are allowed"
    for ch in value:
        if ch in _BIDI:
            return f"contains the invisible direction control U+{ord(ch):04X}"
        cat = unicodedata.category(ch)
        if cat == "Cc" and ch not in "\t\n":
            return f"contains the control character U+{ord(ch):04X}"
        if cat == "Cs":
            return "contains an unpaired surrogate"
    return None


# characters that draw nothing: controls, format characters (zero-width space and joiners, the
# BOM, soft hyphen), separators, and the few letters fonts draw as a blank
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def is_invisible(ch: str) -> bool:
    return unicodedata.category(ch) in _INVISIBLE_CATEGORIES or ch in _BLANK_LETTERS


def visible_text(text: str) -> str:
    """``text`` without the characters that draw nothing ('' when nothing shows): the one
    test of whether a reason, a name or a comment says anything at all."""
    if text.isascii():
        return text.strip()
    return "".join(ch for ch in text if not is_invisible(ch) or ch == " ").strip()


def name_problem(value: str) -> str | None:
    """What a dataset name may not hold beyond text_problem's rule: a line break, a tab or
    another invisible character (two names that print alike would be two ledger entries), or
    a character the PDF report's font cannot draw (it would be missing from the report)."""
    for ch in value:
        if ch != " " and is_invisible(ch):
            what = {"\n": "a line break", "\r": "a line break", "\t": "a tab"}.get(
                ch, f"the invisible character U+{ord(ch):04X}")
            return f"contains {what}; a dataset name is one line of visible text"
    missing = undrawable(value)
    if missing:
        shown = "".join(missing[:5])
        return (f"contains {shown!r} (U+{ord(missing[0]):04X}"
                + (f" and {len(missing) - 1} more" if len(missing) > 1 else "")
                + "), which the PDF report's font (DejaVu Sans) cannot draw: the name would be "
                  "missing from the report; use Latin, Greek or Cyrillic letters")
    return None


def usable_name(text: str, fallback: str = "dataset") -> str:
    """``text`` (a table file's name, say) as a dataset name name_problem accepts: without
    its invisible characters and those the report cannot draw; ``fallback`` if none is left."""
    kept = "".join(ch for ch in text if ch == " " or not (is_invisible(ch) or undrawable(ch)))
    kept = " ".join(kept.split())
    return kept if kept and text_problem(kept) is None else fallback
