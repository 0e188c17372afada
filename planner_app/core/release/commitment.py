"""A keyed commitment to the data file: what a bundle publishes instead of the file's hash.

A plain SHA-256 of the data file is a deterministic function of the private data: anyone who
knows every other row can hash each guess about the last person and see which one matches.
A bundle therefore carries only

    value = HMAC-SHA256(release key, the file's SHA-256 written as 64 lowercase hex digits)
    release key = HMAC-SHA256(dataset secret, "planner-app file commitment v1" NUL release id)

The dataset secret is 32 bytes from ``secrets``, made on the dataset's first release and kept
in the app home (``<data>/commitment-keys/``), never in a bundle. Without the key the value
is indistinguishable from random (HMAC is a pseudorandom function), so a recipient cannot
test guesses; each release has its own key, so two bundles do not even show whether the file
changed between them. The owner can open one release's commitment to an auditor who holds
the data by handing over that release's key (``prove_file``, ``planner-app ledger
prove-file``); the auditor recomputes the value with any HMAC tool, and the key opens no other
release. The plain SHA-256 stays in the private ledger, where it notices a changed file or
the same file under a new dataset name.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..data.tables import file_sha256
from ..records.audit import utc_now
from ..records.books import ledger_for
from ..records.ledger import LedgerError
from ..support.errors import InputError
from ..support.home import AppHome
from ..support.private import private_folder
from .bundle import RECORD, NotABundle, bundle_json, read_bundle

SCHEME = "hmac-sha256(release key, sha256 hex of the file)/v1"
KEY_DOMAIN = b"planner-app file commitment v1\x00"
KEYS_DIR = "commitment-keys"


class KeyMissing(LedgerError):
    """The dataset's commitment secret is not in this app home (a commitment cannot be opened)."""


def keys_dir(home: AppHome) -> Path:
    return home.data_dir / KEYS_DIR


def _key_path(home: AppHome, dataset: str) -> Path:
    # the file name must not depend on what characters a dataset name holds
    return keys_dir(home) / (hashlib.sha256(dataset.encode("utf-8")).hexdigest()[:40] + ".json")


def _read_secret(path: Path, dataset: str) -> bytes:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        secret = bytes.fromhex(doc["secret"])
        if doc.get("dataset") != dataset or len(secret) != 32:
            raise ValueError
        return secret
    except OSError as exc:
        raise LedgerError(f"the commitment key {path} cannot be read ({exc.strerror}); "
                          "nothing was released") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise LedgerError(f"the commitment key {path} is damaged; restore it from a backup of "
                          "the app home") from None


def dataset_secret(home: AppHome, dataset: str, create: bool = True) -> bytes:
    """The dataset's secret, made (atomically, once, even with two releases at once) when
    ``create`` and it does not exist yet."""
    path = _key_path(home, dataset)
    if path.exists():
        return _read_secret(path, dataset)
    if not create:
        raise KeyMissing(f"this app home has no commitment key for dataset {dataset!r} "
                         f"({path.name} in {path.parent}); only the app home that made a "
                         "release can open its commitment")
    doc = {"dataset": dataset, "secret": secrets.token_bytes(32).hex(), "created": utc_now(),
           "note": "keep private: opens the file commitments of this dataset's bundles"}
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    try:
        private_folder(path.parent)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, (json.dumps(doc) + "\n").encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)  # fails if another release made it first: then use theirs
        except FileExistsError:
            pass
    except OSError as exc:
        raise LedgerError(f"the commitment key {path} cannot be written ({exc.strerror}); "
                          "nothing was released") from None
    finally:
        try:
            tmp.unlink()
        except OSError:
            pass
    return _read_secret(path, dataset)


def release_key(secret: bytes, release_id: str) -> bytes:
    return hmac.new(secret, KEY_DOMAIN + release_id.encode("ascii"), hashlib.sha256).digest()


def commitment_value(key: bytes, file_sha256: str) -> str:
    return hmac.new(key, file_sha256.lower().encode("ascii"), hashlib.sha256).hexdigest()


def file_commitment(home: AppHome, dataset: str, release_id: str,
                    file_sha256: str) -> dict[str, str]:
    """The ``dataset.file_commitment`` field of release.json."""
    key = release_key(dataset_secret(home, dataset), release_id)
    return {"scheme": SCHEME, "value": commitment_value(key, file_sha256)}


def opens(commitment: Any, key_hex: str, file_sha256: str) -> bool:
    """The auditor's check: does ``key_hex`` open ``commitment`` to the file with this hash?"""
    if not isinstance(commitment, dict) or commitment.get("scheme") != SCHEME:
        return False
    try:
        key = bytes.fromhex(key_hex)
    except ValueError:
        return False
    return hmac.compare_digest(str(commitment.get("value", "")),
                               commitment_value(key, file_sha256))


# ----------------------------------------------------------------------------- proving


@dataclass(frozen=True)
class Opening:
    release_id: str
    time: str
    key: str  # the release key in hex: hand it to the auditor with the file
    commitment: str  # the value this file gives under that key (= the bundle's, if it opens)
    opens: bool | None  # against the bundle given; None without one

    def to_dict(self) -> dict[str, Any]:
        return {"release_id": self.release_id, "time": self.time, "key": self.key,
                "commitment": self.commitment, "opens": self.opens}


@dataclass(frozen=True)
class Proof:
    dataset: str
    file_name: str
    file_sha256: str
    openings: list[Opening]

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "file_name": self.file_name,
                "file_sha256": self.file_sha256, "scheme": SCHEME,
                "openings": [o.to_dict() for o in self.openings]}


def _hash_data(data: Path) -> str:
    if not data.exists():
        raise InputError(data.name, None, "no such file")
    if not data.is_file():
        raise InputError(data.name, None, "is not a regular file")
    try:
        return file_sha256(data)
    except OSError as exc:
        raise InputError(data.name, None, f"cannot be read ({exc.strerror})") from None


def _bundle_commitment(bundle: Path) -> tuple[str, str, Any]:
    try:
        files = read_bundle(bundle)
        record = bundle_json(files[RECORD])
        return (str(record["dataset"]["name"]), str(record["release_id"]),
                record["dataset"].get("file_commitment"))
    except NotABundle as exc:  # its message names the file already
        raise exc.input_error(bundle) from None
    except (KeyError, TypeError, AttributeError, ValueError, UnicodeDecodeError):
        raise InputError(bundle.name, RECORD, "has no release id, dataset or file "
                                              "commitment") from None


def prove_file(home: AppHome, dataset: str, data: Path,
               bundle: Path | None = None) -> Proof:
    """For each release of ``dataset`` made from the file ``data`` (the private ledger records
    its SHA-256), the key that opens that release's commitment; with ``bundle``, only that
    bundle's release, and whether its commitment opens to ``data``."""
    data = Path(data)
    digest = _hash_data(data)
    secret = dataset_secret(home, dataset, create=False)
    if bundle is not None:
        name, release_id, commitment = _bundle_commitment(Path(bundle))
        if name != dataset:
            raise InputError(Path(bundle).name, "release.json",
                             f"is a release of dataset {name!r}, not {dataset!r}")
        times = {r.id: r.time for r in ledger_for(home).state(dataset).releases}
        key = release_key(secret, release_id)
        value = commitment_value(key, digest)
        return Proof(dataset, data.name, digest, [Opening(
            release_id, times.get(release_id, ""), key.hex(), value,
            opens(commitment, key.hex(), digest))])
    openings = []
    ledger = ledger_for(home)
    for r in ledger.state(dataset).releases:
        if r.file_sha256 == ledger.file_id(digest):
            key = release_key(secret, r.id)
            openings.append(Opening(r.id, r.time, key.hex(), commitment_value(key, digest),
                                    None))
    return Proof(dataset, data.name, digest, openings)
