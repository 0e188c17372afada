"""The release: check, charge the ledger, draw the noise once, write the bundle.

Order matters, and a bug never burns budget. ``prepare`` does everything that can fail
without the noise (plan, table, columns, budget, audit log, the output path) before the ledger
is touched, ending with ``rehearse``, a stage of its own: the dry run of the noise and the
report built from placeholder values, the disk space. The stages hand on what they computed
(stages.py): the check's compiled plan (measurements, total, the plan's document and digest)
is what the charge, the noise and the record take; nothing of it is computed again after the
charge. ``charge_and_release``
commits the charge before any noise is drawn, then saves the noised record (pending.py) before
anything else; ``complete_release`` writes the bundle from that record, to a temporary file
renamed into place. If it fails, ``resume_release`` (``planner-app release --resume``) writes
the same bundle later without new noise or a second charge. A crash can waste budget only
between the noise and the saved record; it never releases without charging, and never leaves
a partial bundle at the target path. The output path is held (files.OutputLock) from its
check, through the charge, to the rename: two releases to one path cannot both be charged.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..data.engine_names import DEFAULT_ENGINE
from ..data.engines import open_engine
from ..data.tables import Table
from ..dp.accuracy import DEFAULT_CONFIDENCE
from ..dp.mechanisms import RandomSource, SystemRandomSource
from ..kinds import kind_of
from ..kinds.results import QueryRelease
from ..kinds.shared_dp import quantile_refusal
from ..model import Plan
from ..planning.charts import trial_charts
from ..planning.check import CheckReport, check_plan
from ..planning.readiness import lifetime_rule, require_ready
from ..records.audit import canonical, utc_now
from ..records.books import AnyAudit, AnyLedger, audit_for, has_ledger, ledger_for
from ..records.crosscheck import measurements_digest
from ..records.discovery_marks import DISCOVERIES
from ..records.keys import PublicKey, SecretKey
from ..records.ledger import BudgetExceeded, LedgerDisagrees, LedgerState
from ..records.policy import (
    approval_rule,
    effective_cap,
    effective_state,
    load_policy,
)
from ..records.programme import (
    ProgrammeRefused,
    admit_rule,
    place_problem,
    programme_params,
    programme_releases,
    release_date,
    today_utc,
)
from ..records.review import approval_status
from ..support.errors import NO_MEMORY, InputError, PlannerError, out_of_memory
from ..support.files import OutputLock, atomic_write_bytes, check_output
from ..support.home import AppHome, HomeUnusable
from .bundle import (
    AUDIT,
    NOISED_DIR,
    PLAN,
    README,
    RECORD,
    REPORT_HTML,
    REPORT_PDF,
    RESULTS,
    json_bytes,
    manifest_bytes,
    noised_csv,
    sha256_bytes,
    sha256_file,
    zip_bytes,
)
from .commitment import SCHEME, file_commitment
from .consistent import require_relations_hold, require_valid_relations
from .memory import require_memory
from .noise import privatize
from .pending import list_pending, remove_pending, save_pending
from .record import readme_text, release_record, synthetic_release_lines
from .rehearsal import (
    DRY_RUN_ANSWERS,
    dry_run,
    placeholder_releases,
    require_verifiable,
)
from .report import report_html, report_pdf
from .report_layout import ReportLayout
from .result_columns import record_bytes, results_csv_of
from .signing import sign_manifest, signed_by_entry
from .stages import Books, Checked, Prepared, Rehearsal, Request, Trust, public_check
from .synthetic import (
    SYNTH_DIR,
    csv_size_bound,
    require_synthesis,
    synthetic_csv,
)

__all__ = ["DRY_RUN_ANSWERS", "PublishResult", "ReleaseUnfinished", "complete_release",
           "dry_run", "file_datasets", "finish_release", "known_datasets", "publish",
           "readme_text", "release_record", "synthetic_release_lines"]  # some from record.py

Progress = Callable[[float, str], None] | None
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
    signed_by: dict[str, str] | None = None  # release.json's signed_by (signing.py)
    consistency: dict[str, Any] | None = None  # release.json's consistent values (issue 27)


# ----------------------------------------------------------------------------- publish


class ReleaseUnfinished(PlannerError):
    """The ledger was charged and the noise drawn, but the bundle could not be written. The
    noised record is saved: ``resume_release`` (``planner-app release --resume``) completes
    the bundle from it without new noise."""

    def __init__(self, release_id: str, problem: str, saved: bool) -> None:
        self.release_id = release_id
        if saved:
            text = (f"the budget was charged and the noised values are saved, but the bundle "
                    f"could not be written: {problem}. Fix that, then complete it without new "
                    f"noise: planner-app release --resume {release_id}")
        else:
            text = (f"the budget was charged but neither the bundle nor the noised values "
                    f"could be written: {problem}")
        super().__init__(text)


def file_datasets(home: AppHome, table: Table) -> list[str]:
    """The datasets the ledger has released this exact file as (its private record of file
    hashes); reading creates no ledger."""
    if not has_ledger(home):
        return []
    return ledger_for(home, for_reading=True).datasets_with_file(table.sha256)


def known_datasets(home: AppHome) -> list[str]:
    """Every dataset the ledger holds (the policy's dataset-name rule); reading creates no
    ledger."""
    if not has_ledger(home):
        return []
    return ledger_for(home, for_reading=True).datasets()


def rehearse(p: Prepared) -> Rehearsal:
    """The rehearsal before the charge, a stage of its own: the whole noise step on a
    stand-in source (``dry_run``), then the report and the bundle's files from placeholder
    values and the room they need (``preflight_bundle``). Whatever fails here fails before
    the charge; nothing of it is kept but what the noise cannot change (plan.json)."""
    r = p.request
    dry_run(r.plan, p.aggregates, r.confidence, r.clamp_counts,
            p.checked.compiled.measurements)
    require_memory(p.aggregates)  # the answer files after the charge fit in memory
    if r.progress is not None:
        r.progress(0.25, "Checking the report and the room for the bundle")
    return preflight_bundle(p)


def preflight_bundle(p: Prepared) -> Rehearsal:
    """Build the report (HTML and PDF) and the bundle's files from a record with placeholder
    values, and check the room they need beside the bundle and in the app home. Whatever
    fails here fails before the charge; nothing of it is kept but plan.json."""
    r, trust = p.request, p.trust
    placeholder = placeholder_releases(r.plan, r.confidence)
    record = release_record(p.checked.compiled, p.checked.public, placeholder, r.table,
                            p.books.prior, "0" * 32, utc_now(), r.clamp_counts,
                            {"scheme": SCHEME, "value": "0" * 64})
    record["review"] = trust.status.state
    record["approval"] = trust.status.to_record()
    if trust.sign_with is not None:
        record["signed_by"] = signed_by_entry(trust.sign_with)
    try:
        # the report's text in full; each kind of chart drawn once, every chart's texts drawn
        # (charts.TrialCharts): the placeholder pictures are thrown away with the rest. The
        # PDF is a trial build: each block laid out once, on the scratch document, which is
        # written out; the real build takes over what it found (report_layout.py)
        layout = ReportLayout()
        with trial_charts() as trial:
            reports = _report_files(r.plan, record, layout, trial=True)
        # the JSON and CSV files cannot fail on these values: only their size is estimated
        # (compact JSON, at most half the size of the indented files the bundle holds)
        data = 2 * len(json.dumps(record, ensure_ascii=False, allow_nan=False).encode())
        plan_json = json_bytes(record["plan"])  # the noise leaves it as it is: made now
    except Exception as exc:  # a report that cannot be built: refuse while nothing is spent
        why = " ".join(str(exc).split())[:200]  # one line (matplotlib's errors are several)
        raise InputError("plan", None, f"the release report cannot be written for this "
                         f"plan ({type(exc).__name__}: {why}); nothing was charged") from exc
    answers = sum(int(a.answers.size) for a in p.aggregates.values()
                  if getattr(a, "answers", None) is not None)
    require_verifiable(r.plan, p.aggregates)
    # release.json (data), plan.json and results.csv (each within the compact record)
    # (the trial PDF holds each kind of chart once, the real one every chart: its images are
    # counted again, as many as the trial handed out)
    size = (sum(len(v) for v in reports.values()) + trial.embedded + data + data // 2
            + 4 * answers + (1 << 16))
    # synthetic/<id>.csv (up to 512 MiB each): the public worst case, in the bundle only (the
    # saved record holds the payload, already in ``data``, never the CSV)
    tables = sum(csv_size_bound(q) for q in r.plan.queries if kind_of(q).makes_table)
    from . import bundle as bundle_format

    if tables + size > bundle_format.MAX_TOTAL_BYTES:  # verify would refuse the whole bundle
        raise InputError("plan", None, f"its bundle could be larger than a bundle may hold "
                         f"({bundle_format.MAX_TOTAL_BYTES // 2**20:,} MiB in all, its "
                         "synthetic tables at their most rows); give them fewer rows or "
                         "release them separately; nothing was charged")
    check_output(r.out, r.overwrite, size=size + tables)  # the bundle's temporary file
    home_free = shutil.disk_usage(r.home.data_dir).free
    if home_free < size + (1 << 20):
        raise HomeUnusable(f"the app folder {r.home.data_dir} has {home_free / 1e6:,.1f} MB "
                           f"free; this release needs about {size / 1e6:,.1f} MB there for its "
                           "saved record; nothing was charged")
    return Rehearsal(bundle_bytes=size + tables, plan_json=plan_json, layout=layout)


def publish(plan: Plan, table: Table, out: Path, home: AppHome, *,
            confidence: float = DEFAULT_CONFIDENCE, clamp_counts: bool = False,
            overwrite: bool = False, require_approval: bool = False,
            trusted: Sequence[PublicKey] = (),
            progress: Progress = None,
            source: RandomSource | None = None,
            inputs: Sequence[Path] = (),
            sign_with: SecretKey | None = None,
            trust_ignored: str = "", engine: str = DEFAULT_ENGINE) -> PublishResult:
    """Release ``plan`` on ``table`` into the bundle ``out``; see the module docstring.

    ``source`` is for tests only (a seeded source makes neighbouring releases comparable);
    by default every release draws from the OS CSPRNG. ``inputs`` (the table and plan files)
    and the app home's folders are never an output, whatever ``overwrite`` says.
    ``trusted``: the keys a required approval must be signed by (review.approval_keys).
    ``sign_with``, a key already loaded (its passphrase asked before the charge), signs the
    bundle's manifest (signing.py). ``engine`` computes the aggregates: "duckdb" (the
    default: reads the file in place, any size), "pandas" (in memory) or "spark".
    A plan whose lists or bounds say they were found privately is checked first by
    discovery.require_discoveries (release_in_home, the app's release)."""
    keep = [home.data_dir, home.config_dir, *inputs]
    # the output path is held from its check to the rename: a second release to it is
    # refused before its charge (the lock is taken before, and kept through, the charge)
    with OutputLock(check_output(Path(out), overwrite, keep=keep)):
        prepared = prepare(plan, table, Path(out), home, confidence=confidence,
                           clamp_counts=clamp_counts, overwrite=overwrite, progress=progress,
                           require_approval=require_approval, trusted=trusted,
                           source=source, sign_with=sign_with,
                           trust_ignored=trust_ignored, engine=engine)
        return charge_and_release(prepared)


def prepare(plan: Plan, table: Table, out: Path, home: AppHome, *,
            confidence: float = DEFAULT_CONFIDENCE, clamp_counts: bool = False,
            overwrite: bool = False, progress: Progress = None,
            require_approval: bool = False, trusted: Sequence[PublicKey] = (),
            source: RandomSource | None = None,
            sign_with: SecretKey | None = None, trust_ignored: str = "",
            engine: str = DEFAULT_ENGINE) -> Prepared:
    """Everything before the charge: the plan against the data, the budget, the audit log,
    the output path, the report and the disk space, the organisation's policy. Raises with
    nothing charged."""
    policy = load_policy(home)  # verified again; PolicyError (fail closed) when it cannot be
    require_approval, trusted = approval_rule(policy, require_approval, trusted)

    def step(fraction: float, message: str) -> None:
        if progress is not None:
            progress(fraction, message)

    out = check_output(Path(out), overwrite)  # again, now that the path is held
    # cal26: a programme's release is made on one of its dates (public: the plan and the day)
    slot = None if plan.programme is None else release_date(plan.programme, today_utc())
    require_synthesis(plan.queries)  # mbi, for a synthetic table: before anything is read
    require_valid_relations(plan)  # issue 27: relations still fit a plan edited in the app
    step(0.05, "Checking the plan against the data")
    # one engine: the check and the release share the bounded rows and the aggregates
    rng: RandomSource = source if source is not None else SystemRandomSource()
    # a quantile the sampler could not finish is refused before the table is read, from
    # public figures only: its grid and the plan's stated dataset.expected_rows, never the
    # table's true row count (issue 24)
    for q in plan.queries:
        why = quantile_refusal(q, plan.dataset.expected_rows)
        if why is not None:
            raise InputError("plan", f"query {q.id}", why)
    # the bounding's secret salt comes from rng (docs/engine.md); a bad file fails here
    aggregator = open_engine(engine, plan, table, rng)
    try:
        # the data-aware check: its warnings and facts are for the owner only, never the
        # bundle
        same_file = file_datasets(home, table) if policy is not None else None
        known = known_datasets(home) if policy is not None else None
        report = check_plan(plan, table, confidence=confidence, engine=aggregator,
                            require_approval=require_approval, trusted=trusted,
                            policy=policy, file_datasets=same_file, known_datasets=known,
                            trust_ignored=trust_ignored, every_alternative=False)
        # the release rules of readiness.py (the wizard's checklist and `check` show the
        # same); the lifetime cap is the ledger's, checked by its charge under the lock
        assert report.readiness is not None and report.compiled is not None
        require_ready(report.readiness)
        step(0.15, "Computing the aggregates")
        # true values: memory only
        aggregates = {q.id: aggregator.aggregate(q) for q in plan.queries}
    finally:
        aggregator.close()
    compiled = report.compiled
    require_relations_hold(plan, compiled.measurements, aggregates, clamp_counts)
    status = approval_status(compiled, trusted)

    home.ensure()
    ledger = ledger_for(home)
    audit = audit_for(home, ledger).require_intact()
    disagreements = ledger.audit_problems(audit.read())
    if disagreements:
        raise LedgerDisagrees(disagreements[0])
    notes = list(report.warnings) + list(report.owner_facts)
    prior = ledger.state(plan.dataset.name)
    if slot is not None:  # its date's first release, of the programme's plan (again under
        # the charge's lock)
        problem = place_problem(plan, compiled.digest, slot,
                                programme_releases(prior.releases, audit.read()))
        if problem is not None:
            raise ProgrammeRefused(problem)
    if policy is not None:  # the policy's cap, before anything is written (the charge
        # tests it again under its lock)
        rule = lifetime_rule(plan, compiled.total, compiled.all_measurements,
                             effective_state(prior, policy), policy)
        if rule.failed:
            raise BudgetExceeded(rule.refusal)
    hashes = {r.file_sha256 for r in prior.releases}
    if hashes and ledger.file_id(table.sha256) not in hashes:
        notes.append(f"{table.name} differs from the file of earlier releases of "
                     f"{plan.dataset.name!r} (its SHA-256 changed); it is charged to the same "
                     "lifetime budget")
    others = [d for d in ledger.datasets_with_file(table.sha256) if d != plan.dataset.name]
    if others:
        notes.append(f"this exact file was released before as dataset {others[0]!r}; a new "
                     "dataset name does not give the same people a new budget")
    unfinished = list_pending(home, plan.dataset.name)
    if unfinished:
        notes.append(f"{len(unfinished)} earlier release(s) of {plan.dataset.name!r} were "
                     "charged but not written; complete them without new noise: planner-app "
                     f"release --resume {unfinished[0].release_id}")
    prepared = Prepared(
        request=Request(plan=plan, table=table, out=out, home=home, confidence=confidence,
                        clamp_counts=clamp_counts, overwrite=overwrite, progress=progress),
        checked=Checked(report=report, compiled=compiled, public=public_check(report)),
        aggregates=aggregates,
        trust=Trust(status=status, policy=policy, sign_with=sign_with),
        books=Books(audit=audit, ledger=ledger, prior=prior),
        rng=rng, notes=notes, programme_date=slot)
    prepared.rehearsal = rehearse(prepared)
    return prepared


def charge_and_release(p: Prepared) -> PublishResult:
    """Charge the ledger, draw the noise once, save the noised record, write the bundle.
    Takes what ``prepare`` and its rehearsal made; computes none of it again."""
    r, trust, books = p.request, p.trust, p.books
    plan, table, home = r.plan, r.table, r.home
    report, compiled = p.checked.report, p.checked.compiled
    audit, ledger = books.audit, books.ledger
    assert p.rehearsal is not None  # prepare rehearses: nothing is charged without it

    def step(fraction: float, message: str) -> None:
        if r.progress is not None:
            r.progress(fraction, message)

    release_id = uuid.uuid4().hex
    plan_sha = compiled.digest
    total = compiled.total
    # the file's plain SHA-256 goes to the private ledger only: audit entries travel in bundles
    commitment = file_commitment(home, plan.dataset.name, release_id, table.sha256)
    params = {"release_id": release_id, "dataset": plan.dataset.name, "plan_sha256": plan_sha,
              "file_name": table.name, "file_commitment": commitment}
    # every published time of this release is this one, in whole seconds: the bundle shows
    # when the release was requested, never how long the noise or any other step took
    created = utc_now()
    # what the ledger row will hold, for the ledger's cross-check (records/crosscheck.py):
    # public parameters only (release.json lists the same measurements)
    # cal26: a programme's release names its place (the plan's public dates), so the books
    # alone say which dates were released
    placed: dict[str, Any] = {} if p.programme_date is None else {
        "programme": programme_params(plan, p.programme_date)}
    # disc25c: a discovery's statistics named (public), so the books mark it as one
    found = [q.id for q in plan.queries if kind_of(q).is_discovery]
    if found:
        placed[DISCOVERIES] = found
    first = audit.append("release requested", {
        **params, "release_prev": None, "epsilon": total.epsilon,
        "delta": total.delta, "accountant": total.accountant,
        "measurements_sha256": measurements_digest(compiled.measurement_dicts), **placed},
        time=created)
    segment = [first]
    _checkpoint("requested")
    step(0.3, "Charging the budget ledger")
    policy = trust.policy
    # the state after the charge: its lifetime total is the one the charge composed
    state = ledger.charge(release_id=release_id, dataset=plan.dataset.name,
                          file_name=table.name, file_sha256=table.sha256, plan_sha256=plan_sha,
                          compiled=compiled, audit_entry=first,
                          cap_limit=None if policy is None else
                          (lambda cap: effective_cap(cap, policy, plan.dataset.name)),
                          admit=None if p.programme_date is None else
                          admit_rule(plan, plan_sha, p.programme_date))
    charged = state = effective_state(state, policy)
    segment.append(audit.append("release charged", {
        "release_id": release_id, "release_prev": segment[-1]["hash"],
        "dataset": plan.dataset.name, "epsilon": total.epsilon,
        "delta": total.delta, "rho": total.rho,
        "accountant": total.accountant, "lifetime": state.to_dict()["spent"],
        "cap": state.cap.to_dict(), "ledger_releases_charged": ledger.releases_charged()},
        time=created))
    _checkpoint("charged")

    step(0.45, "Drawing the noise")
    try:
        releases = privatize(plan, p.aggregates, source=p.rng, confidence=r.confidence,
                             clamp_counts=r.clamp_counts, measurements=compiled.measurements)
        p.aggregates = {}  # the true values go as soon as the noise is drawn
        _checkpoint("noised")

        record = release_record(compiled, p.checked.public, releases, table, state,
                                release_id, created, r.clamp_counts, commitment)
    except Exception as exc:  # out of memory after the charge: say so, never "internal error"
        if out_of_memory(exc):
            raise ReleaseUnfinished(release_id, NO_MEMORY, saved=False) from exc
        raise
    record["review"] = trust.status.state
    record["approval"] = trust.status.to_record()
    if trust.sign_with is not None:  # public facts of the key: the same for any data
        record["signed_by"] = signed_by_entry(trust.sign_with)
    # the noised record first, before anything that could fail: then a failure below costs
    # no budget, `release --resume` writes the bundle from it
    doc = {"release_id": release_id, "dataset": plan.dataset.name, "out": str(r.out.absolute()),
           "overwrite": r.overwrite, "record": record, "segment": segment,
           "noised": {q.query_id: q.noised_answers.astype(np.int64).tolist()
                      for q in releases if q.noised_answers is not None}}
    saved = True
    record_json = None  # release.json, written once: the pending record holds the same text
    try:
        record_json = record_bytes(record, p.rehearsal.plan_json)
        save_pending(home, doc, record_json)
    except Exception as exc:  # go on: the bundle may still be written
        saved = False
        p.notes.append("the noised record could not be saved before writing the bundle: "
                       + (str(exc) if isinstance(exc, PlannerError) else type(exc).__name__))
    _checkpoint("saved")
    try:
        bundle_sha = complete_release(home, doc, plan, r.out, r.overwrite, step, resumed=False,
                                      sign_with=trust.sign_with,
                                      plan_json=p.rehearsal.plan_json, record_json=record_json,
                                      layout=p.rehearsal.layout)
    except ReleaseUnfinished:
        raise
    except Exception as exc:
        problem = str(exc) if isinstance(exc, PlannerError) else NO_MEMORY \
            if out_of_memory(exc) else f"{type(exc).__name__}: {str(exc)[:200]}"
        raise ReleaseUnfinished(release_id, problem, saved) from exc
    step(1.0, "Released")
    return PublishResult(release_id, r.out, bundle_sha, charged, report, releases, p.notes,
                         record.get("signed_by"), record.get("consistency"))


def _bundle_files(plan: Plan, doc: dict[str, Any], plan_json: bytes | None = None,
                  record_json: bytes | None = None,
                  layout: ReportLayout | None = None) -> dict[str, bytes]:
    """The bundle's files (all but the audit segment and the manifest), from the saved
    record alone: a resumed release writes exactly what the first attempt would have.
    ``plan_json`` and ``record_json``: plan.json as the rehearsal made it and release.json
    as the release made it for its pending record (the same bytes as from the record);
    ``layout``: the rehearsal's report layout (the same bytes with it or without)."""
    record = doc["record"]
    if record_json is None:
        record_json = record_bytes(record, plan_json)
    files: dict[str, bytes] = {
        **_report_files(plan, record, layout),
        RESULTS: results_csv_of(record),
        RECORD: record_json,
        PLAN: json_bytes(record["plan"]) if plan_json is None else plan_json,
    }
    for query_id, answers in doc["noised"].items():
        files[f"{NOISED_DIR}/{query_id}.csv"] = noised_csv(answers)
    for query_id, payload in record.get("synthetic", {}).items():  # post-processing only
        files[f"{SYNTH_DIR}/{query_id}.csv"] = synthetic_csv(plan.query(query_id), payload)
    return files


def _report_files(plan: Plan, record: dict[str, Any],
                  layout: ReportLayout | None = None, trial: bool = False) -> dict[str, bytes]:
    """The files written from templates: the reports and the README (``trial``: the
    rehearsal's PDF, report.report_pdf)."""
    return {
        REPORT_HTML: report_html(record, plan).encode("utf-8"),
        REPORT_PDF: report_pdf(record, plan, layout, trial),
        README: readme_text(plan, record).encode("utf-8"),
    }


def complete_release(home: AppHome, doc: dict[str, Any], plan: Plan, out: Path,
                     overwrite: bool, step: Callable[[float, str], None], *,
                     resumed: bool, sign_with: SecretKey | None = None,
                     plan_json: bytes | None = None,
                     record_json: bytes | None = None,
                     layout: ReportLayout | None = None) -> str:
    """Seal and write the bundle of a charged release from its saved record; mark the ledger
    row completed and remove the saved record. Draws no noise. Returns the bundle's SHA-256.
    A record with ``signed_by`` is signed with ``sign_with``, which must be that key."""
    release_id = doc["release_id"]
    if (doc["record"].get("signed_by") is None) != (sign_with is None):
        raise PlannerError("the release's record and the key given to sign it disagree "
                           "(a signed release needs its key, an unsigned one none)")
    ledger = ledger_for(home)
    audit = audit_for(home, ledger)
    step(0.7, "Writing the bundle")
    files = _bundle_files(plan, doc, plan_json, record_json, layout)
    segment = list(doc["segment"])
    created = doc["record"]["created_utc"]  # every time the bundle shows is this one
    if resumed:
        segment.append(audit.append("release resumed", {
            "release_id": release_id, "release_prev": segment[-1]["hash"]}, time=created))
    segment.append(audit.append("bundle sealed", {
        "release_id": release_id, "release_prev": segment[-1]["hash"],
        "files": {name: sha256_bytes(data) for name, data in sorted(files.items())}},
        time=created))
    _checkpoint("sealed")
    files[AUDIT] = b"".join(json_bytes_line(e) for e in segment)
    signature = None
    if sign_with is not None:  # the manifest's exact bytes, as zip_bytes writes them
        signature = sign_manifest(sign_with, manifest_bytes(files), doc["record"])
    data = zip_bytes(files, signature=signature)
    for stale in out.parent.glob(f".{glob.escape(out.name)}.*.partial"):  # a killed release
        stale.unlink(missing_ok=True)
    atomic_write_bytes(out, data, before_rename=lambda: _checkpoint("bundle-temp-written"),
                       overwrite=overwrite)
    bundle_sha = sha256_file(out)
    _checkpoint("renamed")
    finish_release(home, ledger, audit, release_id, out, bundle_sha)
    return bundle_sha


def finish_release(home: AppHome, ledger: AnyLedger, audit: AnyAudit, release_id: str,
                   out: Path, bundle_sha: str) -> None:
    """The bundle is in place: mark the ledger row completed, log it, drop the saved record."""
    ledger.complete(release_id, bundle_sha)
    audit.append("bundle written", {"release_id": release_id, "bundle_name": out.name,
                                    "bundle_path": str(out.absolute()),
                                    "bundle_sha256": bundle_sha})
    remove_pending(home, release_id)


def json_bytes_line(entry: dict[str, Any]) -> bytes:
    return canonical(entry) + b"\n"
