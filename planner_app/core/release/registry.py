"""A release's transparency record in the format of OpenDP's deployments registry
(github.com/opendp/deployments-registry-data, schemas/deployments-schema.yaml): the YAML a
data curator submits to the public registry of differential privacy deployments.

Built from release.json alone (public: the plan's parameters, the noised totals, the
release's date), never from the data. The field names are the registry's: ``url_slug``,
``status``, ``tier`` and ``deployment`` with ``basic``, ``dp_variant``, ``privacy_loss``,
``deployment_model``, ``accounting``, ``implementation`` and ``administrative``. The answers
in words are the report's transparency answers (report.transparency), so the report and the
registry record never disagree. What only the curator knows (who they are, the intended use,
the region, the record's authors) is marked "to fill in"; the record is a "Draft". The
bundle's signature (who signed, the key's fingerprint, how to check it: signing.signature_words)
is in ``administrative.notes``, and ``implementation.mechanisms`` says how to verify the bundle
(``planner-app verify BUNDLE.zip --trust OWNER.pub``).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from ..kinds import KINDS, title_of
from ..kinds.synthetic import stated_epsilon
from ..support.words import unit_words
from .report import data_file_sentence, listing, transparency
from .signing import signature_words

#: The registry's own words for what a field holds; the curator replaces these.
TO_FILL_CURATOR = "to fill in: the organisation that publishes this release"
TO_FILL_USE = "to fill in: what the released statistics are for"
TO_FILL_REGION = "to fill in: the region the data describes"
TO_FILL_AUTHOR = "to fill in: who wrote this record"
TO_FILL = (TO_FILL_CURATOR, TO_FILL_USE, TO_FILL_REGION, TO_FILL_AUTHOR)



def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "release"


def _end(text: str) -> str:
    """``text`` as a sentence: a full stop unless it ends in one already."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _tidy(node: Any) -> Any:
    """Every text in ``node`` without the doubled stops that joining sentences leaves: a
    reason that ends in a full stop, listed before "; " or ended again ("200,000.;",
    "scale.."). An ellipsis ("...") is kept."""
    if isinstance(node, str):
        return re.sub(r"(?<!\.)\.\.(?!\.)", ".", re.sub(r"(?<!\.)\.;", ";", node))
    if isinstance(node, dict):
        return {key: _tidy(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_tidy(value) for value in node]
    return node


def _check_words(record: dict[str, Any]) -> str:
    """How a reader proves who released the bundle (or that nothing can)."""
    if isinstance(record.get("signed_by"), dict):
        return ("Check the bundle with: planner-app verify BUNDLE.zip --trust OWNER.pub "
                "(OWNER.pub: the data owner's public key, obtained from them; without --trust "
                "verify checks only that the bundle is consistent, not who released it)")
    return ("Check the bundle with: planner-app verify BUNDLE.zip (it checks that the bundle "
            "is consistent; this bundle is not signed, so nothing proves who released it; a "
            "signed one is checked with planner-app verify BUNDLE.zip --trust OWNER.pub)")


def _label(q: dict[str, Any]) -> str:
    return str(q.get("label") or q.get("id"))


def variant_name(total: dict[str, Any]) -> str:
    """The registry's variant: "Pure DP" when the release's δ is 0, else "Approximate DP"
    (a zCDP total is converted to (ε, δ); ρ is given beside it)."""
    return "Pure DP" if float(total["delta"]) == 0 else "Approximate DP"


def _local(q: dict[str, Any]) -> bool:
    """A statistic whose answers are randomized one by one (the local model): the kind that
    publishes its noised answers."""
    kind = KINDS.get(str(q.get("kind")))
    return kind is not None and kind.publishes_answers


def model_name(record: dict[str, Any]) -> str:
    """"Central", "Local" (every statistic randomizes each answer on its own) or "Varies"
    (some do)."""
    local = [q for q in record["queries"] if _local(q)]
    if not local:
        return "Central"
    return "Local" if len(local) == len(record["queries"]) else "Varies"


def _model_details(record: dict[str, Any]) -> str:
    local = [_label(q) for q in record["queries"] if _local(q)]
    central = [_label(q) for q in record["queries"] if not _local(q)]
    parts = []
    if central:
        parts.append("Central: the data owner's computer adds the noise to "
                     + listing(central) + ".")
    if local:
        parts.append("Local (randomized response): each answer is randomized on its own "
                     "before it is published, in " + listing(local) + ". The randomizing "
                     "runs on the data owner's computer, which holds the true answers; the "
                     "number of answers published is noised unless it is public.")
    return " ".join(parts)


def _columns(plan: dict[str, Any]) -> list[str]:
    names: set[str] = set()
    unit = plan.get("privacy_unit") or {}
    if unit.get("id_column"):
        names.add(str(unit["id_column"]))
    for q in plan.get("queries", []):
        if q.get("column"):
            names.add(str(q["column"]))
        if q.get("group_by"):
            names.add(str(q["group_by"]["column"]))
        names.update(str(c["column"]) for c in q.get("where") or [])
    return sorted(names)


def _parameters(total: dict[str, Any]) -> dict[str, float]:
    out = {"epsilon": float(total["epsilon"])}
    if float(total["delta"]) > 0:
        out["delta"] = float(total["delta"])
    if total.get("rho") is not None:
        out["rho"] = float(total["rho"])
    return out


def registry_record(record: dict[str, Any]) -> dict[str, Any]:
    """The deployments-registry record (a dict of the registry's fields) of a release, from
    its release.json (already verified by the caller)."""
    answers = dict(transparency(record))
    plan = record["plan"]
    total = record["total"]
    unit = record["privacy_unit"]
    dataset = record["dataset"]["name"]
    queries = record["queries"]
    ledger = record.get("ledger") or {}
    releases = ledger.get("releases_of_dataset")
    version = record["software"]["version"]
    date = str(record["created_utc"])[:10]
    accountant = answers["Accounting and composition"].split("; ")[0]
    shares = listing([f"{_label(q)}: ε = {stated_epsilon(q):.4g}"
                      + (f", δ = {float(q['delta']):.3g}" if q.get("delta") else "")
                      for q in queries])
    budget = plan.get("budget") or {}
    who = unit_words(unit["kind"], unit.get("id_column"), unit.get("max_rows"))
    public = ("Public by design, declared in the plan before the release and published "
              "with it: which statistics are asked for, their bounds, categories, bins, "
              "group keys and yes/no values (see the pre-processing answers), the data "
              "file's name and the release's date.")
    doc: dict[str, Any] = _tidy({
        "url_slug": f"{_slug(dataset)}_{_slug(date)}_{_slug(str(record['release_id']))[:8]}",
        "status": "Draft",
        "tier": 3,
        "deployment": {
            "basic": {
                "name": f"{dataset}: release of {date}",
                "data_curators": [TO_FILL_CURATOR],
                "description": (f"{len(queries):,} statistics about {dataset!r} released "
                                "with planner-app under differential privacy: "
                                + listing([f"{_label(q)} ({title_of(q['kind'])})"
                                           for q in queries]) + "."),
                "intended_use": TO_FILL_USE,
                "data_product_type": "Summary statistics",
                "data_product_region": TO_FILL_REGION,
                "publication_date": date,
            },
            "dp_variant": {
                "variant_name": variant_name(total),
                "data_domain": (f"Tables with the columns {', '.join(_columns(plan)) or '—'} "
                                f"(the statistics read no other column); {who}."),
                "unprotected_quantities": (
                    f"Released without noise: {answers['Quantities released without noise']}. "
                    + public),
            },
            "privacy_loss": {
                "privacy_unit": ("person" if unit["kind"] == "person" else "row (one row per "
                                                                            "person)"),
                "privacy_unit_details": (f"{answers['Unit of privacy']}. Neighbouring "
                                         f"datasets: {answers['Neighbouring datasets']}."),
                "privacy_parameters": _parameters(total),
                "privacy_parameters_details": (
                    f"{answers['Privacy parameters']} for this whole release, composed with "
                    f"{accountant}; the plan's budget was ε = {float(budget.get('epsilon', 0)):g}, "
                    f"δ = {float(budget.get('delta', 0)):g}. {record['risk']['sentence']}"),
            },
            "deployment_model": {
                "model_name": model_name(record),
                "model_name_details": _model_details(record),
                "actors": ("The data owner (the curator) holds the table and runs planner-app "
                           "on their own computer, which draws the noise. Recipients see only "
                           "the release bundle: noised results and public parameters. Review: "
                           f"{answers['Review']}."),
                "release_type": "One release" if releases == 1 else "Many releases",
                "release_type_details": _end(answers["One or many releases"]),
                "data_source_type": "Static",
                "data_source_type_details": ("Each release reads one fixed table. "
                                             + data_file_sentence(record)),
                "access_type": "Non-interactive",
                "access_type_details": "The results are published once as a bundle; nobody "
                                       "queries the data.",
            },
            "accounting": {
                "post_processing": _end(answers["Post-processing"]),
                "composition": (f"{accountant}; the cells of a histogram or group-by are "
                                f"disjoint and composed in parallel. Each statistic's share: "
                                f"{shares}."),
            },
            "implementation": {
                "preprocessing_and_hyperparameter_tuning": (
                    f"Contribution bounding: {answers['Pre-processing: contribution bounding']}. "
                    f"Bounds (values are clamped to them): "
                    f"{answers['Pre-processing: bounds (clamping)']}. Categories and keys: "
                    f"{answers['Pre-processing: categories and keys']}. Missing values: "
                    f"{answers['Pre-processing: missing values']}. These parameters are "
                    "declared in the plan, not computed from the data; planner-app warns "
                    "the data owner before the release when one equals what the data shows."),
                "mechanisms": (f"{answers['Mechanisms']}; planner-app {version}. "
                               + _end(_check_words(record))),
                "justification": (_end(f"Justification for ε: {answers['Justification for ε']}")
                                  + f" Review: {answers['Review']}."),
            },
            "administrative": {
                "sources": "The release bundle (release.json, results.csv, report.pdf).",
                "notes": (f"Written by planner-app {version} from release.json of release "
                          f"{record['release_id']} ({record['created_utc']}). Signature: "
                          + _end(signature_words(record)) + " Fields that begin with 'to fill "
                          "in' need the curator's answer."),
                "registry_authors": [TO_FILL_AUTHOR],
            },
        },
    })
    return doc


def registry_yaml(record: dict[str, Any]) -> str:
    """``registry_record`` as YAML text (PyYAML's safe_dump, in the registry's field order)."""
    return str(yaml.safe_dump(registry_record(record), sort_keys=False, allow_unicode=True,
                          width=100, default_flow_style=False))
