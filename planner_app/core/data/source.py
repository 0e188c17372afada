"""A table file opened in place, for the columnar engine (DuckDB) and anything that queries it.

``TableSource`` says how to read a file where it lies: CSV/TSV and Parquet are read by DuckDB
in place (only the columns a query names, spilling to disk, never the whole file in memory);
an Excel sheet, or a text file in an encoding DuckDB cannot read, is held as a pandas frame and
registered with DuckDB. ``TableSource.connect(columns)`` gives a DuckDB connection with the
view ``src`` over the file, every column under its header name; everything else (aggregates,
column facts, preview pages) is SQL over ``src``.

``FileHash`` streams the file's SHA-256 on a second thread, in blocks, never holding the file.

Text cells are read as text (``all_varchar``), exactly as pandas reads its text, so each
cell is interpreted by itself with the rules of ``model.values`` (a column's inferred type
never changes how one cell reads). Parquet columns keep their types.

Everything read here is private: it stays in this process and on the owner's screen.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ..support.errors import Cancelled, InputError
from ..support.words import TABLE_FORMATS_HINT
from .frame_cells import sql_frame

if TYPE_CHECKING:
    import duckdb

#: The texts pandas' read_csv reads as a missing cell (its default ``na_values`` and the empty
#: cell); DuckDB reads the same texts as NULL, so both engines see the same missing cells.
PANDAS_NA_TEXTS: tuple[str, ...] = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)

#: Encodings DuckDB's CSV reader decodes itself; others are read by pandas into memory.
DUCKDB_ENCODINGS = {"utf-8": "utf-8", "utf-8-sig": "utf-8", "latin-1": "latin-1",
                    "utf-16": "utf-16"}

#: DuckDB's working memory; beyond it, it spills to a temporary folder.
DEFAULT_MEMORY_LIMIT = os.environ.get("PLANNER_APP_ENGINE_MEMORY", "2GB")


#: DuckDB's longest line: above the loader's 16 MiB limit, which the file's streaming guard
#: (FileHash's check) reports with its line number.
MAX_LINE_SIZE = 17 * 1024 * 1024


_spill_lock = threading.Lock()
_spill_folder: str | None = None


def private_temp_folder() -> str:
    """A folder only this user can read (0700), made once per process and removed at exit:
    where a plain connection (row count, preview, column facts) spills, never the shared
    temporary folder itself (a spill file holds cells of the table)."""
    global _spill_folder
    with _spill_lock:
        if _spill_folder is None or not os.path.isdir(_spill_folder):
            import atexit
            import shutil

            folder = tempfile.mkdtemp(prefix="planner-app-duckdb-")
            atexit.register(shutil.rmtree, folder, True)
            _spill_folder = folder
        return _spill_folder


def glob_escaped(path: str) -> str:
    """A path DuckDB reads as exactly that file: its table functions expand ``*``, ``?`` and
    ``[...]`` in a path (``t[1].csv`` would read ``t1.csv``, ``t*.csv`` every such file), so
    each of those characters is written as a one-character class, e.g. ``[*]``."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in path)


def ident(name: str) -> str:
    """A column name as a quoted SQL identifier (any text, quotes doubled)."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A text as a quoted SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


#: Encodings whose bytes can be invalid; a file in one of them must be valid text throughout.
CHECKED_ENCODINGS = {"utf-8": "utf-8", "utf-8-sig": "utf-8"}

#: Bytes of one line kept to name the column of an invalid byte (beyond it: the line only).
_TAIL_LIMIT = 1 << 20


class TextGuard:
    """The one rule for text that does not decode (issue 13): a CSV in UTF-8 must be valid
    UTF-8 to its last byte, in every column, read by the plan or not. Fed the file's bytes in
    order (the loader's reader and ``FileHash`` for the in-place engines, so every engine
    applies it before the charge), it raises ``InputError`` naming the file, the line and
    the column (by position; the column is left out when the byte lies in a quoted cell that
    began on an earlier line) of the first invalid byte, never the cell's text. An empty
    block means the end of the file (a sequence cut by the end is invalid too)."""

    def __init__(self, label: str, encoding: str | None, delimiter: str | None) -> None:
        import codecs

        self.label = label
        self.encoding = encoding or "utf-8"
        self.delimiter = delimiter or ","
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict") \
            if self.encoding in CHECKED_ENCODINGS else None
        self._lines = 0  # line ends (LF) before the current block
        self._tail = b""  # the current line's bytes before the current block (capped)
        self._quotes = 0  # quote characters before the current line (parity: in a cell)

    def feed(self, block: bytes) -> None:
        if self._decoder is None:
            return
        pending = len(self._decoder.getstate()[0])
        try:
            self._decoder.decode(block, final=not block)
        except UnicodeDecodeError as exc:
            raise self._problem(block, max(0, exc.start - pending)) from None
        end = block.rfind(b"\n")
        if end < 0:
            self._tail = (self._tail + block)[:_TAIL_LIMIT + 1]
        else:
            self._quotes += self._tail.count(b'"') + block.count(b'"', 0, end)
            self._tail = block[end + 1:end + 1 + _TAIL_LIMIT + 1]
            self._lines += block.count(b"\n")

    def _problem(self, block: bytes, at: int) -> InputError:
        import csv

        start = block.rfind(b"\n", 0, at) + 1
        line = self._lines + block.count(b"\n", 0, at) + 1
        if start:
            before = block[start:at]
            quotes = self._quotes + self._tail.count(b'"') + block.count(b'"', 0, start)
        else:
            before = self._tail + block[:at]
            quotes = self._quotes
        where = f"line {line}"
        if quotes % 2 == 0 and len(self._tail) <= _TAIL_LIMIT:
            text = before.decode("utf-8", errors="replace")
            fields = next(csv.reader([text], delimiter=self.delimiter), [""])
            where += f", column {max(1, len(fields))}"
        return InputError(self.label, where, f"is not valid {self.encoding} text (a byte "
                                             "sequence that is no character; save the file "
                                             "as UTF-8)")


def first_text_problem(path: Path, encoding: str | None, delimiter: str | None,
                       label: str) -> InputError | None:
    """``TextGuard`` over a whole file (where an engine found the file undecodable: the same
    message, with the column, whichever engine read it)."""
    guard = TextGuard(label, encoding, delimiter)
    try:
        with open(path, "rb") as fh:
            while True:
                block = fh.read(1 << 20)
                guard.feed(block)
                if not block:
                    return None
    except InputError as exc:
        return exc
    except OSError:
        return None


class FileHash:
    """The SHA-256 of a file, computed in 1 MiB blocks on a daemon thread (hashlib releases
    the GIL, so it overlaps with the engine's work). ``result()`` waits for it."""

    def __init__(self, path: Path, cancel: Callable[[], bool] | None = None,
                 check: Callable[[bytes], None] | None = None) -> None:
        self.path = path
        self._cancel = cancel
        self._check = check  # sees every block in order (a text table's NUL/line guard)
        self._digest: str | None = None
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="file-hash")
        self._thread.start()

    def _run(self) -> None:
        h = hashlib.sha256()
        try:
            with open(self.path, "rb") as fh:
                while True:
                    if self._stop.is_set() or (self._cancel is not None and self._cancel()):
                        raise Cancelled(f"hashing {self.path.name}")
                    block = fh.read(1 << 20)
                    if self._check is not None:  # an empty block: the end of the file
                        self._check(block)
                    if not block:
                        break
                    h.update(block)
            self._digest = h.hexdigest()
        except BaseException as exc:  # handed to the thread that asks for the result
            self._error = exc

    def stop(self) -> None:
        self._stop.set()

    def result(self) -> str:
        self._thread.join()
        if self._error is not None:
            if isinstance(self._error, (Cancelled, InputError)):
                raise self._error
            raise InputError(self.path.name, None, f"cannot be read to the end "
                             f"({type(self._error).__name__})")
        assert self._digest is not None
        return self._digest


@dataclass
class TableSource:
    """How an engine reads one table: a file in place, or a frame held in memory."""

    name: str
    format: str  # csv | parquet | frame
    columns: tuple[str, ...]
    path: Path | None = None
    encoding: str | None = None
    delimiter: str | None = None
    frame: pd.DataFrame | None = None
    _rows: int | None = field(default=None, repr=False)

    @property
    def in_place(self) -> bool:
        """True when DuckDB reads the file itself (nothing of it held in memory)."""
        return self.format in ("csv", "parquet")

    @property
    def _one_column_csv(self) -> bool:
        return self.format == "csv" and len(self.columns) == 1

    def scan_sql(self) -> str:
        """The DuckDB table function that reads the file (every column, by its header name)."""
        assert self.path is not None
        where = literal(glob_escaped(str(self.path)))
        if self.format == "parquet":
            return f"read_parquet({where})"
        assert self.delimiter is not None
        types = ", ".join(f"{literal(c)}: 'VARCHAR'" for c in self.columns)
        # one column: without '' among the NULL texts DuckDB skips a blank line (as pandas
        # and Spark do) instead of reading it as a NULL row; connect() reads '' as NULL
        nulls = ", ".join(literal(t) for t in PANDAS_NA_TEXTS
                          if t or not self._one_column_csv)
        encoding = DUCKDB_ENCODINGS.get(self.encoding or "utf-8", "utf-8")
        return (f"read_csv({where}, header = true, auto_detect = false, "
                f"columns = {{{types}}}, delim = {literal(self.delimiter)}, quote = '\"', "
                f"escape = '\"', nullstr = [{nulls}], encoding = {literal(encoding)}, "
                f"strict_mode = true, null_padding = false, parallel = true, "
                f"max_line_size = {MAX_LINE_SIZE})")

    def connect(self, columns: Sequence[str] | None = None,
                memory_limit: str = DEFAULT_MEMORY_LIMIT) -> duckdb.DuckDBPyConnection:
        """A new DuckDB connection with the view ``src`` over this table: the named columns
        only (projection), or every column. Spills to a private temporary folder."""
        import duckdb

        con = duckdb.connect(config={"memory_limit": memory_limit,
                                     "temp_directory": private_temp_folder()})
        # DuckDB 2.0 folds isnan(x) to FALSE from a Parquet file's min/max statistics, which
        # leave NaN out: a NaN cell would be summed as a number and a NaN id go unseen
        con.execute("SET disabled_optimizers = 'statistics_propagation'")
        wanted = list(self.columns) if columns is None else list(dict.fromkeys(columns))
        missing = [c for c in wanted if c not in self.columns]
        if missing:
            raise InputError(self.name, f"column {missing[0]!r}", "is not in the table")
        select = ", ".join(f"NULLIF({ident(c)}, '') AS {ident(c)}" if self._one_column_csv
                           else ident(c) for c in wanted) if wanted else "1 AS _none"
        if self.in_place:
            con.execute(f"CREATE VIEW src AS SELECT {select} FROM {self.scan_sql()}")
        else:
            assert self.frame is not None
            frame, _ = sql_frame(self.frame, self.columns, keep_nested=True)
            con.register("src_frame", frame)
            con.execute(f"CREATE VIEW src AS SELECT {select} FROM src_frame")
        return con

    def count_rows(self) -> int:
        """The number of rows (private: on the owner's screen, never exported)."""
        if self._rows is None:
            if self.frame is not None:
                self._rows = int(len(self.frame))
            else:
                with self.connect([]) as con:
                    row = con.execute("SELECT count(*) FROM src").fetchone()
                self._rows = int(row[0]) if row is not None else 0
        return self._rows

    def page(self, offset: int, limit: int,
             con: duckdb.DuckDBPyConnection | None = None) -> pd.DataFrame:
        """Rows ``offset`` to ``offset + limit`` in file order, for the preview."""
        if self.frame is not None:
            rows: pd.DataFrame = self.frame.iloc[offset:offset + limit]
            return rows
        own = con is None
        con = self.connect() if con is None else con
        try:
            page: pd.DataFrame = con.execute(
                f"SELECT * FROM src LIMIT {int(limit)} OFFSET {int(offset)}").df()
            return page
        finally:
            if own:
                con.close()


def memory_problem() -> str:
    """The one line said when DuckDB needs more than its memory limit."""
    return (f"the engine needed more than its memory limit ({DEFAULT_MEMORY_LIMIT}; set "
            "PLANNER_APP_ENGINE_MEMORY to raise it, or free disk space for spilling); nothing "
            "was charged")


def engine_problem(source: TableSource, exc: Exception) -> InputError:
    """A one-line message for an error DuckDB raised while reading the table (a malformed
    line, a damaged Parquet file), naming the file and, where DuckDB says it, the line. The
    message never quotes a cell."""
    import re

    full = str(exc)
    text = _without_quoted_line(full)
    line = re.search(r"[Ll]ine:? (\d+)", text)
    where = f"line {line.group(1)}" if line else None
    error = type(exc).__name__
    if error == "OutOfMemoryException":
        return InputError(source.name, None, memory_problem())
    if error == "InterruptException":
        return InputError(source.name, None, "reading it was interrupted; nothing was charged")
    if source.format == "parquet":
        # what is left is DuckDB failing on the file's bytes (bad magic, a damaged footer or
        # page, a value it cannot decode: InvalidInputException, IOException, plain Error)
        return InputError(source.name, None, "is not a readable Parquet file",
                          hint=TABLE_FORMATS_HINT)
    low = text.lower()
    if "unterminated quote" in low or "unterminated" in low:
        return InputError(source.name, where, "a quoted cell is never closed")
    if "expected" in low and "column" in low:
        fields = _fields_of_bad_line(full, source.delimiter or ",")
        if fields is not None and source.columns:
            return InputError(source.name, where, f"has {fields} fields where the header "
                                                  f"has {len(source.columns)}")
        return InputError(source.name, where, "has a row whose number of fields differs from "
                                              "the header's")
    if "unicode" in low or "encoding" in low:
        found = first_text_problem(source.path, source.encoding, source.delimiter,
                                   source.name) if source.path is not None else None
        return found or InputError(source.name, where, f"is not valid {source.encoding} text")
    return InputError(source.name, where,
                      "cannot be read as a table (check the delimiter and quotes)")


#: The lines DuckDB writes after the quoted line to say what is wrong with it.
_CSV_REASONS = ("\nValue with unterminated quote", "\nExpected Number of Columns:",
                "\nInvalid unicode")


def _without_quoted_line(text: str) -> str:
    """DuckDB's message without the line of the file it quotes ("Original Line: ..."; a
    quoted cell may span lines and hold any words): what precedes it and DuckDB's own reason
    line after it (the last one, as the quoted text comes first). Nothing a cell says may
    choose the message."""
    head, sep, rest = text.partition("Original Line:")
    if not sep:
        return text
    at = max(rest.rfind(reason) for reason in _CSV_REASONS)
    return head if at < 0 else head + rest[at:].split("\n", 2)[1]


def _fields_of_bad_line(text: str, delimiter: str) -> int | None:
    """How many fields the line DuckDB quotes in its error holds (counted, never shown)."""
    import csv
    import re

    m = re.search(r"Original Line: (.*)", text)
    if m is None:
        return None
    try:
        rows = list(csv.reader([m.group(1)], delimiter=delimiter, strict=True))
    except csv.Error:
        return None
    return len(rows[0]) if len(rows) == 1 else None
