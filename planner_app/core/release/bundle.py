"""Release bundles: a zip with the released numbers, the full record, the plan, the audit
segment, a plain-words README and a manifest of SHA-256 hashes. The offline verifier,
``verify_bundle``, is in verify_release (it reads bundles with this module).

Only noised values and public parameters enter a bundle: the data file is named by its file
name and hash, never its path; no true aggregate, noise draw, raw row or data-derived bound.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import math
import re
import stat
import struct
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from ..kinds.synthetic import MAX_SYNTH_CSV_BYTES
from ..support.cells import FORMULA_START, formula_escaped
from ..support.errors import InputError, PlannerError
from ..support.json_keys import refusing_duplicate_keys

RELEASE_FORMAT = "planner-app/release@2"  # results column-wise (result_columns.py)
# issue 27: a release with consistent values (release/consistent.py): release@2 and its
# ``consistency``, three more columns in results.csv and a section in the report, which a
# verifier of release@2 cannot follow. Releases without relations stay release@2.
CONSISTENT_FORMAT = "planner-app/release@3"
RELEASE_FORMATS = ("planner-app/release@1", RELEASE_FORMAT, CONSISTENT_FORMAT)  # verify reads
MANIFEST = "MANIFEST.sha256"
SIGNATURE = "MANIFEST.sha256.minisig"  # minisign's signature of MANIFEST.sha256 (signed bundles)
RESULTS = "results.csv"
RECORD = "release.json"
PLAN = "plan.json"
AUDIT = "audit.jsonl"
README = "README.txt"
REPORT_HTML = "report.html"
REPORT_PDF = "report.pdf"
NOISED_DIR = "noised"
RESULT_COLUMNS = ("query_id", "label", "group", "cell", "value", "low", "high", "confidence",
                  "mechanism", "note")
# What verify reads at most (a zip bomb is refused): publish refuses, before the charge, a
# release whose bundle would not fit (a randomized-response answer file of ~300M answers)
MAX_MEMBER_BYTES = 1024 * 1024 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024
MAX_RATIO = 200
MAX_MEMBERS = 10_000
#: A synthetic table (synthetic/<id>.csv) may legally compress far better than MAX_RATIO (a
#: column of one value); the plan caps it at MAX_SYNTH_CSV_BYTES, so that cap, not the ratio,
#: bounds what is read of it. The caps hold for the bytes actually decompressed: zipfile never
#: yields more than an entry's declared size (and a shorter entry fails its CRC).
SYNTH_CSV_PREFIX = "synthetic/"
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


class NotABundle(PlannerError):
    """The file is not a planner_app bundle at all (exit 2). Its message starts with the
    file's name, as every such message does."""

    def input_error(self, path: Path) -> InputError:
        """This refusal as the InputError of a command reading the bundle as its input
        (``plan apply-discovery --bundle``, ``prove``): the file named once, not twice."""
        text, prefix = str(self), f"{path.name}: "
        return InputError(path.name, None, text[len(prefix):] if text.startswith(prefix)
                          else text)


class DuplicateKey(ValueError):
    """A JSON object of a bundle names one key twice (readers disagree on which one counts)."""


_no_duplicate_keys = refusing_duplicate_keys(DuplicateKey)


def bundle_json(data: bytes | str) -> Any:
    """A JSON member of a bundle (release.json, a line of audit.jsonl), decoded. Every JSON
    read of a bundle goes through here: an object that names a key twice is refused
    (DuplicateKey, a ValueError) -- a first-key-wins reader would see another record than
    this one does. UnicodeDecodeError and ValueError as json.loads raises them."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return json.loads(text, object_pairs_hook=_no_duplicate_keys)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ----------------------------------------------------------------------------- writing


def safe_cell(value: Any) -> str:
    """Text for a CSV cell; text a spreadsheet would run as a formula gets a leading quote."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return ""
        return repr(value)
    return formula_escaped(str(value))


def _safe_cells(values: list[Any]) -> Iterable[str]:
    """``safe_cell`` of every value of a column: one C pass for a column of one plain type
    (10^6 histogram cells), safe_cell per value otherwise."""
    types = set(map(type, values))
    if types == {type(None)}:
        return [""] * len(values)
    if types == {int}:
        return map(str, values)
    if types == {float} and all(map(math.isfinite, values)):
        return map(float.__repr__, values)
    if types == {str} and not any(map(str.startswith, values,
                                      itertools.repeat(FORMULA_START, len(values)))):
        return values
    return map(safe_cell, values)


def noised_csv(answers: Sequence[Any] | Any) -> bytes:
    """The answer file as CSV: a header, then ``yes`` or ``no`` a line (each answer's truth
    value). Built with numpy, not a Python loop: the file has an answer a row."""
    import numpy as np  # here: reading a bundle needs no numpy

    a = np.asarray(answers, dtype=bool).ravel()
    widths = np.where(a, 4, 3)  # "yes\n", "no\n"
    starts = np.cumsum(widths) - widths
    out = np.empty(int(widths.sum()), dtype=np.uint8)
    out[starts] = np.where(a, ord("y"), ord("n"))
    out[starts + 1] = np.where(a, ord("e"), ord("o"))
    out[starts + 2] = np.where(a, ord("s"), ord("\n"))
    out[starts[a] + 3] = ord("\n")
    return b"answer\n" + out.tobytes()


def json_bytes(obj: Any) -> bytes:
    """``json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)`` and a newline, the
    same bytes (tests/core/test_json_bytes.py), written by json's C encoder: with an indent
    json writes through its Python encoder, a function call per value (seconds for a record
    of 10^6 histogram cells)."""
    return "".join((_indented(obj, 0), "\n")).encode("utf-8")


def json_bytes_made(obj: dict[str, Any], made: dict[str, bytes]) -> bytes:
    """``json_bytes(obj)`` where some of its members are already written: ``made[key]`` is
    ``json_bytes(obj[key])`` (a release's plan.json, made before the charge). The same
    bytes: a member of a dict that holds more than plain values is written at the next
    indent, which only adds two spaces after each of its newlines (json text never holds a
    raw newline)."""
    if not obj or set(map(type, obj.values())) <= _SCALARS:
        return json_bytes(obj)
    inner = "  "
    parts = []
    for k, v in obj.items():
        text = made[k].decode("utf-8")[:-1].replace("\n", "\n" + inner) if k in made \
            else _indented(v, 1)
        parts.append(inner + _key_text(k) + ": " + text)
    return "".join(("{\n", ",\n".join(parts), "\n}\n")).encode("utf-8")


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _compact(obj: Any, separator: str) -> str:
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(separator, ": "))


def _key_text(key: Any) -> str:
    """A dict key as json writes it (str, or a number, true/false/null made text)."""
    if type(key) is str:
        return json.encoder.encode_basestring(key)
    return _compact({key: None}, ",")[1:-len(": null}")]


def _indented(obj: Any, level: int) -> str:
    """``obj`` as json.dumps writes it with indent=2 at nesting ``level``. A list or dict of
    plain values, and a list of dicts of plain values (a record's results), is one call of
    the C encoder with the indent in its item separator: json text never holds a raw
    newline, so ``},\n<indent>{`` is always the break between two of those dicts."""
    outer = "  " * level
    inner = outer + "  "
    if type(obj) is dict:
        if not obj:
            return "{}"
        if set(map(type, obj.values())) <= _SCALARS:
            return "{\n" + inner + _compact(obj, ",\n" + inner)[1:-1] + "\n" + outer + "}"
        return ("{\n" + ",\n".join(inner + _key_text(k) + ": " + _indented(v, level + 1)
                                    for k, v in obj.items()) + "\n" + outer + "}")
    if type(obj) in (list, tuple):
        if not obj:
            return "[]"
        types = set(map(type, obj))
        if types <= _SCALARS:
            return "[\n" + inner + _compact(obj, ",\n" + inner)[1:-1] + "\n" + outer + "]"
        if types == {dict} and all(obj) and set(map(type, itertools.chain.from_iterable(
                map(dict.values, obj)))) <= _SCALARS:
            deep = inner + "  "
            body = _compact(obj, ",\n" + deep)[2:-2].replace(
                "},\n" + deep + "{", "\n" + inner + "},\n" + inner + "{\n" + deep)
            return "".join(("[\n", inner, "{\n", deep, body, "\n", inner, "}\n", outer, "]"))
        return ("[\n" + ",\n".join(inner + _indented(v, level + 1) for v in obj)
                + "\n" + outer + "]")
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)


def manifest_bytes(files: dict[str, bytes]) -> bytes:
    return "".join(f"{sha256_bytes(data)}  {name}\n" for name, data in sorted(files.items())
                   ).encode("utf-8")


def zip_bytes(files: dict[str, bytes], signature: bytes | None = None) -> bytes:
    """A deterministic zip: fixed order and timestamps, the manifest last (then, in a signed
    bundle, the manifest's signature, which no manifest can list)."""
    buffer = io.BytesIO()
    members = {**files, MANIFEST: manifest_bytes(files)}
    if signature is not None:
        members[SIGNATURE] = signature
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in bundle_order(members):
            data = members[name]
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return buffer.getvalue()


# ----------------------------------------------------------------------------- reading


def _safe_name(name: str) -> bool:
    if not name or name.startswith(("/", "\\")) or "\\" in name or ":" in name:
        return False
    parts = PurePosixPath(name).parts
    return all(p not in ("..", ".", "") for p in parts)


_NOISED_RE = re.compile(r"noised/[A-Za-z0-9_.-]{1,64}\.csv")
_SYNTHETIC_RE = re.compile(r"synthetic/[A-Za-z0-9_.-]{1,64}\.csv")  # release/synthetic.py
FIXED_NAMES = (AUDIT, MANIFEST, PLAN, README, RECORD, REPORT_HTML, REPORT_PDF, RESULTS,
               SIGNATURE)
_LOCAL = struct.Struct("<4s5H3L2H")  # a zip local file header
_END = struct.Struct("<4s4H2LH")  # the end of central directory record


def is_bundle_name(name: str) -> bool:
    """A file name a bundle can hold: the fixed files, noised/<query id>.csv and
    synthetic/<query id>.csv."""
    return name in FIXED_NAMES or bool(_NOISED_RE.fullmatch(name)) \
        or bool(_SYNTHETIC_RE.fullmatch(name))


def bundle_order(names: Iterable[str]) -> list[str]:
    """The order a bundle writes its members in: the files sorted, then the manifest, then
    its signature."""
    tail = (MANIFEST, SIGNATURE)
    present = set(names)
    return sorted(present - set(tail)) + [n for n in tail if n in present]


def _dos_time(date_time: tuple[int, ...]) -> tuple[int, int]:
    y, mo, d, h, mi, sec = date_time
    return (h << 11) | (mi << 5) | (sec // 2), ((y - 1980) << 9) | (mo << 5) | d


def layout_problems(path: Path, zf: zipfile.ZipFile) -> list[str]:
    """What zip_bytes never writes: bytes before, between or after the entries, a comment,
    other dates, flags (encryption), compression or extra fields, directories, a different
    order, local headers that disagree with the central directory, or unknown file names.
    A problem here means the bundle was changed after it was made (exit 1, not valid)."""
    problems: list[str] = []
    infos = zf.infolist()
    names = [i.filename for i in infos]
    if zf.comment:
        problems.append("the zip has a comment; a bundle never has one (changed)")
    unknown = [n for n in names if not is_bundle_name(n)]
    if unknown:
        problems.append(f"{unknown[0]}: a bundle never contains this file"
                        + (f" (nor {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
    expected_order = bundle_order(names)
    if names != expected_order:
        problems.append("the zip's entries are not in the order a bundle writes them "
                        "(changed)")
    want_time, want_date = _dos_time(ZIP_TIME)
    size = path.stat().st_size
    with open(path, "rb") as fh:
        offset = 0
        for info in sorted(infos, key=lambda i: i.header_offset):
            label = info.filename
            if info.flag_bits & 0x1:
                problems.append(f"{label}: is flagged as encrypted; a bundle never is")
                continue
            if (info.date_time != ZIP_TIME or info.compress_type != zipfile.ZIP_DEFLATED
                    or info.extra or info.comment or info.flag_bits & ~0x800 or info.is_dir()):
                problems.append(f"{label}: its zip header (date, flags, compression or extra "
                                "fields) is not what a bundle writes (changed)")
                continue
            if info.header_offset != offset:
                where = "before the first entry" if offset == 0 else f"before {label}"
                problems.append(f"the zip has {info.header_offset - offset:,} unexpected "
                                f"bytes {where} (changed)")
                break
            fh.seek(info.header_offset)
            head = fh.read(_LOCAL.size)
            if len(head) < _LOCAL.size:
                problems.append(f"{label}: its local zip header is truncated")
                break
            (sig, _, flags, method, dtime, ddate, crc, csize, usize, nlen,
             xlen) = _LOCAL.unpack(head)
            local_name = fh.read(nlen)
            if (sig != b"PK\x03\x04" or flags != info.flag_bits or method != info.compress_type
                    or (dtime, ddate) != (want_time, want_date) or crc != info.CRC
                    or csize != info.compress_size or usize != info.file_size or xlen
                    or local_name != info.filename.encode("utf-8" if flags & 0x800 else "cp437")):
                problems.append(f"{label}: its local zip header disagrees with the zip's "
                                "directory (changed)")
                break
            offset = info.header_offset + _LOCAL.size + nlen + csize
        else:
            if zf.start_dir != offset:
                problems.append(f"the zip has {zf.start_dir - offset:,} unexpected bytes "
                                "after its last entry (changed)")
            else:
                fh.seek(max(0, size - _END.size))
                end = fh.read(_END.size)
                fields = _END.unpack(end) if len(end) == _END.size else None
                if (fields is None or fields[0] != b"PK\x05\x06" or fields[6] != offset
                        or offset + fields[5] + _END.size != size):
                    problems.append("the zip has unexpected bytes at its end (changed)")
    return problems


class MemberSink(Protocol):
    """Where ``open_bundle`` streams a member instead of holding it (a hash-like object)."""

    def write(self, data: bytes) -> object: ...

    def close(self) -> None: ...


STREAM_CHUNK = 1 << 20


def read_bundle(path: Path) -> dict[str, bytes]:
    """All members of a bundle, after the structural checks; NotABundle when it is not one."""
    return open_bundle(path)[0]


def open_bundle(path: Path, stream: Callable[[str], MemberSink | None] | None = None
                ) -> tuple[dict[str, bytes], list[str]]:
    """The members a bundle can hold, and the problems of its zip layout (layout_problems):
    encrypted members and names a bundle never holds are not read. NotABundle when the file
    is not a bundle at all. A member for which ``stream(name)`` gives a sink is written to it
    in chunks of STREAM_CHUNK bytes and closed, never held (nor in the answer): memory stays
    bounded whatever its size (verify's randomized-response answer files)."""
    name = path.name
    if not path.exists():
        raise NotABundle(f"{name}: no such file")
    if not path.is_file() or not zipfile.is_zipfile(path):
        raise NotABundle(f"{name}: is not a zip file, so not a release bundle")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_MEMBERS:
                raise NotABundle(f"{name}: has {len(infos)} entries; a bundle has far fewer")
            seen: set[str] = set()
            total = 0
            for info in infos:
                if not _safe_name(info.filename):
                    raise NotABundle(f"{name}: the entry {info.filename!r} points outside the "
                                     "bundle (path traversal); refused")
                if info.filename in seen:
                    raise NotABundle(f"{name}: the entry {info.filename!r} appears twice; "
                                     "refused")
                kind = _special_kind(info)
                if kind is not None:
                    raise NotABundle(f"{name}: the entry {info.filename!r} is marked as {kind}; "
                                     "a bundle holds only regular files; refused")
                seen.add(info.filename)
                total += info.file_size
                if (info.file_size > _member_cap(info) or total > MAX_TOTAL_BYTES
                        or (not _is_synthetic_csv(info.filename)
                            and info.file_size > MAX_RATIO * max(info.compress_size, 1) + 1024)):
                    raise NotABundle(f"{name}: the entry {info.filename!r} unpacks to "
                                     f"{info.file_size:,} bytes (a zip bomb?); refused")
            if MANIFEST not in seen:
                raise NotABundle(f"{name}: has no {MANIFEST}, so it is not a release bundle")
            problems = layout_problems(path, zf)
            out = {}
            for info in infos:
                if info.is_dir() or info.flag_bits & 0x1 or not is_bundle_name(info.filename):
                    continue
                sink = stream(info.filename) if stream is not None else None
                if sink is not None:
                    _stream_member(zf, info, sink, name)
                    continue
                with zf.open(info) as fh:
                    data = fh.read(MAX_MEMBER_BYTES + 1)
                if len(data) > MAX_MEMBER_BYTES:
                    raise NotABundle(f"{name}: the entry {info.filename!r} is too large")
                out[info.filename] = data
            return out, problems
    except NotABundle:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
            NotImplementedError, RuntimeError, struct.error) as exc:
        raise NotABundle(f"{name}: the zip is damaged or truncated ({type(exc).__name__})") \
            from None


_SPECIAL_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFDIR: "a folder",
                  stat.S_IFIFO: "a pipe", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device",
                  stat.S_IFSOCK: "a socket"}


def _special_kind(info: zipfile.ZipInfo) -> str | None:
    """What a member's attributes mark it as when that is not a regular file (a Unix mode in
    the high 16 bits of external_attr; zip_bytes writes 0o644, a plain file), else None: an
    unzip tool would make a link or a device of it."""
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind in (0, stat.S_IFREG):
        return "a folder" if info.external_attr & 0x10 else None  # MS-DOS directory bit
    return _SPECIAL_KINDS.get(kind, "a special file")


def _is_synthetic_csv(name: str) -> bool:
    return name.startswith(SYNTH_CSV_PREFIX) and name.endswith(".csv") \
        and "/" not in name[len(SYNTH_CSV_PREFIX):]


def _member_cap(info: zipfile.ZipInfo) -> int:
    """The most bytes an entry may unpack to: what the app's writer can produce for it."""
    return MAX_SYNTH_CSV_BYTES if _is_synthetic_csv(info.filename) else MAX_MEMBER_BYTES


def _stream_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, sink: MemberSink,
                   name: str) -> None:
    size = 0
    with zf.open(info) as fh:
        while block := fh.read(STREAM_CHUNK):
            size += len(block)
            if size > MAX_MEMBER_BYTES:
                raise NotABundle(f"{name}: the entry {info.filename!r} is too large")
            sink.write(block)
    sink.close()


# ----------------------------------------------------------------------------- the verdict


@dataclass
class Verdict:
    bundle: str
    valid: bool
    problems: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    #: who signed the manifest and what was proven of it (signing.check_origin)
    origin: dict[str, Any] = field(default_factory=dict)
    #: what verify measured or could not check, never a reason to fail (a synthetic table's
    #: TVD to its released marginals; a regeneration not run)
    information: list[str] = field(default_factory=list)
    #: each synthetic table's TVDs: {query id: verify_synthetic.SyntheticFit's table entry}
    synthetic: dict[str, Any] = field(default_factory=dict)
    #: lists or bounds found privately whose discovery bundle was not given, one line per
    #: discovery release (discovery_verdict.with_discoveries); never a reason to fail
    not_checked: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"bundle": self.bundle, "valid": self.valid, "problems": self.problems,
                "checks": self.checks, "summary": self.summary, "origin": self.origin,
                "information": self.information, "synthetic": self.synthetic,
                "not_checked": self.not_checked}
