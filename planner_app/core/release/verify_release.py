"""What ``planner-app verify`` checks: ``verify_bundle`` reads the zip (its layout and
manifest), then ``verify_contents`` checks inside a bundle whose manifest holds:

* release.json is a release record and plan.json is the plan it names (same SHA-256);
* every sensitivity, noise scale, ε, accuracy and the total recompute from plan.json, and the
  total recomposes from the record's own measurements (a PLD total as the composition tree
  gives it, or, for an older bundle, as older releases composed it: as a chain before the
  tree, or with the discrete Laplace's losses rounded as before the exact grid:
  ``accounting.OLDER_PLD_WAYS``);
* the audit segment is an intact hash chain for this release and seals these very files;
* every results.csv row is a declared cell with the interval the stated accuracy gives
  (randomized response: the share and its interval recompute from the published answer file,
  whose length is the noised number of answers);
* each synthetic table as verify_synthetic says, with its TVD to the released noised
  marginals as information (``Verdict.information``, ``Verdict.synthetic``) and, with
  ``regenerate``, its CSV made again byte for byte.

The answer files are read in chunks (``AnswerScan``), never held whole: verifying a bundle of
10⁸ answers takes memory for its small files only.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ... import __version__
from ..dp.accounting import OLDER_PLD_WAYS, compose, pld_composed_as
from ..dp.accuracy import MAX_CONFIDENCE, MIN_CONFIDENCE
from ..dp.measure import measurement_from_dict, measurement_to_dict
from ..kinds import kind_of
from ..kinds.shared_dp import cell_labels, measurements_for
from ..kinds.shared_release import close_enough, randomized_response_estimate
from ..model import Plan
from ..planfile import parse_plan_text, plan_digest, plan_to_dict
from ..planning.check import check_plan
from ..records.audit import entry_hash
from ..records.keys import PublicKey
from ..support.errors import InputError
from ..support.progress import Progress, part
from ..support.progress import report as report_progress
from .bundle import (
    AUDIT,
    CONSISTENT_FORMAT,
    MANIFEST,
    NOISED_DIR,
    PLAN,
    README,
    RECORD,
    RELEASE_FORMAT,
    RELEASE_FORMATS,
    REPORT_HTML,
    REPORT_PDF,
    RESULT_COLUMNS,
    RESULTS,
    SIGNATURE,
    DuplicateKey,
    MemberSink,
    Verdict,
    bundle_json,
    open_bundle,
    sha256_bytes,
)
from .consistent import (
    CONSISTENT_COLUMNS,
    consistency_bytes,
    consistency_record,
    consistency_shape_problem,
    raw_values_of,
)
from .publish import readme_text
from .report import report_html, report_pdf
from .report_format import (
    REPORT_FORMAT,
    not_rebuilt_line,
    rebuilds,
    report_format_problem,
    stated_report_format,
)
from .result_columns import (
    cell_count,
    entries_problem,
    is_column_record,
    labels_problem,
    results_csv_of,
    tables_of,
)
from .signing import check_approval, check_origin
from .verify_synthetic import check_synthetic, regenerate_synthetic

_close = close_enough


# ----------------------------------------------------------------------------- answer files

#: what str.splitlines() ends a line at
_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


class AnswerScan:
    """A randomized-response answer file (noised/<id>.csv) read in chunks: its SHA-256 and
    its lines exactly as ``data.decode("utf-8", "replace").splitlines()`` gives them, kept as
    counts only: the first line, how many lines, how many are "yes" and how many "no". A line
    cut between two chunks (a "\r" too, which a "\n" may follow) is carried to the next."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._carry = ""
        self.first: str | None = None
        self.lines = 0
        self.yes = 0
        self.no = 0
        self.sha256 = ""

    @classmethod
    def of(cls, data: bytes) -> AnswerScan:
        scan = cls()
        for start in range(0, len(data), 1 << 20):
            scan.write(data[start:start + (1 << 20)])
        scan.close()
        return scan

    def write(self, data: bytes) -> None:
        self._hash.update(data)
        self._take(self._decoder.decode(data), final=False)

    def close(self) -> None:
        self._take(self._decoder.decode(b"", final=True), final=True)
        self.sha256 = self._hash.hexdigest()

    def _take(self, text: str, final: bool) -> None:
        text = self._carry + text
        self._carry = ""
        if not text:
            return
        lines = text.splitlines()
        if not final and text[-1] == "\r":
            self._carry = lines.pop() + "\r"
        elif not final and text[-1] not in _BREAKS:
            self._carry = lines.pop()
        if not lines:
            return
        yes, no = lines.count("yes"), lines.count("no")
        if self.first is None:
            self.first = lines[0]
            yes -= self.first == "yes"
            no -= self.first == "no"
        self.lines += len(lines)
        self.yes += yes
        self.no += no

    @property
    def well_formed(self) -> bool:
        """The header "answer", then "yes" or "no" a line."""
        return self.first == "answer" and self.yes + self.no == self.lines - 1

    @property
    def answers(self) -> int:
        return self.lines - 1


def _is_answer_file(name: str) -> bool:
    return name.startswith(f"{NOISED_DIR}/")


def _answer_scans(files: Mapping[str, bytes], scans: Mapping[str, AnswerScan] | None
                  ) -> tuple[dict[str, bytes], dict[str, AnswerScan]]:
    """The members held whole, and every answer file as a scan (those given whole are
    scanned here)."""
    out = dict(scans or {})
    small: dict[str, bytes] = {}
    for name, data in files.items():
        if _is_answer_file(name) and name not in out:
            out[name] = AnswerScan.of(data)
        elif not _is_answer_file(name):
            small[name] = data
    return small, out


def _digests(files: Mapping[str, bytes], scans: Mapping[str, AnswerScan]) -> dict[str, str]:
    """Every member's SHA-256 (the answer files' from their scans)."""
    return {**{name: sha256_bytes(data) for name, data in files.items()},
            **{name: scan.sha256 for name, scan in scans.items()}}


def verify_contents(files: dict[str, bytes], verdict: Verdict,
                    scans: Mapping[str, AnswerScan] | None = None,
                    regenerate: bool = False, progress: Progress = None) -> None:
    """The checks inside a bundle (the module docstring); ``progress(fraction, message)``
    says which is running."""
    files, answer_files = _answer_scans(files, scans)
    report_progress(progress, 0.0, "Reading release.json and plan.json…")
    problems = verdict.problems
    record = _record(files, problems)
    if record is None:
        return
    plan = _plan(files, record, problems)
    if plan is None:
        return
    verdict.checks.append("plan.json is the plan release.json names")
    verdict.summary = {"dataset": record["dataset"]["name"],
                       "release_id": record.get("release_id"),
                       "created_utc": record.get("created_utc"),
                       "total": record.get("total"), "queries": len(plan.queries)}
    n = len(problems)
    _recompute(plan, record, problems, part(progress, 0.02, 0.45))
    if len(problems) == n:
        verdict.checks.append("sensitivities, noise, accuracy and totals recompute from the plan")
    n = len(problems)
    report_progress(progress, 0.45, "Checking the audit trail…")
    _audit(files, answer_files, record, problems)
    if len(problems) == n:
        verdict.checks.append("the audit segment is an intact chain that seals these files")
    n = len(problems)
    _results(files, answer_files, plan, record, problems, part(progress, 0.47, 0.52))
    if len(problems) == n:
        verdict.checks.append("every result is a declared cell with its stated interval")
    if plan.consistency is not None or "consistency" in record \
            or record.get("format") == CONSISTENT_FORMAT:  # issue 27
        n = len(problems)
        _consistency(plan, record, problems)
        if len(problems) == n:
            verdict.checks.append("the consistent values recompute byte for byte from the "
                                  "raw noised values and the plan's relations")
    if any(kind_of(q).makes_table for q in plan.queries) or "synthetic" in record:
        n = len(problems)
        fit = check_synthetic(files, plan, record, part(progress, 0.52, 0.57))
        problems.extend(fit.problems)
        verdict.synthetic = fit.tables
        verdict.information.extend(fit.information)
        if len(problems) == n:
            verdict.checks.append(
                "every synthetic table has the declared columns, values (formula-escaped) and "
                "rows, its noised marginals are the plan's measurements, and the TVD of its "
                "rows to each released noised marginal is measured (given as information, "
                "not judged)"
                + ("" if regenerate else "; its rows are not regenerated from those marginals "
                   "(planner-app verify --regenerate does that)"))
            if regenerate:
                checks, failed, outcome = regenerate_synthetic(files, plan, record,
                                                               part(progress, 0.57, 0.62))
                verdict.checks.extend(checks)
                problems.extend(failed)
                for qid, done in outcome.items():
                    verdict.synthetic.setdefault(qid, {}).update(done)
    n = len(problems)
    signer = verdict.origin.get("trusted_signer") if verdict.origin.get("origin_proven") \
        else None
    agreement = _agreement(files, answer_files, plan, record, problems,
                           part(progress, 0.62, 1.0), bundle=verdict.bundle, signer=signer)
    verdict.summary["report_format"] = stated_report_format(record)
    verdict.summary["reports_rebuilt"] = rebuilds(record)
    if len(problems) == n:
        verdict.checks.extend(agreement)


def _record(files: dict[str, bytes], problems: list[str]) -> dict[str, Any] | None:
    if RECORD not in files:
        problems.append(f"{RECORD}: missing")
        return None
    try:
        record = bundle_json(files[RECORD])
    except DuplicateKey as exc:  # readers would disagree on its values
        problems.append(f"{RECORD}: is not valid JSON ({exc})")
        return None
    except (UnicodeDecodeError, ValueError, RecursionError):  # JSONDecodeError is a ValueError
        problems.append(f"{RECORD}: is not valid JSON")
        return None
    if not isinstance(record, dict) or record.get("format") not in RELEASE_FORMATS:
        problems.append(f"{RECORD}: {_release_format_problem(record)}")
        return None
    for key in ("plan_sha256", "plan", "queries", "total", "confidence", "dataset",
                "post_processing", "results"):
        if key not in record:
            problems.append(f"{RECORD}: lacks the field {key!r}")
            return None
    problem = _record_shape(record)
    if problem:
        problems.append(f"{RECORD}: {problem}")
        return None
    return record


def _release_format_problem(record: Any) -> str:
    """Why release.json is not a record this version reads: another format of record (made by
    a newer planner-app: say which version made it) or no record at all."""
    stated = record.get("format") if isinstance(record, dict) else None
    family = RELEASE_FORMAT.partition("@")[0]
    if not isinstance(stated, str) or not stated.startswith(f"{family}@"):
        return f"is not a {RELEASE_FORMAT} record"
    software = record.get("software")
    version = software.get("version") if isinstance(software, dict) else None
    made = f"planner-app {str(version)[:40]}" if isinstance(version, str) else "another version"
    return (f"is a {stated[:60]} record, made by {made}; this planner-app reads "
            f"{', '.join(RELEASE_FORMATS[:-1])} and {RELEASE_FORMATS[-1]} only: verify it with "
            "the version that made it or "
            "a newer one")


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _record_shape(record: dict[str, Any]) -> str | None:
    """The types release.json's fields must have before anything is recomputed from them (a
    crafted record whose hashes were recomputed must be named, never crash the verifier)."""
    confidence = record["confidence"]
    if not _is_number(confidence) or not MIN_CONFIDENCE <= confidence <= MAX_CONFIDENCE:
        return (f"confidence must be a number in [{MIN_CONFIDENCE:g}, {MAX_CONFIDENCE:g}], "
                f"not {json.dumps(confidence)[:40]}")
    for key in ("plan", "total", "dataset", "post_processing"):
        if not isinstance(record[key], dict):
            return f"{key} must be an object"
    if not isinstance(record["dataset"].get("name"), str):
        return "dataset.name must be text"
    if not isinstance(record["plan_sha256"], str):
        return "plan_sha256 must be text"
    for key in ("release_id", "created_utc"):
        if not isinstance(record.get(key), str):
            return f"{key} must be text"
    problem = report_format_problem(record)
    if problem:
        return problem
    total = record["total"]
    if not (_is_number(total.get("epsilon")) and _is_number(total.get("delta"))
            and isinstance(total.get("accountant"), str)):
        return "total must hold the numbers epsilon and delta and the accountant's name"
    for key in ("queries", "results"):
        if not isinstance(record[key], list) or not all(isinstance(x, dict)
                                                        for x in record[key]):
            return f"{key} must be a list of objects"
    if is_column_record(record):  # release@2: one entry of arrays per statistic
        problem = entries_problem(record)
        if problem:
            return problem
    if "consistency" in record:  # issue 27: read by results.csv and the report
        problem = consistency_shape_problem(record["consistency"])
        if problem:
            return problem
    for i, q in enumerate(record["queries"]):
        accuracy = q.get("accuracy")
        if not isinstance(q.get("id"), str) or not isinstance(accuracy, dict):
            return f"queries[{i}] must have a text id and an accuracy object"
        half = accuracy.get("half_width")
        if half is not None and not _is_number(half):
            return f"queries[{i}].accuracy.half_width must be a number"
        ms = q.get("measurements")
        if not isinstance(ms, list) or not all(isinstance(m, dict) for m in ms):
            return f"queries[{i}].measurements must be a list of objects"
    return None


def _plan(files: dict[str, bytes], record: dict[str, Any], problems: list[str]) -> Plan | None:
    if PLAN not in files:
        problems.append(f"{PLAN}: missing")
        return None
    try:
        plan = parse_plan_text(files[PLAN].decode("utf-8"), PLAN)
    except (InputError, UnicodeDecodeError) as exc:
        problems.append(f"{PLAN}: is not a valid plan ({exc})")
        return None
    if plan_digest(plan) != record["plan_sha256"]:
        problems.append(f"{PLAN}: its SHA-256 is not the plan_sha256 in {RECORD}")
        return None
    if plan_to_dict(plan) != record["plan"]:
        problems.append(f"{RECORD}: its plan differs from {PLAN}")
        return None
    return plan


def _same(fresh: Any, stated: Any) -> bool:
    """``stated`` (read from JSON) is ``fresh`` (recomputed): the same structure, texts and
    flags, and numbers within verify's tolerance (``_close``)."""
    if isinstance(fresh, dict):
        return isinstance(stated, dict) and set(fresh) == set(stated) and all(
            _same(v, stated[k]) for k, v in fresh.items())
    if isinstance(fresh, list):
        return isinstance(stated, list) and len(fresh) == len(stated) and all(
            _same(a, b) for a, b in zip(fresh, stated, strict=True))
    if isinstance(fresh, bool) or fresh is None or isinstance(fresh, str):
        return type(stated) is type(fresh) and stated == fresh
    if not math.isfinite(float(fresh)):
        return bool(stated == fresh)
    return _is_number(stated) and _close(fresh, stated)


def _recompute(plan: Plan, record: dict[str, Any], problems: list[str],
               progress: Progress = None) -> None:
    try:
        # the alternatives are not compared: no PLD unless the total composes one
        report = check_plan(plan, confidence=float(record["confidence"]),
                            progress=part(progress, 0.0, 0.95), every_alternative=False)
    except InputError as exc:
        problems.append(f"{PLAN}: cannot be recomputed ({exc})")
        return
    fresh = {q["id"]: q for q in report.to_dict()["queries"]}
    checks = {qc.query.id: qc for qc in report.queries}
    stated = {q.get("id"): q for q in record["queries"] if isinstance(q, dict)}
    if set(fresh) != set(stated):
        problems.append(f"{RECORD}: its statistics are not the plan's")
        return
    for qid, q in fresh.items():
        s = stated[qid]
        for key in ("sensitivity", "scale", "sigma", "epsilon_spent"):
            if key in q and not _close(q[key], s.get(key)):
                problems.append(f"{RECORD}: statistic {qid!r}: {key} is {s.get(key)!r}, but "
                                f"the plan gives {q[key]!r}")
        if not _close(q["accuracy"]["half_width"], (s.get("accuracy") or {}).get("half_width")):
            problems.append(f"{RECORD}: statistic {qid!r}: the stated accuracy does not "
                            "recompute from the plan")
        recomputed = [measurement_to_dict(m) for m in checks[qid].measurements]
        if not _same(recomputed, s.get("measurements")) or not _same(q.get("components"),
                                                                  s.get("components")):
            problems.append(f"{RECORD}: statistic {qid!r}: its measurements are not the "
                            "plan's (each one's name, mechanism, sensitivity, noise, ε, δ and "
                            "derivation recompute from the plan)")
    report_progress(progress, 0.95, "Checking the total ε and δ…")
    total = record["total"]
    older = None  # how an older release composed its PLD total (``OLDER_PLD_WAYS``)
    if (report.total.accountant == "pld" == total.get("accountant")
            and _is_number(total.get("epsilon"))
            and not _close(report.total.epsilon, total["epsilon"])):
        planned = [m for qc in report.queries for m in qc.measurements]
        older = next((way for way in OLDER_PLD_WAYS if _close(
            pld_composed_as(way, planned, report.total.delta).epsilon, total["epsilon"])), None)
    if not ((_close(report.total.epsilon, total.get("epsilon")) or older is not None)
            and _close(report.total.delta, total.get("delta"))
            and report.total.accountant == total.get("accountant")):
        problems.append(f"{RECORD}: the total ε/δ does not recompute from the plan "
                        f"(stated {total.get('epsilon')!r}, recomputed {report.total.epsilon!r})")
        return
    try:
        ms = [measurement_from_dict(m) for q in record["queries"] for m in q["measurements"]]
        again = compose(ms, plan.budget.delta, total.get("accountant"))
        if older is not None and not _close(again.epsilon, total["epsilon"]):
            again = pld_composed_as(older, ms, plan.budget.delta)
    except (KeyError, TypeError, ValueError, InputError):
        problems.append(f"{RECORD}: its measurements cannot be read")
        return
    if not _close(again.epsilon, total["epsilon"]):
        problems.append(f"{RECORD}: the total does not recompose from its own measurements")


def _audit(files: dict[str, bytes], scans: dict[str, AnswerScan], record: dict[str, Any],
           problems: list[str]) -> None:
    if AUDIT not in files:
        problems.append(f"{AUDIT}: missing")
        return
    try:
        entries = [bundle_json(line) for line in files[AUDIT].decode("utf-8").splitlines()
                   if line.strip()]
    except DuplicateKey as exc:
        problems.append(f"{AUDIT}: is not JSON lines ({exc})")
        return
    except (UnicodeDecodeError, ValueError, RecursionError):
        problems.append(f"{AUDIT}: is not JSON lines")
        return
    if not entries:
        problems.append(f"{AUDIT}: is empty")
        return
    prev = None
    for n, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or "hash" not in entry:
            problems.append(f"{AUDIT}: line {n}: is not an audit entry")
            return
        if entry_hash(entry) != entry["hash"]:
            problems.append(f"{AUDIT}: line {n}: its content does not match its hash "
                            "(changed)")
            return
        params = entry.get("params")
        if not isinstance(params, dict):
            problems.append(f"{AUDIT}: line {n}: its params are not an object")
            return
        if params.get("release_id") != record.get("release_id"):
            problems.append(f"{AUDIT}: line {n}: belongs to another release")
            return
        if params.get("release_prev") != prev:
            problems.append(f"{AUDIT}: line {n}: does not link to the entry before it "
                            "(broken chain)")
            return
        prev = entry["hash"]
    last = entries[-1]
    if last.get("event") != "bundle sealed":
        problems.append(f"{AUDIT}: does not end with the 'bundle sealed' entry")
        return
    sealed = last["params"].get("files") or {}
    actual = {name: digest for name, digest in _digests(files, scans).items()
              if name not in (AUDIT, MANIFEST, SIGNATURE)}
    if sealed != actual:
        changed = sorted(set(sealed) ^ set(actual) | {k for k in sealed if
                                                       sealed.get(k) != actual.get(k)})
        problems.append(f"{AUDIT}: the sealed file hashes do not match "
                        f"{', '.join(changed) or 'the files'}")


def _number(text: str) -> float | None:
    if text == "":
        return None
    return float(text)


def _results(files: dict[str, bytes], scans: dict[str, AnswerScan], plan: Plan,
             record: dict[str, Any], problems: list[str], progress: Progress = None) -> None:
    if RESULTS not in files:
        problems.append(f"{RESULTS}: missing")
        return
    try:
        rows = list(csv.reader(io.StringIO(files[RESULTS].decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error):
        problems.append(f"{RESULTS}: is not CSV text")
        return
    header = RESULT_COLUMNS + (CONSISTENT_COLUMNS if "consistency" in record else ())
    if not rows or tuple(rows[0]) != header:
        problems.append(f"{RESULTS}: its header is not {', '.join(header)}")
        return
    stated = {q["id"]: q for q in record["queries"]}
    by_query: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            problems.append(f"{RESULTS}: line {n}: has {len(row)} cells, not {len(header)}")
            return
        cells = dict(zip(header, row, strict=True))
        by_query.setdefault(cells["query_id"], []).append((n, cells))
    if len(rows) - 1 != cell_count(record):
        problems.append(f"{RESULTS}: has {len(rows) - 1} rows but {RECORD} lists "
                        f"{cell_count(record)}")
    tables = tables_of(record) if is_column_record(record) else {}
    confidence = float(record["confidence"])
    for i, q in enumerate(plan.queries):
        report_progress(progress, i / len(plan.queries), f"Checking the results of statistic "
                                                         f"{i + 1} of {len(plan.queries)}…")
        if kind_of(q).makes_table:  # its rows are its noised marginals: verify_synthetic.py
            continue
        got = by_query.get(q.id, [])
        if kind_of(q).discovers_cells:  # its cells are found in the data, not declared
            problem = _discovered_problem(q, plan, got, confidence)
            if problem:
                problems.append(f"{RESULTS}: statistic {q.id!r}: {problem}")
            continue
        if len(got) != len(cell_labels(q)):
            problems.append(f"{RESULTS}: statistic {q.id!r} has {len(got)} rows, but the plan "
                            f"declares {len(cell_labels(q))} cells")
            continue
        table = tables.get(q.id)
        problem = labels_problem(table, cell_labels(q)) if table is not None else None
        if problem:  # release@2: the labels are the plan's cells, in order
            problems.append(f"{RECORD}: {problem}")
            continue
        half = stated[q.id]["accuracy"]["half_width"]
        for n, cells in got:
            try:
                value, low, high = (_number(cells[k]) for k in ("value", "low", "high"))
            except ValueError:
                problems.append(f"{RESULTS}: line {n}: a value is not a number")
                continue
            problem = _row_problem(q, plan, value, low, high, half, scans, confidence)
            if problem:
                problems.append(f"{RESULTS}: line {n} ({q.id}): {problem}")


def _consistency(plan: Plan, record: dict[str, Any], problems: list[str]) -> None:
    """release.json's consistent values are what the plan's relations make of its raw noised
    values (consistent.py), byte for byte."""
    if (record.get("format") == CONSISTENT_FORMAT) != ("consistency" in record):
        problems.append(f"{RECORD}: a {record.get('format')} record "
                        + ("with" if "consistency" in record else "without")
                        + f" consistent values ({CONSISTENT_FORMAT} is the record that has "
                          "them)")
        return
    if plan.consistency is None or "consistency" not in record:
        problems.append(f"{RECORD}: " + ("has consistent values, but the plan declares no "
                                         "relations" if plan.consistency is None else
                                         "has no consistent values, but the plan declares "
                                         "relations"))
        return
    try:
        measurements = {q["id"]: [measurement_from_dict(m) for m in q["measurements"]]
                        for q in record["queries"]}
        fresh = consistency_record(plan, measurements,
                                   raw_values_of(tables_of(record), plan),
                                   float(record["confidence"]))
    except (KeyError, TypeError, ValueError, ArithmeticError, InputError):
        problems.append(f"{RECORD}: its consistent values cannot be recomputed from its raw "
                        "values and the plan")
        return
    if consistency_bytes(fresh["consistency"]) != consistency_bytes(record["consistency"]):
        problems.append(f"{RECORD}: its consistent values are not what the plan's relations "
                        "make of its raw noised values")

def _discovered_problem(q: Any, plan: Plan, got: list[tuple[int, dict[str, str]]],
                        confidence: float | None = None) -> str | None:
    """What is wrong with the rows of a statistic whose cells are found in the data (a
    discovery): its kind's own check of (cell, value) and their intervals, in order."""
    rows: list[tuple[str, float | None]] = []
    ends: list[tuple[float | None, float | None]] = []
    for n, cells in got:
        try:
            rows.append((cells["cell"], _number(cells["value"])))
            ends.append((_number(cells.get("low", "")), _number(cells.get("high", ""))))
        except ValueError:
            return f"line {n}: a value is not a number"
    return kind_of(q).discovered_rows_problem(q, plan, rows, ends, confidence)


def _row_problem(q: Any, plan: Plan, value: float | None, low: float | None,
                 high: float | None, half: float | None, scans: dict[str, AnswerScan],
                 confidence: float) -> str | None:
    kind = kind_of(q)
    if kind.publishes_answers:
        return _rr_problem(q, plan, value, low, high, scans, confidence)
    if value is None:
        return "has no value"
    return kind.released_value_problem(q, value, low, high, half)


def _rr_problem(q: Any, plan: Plan, value: float | None, low: float | None,
                high: float | None, scans: dict[str, AnswerScan],
                confidence: float) -> str | None:
    name = f"{NOISED_DIR}/{q.id}.csv"
    scan = scans.get(name)
    if scan is None:
        return f"its noised answers ({name}) are missing"
    if not scan.well_formed:
        return f"{name} is not a column of yes/no answers"
    if not scan.answers:
        return None if value is None else "has a value without answers"
    ms = {m.component.name: m for m in measurements_for(q, plan)}
    truth = ms["answers"].truth
    assert truth is not None
    expected = randomized_response_estimate(scan.yes, scan.answers, truth,
                                            confidence, ms.get("count"))
    if (value, low, high) != expected:
        return f"the share and its interval do not recompute from {name}"
    return None


# ----------------------------------------------------------------------------- agreement

def _agreement(files: dict[str, bytes], scans: dict[str, AnswerScan], plan: Plan,
               record: dict[str, Any], problems: list[str], progress: Progress = None, *,
               bundle: str = "the bundle", signer: str | None = None) -> list[str]:
    """The files a bundle derives from release.json are rebuilt from it and compared byte for
    byte (each is a deterministic function of the record), and only the files a release of
    this plan writes are present. README.txt and the reports are rebuilt only when they are
    in this version's report format (report_format.py says why); ``signer``: the trusted key
    that proved origin, if any, named in the line saying they were not rebuilt."""
    rr = {f"{NOISED_DIR}/{q.id}.csv" for q in plan.queries if kind_of(q).publishes_answers}
    for name in sorted(scans):
        if name not in rr:
            problems.append(f"{name}: a release of this plan never contains this file")
    expected = results_csv_of(record)
    if files.get(RESULTS) != expected:
        got = files.get(RESULTS, b"").decode("utf-8", "replace").splitlines()
        want = expected.decode("utf-8").splitlines()
        line = next((i for i, (a, b) in enumerate(zip(got, want, strict=False), start=1) if a != b),
                    min(len(got), len(want)) + 1)
        problems.append(f"{RESULTS}: line {line}: does not agree with the results in {RECORD}")
    for name in (README, REPORT_HTML, REPORT_PDF):
        if name not in files:
            problems.append(f"{name}: missing")
    if not rebuilds(record):
        return ["results.csv is exactly what release.json gives",
                not_rebuilt_line(record, bundle, signer)]
    builders: tuple[tuple[str, float, Callable[[], bytes]], ...] = (
        (README, 0.0, lambda: readme_text(plan, record).encode("utf-8")),
        (REPORT_HTML, 0.05, lambda: report_html(record).encode("utf-8")),
        (REPORT_PDF, 0.55, lambda: report_pdf(record)))
    for name, start, build in builders:
        report_progress(progress, start, f"Building {name} again from release.json to "
                                         "compare it…")
        if name in files and files[name] != build():
            problems.append(f"{name}: does not agree with {RECORD} (it is not the report "
                            f"planner-app {__version__} builds from it in report format "
                            f"{REPORT_FORMAT})")
    return ["results.csv, README.txt, report.html and report.pdf are exactly what release.json "
            "gives"]


# ----------------------------------------------------------------------------- a whole bundle


def _parse_manifest(data: bytes) -> dict[str, str] | str:
    out: dict[str, str] = {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "is not UTF-8 text"
    for n, line in enumerate(text.splitlines(), start=1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            return f"line {n} is not '<sha256>  <name>'"
        out[name] = digest
    return out


def verify_bundle(path: Path, trusted: Sequence[PublicKey] = (),
                  regenerate: bool = False, progress: Progress = None) -> Verdict:
    """Check a bundle offline; with ``trusted`` keys, also that its manifest is signed by one
    of them (signing.check_origin); with ``regenerate``, also each synthetic table's CSV
    made again (verify_synthetic.regenerate_synthetic). Raises NotABundle when it is not a
    bundle at all. ``progress(fraction, message)`` says which check is running."""
    scans: dict[str, AnswerScan] = {}
    report_progress(progress, 0.0, f"Reading {path.name}…")
    files, layout = open_bundle(path, stream=answer_sink(scans))
    return verify_members(path.name, files, layout, trusted=trusted, scans=scans,
                          regenerate=regenerate, progress=part(progress, 0.05, 1.0))


def answer_sink(scans: dict[str, AnswerScan]) -> Callable[[str], MemberSink | None]:
    """For ``bundle.open_bundle(stream=)``: the answer files are scanned in chunks into
    ``scans`` (by name), never held."""
    def sink(name: str) -> MemberSink | None:
        if not _is_answer_file(name):
            return None
        scans[name] = scan = AnswerScan()
        return scan
    return sink


def verify_members(name: str, files: dict[str, bytes], layout: list[str],
                   trusted: Sequence[PublicKey] = (),
                   scans: Mapping[str, AnswerScan] | None = None,
                   regenerate: bool = False, progress: Progress = None) -> Verdict:
    """The verdict on a bundle's members (``open_bundle``'s answer), read once by the caller;
    ``scans``: the answer files it streamed (``answer_sink``) rather than read;
    ``progress(fraction, message)``: which check is running."""
    files, answer_files = _answer_scans(files, scans)
    report_progress(progress, 0.0, "Checking the zip's layout and every file's hash…")
    digests = _digests(files, answer_files)
    verdict = Verdict(bundle=name, valid=True)
    verdict.origin = {"signed": SIGNATURE in files,
                      "checked_against": [k.fingerprint for k in trusted],
                      "origin_proven": False}
    if layout:
        verdict.problems.extend(layout)
        verdict.valid = False
        return verdict
    verdict.checks.append("the zip is laid out exactly as a bundle is written (no comment, "
                          "no extra bytes or files, fixed dates and headers)")
    manifest = _parse_manifest(files[MANIFEST])
    if isinstance(manifest, str):
        verdict.problems.append(f"{MANIFEST}: {manifest}")
        verdict.valid = False
        return verdict
    report_progress(progress, 0.02, "Checking the signature…")
    verdict.origin, unsigned = check_origin(files, trusted)
    verdict.problems.extend(unsigned)  # first: a re-hashed bundle fails on its signature
    for name in sorted(digests):
        if name in (MANIFEST, SIGNATURE):  # the signature signs the manifest, so not in it
            continue
        if name not in manifest:
            verdict.problems.append(f"{name}: is in the bundle but not in {MANIFEST} (added)")
        elif digests[name] != manifest[name]:
            verdict.problems.append(f"{name}: its content does not match its hash in "
                                    f"{MANIFEST} (changed)")
    for name in sorted(manifest):
        if name not in digests:
            verdict.problems.append(f"{name}: is listed in {MANIFEST} but missing")
    if verdict.problems:
        verdict.valid = False
        return verdict
    verdict.checks.append(f"every file matches {MANIFEST}")
    if SIGNATURE in files:
        verdict.checks.append(
            f"{SIGNATURE} is a valid signature of {MANIFEST} by "
            + (f"{verdict.origin['trusted_signer']}, a trusted key" if
               verdict.origin.get("origin_proven") else
               f"the key release.json names (key {verdict.origin.get('fingerprint')}); "
               "not checked against a key you trust"))
    report_progress(progress, 0.04, "Checking the privacy officer's review…")
    approval_line, approval_problems = check_approval(files, trusted)
    verdict.problems.extend(approval_problems)
    if approval_line is not None:
        verdict.checks.append(approval_line)
    try:
        verify_contents(files, verdict, answer_files, regenerate=regenerate,
                        progress=part(progress, 0.05, 1.0))
    except Exception as exc:  # fail closed: a crafted bundle never crashes the verifier
        verdict.problems.append(f"{RECORD}: its contents cannot be checked "
                                f"({type(exc).__name__}); the bundle was changed")
    verdict.valid = not verdict.problems
    report_progress(progress, 1.0, "Checked.")
    return verdict
