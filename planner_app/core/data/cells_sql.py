"""What a cell means, in SQL: the one implementation the owner's facts (facts.py) and the
release engines (sql_plan.py, for DuckDB and Spark) share. ``model.values`` is the
specification and cells.py its Python reading; tests/engine/test_cells_sql.py holds the
three together on a table of tricky cells.

- A column's type decides how its cells read (``type_class`` of its DuckDB type name).
- A cell is *missing* when it is SQL NULL, or NaN in a floating-point column
  (``missing_sql``).
- A cell's *number* is finite or NULL (``finite_sql``): a typed cell's value as a double
  (a bool is 1/0); a text cell's number is the number it spells in Python's ``float()``
  syntax less ``_`` and non-ASCII digits (``NUMBER_RE``), after trimming as ``str.strip()``
  trims (``trimmed_text_sql``, ``text_number_sql``), or ``true``/``false``. The release
  engines cast the plainest of these texts (``PLAIN_NUMBER``, a subset of ``NUMBER_RE``)
  themselves and map every other distinct text in Python (cells.cell_number), a form that
  also runs on Spark.
- A cell's *key* (categories, group keys, yes/no lists) is ``model.canonical_key``: written
  in SQL here for the owner's facts (``Cell.key_num``/``key_txt``, ``Declared``,
  ``yes_no_code``); sql_plan.py maps it in Python over a column's distinct values instead
  (the form that runs on Spark too).

``cell(column, sql_type)`` gives all of a column's readings at once (``Cell``).

Everything here is SQL text in DuckDB's dialect; what sql_plan.py uses of it also transpiles
to Spark SQL (tests/engine/test_sql_transpiles.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..kinds.params import answers_of
from ..model import Query, canonical_key, text_number
from .source import ident, literal

if TYPE_CHECKING:
    import duckdb

#: The characters Python's ``str.strip()`` removes (all of them lie below U+3001).
WHITESPACE = "".join(ch for ch in map(chr, range(0x3001)) if ch.isspace())

#: Python's float() syntax, less "_" and non-ASCII digits (``model.values.text_number``).
NUMBER_RE = (r"[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
             r"|[iI][nN][fF]([iI][nN][iI][tT][yY])?|[nN][aA][nN])")

#: Text the release engines cast to a number themselves: plain decimal or exponent notation,
#: no spaces (a subset of NUMBER_RE). Python's float() reads each such text as the correctly
#: rounded double, as DuckDB and Java do.
PLAIN_NUMBER = r"^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"

#: The largest finite double, as SQL: a number beyond it is not finite.
MAX_DOUBLE = "CAST('1.7976931348623157e308' AS DOUBLE)"

_INTS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
         "UINTEGER", "UBIGINT", "UHUGEINT", "INT", "LONG", "SHORT", "BYTE")
_FLOATS = ("FLOAT", "DOUBLE", "REAL", "FLOAT4", "FLOAT8")

NEITHER = -1  # a filled cell that is neither a yes nor a no value (as fit.NEITHER)
ABSENT = -2  # an empty cell (as fit.ABSENT)

#: the type classes whose cells are numbers (a bool is 1/0)
NUMBER_CLASSES = ("int", "float", "bool", "decimal")


def is_nested(sql_type: str) -> bool:
    """A list, struct, map or union column (its cells are not single values)."""
    t = sql_type.upper()
    return t.endswith("]") or t.startswith(("STRUCT", "MAP", "UNION", "LIST", "ARRAY"))


def type_class(sql_type: str) -> str:
    """How a column of this DuckDB type reads: "nested", "text", "bool", "float",
    "decimal", "int", or "other" (a date, a blob: neither a number nor a text)."""
    t = sql_type.upper()
    if is_nested(t):
        return "nested"
    if t in ("VARCHAR", "STRING", "TEXT") or t.startswith("VARCHAR"):
        return "text"
    if t in ("BOOLEAN", "BOOL"):
        return "bool"
    if t in _FLOATS:
        return "float"
    if t.startswith(("DECIMAL", "NUMERIC")):
        return "decimal"
    if t in _INTS:
        return "int"
    return "other"


def reads_as_text(sql_type: str) -> bool:
    """The owner's facts read the column's cells as text (cast to VARCHAR when not one)."""
    return type_class(sql_type) not in NUMBER_CLASSES


def missing_sql(x: str, cls: str) -> str:
    """SQL: the cell ``x`` of a column of class ``cls`` is missing."""
    return f"({x} IS NULL OR isnan({x}))" if cls == "float" else f"({x} IS NULL)"


def finite_sql(v: str) -> str:
    """SQL: the double ``v`` when it is finite, else NULL."""
    return (f"CASE WHEN {v} IS NULL OR isnan({v}) OR abs({v}) > {MAX_DOUBLE} THEN NULL "
            f"ELSE {v} END")


def typed_number_sql(x: str) -> str:
    """SQL: the finite number of a cell of a number class (NULL when missing or not
    finite)."""
    return finite_sql(f"(CAST({x} AS DOUBLE))")


def trimmed_text_sql(x: str, is_varchar: bool) -> str:
    """SQL: the cell as text trimmed as ``str.strip()`` trims (trimming with a set of
    non-ASCII characters is slow in DuckDB: only when an end needs it)."""
    text = x if is_varchar else f"CAST({x} AS VARCHAR)"
    codes = ", ".join(str(ord(ch)) for ch in WHITESPACE)
    return (f"(CASE WHEN ord({text}) IN ({codes}) OR ord(right({text}, 1)) IN ({codes}) "
            f"THEN trim({text}, {literal(WHITESPACE)}) ELSE {text} END)")


def text_number_sql(t: str, cast: str | None = None) -> str:
    """SQL: the number the trimmed text ``t`` spells (``model.values.text_number``), NaN and
    infinities included, or NULL. DuckDB's cast is correctly rounded like Python's but also
    takes "1_000", "+-1" and "nan(1)", so the text must have Python's number syntax too.
    ``cast``: ``TRY_CAST(t AS DOUBLE)`` already computed under that name."""
    c = cast or number_cast_sql(t)
    return (f"(CASE WHEN {c} IS NOT NULL AND regexp_full_match({t}, {literal(NUMBER_RE)}) "
            f"THEN {c} END)")


def number_cast_sql(t: str) -> str:
    """SQL: the engine's own cast of the text ``t`` to a double, NULL when it cannot (only
    ever read under ``text_number_sql``'s syntax check, or for ``PLAIN_NUMBER`` texts)."""
    return f"TRY_CAST({t} AS DOUBLE)"


def plain_number_sql(x: str) -> str:
    """SQL: a text cell in plain notation (``PLAIN_NUMBER``) as a double (the release
    engines map every other text in Python)."""
    return number_cast_sql(x)


def not_plain_sql(x: str) -> str:
    """SQL: the text cell ``x`` is not in plain number notation."""
    return f"NOT regexp_matches({x}, {literal(PLAIN_NUMBER)})"


# ----------------------------------------------------------------------------- cells as SQL
# (the owner's facts: every cell read in SQL, keys included)


@dataclass(frozen=True)
class Cell:
    """SQL expressions reading one column's cells by the rules of ``model.values``."""

    missing: str  # the cell is empty (SQL NULL, or NaN in a float column)
    number: str  # the cell's finite number, or NULL (cells.cell_number)
    key_num: str  # the cell's key when it is a number (DOUBLE), else NULL
    key_txt: str  # the cell's key when it is a text, else NULL
    is_number: str  # the cell spells a number (for "a column of numbers": fit.py)


def cell(column: str, kind: str, prepared: tuple[str, str] | None = None) -> Cell:
    """The reading of a column of DuckDB type ``kind`` (cells_sql.py's rules). ``prepared``:
    the names of the trimmed text and its number, computed once per cell in an inner query
    (``Reader.src``)."""
    x = ident(column)
    cls = type_class(kind)
    if cls == "bool":
        return Cell(missing_sql(x, cls), typed_number_sql(x), "CAST(NULL AS DOUBLE)",
                    f"CASE WHEN {x} THEN 'true' ELSE 'false' END", "TRUE")
    if not reads_as_text(kind):
        return Cell(missing_sql(x, cls), typed_number_sql(x),
                    f"(CAST({x} AS DOUBLE) + 0.0)", "CAST(NULL AS VARCHAR)", "TRUE")
    if prepared is not None:
        t, n = prepared
    else:
        t, n = text_expressions(column, kind)
    low = f"lower({t})"
    truth = f"{low} IN ('true', 'false')"
    # a cell that spells a number is not true/false: lower() only for the others
    number = (f"(CASE WHEN {n} IS NOT NULL THEN (CASE WHEN isfinite({n}) THEN {n} END) "
              f"WHEN {low} = 'true' THEN 1.0 WHEN {low} = 'false' THEN 0.0 END)")
    key_num = f"(CASE WHEN {truth} THEN NULL ELSE {n} + 0.0 END)"
    key_txt = f"(CASE WHEN {truth} THEN {low} WHEN {n} IS NULL THEN {t} END)"
    is_number = f"({n} IS NOT NULL AND NOT isnan({n}))"
    return Cell(missing_sql(x, cls), number, key_num, key_txt, is_number)


def text_expressions(column: str, sql_type: str) -> tuple[str, str]:
    """SQL for a text cell trimmed as ``str.strip()`` trims, and the number it spells
    (cells_sql.py)."""
    t = trimmed_text_sql(ident(column), sql_type == "VARCHAR")
    return t, text_number_sql(t)


@dataclass(frozen=True)
class Declared:
    """A declared list of values (categories, group keys, yes/no values) as keys."""

    numbers: tuple[float, ...]
    texts: tuple[str, ...]

    @classmethod
    def of(cls, values: Iterable[Any]) -> Declared:
        numbers: list[float] = []
        texts: list[str] = []
        for v in values:
            key = canonical_key(v)
            if isinstance(v, bool) or key in ("true", "false"):
                texts.append(key)
            elif isinstance(v, (int, float)):
                try:
                    numbers.append(float(v))
                except OverflowError:
                    numbers.append(float("inf") if v > 0 else float("-inf"))
            else:
                number = text_number(str(v).strip())
                if number is None:
                    texts.append(key)
                else:
                    numbers.append(number)
        return cls(tuple(dict.fromkeys(numbers)), tuple(dict.fromkeys(texts)))

    def member(self, c: Cell, con: duckdb.DuckDBPyConnection, name: str) -> str:
        """SQL: the cell's key is one of these values. Long lists go into a temporary table
        (a semi-join), short ones inline."""
        parts = []
        kinds: list[tuple[Sequence[Any], str, str, str, Callable[[Any], str]]] = [
            (self.numbers, c.key_num, "n", "v + 0.0", double_sql),
            (self.texts, c.key_txt, "t", "CAST(v AS VARCHAR)", literal)]
        for values, key, suffix, cast, show in kinds:
            if len(values) > 200:
                table = f"decl_{name}_{suffix}"
                con.register(f"{table}_f", pd.DataFrame({"v": list(values)}))
                con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS "
                            f"SELECT {cast} AS v FROM {table}_f")
                parts.append(f"{key} IN (SELECT v FROM {table})")
            elif values:
                parts.append(f"{key} IN ({', '.join(show(v) for v in values)})")
        return "(" + " OR ".join(f"COALESCE({p}, FALSE)" for p in parts) + ")" if parts \
            else "FALSE"


def double_sql(v: float) -> str:
    if v != v:
        return "CAST('nan' AS DOUBLE)"
    if v in (float("inf"), float("-inf")):
        return f"CAST('{'-' if v < 0 else ''}inf' AS DOUBLE)"
    return f"CAST({v!r} AS DOUBLE)"


def cell_key(key_num: float | None, key_txt: str | None) -> str:
    """The canonical key (``model.canonical_key``) of a cell read as ``key_num``/``key_txt``."""
    return canonical_key(key_num) if key_num is not None else str(key_txt)


def yes_no_code(query: Query, c: Cell, con: duckdb.DuckDBPyConnection, name: str) -> str:
    """SQL: each cell read as the query reads it: 1 yes, 0 no, NEITHER or ABSENT
    (``model.answer_reader``)."""
    answers = answers_of(query)
    if answers is None or answers.yes is None:
        yes = (f"(COALESCE({c.key_num} = 1, FALSE) OR "
               f"COALESCE(lower({c.key_txt}) IN ('yes', 'true'), FALSE))")
        no = (f"(COALESCE({c.key_num} = 0, FALSE) OR "
              f"COALESCE(lower({c.key_txt}) IN ('no', 'false'), FALSE))")
    else:
        yes = Declared.of(answers.yes).member(c, con, f"{name}_yes")
        no = Declared.of(answers.no or ()).member(c, con, f"{name}_no")
    return (f"(CASE WHEN {c.missing} THEN {ABSENT} WHEN {yes} THEN 1 WHEN {no} THEN 0 "
            f"ELSE {NEITHER} END)")
