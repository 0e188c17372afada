"""A forger who knows the bundle format: change a released number and rebuild everything a
bundle's own checks look at (results.csv, release.json, the reports and README rebuilt from
it, the audit segment's seal, MANIFEST.sha256), so that only a signature by a trusted key can
tell. Used by the signed-bundle tests and their table of bad cases."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.audit import canonical, entry_hash
from planner_app.core.records.keys import SecretKey
from planner_app.core.release.bundle import (
    AUDIT,
    MANIFEST,
    RECORD,
    RESULTS,
    SIGNATURE,
    manifest_bytes,
    read_bundle,
    sha256_bytes,
    zip_bytes,
)
from planner_app.core.release.publish import _report_files
from planner_app.core.release.result_columns import record_bytes, results_csv_of
from planner_app.core.release.signing import sign_manifest, signed_by_entry
from tests.record_rows import edit_rows

KEEP = "keep"  # keep the bundle's original signature file
DROP = "drop"  # leave the signature out


def add_one_to_a_count(record: dict[str, Any]) -> None:
    """The first count-like row gets +1 on its value and both interval ends (its interval and
    the whole-number rule still hold, so the content checks pass)."""
    def change(rows: list[dict[str, Any]]) -> None:
        row = next(r for r in rows if r["mechanism"] != "randomized_response"
                   and r["low"] is not None and float(r["value"]).is_integer())
        for key in ("value", "low", "high"):
            row[key] = row[key] + 1

    edit_rows(record, change)


def reseal(files: dict[str, bytes], record: dict[str, Any]) -> None:
    """Write ``record`` back into a bundle's files as the app would (release.json, results.csv,
    the report) and re-seal the audit log over them (no signature)."""
    plan = plan_from_dict(record["plan"])
    files[RECORD] = record_bytes(record)
    files[RESULTS] = results_csv_of(record)
    files.update(_report_files(plan, record))
    seal_audit(files)


def seal_audit(files: dict[str, bytes]) -> None:
    """Make the audit log's last entry name the hashes of the bundle's other files again."""
    entries = [json.loads(line) for line in files[AUDIT].decode().splitlines() if line]
    last = entries[-1]
    last["params"]["files"] = {name: sha256_bytes(data) for name, data in sorted(files.items())
                               if name != AUDIT}
    last["hash"] = entry_hash(last)
    files[AUDIT] = b"".join(canonical(e) + b"\n" for e in entries)


def forge(src: Path, dst: Path, *, change: Callable[[dict[str, Any]], None] | None =
          add_one_to_a_count, signature: str | SecretKey = KEEP,
          signed_by: str | SecretKey = KEEP) -> None:
    """Rebuild ``src`` into ``dst`` with ``change`` applied to release.json. ``signed_by``:
    KEEP, DROP or a key whose entry replaces it; ``signature``: KEEP (the old file), DROP, or
    a key that signs the new manifest."""
    files = read_bundle(src)
    old_signature = files.pop(SIGNATURE, None)
    files.pop(MANIFEST)
    record = json.loads(files[RECORD])
    if change is not None:
        change(record)
    if signed_by == DROP:
        record.pop("signed_by", None)
    elif isinstance(signed_by, SecretKey):
        record["signed_by"] = signed_by_entry(signed_by)
    reseal(files, record)
    if signature == KEEP:
        sig = old_signature
    elif signature == DROP:
        sig = None
    else:
        assert isinstance(signature, SecretKey)
        manifest = manifest_bytes(files)
        if (record.get("signed_by") or {}).get("fingerprint") == signature.public.fingerprint:
            sig = sign_manifest(signature, manifest, record)
        else:  # a key other than the one release.json names
            sig = signature.sign(manifest, f"planner-app release {record['release_id']}"
                                 ).encode()
    dst.write_bytes(zip_bytes(files, signature=sig))
