"""The release: check, charge the ledger, draw the noise once, write the bundle.

Order matters. Everything that can fail on bad input (plan, table, columns, budget) fails
before the ledger is touched. The charge is committed before any noise is drawn; the bundle is
written to a temporary file and renamed into place. A crash can waste budget, never release
without charging, and never leave a partial bundle at the target path.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from .. import __version__
from .accuracy import DEFAULT_CONFIDENCE, quantile_refusal
from .aggregate import PandasEngine
from .audit import AuditError, AuditLog, canonical, utc_now
from .bundle import (AUDIT, NOISED_DIR, PLAN, README, RECORD, RELEASE_FORMAT, REPORT_HTML,
                     REPORT_PDF, RESULTS,
                     json_bytes, noised_csv, results_csv, sha256_bytes,
                     sha256_file, zip_bytes)
from .check import CheckReport, all_measurements, check_plan
from .commitment import file_commitment
from .errors import InputError
from .files import atomic_write_bytes
from .home import AppHome
from .ledger import Ledger, LedgerState
from .measure import measurement_to_dict
from .mechanisms import RandomSource, SystemRandomSource
from .plan import Plan, plan_digest, plan_to_dict
from .readiness import require_ready
from .release import QueryRelease, privatize
from .report import report_html, report_pdf
from .review import approval_status
from .tables import Table

Progress = Optional[Callable[[float, str], None]]
FAULT_ENV = "PLANNER_APP_FAULT_PAUSE"  # test hook: pause at a named stage (see _checkpoint)


def _checkpoint(stage: str) -> None:
    """Crash tests set PLANNER_APP_FAULT_PAUSE=<stage> and kill the process while it waits."""
    if os.environ.get(FAULT_ENV) == stage:
        print(f"paused at {stage}", file=sys.stderr, flush=True)
        time.sleep(3600)


@dataclass
class PublishResult:
    release_id: str
    bundle_path: Path
    bundle_sha256: str
    ledger: LedgerState
    report: CheckReport
    releases: list[QueryRelease]
    notes: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------- the record


def release_record(plan: Plan, report: CheckReport, releases: list[QueryRelease],
                   table: Table, ledger: LedgerState, release_id: str, created: str,
                   confidence: float, clamp_counts: bool,
                   file_commitment: dict[str, str]) -> dict[str, Any]:
    """release.json: public parameters and noised values only. The data file appears by its
    name and a keyed commitment (see commitment.py), never by its plain hash."""
    data = report.to_dict()
    queries = []
    for qc, qd in zip(report.queries, data["queries"]):
        queries.append({**qd, "measurements": [measurement_to_dict(m) for m in qc.measurements]})
    return {
        "format": RELEASE_FORMAT,
        "release_id": release_id,
        "created_utc": created,
        "software": {"name": "planner-app", "version": __version__},
        "dataset": {"name": plan.dataset.name, "file_name": table.name,
                    "file_commitment": file_commitment},
        "privacy_unit": data["plan"]["privacy_unit"],
        "neighbouring": plan.neighbouring,
        "model": "central (randomized_response statistics are local)",
        "plan_sha256": plan_digest(plan),
        "plan": plan_to_dict(plan),
        "confidence": confidence,
        "post_processing": {
            "clamp_counts_at_zero": clamp_counts,
            "means_and_variances_within_bounds": True,
            "quantiles_within_bounds": True,
            "randomized_response_share_within_0_1": True,
            "grid": "non-integer results are multiples of their query's power-of-two grid step",
        },
        "queries": queries,
        "total": report.total.to_dict(),
        "alternatives": [t.to_dict() for t in report.alternatives],
        "fits_budget": report.fits_budget,
        "risk": data["risk"],
        "ledger": {"cap": ledger.cap.to_dict(), "spent": ledger.spent.to_dict(),
                   "remaining": {"epsilon": ledger.remaining_epsilon,
                                 "delta": ledger.remaining_delta},
                   "releases_of_dataset": len(ledger.releases)},
        "results": [v.to_dict() for r in releases for v in r.values],
    }


def readme_text(plan: Plan, record: dict[str, Any]) -> str:
    total = record["total"]
    unit = plan.privacy_unit
    who = ("each row of the table is one person" if unit.kind == "row" else
           f"a person is identified by {unit.id_column} and may have up to {unit.max_rows} "
           "rows (extra rows were dropped at random before anything was computed)")
    relation = ("whether any one person is in the data at all is protected (add-remove)"
                if plan.neighbouring == "add-remove" else
                "what any one person's data says is protected (replace-one); the number of "
                "rows is treated as public")
    lines = [
        f"Release of {plan.dataset.name!r} made with planner-app {__version__}",
        f"Release id {record['release_id']}, created {record['created_utc']} (UTC).",
        "",
        "WHAT THESE NUMBERS ARE",
        "The numbers in results.csv are statistics about people, published under differential",
        "privacy: random noise was added to each of them, once, so that no one person's data can",
        "be told from the numbers. Each value comes with an interval (low, high) that holds the",
        f"noise with {record['confidence']:.0%} confidence: read a value as 'about this much, "
        "give",
        "or take the interval'. Quantiles have no interval in value units; release.json gives",
        "their accuracy in ranks, and the report reads it in percentiles of the data when the",
        "plan states a public approximate row count.",
        "",
        "Why can a count be negative or a number look odd? The noise is symmetric: a small true",
        "count plus noise can come out below zero. That is expected and honest; treat it as",
        "'close to zero'. Means and quantiles were kept within their declared bounds, and",
        "non-integer numbers sit on a fixed grid of binary fractions (so they may show many",
        "digits); both are post-processing, which costs no privacy.",
        "",
        "WHO IS PROTECTED",
        f"The unit of privacy: {who}. {relation[0].upper() + relation[1:]}.",
        "",
        "WHAT THE PRIVACY BUDGET MEANS",
        f"This release spent epsilon = {total['epsilon']:.4g} and delta = {total['delta']:.3g} "
        f"({total['accountant']} accounting).",
        record["risk"]["sentence"],
        record["risk"]["out_of_100"],
        record["risk"]["delta"],
        "",
        "FILES",
        "results.csv     one row per released number, with its interval",
        "release.json    the full record: plan, sensitivities, noise, epsilon and delta, accuracy,",
        "                totals, the dataset's lifetime budget after this release",
        "plan.json       the plan as released",
        "report.html     this release explained, with the transparency questions answered",
        "report.pdf      the same report as PDF",
        "audit.jsonl     the audit log entries of this release (a hash chain)",
        "noised/         randomized-response answers as published (if any), shuffled; each",
        "                answer was randomized on its own, and how many answers a file holds",
        "                is noised too (fair coins fill extra places, or a random subset of",
        "                answers is left out), unless that number is public under replace-one",
        "MANIFEST.sha256 the SHA-256 of every file",
        "",
        "HOW TO CHECK IT",
        "planner-app verify BUNDLE.zip   (checks every hash, the audit chain, recomputes the totals",
        "                                 from the plan and checks every interval)",
    ]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- publish


def publish(plan: Plan, table: Table, out: Path, home: AppHome, *,
            confidence: float = DEFAULT_CONFIDENCE, clamp_counts: bool = False,
            overwrite: bool = False, require_approval: bool = False,
            progress: Progress = None,
            source: RandomSource | None = None) -> PublishResult:
    """Release ``plan`` on ``table`` into the bundle ``out``; see the module docstring.

    ``source`` is for tests only (a seeded source makes neighbouring releases comparable);
    by default every release draws from the OS CSPRNG."""
    status = approval_status(plan)

    def step(fraction: float, message: str) -> None:
        if progress is not None:
            progress(fraction, message)

    out = Path(out)
    if out.exists() and not overwrite:
        raise InputError(out.name, None, "already exists; choose another name (nothing was "
                                         "charged)")
    if not out.parent.is_dir():
        raise InputError(out.name, None, "its folder does not exist")
    step(0.05, "Checking the plan against the data")
    # one engine: the check and the release share the bounded rows and the aggregates
    rng: RandomSource = source if source is not None else SystemRandomSource()
    engine = PandasEngine(plan, table.frame, rng, table.name)
    # the data-aware check: its warnings and facts are for the owner only, never the bundle
    report = check_plan(plan, table, confidence=confidence, engine=engine,
                        require_approval=require_approval)
    # the release rules of readiness.py (the wizard's checklist and `check` show the same);
    # the lifetime cap is the ledger's, checked by its charge under the lock
    assert report.readiness is not None
    require_ready(report.readiness)
    for q in plan.queries:  # a quantile the sampler cannot finish: refuse before the charge
        why = quantile_refusal(q, len(table.frame))
        if why is not None:
            raise InputError("plan", f"query {q.id}", why)
    step(0.15, "Computing the aggregates")
    aggregates = {q.id: engine.aggregate(q) for q in plan.queries}  # true values: memory only

    home.ensure()
    audit = AuditLog(home.audit_path)
    broken = audit.verify()
    if broken is not None:
        raise AuditError(f"the audit log {home.audit_path} is broken at {broken}; nothing was "
                         "released")
    ledger = Ledger(home.ledger_path)
    disagreements = ledger.audit_problems(audit.read())
    if disagreements:
        raise AuditError(f"{disagreements[0]}; restore the ledger and audit log from a backup "
                         "(planner-app ledger show lists what disagrees); nothing was released")
    notes = list(report.warnings) + list(report.owner_facts)
    prior = ledger.state(plan.dataset.name)
    hashes = {r.file_sha256 for r in prior.releases}
    if hashes and table.sha256 not in hashes:
        notes.append(f"{table.name} differs from the file of earlier releases of "
                     f"{plan.dataset.name!r} (its SHA-256 changed); it is charged to the same "
                     "lifetime budget")
    others = [d for d in ledger.datasets_with_file(table.sha256) if d != plan.dataset.name]
    if others:
        notes.append(f"this exact file was released before as dataset {others[0]!r}; a new "
                     "dataset name does not give the same people a new budget")

    release_id = uuid.uuid4().hex
    plan_sha = plan_digest(plan)
    measurements = all_measurements(report.queries)
    # the file's plain SHA-256 goes to the private ledger only: audit entries travel in bundles
    commitment = file_commitment(home, plan.dataset.name, release_id, table.sha256)
    params = {"release_id": release_id, "dataset": plan.dataset.name, "plan_sha256": plan_sha,
              "file_name": table.name, "file_commitment": commitment}
    # every published time of this release is this one, in whole seconds: the bundle shows
    # when the release was requested, never how long the noise or any other step took
    created = utc_now()
    first = audit.append("release requested", {**params, "release_prev": None,
                                                "epsilon": report.total.epsilon,
                                                "delta": report.total.delta,
                                                "accountant": report.total.accountant},
                         time=created)
    segment = [first]
    _checkpoint("requested")
    step(0.3, "Charging the budget ledger")
    state = ledger.charge(release_id=release_id, dataset=plan.dataset.name,
                          file_name=table.name, file_sha256=table.sha256, plan_sha256=plan_sha,
                          total=report.total, measurements=measurements, audit_entry=first)
    segment.append(audit.append("release charged", {
        "release_id": release_id, "release_prev": segment[-1]["hash"],
        "dataset": plan.dataset.name, "epsilon": report.total.epsilon,
        "delta": report.total.delta, "rho": report.total.rho,
        "accountant": report.total.accountant, "lifetime": state.to_dict()["spent"],
        "cap": state.cap.to_dict(), "ledger_releases_charged": ledger.releases_charged()},
        time=created))
    _checkpoint("charged")

    step(0.45, "Drawing the noise")
    releases = privatize(plan, aggregates, source=rng, confidence=confidence,
                         clamp_counts=clamp_counts)
    del aggregates, engine
    _checkpoint("noised")

    step(0.7, "Writing the bundle")
    record = release_record(plan, report, releases, table, state, release_id, created,
                            confidence, clamp_counts, commitment)
    record["review"] = status.state
    record["approval"] = status.latest if status.state == "approved" else None
    files: dict[str, bytes] = {
        REPORT_HTML: report_html(record).encode("utf-8"),
        REPORT_PDF: report_pdf(record),
        RESULTS: results_csv([v.to_dict() for r in releases for v in r.values]),
        RECORD: json_bytes(record),
        PLAN: json_bytes(plan_to_dict(plan)),
        README: readme_text(plan, record).encode("utf-8"),
    }
    for r in releases:
        if r.noised_answers is not None:
            files[f"{NOISED_DIR}/{r.query_id}.csv"] = noised_csv(r.noised_answers.tolist())
    segment.append(audit.append("bundle sealed", {
        "release_id": release_id, "release_prev": segment[-1]["hash"],
        "files": {name: sha256_bytes(data) for name, data in sorted(files.items())}},
        time=created))
    _checkpoint("sealed")
    files[AUDIT] = b"".join(json_bytes_line(e) for e in segment)
    data = zip_bytes(files)
    for stale in out.parent.glob(f".{out.name}.*.partial"):  # left by a killed release
        stale.unlink(missing_ok=True)
    atomic_write_bytes(out, data, before_rename=lambda: _checkpoint("bundle-temp-written"))
    bundle_sha = sha256_file(out)
    _checkpoint("renamed")
    ledger.complete(release_id, bundle_sha)
    audit.append("bundle written", {"release_id": release_id, "bundle_name": out.name,
                                    "bundle_sha256": bundle_sha})
    step(1.0, "Released")
    return PublishResult(release_id, out, bundle_sha, state, report, releases, notes)


def json_bytes_line(entry: dict[str, Any]) -> bytes:
    return canonical(entry) + b"\n"
