"""A tamper-evident audit log: append-only JSONL where each entry holds the SHA-256 of the
previous one (a hash chain).

Each entry: ``seq``, ``time`` (UTC), ``user`` (the OS user), ``event``, ``params`` (public
parameters only, never private values), ``prev`` (the previous entry's hash, 64 zeros for the
first) and ``hash`` (SHA-256 of the entry's canonical JSON without ``hash``). Changing,
removing or reordering any entry breaks every later link. A release bundle carries the
segment of the chain written for it, which anyone can verify offline.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..support.errors import PlannerError
from ..support.private import private_folder, tighten

GENESIS = "0" * 64


class AuditError(PlannerError):
    """The audit log cannot be read or written, or its chain is broken."""


def utc_now() -> str:
    """The time for anything that may be published (audit entries travel in bundles, and
    release.json and the report carry the release's time): whole seconds, so that no published
    time can measure how long a data-dependent step (such as sampling) took."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_now_private() -> str:
    """A fine time for the private ledger only (it orders releases); never published."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def finite(obj: Any) -> Any:
    """``obj`` with every infinite or NaN number written as a word ("inf", "-inf", "nan"):
    JSON has no such numbers, and an audit entry is never lost or crashed for one (a total
    that fails closed is ε = inf)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def entry_hash(entry: dict[str, Any]) -> str:
    body = {k: v for k, v in entry.items() if k != "hash"}
    return hashlib.sha256(canonical(body)).hexdigest()


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in some containers
        return f"uid:{os.getuid()}" if hasattr(os, "getuid") else "unknown"


def audit_entry(seq: int, prev: str | None, event: str, params: dict[str, Any],
                time: str | None = None) -> dict[str, Any]:
    """One entry of the chain (the file's or the shared ledger's), its hash included. Its
    infinite and NaN numbers are written as words (``finite``) here, the one place both
    logs build an entry, so that the file and PostgreSQL hold and hash the same entry
    (core25: the shared ledger's append failed on them)."""
    entry: dict[str, Any] = {"seq": seq, "time": time or utc_now(), "user": _os_user(),
                             "event": event, "params": finite(params),
                             "prev": prev or GENESIS}
    entry["hash"] = entry_hash(entry)
    return entry


@dataclass(frozen=True)
class ChainProblem:
    line: int
    problem: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.problem}"


def verify_chain(entries: list[dict[str, Any]], first_prev: str | None = GENESIS,
                 first_line: int = 1) -> ChainProblem | None:
    """The first broken link of a chain (``first_prev=None`` accepts any start: a segment)."""
    prev = first_prev
    for i, entry in enumerate(entries):
        line = first_line + i
        if not isinstance(entry, dict) or "hash" not in entry or "prev" not in entry:
            return ChainProblem(line, "is not an audit entry")
        if entry_hash(entry) != entry["hash"]:
            return ChainProblem(line, "its content does not match its hash (changed)")
        if prev is not None and entry["prev"] != prev:
            return ChainProblem(line, "does not link to the entry before it (removed, "
                                      "inserted or reordered)")
        prev = entry["hash"]
    return None


def parse_lines(lines: Iterable[str], source: str) -> list[dict[str, Any]]:
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            raise AuditError(f"{source}: line {n}: is not JSON (the log is damaged)") from None
    return out


class AuditLog:
    """The app-wide audit log in the app home."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        try:
            with open(self.path, encoding="utf-8") as fh:
                return parse_lines(fh, self.path.name)
        except OSError as exc:
            raise AuditError(f"the audit log {self.path} cannot be read ({exc.strerror})") \
                from None
        except UnicodeDecodeError as exc:
            raise AuditError(f"the audit log {self.path} is not UTF-8 text ({exc.reason}); "
                             "it is unusable") from None

    def verify(self) -> ChainProblem | None:
        """The first broken link, or None. A partial last line (an append cut short by a
        full disk or a crash) is rolled back first, with an entry saying so: it was never a
        complete entry, so nothing recorded is lost."""
        if _ends_mid_line(self.path):
            self._append_entries([])  # rolls the partial tail back, with an entry
        return verify_chain(self.read())

    def require_intact(self) -> AuditLog:
        """This log, or AuditError when its chain is broken: nothing is released or written
        on a broken log."""
        broken = self.verify()
        if broken is not None:
            raise AuditError(f"the audit log {self.path} is broken at {broken}; nothing was "
                             "released or written")
        return self

    def append(self, event: str, params: dict[str, Any],
               time: str | None = None) -> dict[str, Any]:
        """Append one entry, all or nothing, under an exclusive file lock, fsynced before
        returning.

        ``time`` (whole seconds, as utc_now gives) stamps the entries a release writes into its
        bundle with the one time the release was requested, so that the published segment
        shows no duration at all; the default is now."""
        return self._append_entries([(event, params)], time)[-1]

    def _append_entries(self, items: list[tuple[str, dict[str, Any]]],
                        time: str | None = None) -> list[dict[str, Any]]:
        items = [(event, finite(params)) for event, params in items]  # no inf/NaN in JSON
        try:
            private_folder(self.path.parent)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            tighten(self.path)
        except OSError as exc:
            raise AuditError(f"the audit log {self.path} cannot be written ({exc.strerror})") \
                from None
        try:
            _lock(fd)
            removed = _roll_back_partial_tail(fd)
            if removed:
                items = [("audit log repaired",
                          {"removed_partial_entry_bytes": removed,
                           "why": "an append was cut short (full disk or crash); the "
                                  "incomplete line was removed"})] + items
            if not items:
                return []
            last = _last_line(fd)
            prev = GENESIS
            seq = 1
            if last:
                try:
                    tail = json.loads(last)
                    prev, seq = tail["hash"], int(tail["seq"]) + 1
                except (ValueError, KeyError, TypeError):
                    raise AuditError(f"the audit log {self.path} ends in a damaged entry") \
                        from None
            entries = []
            for event, params in items:
                entry = audit_entry(seq, prev, event, params, time)
                entries.append(entry)
                prev, seq = entry["hash"], seq + 1
            _write_all_or_nothing(fd, b"".join(canonical(e) + b"\n" for e in entries),
                                  self.path)
            return entries
        except OSError as exc:
            raise AuditError(f"the audit log {self.path} cannot be written ({exc.strerror})") \
                from None
        finally:
            os.close(fd)


def _write_all_or_nothing(fd: int, data: bytes, path: Path) -> None:
    """Write ``data`` at the end, flush it to disk and check the length; on any failure cut
    the file back to where it was, so the log never ends mid-entry."""
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            if n <= 0:
                raise OSError(28, "no space left on device")
            view = view[n:]
        os.fsync(fd)
        if os.fstat(fd).st_size != start + len(data):
            raise OSError(5, "the log's length after the write is not what was written")
    except OSError as exc:
        try:
            os.ftruncate(fd, start)
            os.fsync(fd)
        except OSError:
            pass  # the next append rolls the partial line back
        raise AuditError(f"the audit log {path} cannot be written ({exc.strerror}); it was "
                         "left as it was and nothing was released") from None


def _ends_mid_line(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            if fh.seek(0, os.SEEK_END) == 0:
                return False
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) != b"\n"
    except OSError:
        return False  # read() reports what is wrong


def _roll_back_partial_tail(fd: int) -> int:
    """Remove bytes after the last newline (an append that never finished); how many."""
    size = os.lseek(fd, 0, os.SEEK_END)
    if size == 0:
        return 0
    os.lseek(fd, size - 1, os.SEEK_SET)
    if os.read(fd, 1) == b"\n":
        return 0
    block = min(size, 1 << 16)
    end = 0
    while True:
        os.lseek(fd, size - block, os.SEEK_SET)
        data = os.read(fd, block)
        cut = data.rfind(b"\n")
        if cut >= 0:
            end = size - block + cut + 1
            break
        if block == size:
            break
        block = min(size, block * 2)
    os.ftruncate(fd, end)
    os.fsync(fd)
    return size - end


def _lock(fd: int) -> None:
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
    except ImportError:  # pragma: no cover - Windows: appends are serialised by the ledger
        pass


def _last_line(fd: int) -> str:
    size = os.lseek(fd, 0, os.SEEK_END)
    if size == 0:
        return ""
    block = min(size, 1 << 16)
    while True:
        os.lseek(fd, size - block, os.SEEK_SET)
        data = os.read(fd, block)
        lines = data.rstrip(b"\n").split(b"\n")
        if len(lines) > 1 or block == size:
            return lines[-1].decode("utf-8", errors="replace")
        block = min(size, block * 2)
