"""The app's steps of a discovery (issue 25, gui25), Qt-free so that the app decides nothing
of its own: the one-statistic discovery plan an owner's "Find … privately" makes from the
plan being edited, what it will cost and publish (from the kind, on public parameters only:
never the data), its output written into a statistic as ``plan apply-discovery`` writes it,
and the release checklist's line for the discovery bundles given (``require_discoveries``,
the rule ``check --discovery`` and ``release --discovery`` apply)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..dp.accuracy import format_half_width
from ..kinds.discover_bounds import DEFAULT_QUANTILES
from ..model import Plan
from ..planfile import plan_from_dict, plan_to_dict
from ..planning.check import check_plan
from ..support.errors import InputError
from ..support.home import AppHome
from ..support.numbers import shown
from ..support.words import (
    BOUNDS_ROWS_HOW_APP,
    BOUNDS_ROWS_HOW_CLI,
    BOUNDS_ROWS_STATED_APP,
    BOUNDS_ROWS_STATED_CLI,
    format_number,
)
from .discovery import (
    PLACEHOLDER,
    DiscoveryBundle,
    apply_discovery,
    named_discoveries,
    read_discovery,
    require_discoveries,
)

#: what a "Find … privately" finds: a list of keys, or a lower and an upper bound
KEYS, BOUNDS = "keys", "bounds"
#: the plan keys a discovery plan takes from the plan being edited (its dataset, who one
#: person is, the neighbouring relation); never its statistics, approvals or relations
KEPT = ("format", "dataset", "privacy_unit", "neighbouring")


@dataclass(frozen=True)
class FindRequest:
    """What the owner asked to find: the column, the cost, and the kind's public fields."""

    finds: str  # KEYS or BOUNDS
    column: str
    epsilon: float
    delta: float = 0.0  # a discovery of keys only (its threshold's δ)
    max_keys: int = 1
    publish_counts: bool = False
    lower: float | None = None  # a discovery of bounds: the wide public grid searched
    upper: float | None = None
    quantiles: tuple[float, float] = DEFAULT_QUANTILES
    grid_reason: str = ""  # why the grid is public (the bounds' reason of the discovery)

    @property
    def statistic(self) -> str:
        """The discovery statistic's id: what it finds, of which column."""
        safe = "".join(c if c.isalnum() or c in "_.-" else "_" for c in self.column)[:40]
        return f"{safe or 'column'}_{self.finds}"


def discovery_plan(main: Plan, request: FindRequest) -> Plan:
    """The discovery plan of one statistic for ``main``'s dataset (InputError, naming the
    field, when the request is not a valid discovery: the plan's own rules)."""
    doc = {k: v for k, v in plan_to_dict(main).items() if k in KEPT}
    q: dict[str, Any] = {"id": request.statistic, "column": request.column,
                         "epsilon": request.epsilon,
                         "label": f"{request.column}: {request.finds} found privately"}
    if request.finds == KEYS:
        q.update({"kind": "discover_keys", "mechanism": "laplace_threshold",
                  "delta": request.delta, "max_keys": request.max_keys})
        if request.publish_counts:
            q["publish_counts"] = True
    elif request.finds == BOUNDS:
        q.update({"kind": "discover_bounds", "lower": request.lower, "upper": request.upper,
                  "quantiles": list(request.quantiles)})
        if request.grid_reason.strip():
            q["justification"] = {"bounds": request.grid_reason.strip()}
    else:
        raise InputError("discovery", "finds", f"must be {KEYS!r} or {BOUNDS!r}")
    doc["budget"] = {"epsilon": request.epsilon,
                     "delta": request.delta if request.delta > 0 else main.budget.delta}
    doc["queries"] = [q]
    doc["justification"] = (f"Discovery of the {request.finds} of {request.column} for "
                            f"{main.dataset.name}, made in the app")
    return plan_from_dict(doc, "discovery")


@dataclass(frozen=True)
class FindPreview:
    """What a discovery will cost and publish, in words (public parameters only)."""

    cost: str
    publishes: str
    chances: list[str]
    #: disc25c: what the plan's public numbers say may go wrong (bounds on a small table)
    warnings: list[str] = field(default_factory=list)


def find_preview(main: Plan, request: FindRequest, confidence: float) -> FindPreview:
    """The sentences the app's "Find … privately" dialog shows before anything is spent:
    the kind's own accuracy note and check lines (its threshold and the chance a key of n
    people is found, or each bound's rank error), computed from the plan's public parameters
    (ε, δ, the rows a person may have), never from the table."""
    plan = discovery_plan(main, request)
    report = check_plan(plan, confidence=confidence)
    (checked,) = report.queries
    total = report.total
    cost = (f"Cost: ε = {shown(total.epsilon)}"
            + (f", δ = {total.delta:.3g}" if total.delta else "")
            + f", charged to the lifetime budget of {main.dataset.name!r} like any release.")
    from ..kinds.registry import kind_of

    kind = kind_of(checked.query)
    lines = [line for line in kind.check_lines(checked.query, plan,
                                               checked.accuracy.to_dict()) if line]
    if request.finds == KEYS:
        publishes = (f"Published: the values of {request.column} held by enough people, "
                     "sorted by their text"
                     + (", each with its noised count" if request.publish_counts else
                        " (their counts are not published)")
                     + "; nothing about the values not found (not their number).")
        chances = [_first_upper(line) for line in lines]
    else:
        lo, hi = request.quantiles
        publishes = (f"Published: a lower and an upper bound of {request.column}, grid "
                     f"points near its {format_number(lo)} and {format_number(hi)} quantiles, "
                     f"searched between {format_number(request.lower or 0)} and "
                     f"{format_number(request.upper or 0)}.")
        first, *more = lines
        chances = [_first_upper(first) + f": {format_half_width(checked.accuracy)} (a "
                   "rank is a row's place in the column sorted by value)."]
        # walk25c: the app's field for the public row count, not the plan file's
        chances += [_first_upper(line.replace(BOUNDS_ROWS_HOW_CLI, BOUNDS_ROWS_HOW_APP)) + "."
                    for line in more]
    warnings = [_first_upper(w.replace(BOUNDS_ROWS_STATED_CLI, BOUNDS_ROWS_STATED_APP)) + "."
                for w in kind.plan_warnings(checked.query, plan, checked.accuracy)]
    return FindPreview(cost, publishes, chances, warnings)


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def found_into_statistic(query: dict[str, Any], field: str, bundle: DiscoveryBundle,
                         statistic: str, main: Plan) -> dict[str, Any]:
    """The statistic's plan JSON (``query``) with ``bundle``'s discovery ``statistic`` written
    into ``field`` ("categories", "keys" or "bounds") and that field's reason set, exactly as
    ``plan apply-discovery`` writes it (apply_discovery: the same checks of dataset, column
    and kind; InputError naming the field otherwise)."""
    q = dict(query)
    name = f"{PLACEHOLDER}{statistic}"
    if field == "categories":
        q["categories"] = name
    elif field == "keys":
        q["group_by"] = {**dict(q.get("group_by") or {}), "keys": name}
    elif field == "bounds":
        q["lower"] = q["upper"] = name
    else:
        raise InputError("statistic", field, "is not a list or bounds a discovery finds")
    doc = {"dataset": {"name": main.dataset.name}, "queries": [q]}
    applied, _done = apply_discovery(doc, bundle, "statistic")
    out: dict[str, Any] = applied["queries"][0]
    return out


def discovery_item(plan: Plan, paths: Sequence[Path], home: AppHome
                   ) -> tuple[bool, str] | None:
    """The release checklist's line for the plan's lists and bounds found privately: None
    when the plan names none and no bundle is given; else (ok, line), the line being the
    refusal of ``require_discoveries`` (the one rule of check and release --discovery) or
    what holds."""
    if not named_discoveries(plan) and not paths:
        return None
    try:
        bundles = require_discoveries(plan, list(paths), "plan", home)
    except InputError as exc:
        return False, in_app(str(exc))
    names = ", ".join(b.path.name for b in bundles)
    return True, (f"Every list or bound found privately equals its discovery bundle's output "
                  f"({names})")


#: the command line's words for giving a discovery bundle, and the app's
APP_WORDS = (("with --discovery BUNDLE.zip", "with “Discovery bundles…” in the release "
                                             "checklist"),
             ("(give --discovery only for a discovery the plan names)",
              "(give only the discovery bundles the plan names)"),
             ("(run planner-app discover in this app home)",
              "(find it privately in this app home)"))


def in_app(text: str) -> str:
    """A discovery refusal in the app's words: its controls, not the command line's flags."""
    for cli, app in APP_WORDS:
        text = text.replace(cli, app)
    return text


# -- the app's "Find … privately" dialog: its words, beside the rule ----------------------

#: what each button of the statistic form finds, into which field ("Find the … privately…")
FIND_WHAT = {"categories": ("categories", KEYS), "keys": ("group keys", KEYS),
             "bounds": ("bounds", BOUNDS)}


def find_button_text(field: str) -> str:
    return f"Find the {FIND_WHAT[field][0]} privately…"


def find_title(field: str, column: str) -> str:
    return f"Find the {FIND_WHAT[field][0]} of {column or '(no column)'} privately"


FIND_INTRO = (
    "A discovery is a release of its own: it is charged to the dataset's lifetime budget "
    "now, its result is written to a bundle (signed, if you sign releases), and the list or "
    "bounds it finds are "
    "written into the statistic with the reason “found privately in release …”. Prefer a "
    "public list (an official classification, a form's options) when one exists: it costs "
    "nothing and keeps the rare values.")
FIND_GRID_TIP = ("A wide range known without the data (the bounds are chosen inside it): "
                 "values outside it are clamped")
FIND_NO_TABLE = "Open the table first (File → Open table…): a discovery reads it."
FIND_NO_COLUMN = "Choose the column first: the discovery finds its values."
FIND_APPROVAL_ADVICE = (
    "Nothing was charged. Save the discovery plan (“Save the discovery plan…”), send it to "
    "your privacy officer to review and sign, then open the plan they send back with “Use an "
    "approved discovery plan…” and find again.")
FIND_DONE = "Found privately in release {release} and written into the statistic: {what}."
# walk25: a bundle name typed that exists already is replaced only when the owner says so
FIND_REPLACE_TITLE = "Replace the bundle?"
FIND_REPLACE = "{name} already exists in {folder}. Replace it with this discovery's bundle?"
# walk25: the keys of a column found already for this plan are used again, at no cost
FIND_AGAIN_TITLE = "The keys of {column} were found already"
FIND_AGAIN = (
    "{count} keys of {column} were found privately in release {release} (ε = {epsilon}, "
    "δ = {delta}) for this plan. Use them again? It costs nothing: they are published "
    "already. Finding them again would charge the dataset's budget a second time, and a "
    "second noised list of the same column tells more about its rarer values than one.")


def keys_found_before(paths: Sequence[Path], dataset: str, column: str
                      ) -> tuple[Path, DiscoveryBundle, str] | None:
    """The latest of ``paths`` (discovery bundles kept for the plan) that found the keys of
    ``column`` in ``dataset``, with its statistic; None when none did (a bundle that no
    longer reads is passed over: finding again stays possible)."""
    for path in reversed(paths):
        try:
            bundle = read_discovery(path)
        except (InputError, OSError):
            continue
        if bundle.dataset != dataset:
            continue
        for f in bundle.found.values():
            if f.keys and f.column == column:
                return path, bundle, f.statistic
    return None


def found_again_question(bundle: DiscoveryBundle, statistic: str) -> tuple[str, str]:
    """The title and the question that offer the keys ``bundle`` found, again."""
    f = bundle.found[statistic]
    return (FIND_AGAIN_TITLE.format(column=f.column),
            FIND_AGAIN.format(count=len(f.keys or ()), column=f.column,
                              release=bundle.release_id, epsilon=shown(f.epsilon),
                              delta=f"{f.delta:.3g}"))


def approved_plan_problem(plan: Plan, request: FindRequest, main: Plan) -> str | None:
    """Why an approved discovery plan the owner opens cannot stand for this "Find …": it must
    hold one discovery of the same kind, of the same column, for the same dataset (checked
    before anything is charged)."""
    from .discovery import discovery_plan_problem

    problem = discovery_plan_problem(plan)
    if problem:
        return problem
    if plan.dataset.name != main.dataset.name:
        return (f"is a plan of dataset {plan.dataset.name!r}, not of {main.dataset.name!r}: "
                "a discovery is charged to one dataset and used for it")
    kinds = {KEYS: "discover_keys", BOUNDS: "discover_bounds"}
    if len(plan.queries) != 1 or plan.queries[0].kind != kinds[request.finds] or \
            plan.queries[0].column != request.column:
        return (f"must hold one {kinds[request.finds]} statistic of the column "
                f"{request.column!r}, the one this button finds")
    return None
