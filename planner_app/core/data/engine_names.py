"""The engines' names, the one list of them: ``engines.open_engine`` turns a name into an
engine; the command line offers the same names without importing an engine (so parsing
stays light)."""

from __future__ import annotations

DEFAULT_ENGINE = "duckdb"
ENGINES = ("duckdb", "pandas", "spark")
