"""planner_app from Python: load or build a plan, check it, release it, open and verify a
bundle and read its results as a pandas DataFrame. See docs/api.md for an example of each.

Every function calls the core functions the command line calls (``planner-app check``,
``release``, ``verify``, ``report``) with the same rules of the app home (its settings, its
ledger, its installed policy, its trusted keys); none decides anything of its own. Errors are
the core's ``PlannerError`` types with the command line's one-line messages: ``InputError``
for bad input (the CLI's exit 2), ``BudgetExceeded``, ``ApprovalRequired`` and
``PolicyRefused`` for refusals (exit 3), ``LedgerError`` and ``AuditError`` when the ledger
or audit log cannot be used (exit 4), ``NotABundle`` for a file that is not a bundle.

``home``: the app home's folder (settings, ledger, audit log, keys), or ``per_user_home()``;
default, as for the command line, ``$PLANNER_APP_HOME``, else the per-user app folders.
Only ``release`` writes to it (it charges the ledger); the other functions only read it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from .core.model import Plan
from .core.planning.check import CheckReport
from .core.records.audit import AuditError
from .core.records.ledger import BudgetExceeded, LedgerError
from .core.records.policy import PolicyError, PolicyRefused
from .core.records.review import ApprovalRequired
from .core.release.bundle import NotABundle, Verdict
from .core.release.publish import PublishResult
from .core.support.errors import InputError, PlannerError
from .core.support.home import AppHome

if TYPE_CHECKING:
    import pandas as pd

    from .core.release.opened_bundle import OpenedBundle

__all__ = [
    "ApprovalRequired", "AuditError", "BudgetExceeded", "Bundle", "BundleNotValid",
    "AppHome", "CheckReport", "InputError", "LedgerError", "NotABundle", "Picture", "Plan",
    "PlannerError", "PolicyError", "PolicyRefused", "PublishResult", "Verdict",
    "accuracy_charts", "accuracy_table", "belief_chart", "check", "load_plan", "open_bundle",
    "per_user_home", "plan_from_dict", "release", "result_charts", "results", "save_plan",
    "starter_plan", "total_line", "verify",
]

PathLike = Union[str, "os.PathLike[str]"]
HomeLike = Union[str, "os.PathLike[str]", AppHome]
PlanLike = Union[Plan, str, "os.PathLike[str]"]


class BundleNotValid(PlannerError):
    """The bundle failed verification: its results are not given (``planner-app report``
    refuses such a bundle too, exit 1)."""


@dataclass(frozen=True)
class Picture:
    """A chart as PNG bytes; a notebook shows it (``_repr_png_``), ``save`` writes it."""

    png: bytes = field(repr=False)
    title: str = ""
    caption: str = ""  # what the chart shows, in the words the app and the report use

    def __repr__(self) -> str:
        return f"<Picture {self.title!r}: {len(self.png):,} bytes of PNG>"

    def _repr_png_(self) -> bytes:
        return self.png

    def save(self, path: PathLike) -> Path:
        """Write the PNG to ``path`` (atomically) and return the path."""
        from .core.support.files import atomic_write_bytes

        atomic_write_bytes(Path(path), self.png, overwrite=True)
        return Path(path)


def _home(home: PathLike | AppHome | None) -> AppHome:
    from .core.support.home import app_home

    return home if isinstance(home, AppHome) else app_home(home)


def per_user_home() -> AppHome:
    """The app home in this user's app folders, as ``home=``: the command line's home when
    neither ``--home`` nor $PLANNER_APP_HOME is given (whatever $PLANNER_APP_HOME says
    where Python runs). A notebook written without a home uses it."""
    from .core.support.home import per_user_home as folders

    return folders()


def _overwrite_words() -> contextlib.AbstractContextManager[None]:
    """An existing output's refusal says ``overwrite=True``, this API's word for --force."""
    from .core.support.files import overwrite_named

    return overwrite_named("overwrite=True")


def _plan(plan: PlanLike) -> Plan:
    return plan if isinstance(plan, Plan) else load_plan(plan)


def _plan_name(plan: PlanLike) -> str:
    """The plan's file name for its errors (the CLI names the file as given), else "plan"."""
    return "plan" if isinstance(plan, Plan) else Path(plan).name


# ----------------------------------------------------------------------------- plans


def load_plan(path: PathLike) -> Plan:
    """The plan in a plan file (JSON), validated as ``planner-app check`` reads it."""
    from .core.planfile import load_plan as load

    return load(path)


def plan_from_dict(document: Mapping[str, Any]) -> Plan:
    """A plan from its JSON document as a dict (the plan file's format, docs/plan-format.md),
    validated as a plan file is."""
    from .core.planfile import plan_from_dict as from_dict

    return from_dict(dict(document))


def starter_plan(data: PathLike, dataset: str | None = None) -> dict[str, Any]:
    """A starter plan's document from a table's column names and types, as ``planner-app
    plan new`` writes it: no bound, category or key is read from the data; fill them in (and
    each reason in place of its TODO) before ``plan_from_dict``."""
    from .core.data.tables import describe_columns, open_table
    from .core.planning.starters import starter_from_columns

    table = open_table(data)
    starter = starter_from_columns(dataset or Path(data).stem, Path(data).name,
                                   describe_columns(table))
    return dict(starter.document)


def save_plan(plan: Plan, path: PathLike, overwrite: bool = False) -> Path:
    """Write ``plan`` as a plan file (never over an existing file unless ``overwrite``)."""
    from .core.planfile import plan_to_json
    from .core.support.files import atomic_write_text, check_output_path

    with _overwrite_words():
        out = check_output_path(Path(path), overwrite=overwrite)
        atomic_write_text(out, plan_to_json(plan), overwrite=overwrite)
    return out


# ----------------------------------------------------------------------------- check


def check(plan: PlanLike, data: PathLike | None = None, *, confidence: float | None = None,
          require_approval: bool = False, trust: Sequence[PathLike] = (),
          engine: str = "duckdb", home: HomeLike | None = None,
          discovery: Sequence[PathLike] = ()) -> CheckReport:
    """What ``planner-app check PLAN [--data TABLE]`` computes: each statistic's noise and
    accuracy, the composed ε and δ, and the release rules of the app home (``report.ready``,
    ``report.readiness``). ``confidence``: of the ± (default: the home's setting, 0.95 unless
    changed). ``trust``: public key files an approval must be signed by. ``discovery``: the
    discovery bundles the plan's lists and bounds say they were found in (refused, as by the
    command line's --discovery, when missing or different). Writes nothing."""
    from .core.data.tables import open_table
    from .core.release.home_check import check_in_home, naming_plan_file

    loaded = _plan(plan)
    table = open_table(data) if data is not None else None
    with naming_plan_file(_plan_name(plan)):
        return check_in_home(loaded, table, _home(home), confidence=confidence,
                             require_approval=require_approval, trust_files=list(trust),
                             engine=engine, discoveries=[Path(p) for p in discovery])


def accuracy_table(report: CheckReport) -> pd.DataFrame:
    """One row per statistic (indexed by its id): kind, mechanism, ε, δ, the ± at the
    confidence (``half_width``, in ``unit``: a share's ± is a share, 0.05 = 5 points) and the
    noise's scale or σ, as ``check --json`` states them."""
    import pandas as pd

    rows = []
    for q in report.to_dict()["queries"]:
        acc = q["accuracy"]
        rows.append({"statistic": q["id"], "kind": q["kind"], "mechanism": q["mechanism"],
                     "epsilon": q["epsilon"], "delta": q["delta"],
                     "half_width": acc["half_width"], "confidence": acc["confidence"],
                     "noise": q.get("sigma", q.get("scale")), "unit": acc["unit"]})
    table: pd.DataFrame = pd.DataFrame(rows).set_index("statistic")
    return table


def total_line(report: CheckReport) -> str:
    """The composed total in the words ``planner-app check`` prints."""
    from .core.support.words import composed_total_words

    t = report.total
    return composed_total_words(t.epsilon, t.delta, t.accountant, report.fits_budget)


def belief_chart(report: CheckReport) -> Picture:
    """What the plan's total ε (and δ) means for one person: the highest and lowest belief
    an attacker can hold after the release, for every belief before (the report's chart)."""
    from .core.dp.risk import explain as risk_words
    from .core.release.report import chart_png

    t = report.total
    return Picture(chart_png(t.epsilon, t.delta), "What this ε means for a person",
                   risk_words(t.epsilon, t.delta, relation=report.plan.neighbouring).sentence)


def accuracy_charts(report: CheckReport) -> list[Picture]:
    """Each statistic's planned accuracy drawn as the app's preview draws it (an
    illustration from the plan, not the data)."""
    from .core.planning.charts import chart_png
    from .core.release.consistent import headline_preview

    pictures = []
    measurements = {c.query.id: c.measurements for c in report.queries}
    for c in report.queries:  # the consistent values' ± when they are the headline values
        chart = headline_preview(c.query, report.plan, c.accuracy, measurements,
                                 c.accuracy.confidence)
        pictures.append(Picture(chart_png(chart), c.query.title,
                                " ".join(p for p in (chart.caption, chart.more) if p)))
    return pictures


# ----------------------------------------------------------------------------- release


def release(plan: PlanLike, data: PathLike, out: PathLike, *,
            confidence: float | None = None, clamp_counts: bool = False,
            overwrite: bool = False, require_approval: bool = False,
            trust: Sequence[PathLike] = (), sign_with: str | None = None,
            passphrase: str | None = None, engine: str = "duckdb",
            home: HomeLike | None = None, discovery: Sequence[PathLike] = ()
            ) -> PublishResult:
    """``planner-app release PLAN --data TABLE --out OUT``: check every rule, charge the app
    home's ledger, draw the noise once and write the signed-or-not bundle ``out``. A refusal
    (budget, approval, policy) raises before anything is charged. ``sign_with``: a key of the
    app home (``passphrase`` for it, else $PLANNER_APP_PASSPHRASE). ``discovery``: as for
    ``check``, checked before the charge."""
    from .core.data.tables import open_table
    from .core.release.home_check import naming_plan_file, release_in_home

    target = _home(home)
    loaded = _plan(plan)
    table = open_table(data)
    key = None
    if sign_with is not None:  # the key and its passphrase before the charge
        from .core.records.keys import KeyStore

        key = KeyStore(target).secret(sign_with, None if passphrase is None
                                      else (lambda _name: passphrase), "sign_with")
    inputs = [Path(data)] + ([] if isinstance(plan, Plan) else [Path(plan)])
    with naming_plan_file(_plan_name(plan)), _overwrite_words():
        return release_in_home(loaded, table, Path(out), target, confidence=confidence,
                               clamp_counts=clamp_counts, overwrite=overwrite,
                               require_approval=require_approval, trust_files=list(trust),
                               inputs=inputs, sign_with=key, engine=engine,
                               discoveries=[Path(p) for p in discovery])


# ----------------------------------------------------------------------------- bundles


@dataclass
class Bundle:
    """A bundle, verified and opened (``open_bundle``). ``verdict``: verify's; ``record``:
    release.json (None when the bundle is not valid)."""

    path: Path
    verdict: Verdict
    opened: OpenedBundle
    record: dict[str, Any] | None

    @property
    def valid(self) -> bool:
        return self.verdict.valid

    @property
    def results(self) -> pd.DataFrame:
        """Every released cell with its interval: results.csv's columns (``value``, ``low``,
        ``high`` as numbers), one row per cell, in release order; any further column a
        statistic's results carry follows them. A release with consistent values
        (``planner-app/release@3``) adds results.csv's ``consistent``, ``consistent_low`` and
        ``consistent_high`` (NaN for a statistic in no relation); ``frame.attrs["headline"]``
        (as ``headline``) says which are the headline values. Raises BundleNotValid for a
        bundle that did not verify."""
        return _frame(self._record())

    @property
    def headline(self) -> str:
        """Which values the plan made the headline ones: ``"consistent"`` (the columns
        ``consistent``, ``consistent_low``, ``consistent_high``) or ``"raw"`` (``value``,
        ``low``, ``high``; always so for a release without consistent values)."""
        return _headline(self._record())

    @property
    def headline_words(self) -> str:
        """Which columns of ``results`` hold the headline values, in a sentence."""
        from .core.release.consistent import results_headline_words

        return results_headline_words(self._record())

    def _record(self) -> dict[str, Any]:
        if self.record is None:
            raise BundleNotValid(f"{self.path.name}: NOT valid, so no results: "
                                 f"{self.verdict.problems[0] if self.verdict.problems else ''}")
        return self.record


def verify(bundle: PathLike, trust: Sequence[PathLike] = (),
           discovery: Sequence[PathLike] = ()) -> Verdict:
    """``planner-app verify BUNDLE [--trust OWNER.pub] [--discovery D.zip]``: the verdict
    (``.valid``, ``.problems``, ``.checks``, ``.not_checked``); with ``trust``, the signature
    must be by one of those keys; with ``discovery``, the lists and bounds the plan says were
    found privately are checked against those discovery bundles (without them the bundle
    stays valid and ``.not_checked`` says what was not checked). Raises NotABundle for a
    file that is not a bundle at all, InputError for a discovery bundle the plan does not
    name."""
    from .core.records.keys import load_trusted
    from .core.release.discovery_verdict import with_discoveries
    from .core.release.verify_release import verify_bundle

    path = Path(bundle)
    verdict = verify_bundle(path, trusted=load_trusted(list(trust)))
    with_discoveries(verdict, path, [Path(p) for p in discovery])
    return verdict


def open_bundle(bundle: PathLike, trust: Sequence[PathLike] = (),
                discovery: Sequence[PathLike] = ()) -> Bundle:
    """Verify a bundle (as ``verify``, ``discovery`` included) and open it: its results
    (``.results``), its plan and release record. A bundle that fails verification opens
    with ``valid`` false."""
    from .core.records.keys import load_trusted
    from .core.release.bundle import RECORD, bundle_json, read_bundle
    from .core.release.discovery_verdict import with_discoveries
    from .core.release.opened_bundle import open_bundle as open_verified

    path = Path(bundle)
    opened = open_verified(path, load_trusted(list(trust)))
    with_discoveries(opened.verdict, path, [Path(p) for p in discovery])
    record = bundle_json(read_bundle(path)[RECORD]) if opened.verdict.valid else None
    return Bundle(path, opened.verdict, opened, record)


def results(bundle: PathLike, trust: Sequence[PathLike] = (),
            discovery: Sequence[PathLike] = ()) -> pd.DataFrame:
    """``open_bundle(bundle, trust, discovery).results``: the released values with their
    intervals."""
    return open_bundle(bundle, trust, discovery).results


def result_charts(bundle: Bundle) -> list[Picture]:
    """Each released statistic's values with their intervals, drawn as the bundle's report
    draws them (its first charts; results has every value)."""
    from .core.planning.charts import chart_png
    from .core.release.report import result_charts as charts

    return [Picture(chart_png(chart), title,
                    " ".join(p for p in (chart.caption, chart.more) if p))
            for title, chart in charts(bundle._record())]


def _frame(record: dict[str, Any]) -> pd.DataFrame:
    import pandas as pd

    from .core.release.bundle import RESULT_COLUMNS
    from .core.release.consistent import CONSISTENT_COLUMNS, consistent_columns
    from .core.release.result_columns import tables_of

    consistent = consistent_columns(record)  # release@3: results.csv's three more columns
    added = CONSISTENT_COLUMNS if consistent is not None else ()
    parts = []
    for table in tables_of(record).values():
        extra = [c for c in (*table.same, *table.columns) if c not in RESULT_COLUMNS]
        names = [*RESULT_COLUMNS, *dict.fromkeys(extra)]
        columns = {c: table.column(c) for c in names}
        mine = (consistent or {}).get(table.query_id)
        for c in added:
            columns[c] = list(mine[c]) if mine is not None else [None] * table.n
        parts.append(pd.DataFrame(columns))
    if not parts:
        empty: pd.DataFrame = pd.DataFrame(columns=[*RESULT_COLUMNS, *added])
        empty.attrs["headline"] = _headline(record)
        return empty
    frame: pd.DataFrame = pd.concat(parts, ignore_index=True)
    for name in ("value", "low", "high", "confidence", *added):
        frame[name] = pd.to_numeric(frame[name], errors="coerce")
    frame.attrs["headline"] = _headline(record)
    return frame


def _headline(record: dict[str, Any]) -> str:
    c = record.get("consistency")
    return "consistent" if isinstance(c, dict) and c.get("headline") == "consistent" else "raw"
