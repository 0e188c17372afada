"""The release report, as HTML and PDF, built from release.json alone (so anyone can rebuild it
from a bundle). It explains each number, the guarantee, and answers the transparency questions
NIST SP 800-226 and the public deployments registry ask a release to document.

Everything in it is public: noised values and the plan's parameters. Text from the plan
(labels, reasons) is escaped in HTML.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import itertools
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..dp import risk
from ..dp.accuracy import format_half_width
from ..kinds import KINDS
from ..kinds.shared_dp import useless_warning
from ..kinds.shared_release import synthetic_noise_words as synthetic_noise_words
from ..kinds.synthetic import stated_epsilon
from ..model.plan import Plan
from ..planfile import plan_from_dict
from ..planning.charts import report_chart_png
from ..planning.parameters import missing_values_words
from ..planning.preview import Chart, release_chart
from ..support.numbers import (
    shown,
    shown_percent_range,
    shown_point,
    shown_range,
    shown_together,
)
from ..support.words import (
    confidence_percent,
    relation_words,
    rows_reason_of,
    unit_words,
)
from ..support.words import format_number as rounded
from .consistent import consistency_paragraphs, headline_rows
from .report_layout import (
    LayoutMiss,
    ReportLayout,
    draw_text,
    keep_text_together,
    keep_together,
)
from .result_columns import tables_of
from .signing import approval_words, signature_words
from .synthetic import synthetic_paragraphs

MAX_REPORT_ROWS = 50  # cells shown per statistic; results.csv has every one
REPORT_SMALLEST = 10  # of them, the smallest cells (the others are the largest)
MAX_REPORT_STATISTICS = 1_000  # statistics explained; results.csv has every one
MAX_PDF_STATISTICS = 100  # of them, explained in full in the PDF; the rest in one table
MAX_LISTED = 40  # statistics named in one transparency answer; plan.json has every one
MAX_CELL_TEXT = 300  # characters of a cell name in a PDF table row
RESULTS_FILE = "results.csv"



def format_number(x: Any) -> str:
    """A released number as a person reads it (numbers.shown), "—" for none."""
    return "—" if x is None else shown(x)


def _is_share(row: dict[str, Any]) -> bool:
    return row.get("mechanism") == "randomized_response"


def _together(row: dict[str, Any]) -> list[str] | None:
    """The value, low and high of a row with the same decimals, or None without a value."""
    value = row.get("value")
    if value is None:
        return None
    ends = (row.get("low"), row.get("high"))
    numbers = (value,) + (tuple(ends) if None not in ends else ())
    if _is_share(row):
        return shown_together(tuple(100 * float(x) for x in numbers), "%")
    return shown_together(numbers)


def format_value(row: dict[str, Any]) -> str:
    """A released value as a person reads it (a share in percent; its ± is in points), with
    the decimals of its interval."""
    shown_ = _together(row)
    return "—" if shown_ is None else shown_[0]


def format_interval(row: dict[str, Any]) -> str:
    """Its interval, both ends with the decimals of the value (the one rule of numbers.py)."""
    if row.get("low") is None or row.get("high") is None:
        return "—"
    shown_ = _together(row)
    if shown_ is None:
        return (shown_percent_range(row["low"], row["high"]) if _is_share(row)
                else shown_range(row["low"], row["high"]))
    return f"{shown_[1]} to {shown_[2]}"


def cell_name(row: dict[str, Any]) -> str:
    parts = [str(p) for p in (row.get("group"), row.get("cell")) if p is not None]
    return " / ".join(parts) if parts else "all"


def data_file_sentence(record: dict[str, Any]) -> str:
    """The data file by name and keyed commitment; never a plain hash of the file (a record
    that has one, from an older release, does not get it repeated here)."""
    dataset = record.get("dataset") or {}
    text = f"Data file {dataset.get('file_name', '')}."
    commitment = dataset.get("file_commitment")
    if isinstance(commitment, dict) and commitment.get("value"):
        text += (f" Keyed commitment {commitment['value']}: with a key only the data owner "
                 "holds, it proves to an auditor who has the file which file was used; to "
                 "anyone else it reveals nothing about the file.")
    return text


def transparency(record: dict[str, Any], declared: Plan | None = None) -> list[tuple[str, str]]:
    """The transparency fields, as (question, answer) pairs. ``declared``: the record's plan
    as a Plan when the caller has it (read from the record otherwise)."""
    plan = record["plan"]
    unit = record["privacy_unit"]
    total = record["total"]
    unit_text = unit_words(unit["kind"], unit.get("id_column"), unit.get("max_rows"),
                           detail=True, rows_reason=rows_reason_of(unit))
    relation = relation_words(record["neighbouring"])
    delta = total["delta"]
    variant = ("pure ε-differential privacy" if delta == 0 else
               "approximate (ε, δ)-differential privacy")
    accountant = {"basic": "basic sequential composition (ε and δ add up)",
                  "zcdp": "zero-concentrated DP (ρ adds up), converted to (ε, δ)",
                  "pld": "privacy loss distributions (tight numerical composition, Google's "
                         "dp-accounting)"}.get(total["accountant"], total["accountant"])
    mechanisms = sorted({m["mechanism"] for q in record["queries"] for m in q["measurements"]
                         if m["mechanism"] != "none"})
    local = any(KINDS[q["kind"]].publishes_answers for q in record["queries"])
    bounds, lists, missing = [], [], []
    if declared is None:
        declared = _declared_plan(record)
    for q in plan["queries"]:
        reason = (q.get("justification") or {})
        if "lower" in q:
            bounds.append(f"{q.get('label', q['id'])}: [{q['lower']:g}, {q['upper']:g}] — "
                          f"{reason.get('bounds') or 'no reason recorded'}")
        if "bins" in q:  # bin edges are public parameters like bounds, with their reason
            edges = ", ".join(f"{float(e):g}" for e in q["bins"])
            bounds.append(f"{q.get('label', q['id'])}: bin edges {edges} — "
                          f"{reason.get('bounds') or 'no reason recorded'}")
        for field, values, what in (("categories", q.get("categories"), "categories"),
                                    ("keys", (q.get("group_by") or {}).get("keys"),
                                     "group keys")):
            if values:  # each declared list with its own reason
                lists.append(f"{q.get('label', q['id'])}: {len(values)} declared {what} — "
                             f"{reason.get(field) or 'no reason recorded'}")
        if "yes" in q:  # which cell values a yes/no share reads as yes and as no
            lists.append(f"{q.get('label', q['id'])}: yes = {', '.join(map(str, q['yes']))}; "
                         f"no = {', '.join(map(str, q['no']))} — "
                         f"{reason.get('values') or 'no reason recorded'}")
        words = _missing_words(declared, q).rstrip()
        # each statistic's words are sentences (with their own ";"): kept apart as sentences
        missing.append(f"{q.get('label', q['id'])}: {words}{'' if words.endswith('.') else '.'}")
    unnoised = [f"{q['label']}: " + (
        "the number of answers (every row answers, so it is public under replace-one)"
        if KINDS[q["kind"]].publishes_answers else "used without noise (public under "
                                                   "replace-one)")
                for q in record["queries"]
                if any(m["mechanism"] == "none" for m in q["measurements"])]
    ledger = record["ledger"]
    justification = [plan.get("justification") or ""] + [
        f"{q.get('label', q['id'])}: {(q.get('justification') or {}).get('epsilon')}"
        for q in plan["queries"] if (q.get("justification") or {}).get("epsilon")]
    justification = [j for j in justification if j]
    post = record["post_processing"]
    approval = record.get("approval")
    return [
        ("Unit of privacy", unit_text),
        ("Neighbouring datasets", relation),
        ("Privacy parameters", f"ε = {shown(total['epsilon'])}, δ = {delta:.3g}"
         + (f", ρ = {shown(total['rho'])}" if total.get("rho") is not None else "")),
        ("Differential privacy variant", variant),
        ("Model", "central: the data owner's computer adds the noise"
         + ("; in the randomized-response statistics each answer is also randomized on its "
            "own (local), and the number of answers published is noised unless it is public"
            if local else "")),
        ("Mechanisms", ", ".join(m.replace("_", " ") for m in mechanisms) +
         " (exact discrete samplers, randomness from the operating system's secure generator)"),
        ("One or many releases", f"release {ledger.get('releases_of_dataset', '?')} of dataset "
         f"{record['dataset']['name']!r}; its lifetime budget after this release: ε = "
         f"{shown(ledger['spent']['epsilon'])} spent of {shown(ledger['cap']['epsilon'])}, "
         f"{shown(ledger['remaining']['epsilon'])} left"),
        ("Accounting and composition", f"{accountant}; the cells of a histogram or group-by are "
         "disjoint and composed in parallel; each statistic's share of ε is listed above"),
        ("Pre-processing: contribution bounding", unit_text),
        ("Pre-processing: bounds (clamping)", listing(bounds) or "none"),
        ("Pre-processing: categories and keys", listing(lists) or "none"),
        ("Pre-processing: missing values", listing(missing, sep=" ")),
        ("Quantities released without noise", listing(unnoised) or "none"),
        ("Post-processing", ", ".join(POST_WORDS.get(k, k.replace("_", " "))
                                      for k, v in post.items() if v is True)
         + (f"; {post['grid']}" if post.get("grid") else "")),
        ("Justification for ε", listing(justification) or "none given in the plan"),
        ("Review", approval_words(approval)),
        ("Signed by", signature_words(record)),
        ("Software and verification", f"planner-app {record['software']['version']}; check the "
         "bundle with: planner-app verify BUNDLE.zip (its integrity), and planner-app verify "
         "BUNDLE.zip --trust OWNER.pub (also who released it)"),
    ]


def _declared_plan(record: dict[str, Any]) -> Plan | None:
    """The record's plan as a Plan, or None when it does not read (the report still
    renders)."""
    try:
        return plan_from_dict(record["plan"])
    except Exception:  # a report never fails on this: it only adds words
        return None


def _missing_words(plan: Any, q: dict[str, Any]) -> str:
    """How a statistic handles missing values and which rows it leaves out: the core's one
    describer (planning.parameters, as the review window and `check`); the plan's own words
    when the record's plan does not read."""
    query = next((d for d in plan.queries if d.id == q.get("id")), None) if plan else None
    if query is not None:
        return missing_values_words(query, plan.privacy_unit)
    policy = q.get("missing", "drop")
    return ("rows with a missing value are left out" if policy == "drop" else
            f"missing values are replaced by {policy['impute']}")


POST_WORDS = {  # release.json's post_processing flags, in words
    "clamp_counts_at_zero": "negative counts shown as 0",
    "means_and_variances_within_bounds": "means and variances kept within their bounds",
    "quantiles_within_bounds": "quantiles kept within their bounds",
    "randomized_response_share_within_0_1": "randomized-response shares kept between 0 and 1",
}


@functools.lru_cache(maxsize=16)
def chart_png(epsilon: float, delta: float = 0.0, prior: float = 0.5) -> bytes:
    """The posterior-against-prior chart as PNG (matplotlib's Agg canvas, no GUI), drawn for
    the ε whose bounds the sentences state (risk.bound_epsilon: ε + ln 2 with δ > 0). Cached:
    the HTML and the PDF, and the pre-charge trial report, draw the same chart."""
    out = io.BytesIO()
    chart_figure(epsilon, delta, prior).savefig(out, format="png")
    return out.getvalue()


def chart_figure(epsilon: float, delta: float = 0.0, prior: float = 0.5) -> Any:
    """``chart_png``'s matplotlib Figure (Agg canvas): upper bound, lower bound, the point."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3.8), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(111)
    p = np.linspace(0, 1, 201)
    drawn = risk.bound_epsilon(epsilon, delta)
    up, lo = risk.belief_curves(p, drawn)
    ax.fill_between(p, lo, up, color="#f5b7b1", alpha=0.4, linewidth=0)
    ax.plot([0, 1], [0, 1], "--", color="0.5", linewidth=1, label="nothing learned")
    ax.plot(p, up, color="#c0392b", linewidth=2, label="highest belief after")
    ax.plot(p, lo, color="#2471a3", linewidth=2, label="lowest belief after")
    ax.plot([prior], [risk.posterior_max(prior, drawn)], "o", color="#c0392b")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("Attacker's belief before the release")
    ax.set_ylabel("Belief after, at most / at least")
    ax.set_title(risk.chart_title(epsilon, delta), fontsize=10 if delta <= 0 else 9)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.subplots_adjust(left=0.11, right=0.97, top=0.9 if delta <= 0 else 0.86, bottom=0.14)
    return fig


def _declared_queries(declared: Plan | None) -> dict[str, Any]:
    """The plan's queries (for their bounds and quantile), or none when the record's plan
    does not read (the report still renders)."""
    return {q.id: q for q in declared.queries} if declared is not None else {}


def _statistics(record: dict[str, Any], plan: Plan | None = None) -> list[dict[str, Any]]:
    """Per statistic: its rows and a sentence on what its interval means (``plan``: the
    record's plan as a Plan, read from the record when not given)."""
    tables = tables_of(record)  # each statistic's cells as columns (release@1 or @2)
    out = []
    confidence = record["confidence"]
    level = confidence_percent(confidence)
    declared = _declared_queries(plan if plan is not None else _declared_plan(record))
    as_planned: dict[Any, dict[str, Any]] = {}  # each statistic's plan entry, first one kept
    unit = record["plan"].get("privacy_unit") or {}
    for d in record["plan"].get("queries", ()):
        if isinstance(d, dict):
            as_planned.setdefault(d.get("id"), d)
    for q in record["queries"][:MAX_REPORT_STATISTICS]:
        acc = q["accuracy"]
        hw = acc.get("half_width")
        query = declared.get(q["id"])
        meaning = KINDS[q["kind"]].report_meaning(q, query, confidence)
        planned = planned_words(q, level)
        if KINDS[q["kind"]].publishes_answers and hw is not None and not planned:
            meaning += f" That is {format_half_width(acc)}."
        meaning += planned
        useless = useless_warning(query, acc) if query is not None else None
        if useless is not None:
            meaning += f" Note: {useless[0].upper()}{useless[1:]}"
        params = parameter_words(q)
        table = tables.get(q["id"])
        n = len(table) if table is not None else 0
        order = [] if table is None else largest_order(table.column("value"),
                                                       smallest=REPORT_SMALLEST)
        # issue 27: the plan's headline values (consistent ones, the raw in the note)
        shown = [] if table is None else headline_rows(record, q["id"], table.rows(order),
                                                       order)
        top = len(shown) - REPORT_SMALLEST
        more = (f"The {top:,} largest and the {REPORT_SMALLEST:,} smallest of its "
                f"{n:,} cells are shown, largest first; all of them are in "
                f"{RESULTS_FILE} and release.json." if len(shown) < n else "")
        out.append({"query": q, "rows": shown, "meaning": meaning, "params": params,
                    "more": more, "declared": as_planned.get(q["id"], {}), "unit": unit})
    return out


def planned_words(q: dict[str, Any], level: str) -> str:
    """For a mean, variance or share of yes: the ± planned before the release and what its
    row count was of (a group-by's assumes groups of equal size unless the plan states the
    smallest group's rows); each released interval comes from its own noised count."""
    acc = q.get("accuracy") or {}
    if (not KINDS[q["kind"]].accuracy_needs_rows or acc.get("half_width") is None
            or not acc.get("note")):
        return ""
    own = (" Each group's interval above comes from its own noised count, so a smaller "
           "group's is wider." if q.get("cells", 1) > 1 and not KINDS[q["kind"]].publishes_answers
           else "")
    return (f" Planned before the release: {format_half_width(acc)} at {level}, a "
            f"{acc['note']}.{own}")


COMPONENT_WORDS = {"count": "its count", "sum": "its sum", "sumsq": "its sum of squares",
                   "cells": "each cell", "answers": "the answers", "rank": "the rank"}


def _noised(c: dict[str, Any]) -> bool:
    return bool(c.get("scale") or c.get("sigma"))


def _noise_words(c: dict[str, Any]) -> str:
    return (f"noise scale {rounded(c['scale'])}" if c.get("scale")
            else f"σ = {rounded(c['sigma'])}")


def parameter_words(q: dict[str, Any]) -> str:
    """A statistic's mechanism, ε and the noise of every one of its measurements (a mean has
    a noised sum and a noised count: both are listed, each with its sensitivity)."""
    head = (f"{q['mechanism'].replace('_', ' ')} mechanism, ε = {shown(stated_epsilon(q))}"
            + (f", δ = {q['delta']:g}" if q.get("delta") else ""))
    components = [c for c in q.get("components") or () if isinstance(c, dict)]
    if KINDS[q["kind"]].makes_table:
        return head + "; " + "; ".join(_synthetic_parts(components))
    noised = [c for c in components if _noised(c)]
    if len(noised) < 2:
        other = ""
        if noised and not (q.get("scale") or q.get("sigma")):
            name = ("the number of answers" if KINDS[q["kind"]].publishes_answers
                    else COMPONENT_WORDS.get(noised[0]["name"], noised[0]["name"]))
            other = f", {name}: {_noise_words(noised[0])}"
        return (head + (f", noise scale {rounded(q['scale'])}" if q.get("scale") else "")
                + (f", σ = {rounded(q['sigma'])}" if q.get("sigma") else "") + other
                + f", sensitivity {rounded(q['sensitivity'])}")
    parts = []
    for c in noised:
        norm = c.get("sensitivity_l2") if c.get("sigma") else c.get("sensitivity_l1")
        parts.append(f"{COMPONENT_WORDS.get(c['name'], c['name'])}: {_noise_words(c)}"
                     + (f", sensitivity {rounded(norm)}" if norm is not None else ""))
    return head + "; " + "; ".join(parts)


def _synthetic_parts(components: list[dict[str, Any]]) -> list[str]:
    """A synthetic table's measurements, alike ones together: the one-way counts, the pairs'
    counts, the rounds choosing the pairs."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for c in components:
        groups.setdefault(str(c.get("name", "")).partition(":")[0], []).append(c)
    out = []
    for kind, words in (("oneway", "one-way counts"), ("twoway", "two-way counts")):
        sigmas = sorted({float(c["sigma"]) for c in groups.get(kind, ()) if c.get("sigma")})
        if sigmas:
            out.append(f"{words} ({len(groups[kind])}): σ = "
                       + " to ".join(rounded(v) for v in (sigmas[0], sigmas[-1])[:len(sigmas)])
                       + " a cell")
    rounds = groups.get("select", [])
    if rounds:
        out.append(f"choosing the pairs ({len(rounds)} rounds, exponential mechanism): "
                   f"ε = {shown(float(rounds[0].get('epsilon') or 0))} a round")
    return out


def _what(s: dict[str, Any]) -> str:
    """What a statistic (an entry of _statistics) is: "Count of rows", "Count of rows where
    income is present", "mean of hours"."""
    q, declared = s["query"], s["declared"]
    imputed = isinstance(declared.get("missing"), dict)
    unit = s["unit"]
    max_rows = unit.get("max_rows") if unit.get("kind") == "person" else 1
    return KINDS[q["kind"]].describe(q.get("column"), KINDS[q["kind"]].words,
                                     imputed, unit.get("id_column"),
                                     max_rows if isinstance(max_rows, int) else 1,
                                     declared.get("of") == "people")


def largest(rows: list[dict[str, Any]], limit: int | None = None,
            smallest: int = 0) -> list[dict[str, Any]]:
    """At most ``limit`` rows: all of them, or the largest values (released numbers only, so
    the choice is post-processing), largest first; with ``smallest``, the last that many of
    them are the smallest values instead (a histogram of 10^6 cells shows both ends)."""
    values = list(map(dict.get, rows, itertools.repeat("value", len(rows))))
    return [rows[i] for i in largest_order(values, limit, smallest)]


def largest_order(values: list[Any], limit: int | None = None,
                  smallest: int = 0) -> list[int] | range:
    """The places of ``largest``'s rows among cells of these values (a column of the
    record's results: no object per cell is made to choose the few the report shows)."""
    limit = MAX_REPORT_ROWS if limit is None else limit
    if len(values) <= limit:
        return range(len(values))
    smallest = min(max(smallest, 0), limit)

    def key(v: Any) -> float:
        return float(v) if isinstance(v, (int, float)) else float("-inf")

    import numpy as np  # here: the report of a few cells needs no numpy

    if set(map(type, values)) <= {int, float}:  # released numbers: no call per cell
        keys = np.array(values, dtype=np.float64)
    else:
        keys = np.array(list(map(key, values)), dtype=np.float64)
    if np.isnan(keys).any():  # sorted's own order for what numpy orders otherwise
        ranked = sorted(range(len(values)), key=lambda i: key(values[i]), reverse=True)
        return ranked[:limit - smallest] + (ranked[-smallest:] if smallest else [])
    # a stable sort of the negated keys: the order of sorted(..., reverse=True), ties kept
    # in the record's order, without a Python comparison per pair of 10^6 cells
    order: list[int] = np.argsort(-keys, kind="stable").tolist()
    return order[:limit - smallest] + (order[-smallest:] if smallest else [])


def listing(items: list[str], limit: int = MAX_LISTED, sep: str = "; ") -> str:
    """Items joined by ``sep``, at most ``limit`` of them: a plan with thousands of statistics
    keeps a report that fits (everything is in plan.json)."""
    if len(items) <= limit:
        return sep.join(items)
    more = f"and {len(items) - limit:,} more (see plan.json)"
    return sep.join(items[:limit]) + (f" {more[0].upper()}{more[1:]}." if sep == " "
                                      else f"{sep}{more}")


def statistics_left_out(record: dict[str, Any]) -> str:
    """A sentence when the plan has more statistics than the report explains, else ""."""
    n = len(record["queries"])
    if n <= MAX_REPORT_STATISTICS:
        return ""
    return (f"This release has {n:,} statistics; the first {MAX_REPORT_STATISTICS:,} are "
            f"explained above. Every released value is in {RESULTS_FILE} and every "
            "statistic's parameters are in release.json.")


def pdf_summary_sentence(n: int) -> str:
    """What the PDF's summary table of the statistics past MAX_PDF_STATISTICS is."""
    return (f"The first {MAX_PDF_STATISTICS:,} statistics are explained above, one by one. "
            f"The other {n - MAX_PDF_STATISTICS:,} are listed here, one line per cell shown, "
            "with the same values and intervals; the HTML report explains each of them.")


def clip(text: str, limit: int = MAX_CELL_TEXT) -> str:
    """A cell's text for a PDF table row, which must fit on one page."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


READING = ("Why can a count be negative or a number fractional? Noise is symmetric: a small "
           "count plus noise can fall below zero, and sums and means sit on a fine binary grid. "
           "That is expected and honest. Read a negative count as 'close to zero'; do not "
           "round values before analysis, and use the interval, not the value alone.")


def report_html(record: dict[str, Any], plan: Plan | None = None) -> str:
    """The report as HTML. ``plan``: the record's plan as a Plan when the caller has it (a
    release does; read once from the record otherwise: a plan of 10^6 categories takes
    seconds to read)."""
    if plan is None:
        plan = _declared_plan(record)
    e = html.escape
    total = record["total"]
    risk = record["risk"]
    chart = base64.b64encode(chart_png(total["epsilon"], total["delta"])).decode()
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Release report: {e(record['dataset']['name'])}</title>",
        "<style>body{font-family:DejaVu Sans,Arial,sans-serif;max-width:60em;margin:2em auto;"
        "padding:0 1em;line-height:1.45;color:#222}table{border-collapse:collapse;margin:.5em 0}"
        "td,th{border:1px solid #bbb;padding:.25em .6em;text-align:left;vertical-align:top}"
        "th{background:#eee}.num{text-align:right}.note{color:#555;font-size:.92em}"
        "@media (prefers-color-scheme:dark){body{background:#1e1e1e;color:#ddd}th{background:#333}}"
        "</style></head><body>",
        f"<h1>Differentially private release: {e(record['dataset']['name'])}</h1>",
        f"<p class='note'>Release {e(record['release_id'])}, {e(record['created_utc'])} (UTC), "
        f"planner-app {e(record['software']['version'])}. {e(data_file_sentence(record))}"
        "</p>",
        "<h2>The numbers</h2>",
        f"<p>{e(READING)}</p>",
    ]
    for s in _statistics(record, plan):
        q = s["query"]
        parts.append(f"<h3>{e(q['label'])}</h3><p>{e(_what(s))}. {e(s['meaning'])}</p>")
        parts.append("<table><tr><th>Cell</th><th>Value</th><th>Interval "
                     f"({confidence_percent(record['confidence'])})</th><th>Note</th></tr>")
        for r in s["rows"]:
            parts.append(f"<tr><td>{e(cell_name(r))}</td><td class='num'>{e(format_value(r))}"
                         f"</td><td class='num'>{e(format_interval(r))}</td><td class='note'>"
                         f"{e(r.get('note') or '')}</td></tr>")
        parts.append(f"</table><p class='note'>{e(s['more'])} Parameters: {e(s['params'])}. "
                     f"{e(q['derivation'])}.</p>")
        parts.append(result_chart_html(record, s))
    synthetic = synthetic_paragraphs(record)
    if synthetic:
        parts.append("<h2>Synthetic tables</h2>")
        parts += [f"<p>{e(text)}</p>" for text in synthetic]
    consistent = consistency_paragraphs(record)  # issue 27
    if consistent:
        parts.append("<h2>Consistent values</h2>")
        parts += [f"<p>{e(text)}</p>" for text in consistent]
    if statistics_left_out(record):
        parts.append(f"<p class='note'>{e(statistics_left_out(record))}</p>")
    if charts_left_out(record):
        parts.append(f"<p class='note'>{e(charts_left_out(record))}</p>")
    parts += [
        "<h2>The privacy guarantee</h2>",
        f"<p>This release spent <b>ε = {shown(total['epsilon'])}</b>, δ = {total['delta']:.3g} "
        f"({e(total['accountant'])} accounting).</p>",
        f"<p>{e(risk['sentence'])} {e(risk.get('lower', ''))}</p>",
        f"<p>{e(risk.get('out_of_100', ''))} {e(risk.get('delta', ''))}</p>",
        f"<img alt='Posterior against prior for ε = {shown(total['epsilon'])}' "
        f"src='data:image/png;base64,{chart}' style='max-width:100%'>",
        "<h2>Transparency</h2><table>",
    ]
    for question, answer in transparency(record, plan):
        parts.append(f"<tr><th>{e(question)}</th><td>{e(answer)}</td></tr>")
    parts.append("</table></body></html>")
    return "\n".join(parts) + "\n"


def table_rows(pdf: Any, widths: tuple[float, ...], aligns: tuple[str, ...],
               rows: Sequence[tuple[str, ...]], size: float = 8.5,
               repeat_heading: bool = False) -> None:
    """A bordered table, the first row in bold. A row whose cells each fit on one line is
    drawn as plain cells; only a row that needs wrapping goes through fpdf's table, which
    lays out every cell as a paragraph (1,000 statistics took tens of seconds that way)."""
    height = size * 0.65
    for i, cells in enumerate(rows):
        pdf.set_font("DejaVu", "B" if i == 0 else "", size)
        if all(pdf.get_string_width(text) <= w - 2 * pdf.c_margin - 0.5
               for text, w in zip(cells, widths, strict=True)):
            if pdf.will_page_break(height):
                pdf.add_page()
                if repeat_heading and i > 0:  # a long table keeps its column names
                    pdf.set_font("DejaVu", "B", size)
                    for text, w, align in zip(rows[0], widths, aligns, strict=True):
                        pdf.cell(w, height, text, border=1, align=align[0])
                    pdf.ln(height)
                    pdf.set_font("DejaVu", "", size)
            for text, w, align in zip(cells, widths, aligns, strict=True):
                pdf.cell(w, height, text, border=1, align=align[0])
            pdf.ln(height)
            continue
        with pdf.table(col_widths=widths, text_align=aligns, line_height=size * 0.54,
                       first_row_as_headings=False) as table:
            table.row(cells)


def report_pdf(record: dict[str, Any], plan: Plan | None = None,
               layout: ReportLayout | None = None, trial: bool = False) -> bytes:
    """The report as PDF; ``plan`` as for report_html. ``layout``: what an earlier build of
    this release's report laid out (report_layout.py; the same bytes with it or without).
    ``trial``: the rehearsal's build (report_layout.py): every block laid out once on the
    layout's scratch document, which is written out and returned (its bytes are only
    measured); what it found is left in ``layout`` for the real build."""
    if plan is None:
        plan = _declared_plan(record)
    layout = ReportLayout() if layout is None else layout  # where blocks are tried
    if trial:
        layout.trial = True
        try:
            _lay_out(record, plan, layout, layout.scratch)
        finally:
            layout.trial = False
        return layout.write_trial()
    try:
        return bytes(_lay_out(record, plan, layout, layout.document()).output())
    except LayoutMiss:  # a block drawn from the rehearsal's height landed elsewhere
        layout.misses += 1
        layout.bounds.clear()
        return bytes(_lay_out(record, plan, layout, layout.document()).output())


def _lay_out(record: dict[str, Any], plan: Plan | None, layout: ReportLayout,
             pdf: Any) -> Any:
    """``report_pdf``'s document, drawn on ``pdf`` (not yet written)."""
    total = record["total"]
    risk = record["risk"]
    try:
        created = datetime.strptime(record["created_utc"][:19], "%Y-%m-%dT%H:%M:%S")
        pdf.set_creation_date(created)
    except (ValueError, KeyError):
        pass
    pdf.set_title(f"Release report: {record['dataset']['name']}")
    pdf.set_author("planner-app")
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin

    def heading(text: str, size: float = 14, out: Any = pdf) -> None:
        draw_text(out, [("heading", text, size)], width)

    def para(text: str, size: float = 10, out: Any = pdf) -> None:
        draw_text(out, [("para", text, size)], width)

    heading(f"Differentially private release: {record['dataset']['name']}", 16)
    para(f"Release {record['release_id']}, {record['created_utc']} (UTC), planner-app "
         f"{record['software']['version']}. {data_file_sentence(record)}", 8)
    heading("The numbers")
    para(READING, 9)
    explained = _statistics(record, plan)
    for s in explained[:MAX_PDF_STATISTICS]:
        chart_png_of: dict[str, bytes] = {}  # its chart, made once for both layouts

        def statistic(out: Any, s: dict[str, Any] = s,
                      drawn: dict[str, bytes] = chart_png_of) -> None:
            q = s["query"]
            heading(q["label"], 11, out)
            para(f"{_what(s)}. {s['meaning']}", 9, out)
            widths = (0.28 * width, 0.16 * width, 0.26 * width, 0.30 * width)  # notes wrap
            table_rows(out, widths, ("LEFT", "RIGHT", "RIGHT", "LEFT"),
                       [("Cell", "Value",
                         f"Interval ({confidence_percent(record['confidence'])})", "Note")] +
                       [(clip(cell_name(r)), format_value(r), format_interval(r),
                         clip(r.get("note") or "")) for r in s["rows"]])
            out.ln(1)
            para(f"{s['more']} Parameters: {s['params']}.".strip(), 7.5, out)
            result_chart_pdf(out, record, s, width, drawn)

        keep_together(pdf, statistic, layout, name=("statistic", s["query"]["id"]))
    if len(explained) > MAX_PDF_STATISTICS:
        # past a hundred, a page per statistic helps no reader (and fpdf lays out every
        # paragraph twice: seconds per hundred); one line per cell, as results.csv has them
        heading("The other statistics", 12)
        para(pdf_summary_sentence(len(explained)), 9)
        table_rows(pdf, (0.30 * width, 0.32 * width, 0.14 * width, 0.24 * width),
                   ("LEFT", "LEFT", "RIGHT", "RIGHT"),
                   [("Statistic", "What (cell)", "Value",
                     f"Interval ({confidence_percent(record['confidence'])})")] +
                   [(clip(s["query"]["label"], 34), clip(_what(s) + (
                       "" if cell_name(r) == "all" else f" ({cell_name(r)})"), 36),
                     format_value(r), format_interval(r))
                    for s in explained[MAX_PDF_STATISTICS:] for r in s["rows"]], 7.5, True)
        pdf.ln(2)
    synthetic = synthetic_paragraphs(record)
    if synthetic:
        heading("Synthetic tables")
        for text in synthetic:
            para(text, 9)
    consistent = consistency_paragraphs(record)  # issue 27
    if consistent:
        heading("Consistent values")
        for text in consistent:
            para(text, 9)
    if statistics_left_out(record):
        para(statistics_left_out(record), 9)
    if charts_left_out(record):
        para(charts_left_out(record), 9)

    # the blocks of text alone: the layout remembers their heights (report_layout.py)
    keep_text_together(pdf, [
        ("heading", "The privacy guarantee", 14),
        ("para", f"This release spent ε = {shown(total['epsilon'])}, δ = {total['delta']:.3g} "
                 f"({total['accountant']} accounting).", 10),
        ("para", f"{risk['sentence']} {risk.get('lower', '')}", 10)], width, layout,
        ("guarantee",))
    para(f"{risk.get('out_of_100', '')} {risk.get('delta', '')}")
    side = min(width, 120)
    if pdf.will_page_break(side * 3.8 / 6):  # chart_png's aspect
        pdf.add_page()
    pdf.image(io.BytesIO(chart_png(total["epsilon"], total["delta"])), w=side)
    pdf.ln(4)
    # the heading is kept with its first question; the answers flow on from there (a long
    # answer continues on the next page: a table row must fit on one page, and raised "row
    # too high" after the charge)
    items = transparency(record, plan)

    keep_text_together(pdf, [("heading", "Transparency", 14), ("heading", items[0][0], 9),
                             ("para", items[0][1], 8.5)], width, layout,
                       ("answer", items[0][0]))
    for question, answer in items[1:]:
        keep_text_together(pdf, [("heading", question, 9), ("para", answer, 8.5)], width,
                           layout, ("answer", question))
    return pdf


# ----------------------------------------------------------------------------- result charts

MAX_REPORT_CHARTS = 60  # statistics drawn as a chart; the tables and results.csv have all


def result_chart(record: dict[str, Any], s: dict[str, Any]) -> Chart | None:
    """One statistic's released values with their intervals as a chart (preview.py), from the
    record alone; None past the first MAX_REPORT_CHARTS statistics or without values."""
    q = s["query"]
    if not s["rows"] or q["id"] not in {x["id"] for x in
                                        record["queries"][:MAX_REPORT_CHARTS]}:
        return None
    declared = s["declared"]
    lower, upper = declared.get("lower"), declared.get("upper")
    bounds = ((float(lower), float(upper)) if isinstance(lower, (int, float))
              and isinstance(upper, (int, float)) else None)
    rows = s["rows"]
    if KINDS[q["kind"]].makes_table:  # each column's counts, in release order (not the largest)
        table = tables_of(record).get(q["id"])
        rows = table.rows() if table is not None else []
    return release_chart(q, rows, bounds)


def charts_left_out(record: dict[str, Any]) -> str:
    """A sentence when some statistics have no chart, else ""."""
    n = min(len(record["queries"]), MAX_REPORT_STATISTICS)
    if n <= MAX_REPORT_CHARTS:
        return ""
    return (f"Charts are drawn for the first {MAX_REPORT_CHARTS:,} statistics; the tables and "
            f"{RESULTS_FILE} hold every value and interval.")


def result_charts(record: dict[str, Any]) -> list[tuple[str, Chart]]:
    """Each statistic's chart as the report draws it (``result_chart``), with its label: for
    the Python API's ``result_charts`` (a notebook's plots of a bundle)."""
    drawn = []
    for s in _statistics(record):
        chart = result_chart(record, s)
        if chart is not None:
            drawn.append((str(s["query"]["label"]), chart))
    return drawn


def result_chart_html(record: dict[str, Any], s: dict[str, Any]) -> str:
    """The chart as an embedded PNG with its caption (like the belief chart), or ""."""
    chart = result_chart(record, s)
    if chart is None:
        return ""
    e = html.escape
    data = base64.b64encode(report_chart_png(chart)).decode()
    unit = "%" if _is_share(s["rows"][0]) else ""
    alt = (f"Chart of {s['query']['label']}: " + "; ".join(
        f"{m.label} {shown_point(m.centre, m.low, m.high, unit)}" for m in chart.marks))
    # a div and paragraphs, not <figure>: the app's report viewer (Qt rich text) knows these
    return (f"<div class='chart'><p><img alt='{e(alt)}' src='data:image/png;base64,{data}' "
            f"style='max-width:100%'></p><p class='note'>"
            f"{e(' '.join(t for t in (chart.caption, chart.more) if t))}</p></div>")


def result_chart_pdf(pdf: Any, record: dict[str, Any], s: dict[str, Any], width: float,
                     drawn: dict[str, bytes] | None = None) -> None:
    """The chart as an image in the PDF, with its caption, on one page. ``drawn`` keeps the
    PNG once made (a block kept together is laid out twice: tried, then drawn)."""
    chart = result_chart(record, s)
    if chart is None:
        return
    drawn = {} if drawn is None else drawn
    png = drawn.get("png")
    if png is None:
        png = drawn["png"] = report_chart_png(chart)
    w = min(width, 130.0)
    h = w * (2.4 if chart.shape == "bars" else 1.5) / 6.0  # chart_png's aspect
    if pdf.will_page_break(h + 8):
        pdf.add_page()
    pdf.image(io.BytesIO(png), w=w, h=h)
    pdf.set_font("DejaVu", "", 7.5)
    pdf.multi_cell(width, 3.75, " ".join(t for t in (chart.caption, chart.more) if t),
                   align="L")
    pdf.ln(2)


