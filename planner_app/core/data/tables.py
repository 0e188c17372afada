"""Load CSV/TSV, Excel (.xlsx) and Parquet tables with progress, cancel and clear errors.

``load_table(path, progress=None, cancel=None)`` calls ``progress(fraction, message)`` as it
reads and raises ``Cancelled`` when ``cancel()`` returns true. Every problem becomes an
``InputError`` naming the file and, where known, the line; no message quotes a cell.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import os
import queue
import re
import threading
import unicodedata
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..support.errors import Cancelled, InputError
from ..support.files import input_file_size
from ..support.words import TABLE_FORMATS_HINT
from .cells import detect_type as detect_type
from .cells import numeric_values as numeric_values
from .facts import ColumnInfo as ColumnInfo
from .facts import table_facts
from .source import DUCKDB_ENCODINGS, FileHash, TableSource, TextGuard

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer
    from openpyxl.workbook.workbook import Workbook

Progress = Callable[[float, str], None] | None
Cancel = Callable[[], bool] | None

SNIFF_BYTES = 64 * 1024
MAX_LINE_BYTES = 16 * 1024 * 1024  # a longer line is not a table row (and would fill memory)
TEXT_SUFFIXES = {".csv", ".tsv", ".txt", ".tab"}
EXCEL_SUFFIXES = {".xlsx", ".xlsm"}
PARQUET_SUFFIXES = {".parquet", ".pq"}


class Table:
    """A table and public facts about the file (never its contents).

    Either loaded (``frame`` given: Excel, tests, the pandas engine) or opened in place
    (``open_table``: only the header was read; ``source`` tells an engine how to read the
    file, ``frame`` loads it with pandas on first use, and ``sha256`` waits for the hash
    that streams on a second thread)."""

    def __init__(self, frame: pd.DataFrame | None = None, name: str = "table",
                 sha256: str | None = None, format: str = "csv", encoding: str | None = None,
                 delimiter: str | None = None, source: TableSource | None = None,
                 hashing: FileHash | None = None) -> None:
        if frame is None and source is None:
            raise ValueError("a Table needs a frame or a source")
        self._frame = frame
        self.name = name
        self._sha256 = sha256
        self.format = format
        self.encoding = encoding
        self.delimiter = delimiter
        self.source = source
        self._hashing = hashing
        self._described: list[Any] | None = None  # describe_columns' answer, read once

    @property
    def loaded(self) -> bool:
        """True when the rows are in memory (a pandas frame)."""
        return self._frame is not None

    @property
    def frame(self) -> pd.DataFrame:
        """The rows as a pandas frame, read on first use for a table opened in place."""
        if self._frame is None:
            assert self.source is not None and self.source.path is not None
            loaded = load_table(self.source.path)
            self._frame = loaded.frame
            if self._sha256 is None:
                self._sha256 = loaded.sha256
        return self._frame

    @property
    def sha256(self) -> str:
        """The file's SHA-256 (private: it is committed to, never published)."""
        if self._sha256 is None:
            if self._hashing is not None:
                self._sha256 = self._hashing.result()
            else:
                assert self.source is not None and self.source.path is not None
                self._sha256 = file_sha256(self.source.path)
        return self._sha256

    @property
    def n_rows(self) -> int:
        if self._frame is None and self.source is not None:
            return self.source.count_rows()
        return int(len(self.frame))

    @property
    def columns(self) -> list[str]:
        if self._frame is None and self.source is not None:
            return list(self.source.columns)
        return [str(c) for c in self.frame.columns]


class _HashingReader(io.RawIOBase):
    """A binary reader that reports progress, honours cancel, and hashes what it reads on a
    second thread (hashlib releases the GIL), so hashing overlaps with parsing."""

    def __init__(self, fh: io.BufferedReader, total: int, progress: Progress, cancel: Cancel,
                 label: str, max_line: int | None = None, no_nul: bool = False,
                 text: TextGuard | None = None) -> None:
        self._fh = fh
        self._lines = _LineGuard(label, max_line, no_nul, text)
        self._total = max(total, 1)
        self._done = 0
        self._progress = progress
        self._cancel = cancel
        self._label = label
        self._last = -1.0
        self._hash = hashlib.sha256()
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=32)
        self._thread = threading.Thread(target=self._hash_blocks, daemon=True)
        self._thread.start()

    def _hash_blocks(self) -> None:
        while True:
            block = self._queue.get()
            if block is None:
                return
            self._hash.update(block)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        if self._cancel is not None and self._cancel():
            raise Cancelled(f"loading {self._label}")
        n = self._fh.readinto(buffer)
        if n:
            block = bytes(memoryview(buffer)[:n])
            self._lines.feed(block)
            self._queue.put(block)
            self._done += n
            fraction = min(self._done / self._total, 1.0)
            if self._progress is not None and fraction - self._last >= 0.01:
                self._last = fraction
                self._progress(0.95 * fraction, f"Reading {self._label}")
        elif memoryview(buffer).nbytes:  # the end of the file
            self._lines.feed(b"")
        return n or 0

    def hexdigest(self) -> str:
        """The SHA-256 of everything read (call once, after reading to the end)."""
        self._queue.put(None)
        self._thread.join()
        return self._hash.hexdigest()

    def stop(self) -> None:
        if self._thread.is_alive():
            self._queue.put(None)


class _LineGuard:
    """Watches the raw bytes of a text table as they stream by: a NUL byte anywhere (not only
    in the first 64 KB) and a line longer than ``max_line`` bytes are refused with their line
    number, before the parser has buffered them (no hang, no memory blow-up on a 2 GB line).
    Line ends are LF, CRLF or CR alone."""

    def __init__(self, label: str, max_line: int | None, no_nul: bool,
                 text: TextGuard | None = None) -> None:
        self.text = text  # the file's encoding must decode throughout (source.TextGuard)
        self.label = label
        self.max_line = max_line
        self.no_nul = no_nul
        self.lf = 0  # line ends seen so far (LF, and CR for CR-only files)
        self.cr = 0
        self.run = 0  # bytes since the last line end

    def line(self, block: bytes, upto: int) -> int:
        return max(self.lf + block.count(b"\n", 0, upto), self.cr + block.count(b"\r", 0, upto)) + 1

    def feed(self, block: bytes) -> None:
        if self.text is not None:
            self.text.feed(block)
        if not block:  # the end of the file
            return
        if self.no_nul:
            at = block.find(b"\x00")
            if at >= 0:
                raise InputError(self.label, f"line {self.line(block, at)}",
                                 "contains a NUL byte: a binary file, not a text table")
        if self.max_line is not None:
            ends = [i for i in (block.find(b"\n"), block.find(b"\r")) if i >= 0]
            first = min(ends) if ends else len(block)
            if self.run + first > self.max_line:
                raise InputError(self.label, f"line {self.line(block, 0)}",
                                 f"is longer than {self.max_line:,} bytes: not a table row "
                                 "(check the line ends and quotes)")
            if ends:
                self.run = len(block) - 1 - max(block.rfind(b"\n"), block.rfind(b"\r"))
            else:
                self.run += len(block)
        self.lf += block.count(b"\n")
        self.cr += block.count(b"\r")


def _file_facts(path: Path) -> tuple[str, int]:
    return path.name, input_file_size(path, "table")  # never a FIFO or device: it would hang


def _format_problem(name: str, problem: str) -> InputError:
    """A refusal of a file in no format read here (or not readable as its format): the app
    adds which formats are read below it. A message that names a line, a column or a cell says
    what is wrong itself and has no such hint."""
    return InputError(name, None, problem, hint=TABLE_FORMATS_HINT)


_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),  # before UTF-16:
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),  # FF FE 00 00 starts
         (codecs.BOM_UTF16_BE, "utf-16"))                                 # with FF FE


def _detect_encoding(sample: bytes, name: str) -> str:
    """The text encoding of a table from its first bytes. A file holding only a byte-order
    mark is empty, as a file of no bytes is; UTF-32 is refused (no engine reads it)."""
    for bom, encoding in _BOMS:
        if sample.startswith(bom):
            if sample == bom:
                raise InputError(name, None, "is empty")
            if encoding == "utf-32":
                raise InputError(name, None, "is UTF-32 text, which is not read here; save it "
                                             "as UTF-8 (or UTF-16)")
            return encoding
    if sample.startswith(b"PK\x03\x04"):
        raise _format_problem(name, "is a zip or Excel file; save it as .xlsx or .csv")
    if b"\x00" in sample:
        raise _format_problem(name, "is a binary file, not a text table (CSV or TSV)")
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(sample, final=False)
        return "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        sample.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def _detect_delimiter(text: str, suffix: str) -> str:
    if suffix in (".tsv", ".tab"):
        return "\t"
    lines = [line for line in text.splitlines()[:50] if line.strip()]
    if not lines:
        return ","
    try:
        return csv.Sniffer().sniff("\n".join(lines), delimiters=",;\t|").delimiter
    except csv.Error:
        counts = {d: lines[0].count(d) for d in ",;\t|"}
        best = max(counts, key=lambda d: counts[d])
        return best if counts[best] else ","


# A number cell must read as Python's float() of its text: the value canonical_key and
# numeric_values give that same text when one other cell makes its column text. pandas 3
# parses so by default (and deprecates the option); pandas 2 needs "round_trip".
# (Any: the keyword arguments are splatted into read_csv, whose parameters differ in type)
_FLOAT_PARSING: dict[str, Any] = {} if int(pd.__version__.split(".")[0]) >= 3 else \
    {"float_precision": "round_trip"}


_FIELDS_RE = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_LINE_RE = re.compile(r"(?:line|row) (\d+)")


def _parser_problem(name: str, exc: Exception) -> InputError:
    text = str(exc)
    m = _FIELDS_RE.search(text)
    if m:
        return InputError(name, f"line {m.group(2)}",
                          f"has {m.group(3)} fields where the header has {m.group(1)}")
    m = _LINE_RE.search(text)
    where = f"line {m.group(1)}" if m else None
    if "EOF inside string" in text:
        return InputError(name, where, "a quoted cell is never closed")
    return InputError(name, where, "cannot be read as a table (check the delimiter and quotes)")


def _check_header(columns: list[str], name: str) -> None:
    """The one rule for a table's column names, whatever its format and engine: none empty,
    none twice, and no two that differ only in letter case (DuckDB and Spark SQL name columns
    without regard to case, so ``x`` and ``X`` would be one column to them)."""
    if not columns:
        raise InputError(name, "line 1", "has no header row (the column names must be on "
                                         "the first line)")
    seen: dict[str, int] = {}
    for i, col in enumerate(columns):
        if not col.strip():
            raise InputError(name, f"line 1, column {i + 1}", "the header cell is empty")
        folded = unicodedata.normalize("NFC", col).casefold()
        if folded in seen:
            first = columns[seen[folded]]
            where = f"line 1, column {i + 1}"
            if first == col:
                raise InputError(name, where, f"the column name {col!r} appears twice")
            if first.casefold() != col.casefold():  # they print alike: a reviewer cannot
                raise InputError(name, where,      # tell which one a plan names
                                 f"the column names {first!r} (column {seen[folded] + 1}) and "
                                 f"{col!r} are one name written with other Unicode code "
                                 "points (NFC makes them one); rename one of them")
            raise InputError(name, where,
                             f"the column names {first!r} (column {seen[folded] + 1}) and "
                             f"{col!r} differ only in letter case, which the table engines "
                             "do not tell apart; rename one of them")
        seen[folded] = i


def _read_header(path: Path, name: str, encoding: str, delimiter: str,
                 max_line: int | None) -> list[str]:
    """The whole first record (the sample may cut a long header short), read line by line
    with a bounded readline, so a header without a line end cannot fill memory."""
    limit = max_line if max_line is not None else -1

    def lines() -> Iterator[str]:
        with open(path, encoding=encoding, errors="replace", newline="") as fh:
            while True:
                line = fh.readline(limit)
                if not line:
                    return
                if max_line is not None and len(line) >= max_line:
                    raise InputError(name, "line 1", f"is longer than {max_line:,} bytes: not a "
                                                     "table header (check the line ends)")
                yield line

    try:
        return next(csv.reader(lines(), delimiter=delimiter), [])
    except csv.Error:
        raise InputError(name, "line 1", "the header cannot be read (check its quotes)") \
            from None


def _load_text(path: Path, progress: Progress, cancel: Cancel,
               max_line: int | None = MAX_LINE_BYTES) -> Table:
    name, size = _file_facts(path)
    if size == 0:
        raise InputError(name, None, "is empty")
    with open(path, "rb") as raw:
        sample = raw.read(SNIFF_BYTES)
    encoding = _detect_encoding(sample, name)
    try:
        sample_text = sample.decode(encoding, errors="ignore")
    except LookupError:  # pragma: no cover
        sample_text = sample.decode("latin-1")
    delimiter = _detect_delimiter(sample_text, path.suffix.lower())
    header_line = _read_header(path, name, encoding, delimiter, max_line)
    if header_line:
        header_line[0] = header_line[0].lstrip("\ufeff")
    with open(path, "rb") as fh:
        reader = _HashingReader(fh, size, progress, cancel, name, max_line=max_line,
                                no_nul=encoding != "utf-16",
                                text=TextGuard(name, encoding, delimiter))
        buffered = io.BufferedReader(reader, buffer_size=1 << 20)
        try:
            with warnings.catch_warnings():
                # a row with more (non-empty) fields than the header is refused, not cut
                warnings.simplefilter("error", pd.errors.ParserWarning)
                # index_col=False: a delimiter at the end of every row (an empty last field)
                # must not turn the first column into the index and shift every other one
                frame = pd.read_csv(buffered, sep=delimiter, encoding=encoding,
                                    encoding_errors="strict", index_col=False,
                                    **_FLOAT_PARSING)
            while buffered.read(1 << 20):  # the hash covers the whole file
                pass
        except (Cancelled, InputError):
            reader.stop()
            raise
        except UnicodeDecodeError:
            reader.stop()
            raise _format_problem(name, f"is not valid {encoding} text") from None
        except pd.errors.EmptyDataError:
            reader.stop()
            raise InputError(name, None, "has no header row") from None
        except pd.errors.ParserWarning:
            reader.stop()
            raise InputError(name, None, "has rows with more fields than the header has "
                                         "columns (a value after the last column)") from None
        except (pd.errors.ParserError, csv.Error, ValueError) as exc:
            reader.stop()
            raise _parser_problem(name, exc) from None
        digest = reader.hexdigest()
    _check_header([str(c) for c in header_line] or [], name)
    if len(frame.columns) and len(header_line) == len(frame.columns):
        frame.columns = [str(c) for c in header_line]
    if frame.empty:
        raise InputError(name, None, "has a header but no rows")
    if progress is not None:
        progress(1.0, f"Read {len(frame):,} rows")
    return Table(frame=frame, name=name, sha256=digest, format="csv",
                 encoding=encoding, delimiter=delimiter)


def file_sha256(path: Path, cancel: Cancel = None) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            if cancel is not None and cancel():
                raise Cancelled(f"hashing {path.name}")
            block = fh.read(1 << 20)
            if not block:
                return h.hexdigest()
            h.update(block)


def _load_excel(path: Path, progress: Progress, cancel: Cancel) -> Table:
    name, size = _file_facts(path)
    try:
        import openpyxl
    except ImportError:  # pragma: no cover - a runtime dependency
        raise InputError(name, None, "reading Excel files needs openpyxl") from None
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception:  # openpyxl raises many types for damaged files
        raise _format_problem(name, "is not a readable .xlsx workbook") from None
    try:
        return _excel_frame(wb, path, name, progress, cancel)
    except (InputError, Cancelled):
        raise
    except Exception:  # openpyxl parses sheets lazily: damage shows up while reading rows
        raise _format_problem(name, "is not a readable .xlsx workbook (its first sheet is "
                                    "damaged or missing)") from None
    finally:
        wb.close()


def _excel_frame(wb: Workbook, path: Path, name: str, progress: Progress,
                 cancel: Cancel) -> Table:
    sheets = [ws for ws in wb.worksheets if hasattr(ws, "iter_rows")]
    if not sheets:
        if getattr(wb, "chartsheets", None):
            raise InputError(name, None, "has only chart sheets, no worksheet with a table")
        raise InputError(name, None, "has no readable worksheet (its sheet part is missing)")
    ws = sheets[0]
    total = ws.max_row or 1
    rows_iter = ws.iter_rows(values_only=True)
    header = next(rows_iter, None)
    if header is None:
        raise InputError(name, None, "the first sheet is empty")
    columns = ["" if h is None else str(h).strip() for h in header]
    while columns and columns[-1] == "":
        columns.pop()
    _check_header(columns, name)
    width = len(columns)
    rows = []
    for i, row in enumerate(rows_iter, start=2):
        rows.append(list(row[:width]) + [None] * (width - len(row)))
        if i % 5000 == 0:
            if cancel is not None and cancel():
                raise Cancelled(f"loading {name}")
            if progress is not None:
                progress(0.95 * min(i / total, 1.0), f"Reading {name}")
    frame = pd.DataFrame(rows, columns=columns)
    frame = frame.dropna(how="all").reset_index(drop=True)
    if frame.empty:
        raise InputError(name, None, "has a header but no rows")
    frame = frame.infer_objects()
    if progress is not None:
        progress(1.0, f"Read {len(frame):,} rows")
    return Table(frame=frame, name=name, sha256=file_sha256(path, cancel), format="xlsx")


def _load_parquet(path: Path, progress: Progress, cancel: Cancel) -> Table:
    name, _ = _file_facts(path)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(name, None, "reading Parquet needs pyarrow: "
                                     "pip install 'planner-app[parquet]'") from None
    try:
        pf = pq.ParquetFile(path)
        groups = pf.num_row_groups
        parts = []
        for i in range(groups):
            if cancel is not None and cancel():
                raise Cancelled(f"loading {name}")
            parts.append(pf.read_row_group(i))
            if progress is not None:
                progress(0.95 * (i + 1) / max(groups, 1), f"Reading {name}")
        table = pa.concat_tables(parts) if parts else pf.schema_arrow.empty_table()
        frame = table.to_pandas()
    except Cancelled:
        raise
    except Exception:
        raise _format_problem(name, "is not a readable Parquet file") from None
    _check_header([str(c) for c in frame.columns], name)
    if frame.empty:
        raise InputError(name, None, "has no rows")
    if progress is not None:
        progress(1.0, f"Read {len(frame):,} rows")
    return Table(frame=frame, name=name, sha256=file_sha256(path, cancel), format="parquet")


def open_table(path: str | os.PathLike[str], progress: Progress = None,
               cancel: Cancel = None, max_line: int | None = MAX_LINE_BYTES) -> Table:
    """Open a table without loading its rows: CSV/TSV (in an encoding DuckDB reads) and
    Parquet are read in place by the engine; the file's SHA-256 streams on a second thread.
    Excel and other encodings are loaded into memory as ``load_table`` does."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in EXCEL_SUFFIXES or suffix == ".xls":
        return _with_frame_source(load_table(p, progress, cancel, max_line))
    name, size = _file_facts(p)
    if suffix in PARQUET_SUFFIXES:
        try:
            import pyarrow.parquet as pq

            schema = pq.ParquetFile(p).schema_arrow
        except ImportError:
            return _with_frame_source(load_table(p, progress, cancel, max_line))
        except Exception:
            raise _format_problem(name, "is not a readable Parquet file") from None
        columns = [str(c) for c in schema.names]
        _check_header(columns, name)
        source = TableSource(name=name, format="parquet", columns=tuple(columns), path=p)
        return Table(name=name, format="parquet", source=source, hashing=FileHash(p, cancel))
    if size == 0:
        raise InputError(name, None, "is empty")
    with open(p, "rb") as raw:
        sample = raw.read(SNIFF_BYTES)
    encoding = _detect_encoding(sample, name)
    if encoding not in DUCKDB_ENCODINGS or encoding == "utf-16":
        return _with_frame_source(load_table(p, progress, cancel, max_line))
    delimiter = _detect_delimiter(sample.decode(encoding, errors="ignore"), suffix)
    header = _read_header(p, name, encoding, delimiter, max_line)
    if header:
        header[0] = header[0].lstrip("\ufeff")
    _check_header([str(c) for c in header], name)
    source = TableSource(name=name, format="csv", columns=tuple(str(c) for c in header),
                         path=p, encoding=encoding, delimiter=delimiter)
    # the streaming hash also watches for a NUL byte and an overlong line (as the loader does)
    guard = _LineGuard(name, max_line, no_nul=True,
                       text=TextGuard(name, encoding, delimiter))
    return Table(name=name, format="csv", encoding=encoding, delimiter=delimiter,
                 source=source, hashing=FileHash(p, cancel, check=guard.feed))


def _with_frame_source(table: Table) -> Table:
    """A loaded table, with a source the engine reads from its frame."""
    table.source = TableSource(name=table.name, format="frame",
                               columns=tuple(table.columns), frame=table.frame)
    return table


def source_of(table: Table) -> TableSource:
    """The engine's view of a table: its file in place, or its frame registered in memory."""
    if table.source is not None:
        return table.source
    return TableSource(name=table.name, format="frame",
                       columns=tuple(str(c) for c in table.frame.columns),
                       frame=table.frame.rename(columns=str))


def load_table(path: str | os.PathLike[str], progress: Progress = None,
               cancel: Cancel = None, max_line: int | None = MAX_LINE_BYTES) -> Table:
    """Load a table by its file suffix (.csv/.tsv/.txt, .xlsx, .parquet). A text table's
    lines may be at most ``max_line`` bytes long."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in EXCEL_SUFFIXES:
        return _load_excel(p, progress, cancel)
    if suffix in PARQUET_SUFFIXES:
        return _load_parquet(p, progress, cancel)
    if suffix == ".xls":
        raise _format_problem(p.name, "old .xls workbooks are not supported; save as .xlsx")
    return _load_text(p, progress, cancel, max_line)


# ----------------------------------------------------------------------------- column facts


def describe_columns(table: Table, progress: Progress = None,
                     cancel: Cancel = None) -> list[ColumnInfo]:
    """Each column's type and missing cells, from the engine (one pass over the file; the
    rows of a table opened in place are never loaded). Read once per table: the app's
    Data tab, the check's ``people`` rule and the release share the one pass."""
    if table._described is None:
        table._described = table_facts(source_of(table), progress, cancel)[1]
    return list(table._described)
