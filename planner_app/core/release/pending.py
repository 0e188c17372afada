"""Unfinished releases: the noised record saved right after the noise, so that a failure
while writing the report or the bundle never wastes the budget that was charged.

One private JSON file per release in the app home (``data/pending/<release id>.json``, owner
only). It holds what the bundle is built from: release.json's record (noised values and public
parameters, never a true value), the randomized-response answers as published, the audit
entries written so far, and where the bundle goes. ``resume.resume_release`` completes the
bundle from it without drawing new noise; the file is removed once the bundle is written.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..support.errors import InputError, PlannerError
from ..support.files import atomic_write_bytes
from ..support.home import AppHome

PENDING_FORMAT = "planner-app/pending-release@1"


@dataclass(frozen=True)
class PendingRelease:
    """An unfinished release, as a person chooses one to complete."""

    release_id: str
    dataset: str
    out: Path
    created_utc: str
    path: Path


def pending_dir(home: AppHome) -> Path:
    return home.data_dir / "pending"


def _path(home: AppHome, release_id: str) -> Path:
    if not release_id or not all(c in "0123456789abcdef" for c in release_id):
        raise InputError("argument", None, f"{release_id!r} is not a release id")
    return pending_dir(home) / f"{release_id}.json"


def pending_path(home: AppHome, release_id: str) -> Path:
    """Where a release's saved record is; InputError when ``release_id`` is not a release id."""
    return _path(home, release_id)


def pending_bytes(doc: dict[str, Any], record_json: bytes | None = None) -> bytes:
    """The pending record's file. ``record_json``: the record as release.json holds it
    (``bundle.json_bytes``), already written for the bundle: it is put in place of the
    record, so the noised values are written once (indented JSON reads back the same)."""
    if record_json is None:
        return (json.dumps({"format": PENDING_FORMAT, **doc}, ensure_ascii=False,
                           allow_nan=False) + "\n").encode("utf-8")
    mark = json.dumps(f"\x00the record {uuid.uuid4().hex}")  # "\u0000…": no other text is it
    text = json.dumps({"format": PENDING_FORMAT, **doc, "record": json.loads(mark)},
                      ensure_ascii=False, allow_nan=False)
    head, tail = text.split(mark, 1)
    return b"".join((head.encode("utf-8"), record_json.rstrip(b"\n"), tail.encode("utf-8"),
                     b"\n"))


def save_pending(home: AppHome, doc: dict[str, Any], record_json: bytes | None = None) -> Path:
    """Write the pending record atomically and privately (before anything else after the
    noise). Raises PlannerError when it cannot be written. ``record_json``: see
    ``pending_bytes``."""
    folder = pending_dir(home)
    path = _path(home, doc["release_id"])
    data = pending_bytes(doc, record_json)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write_bytes(path, data, private=True)
    except OSError as exc:
        raise PlannerError(f"the noised record could not be saved in {folder} "
                           f"({exc.strerror})") from None
    return path


def load_pending(home: AppHome, release_id: str) -> dict[str, Any]:
    path = _path(home, release_id)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("argument", None, f"no unfinished release {release_id} in "
                                           f"{pending_dir(home)}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlannerError(f"the unfinished release {path.name} cannot be read "
                           f"({type(exc).__name__})") from None
    if not isinstance(doc, dict) or doc.get("format") != PENDING_FORMAT:
        raise PlannerError(f"{path.name} is not an unfinished release record")
    return doc


def list_pending(home: AppHome, dataset: str | None = None) -> list[PendingRelease]:
    """The unfinished releases in this app home (of one dataset), oldest first."""
    folder = pending_dir(home)
    out = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        if not name.endswith(".json"):
            continue
        try:
            doc = load_pending(home, name[:-5])
        except PlannerError:
            continue
        if dataset is not None and doc.get("dataset") != dataset:
            continue
        out.append(PendingRelease(doc["release_id"], doc["dataset"], Path(doc["out"]),
                                  doc["record"]["created_utc"], folder / name))
    return sorted(out, key=lambda p: p.created_utc)


def remove_pending(home: AppHome, release_id: str) -> None:
    try:
        _path(home, release_id).unlink()
    except FileNotFoundError:
        pass
