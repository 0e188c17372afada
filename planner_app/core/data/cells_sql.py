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
- A cell's *key* (categories, group keys, yes/no lists) is ``model.canonical_key``; facts.py
  writes it in SQL, sql_plan.py maps it in Python over a column's distinct values.

Everything here is SQL text in DuckDB's dialect; what sql_plan.py uses of it also transpiles
to Spark SQL (tests/engine/test_sql_transpiles.py).
"""

from __future__ import annotations

from .source import literal

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
    c = cast or f"TRY_CAST({t} AS DOUBLE)"
    return (f"(CASE WHEN {c} IS NOT NULL AND regexp_full_match({t}, {literal(NUMBER_RE)}) "
            f"THEN {c} END)")


def plain_number_sql(x: str) -> str:
    """SQL: a text cell in plain notation (``PLAIN_NUMBER``) as a double (the release
    engines map every other text in Python)."""
    return f"TRY_CAST({x} AS DOUBLE)"


def not_plain_sql(x: str) -> str:
    """SQL: the text cell ``x`` is not in plain number notation."""
    return f"NOT regexp_matches({x}, {literal(PLAIN_NUMBER)})"
