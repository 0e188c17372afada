"""Crafted bundles: a real bundle changed in one way, every hash recomputed where the change
needs it (manifest, sealed file list, audit entry hashes), so that only verify's own checks
of shape, layout and agreement can catch it.

The corpus keeps the recipes, not the bundles: a bundle's values are random, so the test makes
a fresh good bundle and applies each recipe to it (CRAFTED names the recipe, its exit code and
the message it must get). The zip writing and hashing here are written out with zipfile and
hashlib, independently of planner_app's own writer.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
from collections.abc import Callable
from typing import Any

ZIP_TIME = (2020, 1, 1, 0, 0, 0)
Files = dict[str, bytes]


def unzip(data: bytes) -> Files:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=True).encode("utf-8")


def _entry_hash(entry: dict[str, Any]) -> str:
    return hashlib.sha256(_canonical({k: v for k, v in entry.items() if k != "hash"})
                          ).hexdigest()


def reseal(files: Files) -> Files:
    """Recompute the sealed file list, every audit entry hash and the manifest."""
    files = dict(files)
    files.pop("MANIFEST.sha256", None)
    entries = [json.loads(line) for line in files["audit.jsonl"].decode().splitlines()]
    sealed = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())
              if name != "audit.jsonl"}
    prev = None
    for entry in entries:
        params = entry.get("params")
        if isinstance(params, dict):
            params["release_prev"] = prev
            if entry.get("event") == "bundle sealed":
                params["files"] = sealed
        entry["hash"] = _entry_hash(entry)
        prev = entry["hash"]
    files["audit.jsonl"] = b"".join(_canonical(e) + b"\n" for e in entries)
    files["MANIFEST.sha256"] = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(files.items())
    ).encode()
    return files


def rezip(files: Files, comment: bytes = b"") -> bytes:
    """A zip as a bundle writes it: sorted names, the manifest last, fixed dates."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(n for n in files if n != "MANIFEST.sha256") + ["MANIFEST.sha256"]:
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, files[name])
        zf.comment = comment
    return buffer.getvalue()


def _record_change(change: Callable[[dict[str, Any]], None]) -> Callable[[bytes], bytes]:
    def craft(good: bytes) -> bytes:
        files = unzip(good)
        record = json.loads(files["release.json"])
        change(record)
        files["release.json"] = json.dumps(record, indent=2, allow_nan=True).encode()
        return rezip(reseal(files))

    return craft


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda record: record.__setitem__(key, value)


def _file_change(name: str, change: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    def craft(good: bytes) -> bytes:
        files = unzip(good)
        files[name] = change(files[name])
        return rezip(reseal(files))

    return craft


def _audit_params_list(good: bytes) -> bytes:
    files = unzip(good)
    lines = files["audit.jsonl"].decode().splitlines()
    entry = json.loads(lines[0])
    entry["params"] = list(entry["params"].items())
    lines[0] = _canonical(entry).decode()
    files["audit.jsonl"] = ("\n".join(lines) + "\n").encode()
    return rezip(reseal(files))


def _patch_headers(good: bytes, member: str, local: bool, central: bool,
                   patch: Callable[[bytearray, int], None]) -> bytes:
    """Apply ``patch(data, offset_of_header)`` to the member's local and/or central header."""
    data = bytearray(good)
    with zipfile.ZipFile(io.BytesIO(good)) as zf:
        info = zf.getinfo(member)
    if local:
        patch(data, info.header_offset)
    if central:
        end = data.rfind(b"PK\x05\x06")
        cd_offset = struct.unpack_from("<L", data, end + 16)[0]
        pos = cd_offset
        while data[pos:pos + 4] == b"PK\x01\x02":
            nlen, xlen, clen = struct.unpack_from("<3H", data, pos + 28)
            if data[pos + 46:pos + 46 + nlen] == member.encode():
                patch(data, pos + 2)  # the central header has one more field in front
                break
            pos += 46 + nlen + xlen + clen
    return bytes(data)


def _set_flag(data: bytearray, at: int) -> None:
    flags = struct.unpack_from("<H", data, at + 6)[0]
    struct.pack_into("<H", data, at + 6, flags | 0x1)


def _set_date(data: bytearray, at: int) -> None:
    struct.pack_into("<H", data, at + 12, ((2024 - 1980) << 9) | (6 << 5) | 1)


def _extra_members(count: int) -> Callable[[bytes], bytes]:
    def craft(good: bytes) -> bytes:
        files = unzip(good)
        for i in range(count - len(files)):
            files[f"noised/x{i}.csv"] = b"answer\n"
        return rezip(reseal(files))

    return craft


CRAFTS: dict[str, Callable[[bytes], bytes]] = {
    "confidence-text": _record_change(_set("confidence", "abc")),
    "confidence-nan": _record_change(_set("confidence", float("nan"))),
    "confidence-two": _record_change(_set("confidence", 2)),
    "confidence-near-one": _record_change(_set("confidence", 0.9999999999999999)),
    "queries-object": _record_change(_set("queries", {"n": {}})),
    "total-list": _record_change(_set("total", [1.5, 0])),
    "results-null": _record_change(_set("results", None)),
    "measurements-null": _record_change(
        lambda r: r["queries"][0].__setitem__("measurements", None)),
    "audit-params-list": _audit_params_list,
    "results-label-changed": _file_change(
        "results.csv", lambda b: b.replace(b"\nn,", b"\nn,x", 1)),
    "report-html-changed": _file_change(
        "report.html", lambda b: b.replace(b"</body>", b"<p>all good</p></body>", 1)),
    "readme-changed": _file_change("README.txt", lambda b: b + b"Trust me.\n"),
    "extra-sealed-file": lambda good: rezip(reseal({**unzip(good),
                                                    "extra/data.bin": b"\x00" * 1000})),
    "noised-file-for-a-count": _extra_members(10),
    "ten-thousand-members": _extra_members(10_000),
    "record-deeply-nested": _file_change(  # 5,000 levels, with text that does not compress
        "release.json", lambda b: b"".join(b'["%s",' % hashlib.sha256(b"%d" % i).hexdigest()[
            :8].encode() for i in range(5000)) + b"0" + b"]" * 5000),
    "zip-comment": lambda good: rezip(unzip(good), comment=b"changed"),
    "prepended-bytes": lambda good: b"#!/bin/sh\nexit 0\n" + good,
    "appended-bytes": lambda good: good + b"tail",
    "header-dates": lambda good: _patch_headers(good, "results.csv", True, True, _set_date),
    "local-header-date": lambda good: _patch_headers(good, "results.csv", True, False,
                                                     _set_date),
    "encrypted-flag": lambda good: _patch_headers(good, "results.csv", True, True, _set_flag),
}

# (recipe, exit code, fragment of the one-line message)
CRAFTED: list[tuple[str, int, str]] = [
    ("confidence-text", 1, "confidence must be a number in [0.5, 0.999999], not \"abc\""),
    ("confidence-nan", 1, "confidence must be a number in [0.5, 0.999999], not NaN"),
    ("confidence-two", 1, "confidence must be a number in [0.5, 0.999999], not 2"),
    ("confidence-near-one", 1,
     "confidence must be a number in [0.5, 0.999999], not 0.9999999999999999"),
    ("queries-object", 1, "queries must be a list of objects"),
    ("total-list", 1, "total must be an object"),
    ("results-null", 1, "results must be a list of objects"),
    ("measurements-null", 1, "queries[0].measurements must be a list of objects"),
    ("audit-params-list", 1, "audit.jsonl: line 1: its params are not an object"),
    ("results-label-changed", 1, "results.csv: line 2: does not agree with the results in "
                                 "release.json"),
    ("report-html-changed", 1, "report.html: does not agree with release.json"),
    ("readme-changed", 1, "README.txt: does not agree with release.json"),
    ("extra-sealed-file", 1, "extra/data.bin: a bundle never contains this file"),
    ("noised-file-for-a-count", 1, "a release of this plan never contains this file"),
    ("ten-thousand-members", 1, "a release of this plan never contains this file"),
    ("record-deeply-nested", 1, "release.json: is not valid JSON"),
    ("zip-comment", 1, "the zip has a comment; a bundle never has one"),
    ("prepended-bytes", 1, "unexpected bytes before the first entry"),
    ("appended-bytes", 1, "unexpected bytes at its end"),
    ("header-dates", 1, "results.csv: its zip header (date, flags, compression or extra "
                        "fields) is not what a bundle writes"),
    ("local-header-date", 1, "results.csv: its local zip header disagrees with the zip's "
                             "directory"),
    ("encrypted-flag", 1, "results.csv: is flagged as encrypted; a bundle never is"),
]


# inputs: issue 22 §6 -- a key twice in release.json (a first-key-wins reader sees another
# confidence than the last key says) or in an audit line, and members marked as symbolic links
def _first_key_twice(name: str, key: str, first: Any, line: int | None = None
                     ) -> Callable[[bytes], bytes]:
    """The member's JSON object (or its line ``line``) with ``"key": first`` put in front:
    the last ``key`` keeps the bundle's own value, so a last-key-wins reader sees no change."""
    def craft(good: bytes) -> bytes:
        files = unzip(good)
        lines = files[name].decode().split("\n") if line is not None else [files[name].decode()]
        at = line or 0
        lines[at] = lines[at].replace("{", "{" + json.dumps(key) + ": " + json.dumps(first)
                                      + ", ", 1)
        files[name] = "\n".join(lines).encode()
        return reseal_kept_audit(files) if name == "audit.jsonl" else rezip(reseal(files))

    return craft


def reseal_kept_audit(files: Files) -> bytes:
    """The manifest recomputed, the audit log kept as changed (reseal re-reads and rewrites
    it, which would drop the repeated key)."""
    files = dict(files)
    files.pop("MANIFEST.sha256", None)
    files["MANIFEST.sha256"] = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(files.items())
    ).encode()
    return rezip(files)


def _as_link(member: str, mode: int = 0o120777) -> Callable[[bytes], bytes]:
    """The bundle rezipped with ``member``'s attributes marking it as a symbolic link (or the
    given Unix file type); its bytes, and so every hash, unchanged."""
    def craft(good: bytes) -> bytes:
        files = unzip(good)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name in sorted(n for n in files if n != "MANIFEST.sha256") + ["MANIFEST.sha256"]:
                info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = 3
                info.external_attr = (mode if name == member else 0o644) << 16
                zf.writestr(info, files[name])
        return buffer.getvalue()

    return craft


CRAFTS.update({
    "release-json-key-twice": _first_key_twice("release.json", "confidence", 0.5),
    "audit-line-key-twice": _first_key_twice("audit.jsonl", "event", "nothing happened", 0),
    "readme-as-symlink": _as_link("README.txt"),
    "manifest-as-symlink": _as_link("MANIFEST.sha256"),
    "results-as-fifo": _as_link("results.csv", 0o010644),
})


# oldbundles: release.json's report format (software.report_format) that is not a whole
# number from 1, and a record of a later release format (which version made it is named)
def _set_report_format(value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda record: record["software"].__setitem__("report_format", value)


CRAFTS.update({
    "report-format-text": _record_change(_set_report_format("2")),
    "report-format-zero": _record_change(_set_report_format(0)),
    "report-format-true": _record_change(_set_report_format(True)),
    # release@3 is read since cons27 (issue 27: consistent values); a later one is not
    "release-format-4": _record_change(_set("format", "planner-app/release@4")),
})


# columnar24: release@2's column-wise results (issue 24): arrays of unequal length, and a
# label swapped in release.json and results.csv alike (every hash recomputed)
def _columns_change(change: Callable[[dict[str, Any]], None],
                    csv_too: bool) -> Callable[[bytes], bytes]:
    def craft(good: bytes) -> bytes:
        from planner_app.core.release.result_columns import record_bytes, results_csv_of

        files = unzip(good)
        record = json.loads(files["release.json"])
        change(next(e for e in record["results"] if e["cells"] > 1))
        files["release.json"] = record_bytes(record)
        if csv_too:
            files["results.csv"] = results_csv_of(record)
        return rezip(reseal(files))

    return craft


def _swap_first_cells(entry: dict[str, Any]) -> None:
    cells = entry["columns"]["cell"]
    cells[0], cells[1] = cells[1], cells[0]


CRAFTS.update({
    "columns-unequal-length": _columns_change(lambda e: e["columns"]["low"].pop(), False),
    "columns-label-swapped": _columns_change(_swap_first_cells, True),
})


# cons27: a crafted release.json with a malformed consistency section (issue 27) is named,
# never a crash of results.csv's or the report's builder
def _consistency(value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda record: record.__setitem__("consistency", value)


CRAFTS.update({
    "consistency-queries-not-a-list": _record_change(_consistency(
        {"relations": 1, "estimate": "", "non_negative": True, "integer": True,
         "headline": "consistent", "intervals": "", "privacy_cost": "", "queries": 5})),
    "consistency-arrays-unequal": _record_change(_consistency(
        {"relations": 1, "estimate": "", "non_negative": True, "integer": True,
         "headline": "consistent", "intervals": "", "privacy_cost": "",
         "queries": [{"query_id": "n", "value": [1, 2], "low": [0], "high": [3],
                      "empty_cell_bias": 0.5}]})),
})
