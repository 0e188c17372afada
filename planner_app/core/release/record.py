"""release.json's record and the bundle's README, from the compiled plan, the check's public
part and the noised values (publish.py writes them; resume.py writes the same from the saved
record). Public parameters and noised values only."""

from __future__ import annotations

from typing import Any

from ... import __version__
from ..data.tables import Table
from ..kinds import kind_of
from ..kinds.results import QueryRelease
from ..model import Plan
from ..planfile.compiled import CompiledPlan
from ..records.ledger import LedgerState
from ..support.numbers import shown
from ..support.words import relation_words, synth_released_line, unit_words
from .bundle import CONSISTENT_FORMAT, RELEASE_FORMAT, SIGNATURE
from .consistent import consistency_record, raw_values_of_releases
from .report_format import REPORT_FORMAT
from .result_columns import result_entries
from .signing import recorded_signer
from .synthetic import SYNTH_DIR


def release_record(compiled: CompiledPlan, public: dict[str, Any],
                   releases: list[QueryRelease], table: Table, ledger: LedgerState,
                   release_id: str, created: str, clamp_counts: bool,
                   file_commitment: dict[str, str]) -> dict[str, Any]:
    """release.json: public parameters and noised values only. The data file appears by its
    name and a keyed commitment (see commitment.py), never by its plain hash. ``public``:
    the check report's ``public_check`` (made once, before the charge); the plan, its digest
    and its measurements come from the compiled plan, as the check made them."""
    plan, confidence, data = compiled.plan, compiled.confidence, public
    by_query = compiled.measurement_dicts_by_query
    queries = [{**qd, "measurements": by_query[qd["id"]]} for qd in data["queries"]]
    return {
        "format": RELEASE_FORMAT if plan.consistency is None else CONSISTENT_FORMAT,
        "release_id": release_id,
        "created_utc": created,
        "software": {"name": "planner-app", "version": __version__,
                     "report_format": REPORT_FORMAT},  # what verify rebuilds: report_format.py
        "dataset": {"name": plan.dataset.name, "file_name": table.name,
                    "file_commitment": file_commitment},
        "privacy_unit": data["plan"]["privacy_unit"],
        "neighbouring": plan.neighbouring,
        "model": "central (randomized_response statistics are local)",
        "plan_sha256": compiled.digest,
        "plan": compiled.document,
        "confidence": confidence,
        "post_processing": {
            "clamp_counts_at_zero": clamp_counts,
            "means_and_variances_within_bounds": True,
            "quantiles_within_bounds": True,
            "randomized_response_share_within_0_1": True,
            "grid": "non-integer results are multiples of their query's power-of-two grid step",
        },
        "queries": queries,
        "total": data["total"],
        "alternatives": data["alternatives"],
        "fits_budget": data["fits_budget"],
        "risk": data["risk"],
        "ledger": {"cap": ledger.cap.to_dict(), "spent": ledger.spent.to_dict(),
                   "remaining": {"epsilon": ledger.remaining_epsilon,
                                 "delta": ledger.remaining_delta},
                   "releases_of_dataset": len(ledger.releases)},
        "results": result_entries(releases),  # column-wise: result_columns.py
        **_synthetic_record(releases),
        # issue 27: the consistent values under the plan's relations (post-processing)
        **consistency_record(plan, compiled.measurements, raw_values_of_releases(releases),
                             confidence),
    }


def _synthetic_record(releases: list[QueryRelease]) -> dict[str, Any]:
    """release.json's ``synthetic``: each synthetic table's noised marginals, selected
    pairs, rows and sampling seed (release/synthetic.py); nothing when the plan has none."""
    tables = {r.query_id: r.synthetic for r in releases if r.synthetic is not None}
    return {"synthetic": tables} if tables else {}


def synthetic_release_lines(releases: list[QueryRelease]) -> list[str]:
    """One line a released synthetic table: its CSV and its rows (published in the bundle:
    the plan's, or from the noised totals). What the command line prints after a release."""
    return [synth_released_line(r.query_id, f"{SYNTH_DIR}/{r.query_id}.csv",
                                int(r.synthetic["rows"]))
            for r in releases if r.synthetic is not None]


def readme_text(plan: Plan, record: dict[str, Any]) -> str:
    total = record["total"]
    unit = plan.privacy_unit
    who = unit_words(unit.kind, unit.id_column, unit.max_rows, detail=True,
                     rows_reason=unit.rows_reason)
    relation = relation_words(plan.neighbouring)
    signer = recorded_signer(record)  # signed bundles: how a recipient proves who released it
    software = record.get("software")  # the version that made it, not the one reading it
    made_by = software.get("version", __version__) if isinstance(software, dict) else __version__
    lines = [
        f"Release of {plan.dataset.name!r} made with planner-app {made_by}",
        f"Release id {record['release_id']}, created {record['created_utc']} (UTC).",
        "",
        "WHAT THESE NUMBERS ARE",
        "The numbers in results.csv are statistics about people, published under differential",
        "privacy: random noise was added to each of them, once, so that what they reveal about",
        "any one person is limited by epsilon (see below). Each value comes with an interval",
        "(low, high) that holds the",
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
        f"This release spent epsilon = {shown(total['epsilon'])} and delta = "
        f"{total['delta']:.3g} ({total['accountant']} accounting).",
        record["risk"]["sentence"],
        record["risk"]["out_of_100"],
        record["risk"]["delta"],
        "",
        "FILES",
        "results.csv     one row per released number, with its interval: exact, unrounded",
        "                values (the report and the app round them to 4 significant digits)",
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
        *(line for q in plan.queries if kind_of(q).makes_table for line in (
            f"{SYNTH_DIR}/{q.id}.csv  the synthetic table {q.title!r}: made-up rows, not people,",
            "                sampled from a model fitted to its noised counts in release.json",
            "                (post-processing: no further privacy cost)")),
        "MANIFEST.sha256 the SHA-256 of every file",
        *([f"{SIGNATURE} the owner's signature of MANIFEST.sha256 (minisign)"]
          if signer else []),
        "",
        "HOW TO CHECK IT",
        "planner-app verify BUNDLE.zip   (checks every hash, the audit chain, recomputes the "
        "totals",
        "                                 from the plan and checks every interval)",
        *([f"planner-app verify BUNDLE.zip --trust {signer}.pub   (also proves who released "
           "it: the",
           f"    signature must be by the key in {signer}'s public key file; or, with minisign,",
           f"    unzip the two MANIFEST files and run: minisign -Vm MANIFEST.sha256 -p "
           f"{signer}.pub)"] if signer else []),
    ]
    return "\n".join(lines) + "\n"
