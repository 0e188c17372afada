"""The one rounding rule for every number shown to a person (the app's viewer and release
wizard, the HTML and PDF report, the command line): four significant digits, whole numbers in
full with thousands separators, no decimals from 10,000 on; a share in percent by the same
rule; and a range whose two ends share the same decimals ("28.30% to 38.67%", not "28.3% to
38.67%").

The files of a bundle that hold numbers for programs (results.csv, release.json) keep the
exact, unrounded values; only what a person reads is rounded, here.
"""

from __future__ import annotations

import math

DIGITS = 4  # significant digits of every number shown
_WHOLE_FROM = 1e4  # from here on, no decimals: 12,346 rather than 1.235e+04
_SCIENTIFIC_FROM = 1e15


def shown(x: float, digits: int = DIGITS) -> str:
    """A number as a person reads it: whole numbers in full with thousands separators, other
    numbers to ``digits`` significant digits (20.5322265625 -> "20.53"), numbers of 10,000
    and more without decimals, no scientific notation between 0.0001 and 10¹⁵."""
    if isinstance(x, bool):
        return str(x)
    x = float(x)
    if not math.isfinite(x):
        return "unbounded" if x > 0 else ("-unbounded" if x < 0 else "not a number")
    if x.is_integer() and abs(x) < _SCIENTIFIC_FROM:
        return f"{int(x):,}"
    if abs(x) >= _WHOLE_FROM:
        return f"{x:,.0f}" if abs(x) < _SCIENTIFIC_FROM else f"{x:.{digits}g}"
    text = f"{x:.{digits}g}"
    rounded = float(text)
    if rounded.is_integer():  # 1260.0000001 -> "1,260", as 1260 reads
        return f"{int(rounded):,}"
    return text.replace("e-0", "e-")


def shown_percent(share: float, digits: int = DIGITS) -> str:
    """A share (0 to 1) in percent by the same rule: 0.2275 -> "22.75%"."""
    return f"{shown(100 * float(share), digits)}%"


def decimals(x: float, digits: int = DIGITS) -> int | None:
    """The decimals ``shown`` gives ``x`` (0 for whole numbers and from 10,000 on; None when
    it is shown in scientific notation)."""
    text = shown(x, digits)
    if "e" in text:
        return None
    return len(text.partition(".")[2])


def _fixed(x: float, places: int) -> str:
    text = f"{float(x):,.{places}f}"
    if text.startswith("-") and float(text[1:].replace(",", "")) == 0:
        return text[1:]  # no "-0.00"
    return text


def shown_together(values: tuple[float, ...], unit: str = "",
                   digits: int = DIGITS) -> list[str]:
    """Numbers read side by side (a value and its interval) with the same decimals: those
    ``shown`` gives the one with the most, but never more than leave the largest with
    ``digits`` significant digits: (6.8, 6.566, 7.039) -> "6.800", "6.566", "7.039";
    (38.4505, 0.3206, 76.5804) -> "38.45", "0.32", "76.58"; ``unit`` after each."""
    floats = [float(v) for v in values]
    places = [decimals(v, digits) for v in floats]
    if (not all(math.isfinite(v) and abs(v) < _SCIENTIFIC_FROM for v in floats)
            or any(p is None for p in places)):
        return [f"{shown(v, digits)}{unit}" for v in floats]
    most = max(p for p in places if p is not None)
    largest = max(abs(v) for v in floats)
    if largest > 0:  # never more than ``digits`` significant digits on the largest
        most = min(most, max(0, digits - 1 - math.floor(math.log10(largest))))
    return [f"{_fixed(v, most)}{unit}" for v in floats]


def shown_range(low: float, high: float, unit: str = "", digits: int = DIGITS) -> str:
    """Two ends of an interval with the same decimals (``shown_together``): "19.70 to
    20.75", "3,764 to 3,824", with ``unit`` after each end ("28.30% to 38.67%")."""
    a, b = shown_together((low, high), unit, digits)
    return f"{a} to {b}"


def shown_point(value: float, low: float | None, high: float | None, unit: str = "",
                digits: int = DIGITS) -> str:
    """A value with its interval, all with the same decimals: "6.800 (6.566 to 7.039)"."""
    if low is None or high is None:
        return f"{shown(value, digits)}{unit}"
    v, a, b = shown_together((value, low, high), unit, digits)
    return f"{v} ({a} to {b})"


def shown_percent_range(low: float, high: float, digits: int = DIGITS) -> str:
    """A range of shares (0 to 1) in percent, both ends with the same decimals."""
    return shown_range(100 * float(low), 100 * float(high), "%", digits)
