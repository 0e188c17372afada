"""A received release bundle, opened once: the verifier's verdict and what the bundle holds,
as plain values any front end can show (the desktop app's bundle viewer, ``planner-app
verify``). Nothing here recomputes a number: the verdict is ``verify_members``'s, the contents
are read as written. A part that cannot be read (a crafted or damaged bundle) is ``None`` and
named in ``unreadable``; the verdict then says why the bundle is not valid.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..kinds.synthetic import stated_epsilon
from ..model import Plan
from ..planfile import parse_plan_text
from ..records.keys import PublicKey
from ..support.errors import InputError
from ..support.progress import Progress, part
from ..support.progress import report as report_progress
from .bundle import (
    AUDIT,
    PLAN,
    README,
    RECORD,
    REPORT_HTML,
    REPORT_PDF,
    RESULTS,
    Verdict,
    bundle_json,
)
from .bundle import open_bundle as read_members
from .report_format import report_not_checked_note
from .signing import approval_words, origin_lines
from .verify_release import AnswerScan, answer_sink, verify_members

#: An image the report embeds as a data: URI (front ends that cannot load data: URIs, such
#: as Qt's rich text, get the bytes under a name instead).
_DATA_IMAGE = re.compile(r"""src=(['"])data:(image/(?:png|svg\+xml));base64,([A-Za-z0-9+/=]+)\1""")


@dataclass(frozen=True)
class StatisticParameters:
    """One statistic's public parameters as release.json states them."""

    label: str
    kind: str
    mechanism: str
    sensitivity: float
    epsilon: float
    delta: float
    half_width: float | None
    unit: str
    rows: float | None
    derivation: str


@dataclass(frozen=True)
class ReleaseSummary:
    """release.json's headline: which data, when, the total spent and each statistic."""

    dataset: str
    release_id: str
    created_utc: str
    epsilon: float
    delta: float
    accountant: str
    confidence: float
    statistics: list[StatisticParameters]


@dataclass(frozen=True)
class ResultsTable:
    """results.csv as text cells: its header and rows."""

    columns: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class SyntheticTable:
    """synthetic/<id>.csv as text cells: its header, its first rows (at most
    ``SHOWN_SYNTHETIC_ROWS``) and how many rows it has in all; ``fit``: verify's sentences
    on how far its rows are from the released noised marginals (TVD; none when the table
    did not verify)."""

    name: str
    columns: list[str]
    rows: list[list[str]]
    total_rows: int
    fit: list[str] = field(default_factory=list)


SHOWN_SYNTHETIC_ROWS = 500  # a viewer shows the first rows; the file holds them all


@dataclass(frozen=True)
class AuditLine:
    """One line of the audit segment; ``damaged`` when it is not a JSON object."""

    time: str
    user: str
    event: str
    hash: str
    damaged: bool = False


@dataclass(frozen=True)
class ReportPage:
    """report.html with its embedded images taken out: ``html`` names each image by a key of
    ``images`` (``image-1.png`` ...) instead of a data: URI."""

    html: str
    images: dict[str, bytes]
    #: why its words were not checked against release.json (another report format), or None
    note: str | None = None


@dataclass(frozen=True)
class Provenance:
    """Who signed the bundle and who approved its plan, as the bundle states it and as far as
    verification proved it (signing.check_origin): plain values and sentences to show."""

    signed: bool
    signer: str | None  # the name the bundle claims (release.json signed_by); not proof
    fingerprint: str | None  # of the key that made the signature
    origin_proven: bool  # the signature verifies against a key the reader trusts
    trusted_signer: str | None  # that key, as the reader gave it
    checked_against: list[str]  # fingerprints of the keys the reader gave
    origin: list[str]  # origin_lines: what was and was not proven, in words
    approval: str  # approval_words(record["approval"])
    approval_fingerprint: str | None
    approval_verified: bool | None  # None: the approval entry does not say


@dataclass
class OpenedBundle:
    name: str
    verdict: Verdict
    release: ReleaseSummary | None = None
    results: ResultsTable | None = None
    plan: Plan | None = None
    audit: list[AuditLine] | None = None
    readme: str | None = None
    report: ReportPage | None = None
    has_report_pdf: bool = False
    #: the parts present but not readable (file names), in bundle order
    unreadable: list[str] = field(default_factory=list)
    provenance: Provenance | None = None
    #: synthetic/<id>.csv of each synthetic table, in bundle order
    synthetic: list[SyntheticTable] = field(default_factory=list)


def open_bundle(path: Path, trusted: Sequence[PublicKey] = (),
                progress: Progress = None) -> OpenedBundle:
    """Verify a bundle (its origin too, against ``trusted`` keys) and read its contents (one
    read of the zip). Raises ``NotABundle`` when the file is not a bundle at all; a bundle
    that fails verification opens with ``verdict.valid`` false and whatever parts can still
    be read. ``progress(fraction, message)`` says which check is running."""
    scans: dict[str, AnswerScan] = {}  # the answer files: streamed, never held
    report_progress(progress, 0.0, f"Reading {path.name}…")
    files, layout = read_members(path, stream=answer_sink(scans))
    opened = OpenedBundle(name=path.name,
                          verdict=verify_members(path.name, files, layout, trusted=trusted,
                                                 scans=scans,
                                                 progress=part(progress, 0.05, 0.97)))
    report_progress(progress, 0.97, "Reading the results, audit trail and report to show "
                                    "them…")
    for name, attr, parse in ((RECORD, "release", _release), (RESULTS, "results", _results),
                              (PLAN, "plan", _plan), (AUDIT, "audit", _audit),
                              (README, "readme", _text), (REPORT_HTML, "report", _report)):
        if name not in files:
            continue
        try:  # fail closed: a crafted part is unreadable, never a crash
            setattr(opened, attr, parse(files[name]))
        except Exception:
            opened.unreadable.append(name)
    opened.has_report_pdf = REPORT_PDF in files
    if opened.report is not None and opened.verdict.summary.get("reports_rebuilt") is False:
        opened.report = replace(opened.report, note=report_not_checked_note(
            bundle_json(files[RECORD])))  # read and checked by the verdict already
    for name in files:
        if name.startswith("synthetic/") and name.endswith(".csv"):
            try:
                table = _synthetic(name, files[name])
                fit = next((t.get("information") for t in opened.verdict.synthetic.values()
                            if t.get("csv") == name), None)
                opened.synthetic.append(replace(table, fit=list(fit or [])))
            except Exception:
                opened.unreadable.append(name)
    try:
        opened.provenance = _provenance(opened.verdict, files, path.name)
    except Exception:  # a crafted record: the verdict names it
        opened.provenance = None
    return opened


def _provenance(verdict: Verdict, files: dict[str, bytes], name: str) -> Provenance:
    origin = verdict.origin
    try:
        record = bundle_json(files[RECORD]) if RECORD in files else {}
    except (UnicodeDecodeError, ValueError, RecursionError):
        record = {}
    approval = record.get("approval") if isinstance(record, dict) else None
    fingerprint = approval.get("key_fingerprint") if isinstance(approval, dict) and \
        approval.get("signature") else None
    verified = approval.get("verified") if isinstance(approval, dict) else None
    return Provenance(
        signed=bool(origin.get("signed")), signer=origin.get("signer"),
        fingerprint=origin.get("fingerprint"),
        origin_proven=bool(origin.get("origin_proven")),
        trusted_signer=origin.get("trusted_signer"),
        checked_against=list(origin.get("checked_against") or []),
        origin=origin_lines(origin, name), approval=approval_words(approval),
        approval_fingerprint=fingerprint if isinstance(fingerprint, str) else None,
        approval_verified=verified if isinstance(verified, bool) else None)


def _text(data: bytes) -> str:
    return data.decode("utf-8")


def _number(x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
        raise ValueError("not a number")
    return float(x)


def _optional_number(x: Any) -> float | None:
    return None if x is None else _number(x)


def _str(x: Any) -> str:
    if not isinstance(x, str):
        raise ValueError("not text")
    return x


def _release(data: bytes) -> ReleaseSummary:
    record = bundle_json(data)
    total = record["total"]
    statistics = []
    for q in record["queries"]:
        acc = q["accuracy"]
        statistics.append(StatisticParameters(
            label=_str(q["label"]), kind=_str(q["kind"]), mechanism=_str(q["mechanism"]),
            sensitivity=_number(q["sensitivity"]), epsilon=_number(stated_epsilon(q)),
            delta=_number(q["delta"]), half_width=_optional_number(acc.get("half_width")),
            unit=_str(acc.get("unit", "")), rows=_optional_number(acc.get("rows")),
            derivation=_str(q.get("derivation", ""))))
    return ReleaseSummary(
        dataset=_str(record["dataset"]["name"]), release_id=_str(record["release_id"]),
        created_utc=_str(record["created_utc"]), epsilon=_number(total["epsilon"]),
        delta=_number(total["delta"]), accountant=_str(total["accountant"]),
        confidence=_number(record["confidence"]), statistics=statistics)


def _results(data: bytes) -> ResultsTable:
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    if not rows:
        raise ValueError("empty")
    return ResultsTable(columns=rows[0], rows=rows[1:])


def _synthetic(name: str, data: bytes) -> SyntheticTable:
    reader = csv.reader(io.StringIO(data.decode("utf-8")))
    header = next(reader, None)
    if header is None:
        raise ValueError("empty")
    shown: list[list[str]] = []
    total = 0
    for row in reader:
        total += 1
        if len(shown) < SHOWN_SYNTHETIC_ROWS:
            shown.append(row)
    return SyntheticTable(name=name, columns=header, rows=shown, total_rows=total)


def _plan(data: bytes) -> Plan:
    try:
        return parse_plan_text(data.decode("utf-8"), PLAN)
    except InputError as exc:
        raise ValueError(str(exc)) from None


def _audit(data: bytes) -> list[AuditLine]:
    lines = []
    for line in data.decode("utf-8").splitlines():
        if not line.strip():
            continue
        try:
            e = bundle_json(line)
        except ValueError:
            e = None
        if not isinstance(e, dict):
            lines.append(AuditLine("", "", "(damaged line)", "", damaged=True))
            continue
        lines.append(AuditLine(str(e.get("time", "")), str(e.get("user", "")),
                               str(e.get("event", "")), str(e.get("hash", ""))))
    return lines


def _report(data: bytes) -> ReportPage:
    page = data.decode("utf-8")
    images: dict[str, bytes] = {}

    def take(match: re.Match[str]) -> str:
        kind = "svg" if "svg" in match.group(2) else "png"
        name = f"image-{len(images) + 1}.{kind}"
        try:
            images[name] = base64.b64decode(match.group(3), validate=True)
        except binascii.Error:
            return "src=''"
        return f"src='{name}'"

    return ReportPage(html=_DATA_IMAGE.sub(take, page), images=images)
