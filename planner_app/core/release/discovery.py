"""A discovery's outputs flowing into a later plan (issue 25): ``plan apply-discovery`` writes
the keys and bounds a discovery bundle released into the statistics of a plan that name them,
and ``check``/``verify`` confirm that a list which says it was found privately equals that
bundle's output.

A plan names a discovery in place of the value it needs: ``"categories": "discovered:ID"``,
``"group_by": {"column": ..., "keys": "discovered:ID"}`` or ``"lower"``/``"upper":
"discovered:ID"``, ID being the discovery statistic's id in the bundle. Applying it writes the
value and, as that field's reason (``justification``), the sentence ``found privately in
release R (ε = …, δ = …); bundle manifest SHA-256 H, statistic ID``: the officer's review and
the report show it as they show every reason, and it is what check and verify read back.

Only a verified bundle is used, and only its released values (never the data): applying a
discovery is post-processing of a release already charged to the dataset's ledger.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..kinds.registry import KINDS, kind_of
from ..kinds.shared_release import FOUND_PRIVATELY
from ..model import Plan, canonical_key
from ..planfile import plan_from_dict, read_plan_document
from ..support.errors import InputError
from ..support.home import AppHome
from ..support.numbers import shown
from .bundle import MANIFEST, PLAN, RECORD, bundle_json, read_bundle, sha256_bytes
from .result_columns import tables_of
from .verify_release import verify_bundle

#: how a plan names a discovery in place of a value ("discovered:jobs")
PLACEHOLDER = "discovered:"
#: the reason written beside a value found privately, and read back by check and verify
REFERENCE = re.compile(
    r"found privately in release (?P<release>\S+) \(ε = [^)]*\); bundle manifest SHA-256 "
    r"(?P<manifest>[0-9a-f]{64}), statistic (?P<statistic>[A-Za-z0-9_.-]{1,64})")
#: the reasons (justification keys) a discovered value may stand behind
FIELDS = ("categories", "keys", "bounds")


@dataclass(frozen=True)
class FoundValues:
    """One discovery statistic's output: its keys (a discovery of keys) or its bounds."""

    statistic: str
    kind: str
    column: str
    keys: tuple[str, ...] | None
    bounds: tuple[float, float] | None
    epsilon: float
    delta: float


@dataclass(frozen=True)
class DiscoveryBundle:
    """A verified discovery bundle: its release id, manifest hash, dataset and outputs."""

    path: Path
    release_id: str
    manifest_sha256: str
    dataset: str
    found: dict[str, FoundValues]

    def found_dict(self) -> dict[str, dict[str, Any]]:
        """What each discovery found, for --json (walk25c): its column, its keys or its
        bounds, and its ε and δ (its published output only)."""
        out: dict[str, dict[str, Any]] = {}
        for f in self.found.values():
            entry: dict[str, Any] = {"kind": f.kind, "column": f.column,
                                     "epsilon": f.epsilon, "delta": f.delta}
            if f.bounds is not None:
                entry["bounds"] = list(f.bounds)
            else:
                entry["keys"] = list(f.keys or ())
            out[f.statistic] = entry
        return out

    def reason(self, statistic: str) -> str:
        f = self.found[statistic]
        return (f"{FOUND_PRIVATELY}{self.release_id} (ε = {shown(f.epsilon)}, "
                f"δ = {f.delta:.3g}); bundle manifest SHA-256 {self.manifest_sha256}, "
                f"statistic {statistic}")


#: a discovery of keys none of whose keys cleared the threshold (apply-discovery, discover)
NO_KEY_FOUND = ("found no key above its threshold: there is no list to use (declare a "
                "public list, or discover again with more ε)")
#: how many keys ``found_lines`` names before it says how many more there are
KEYS_SHOWN = 12


def found_lines(bundle: DiscoveryBundle) -> list[str]:
    """What each discovery of the bundle found, one line each (its published output only),
    for the owner who ran ``discover``: a discovery that found no key says so at once."""
    lines = []
    for f in bundle.found.values():
        if f.bounds is not None:
            lines.append(f"{f.statistic} found the bounds of {f.column}: "
                         f"{shown(f.bounds[0])} to {shown(f.bounds[1])}")
        elif not f.keys:
            lines.append(f"{f.statistic} {NO_KEY_FOUND}")
        else:
            more = len(f.keys) - KEYS_SHOWN
            named = ", ".join(f.keys[:KEYS_SHOWN]) + (f" and {more} more" if more > 0 else "")
            lines.append(f"{f.statistic} found {len(f.keys)} key"
                         f"{'s' if len(f.keys) != 1 else ''} of {f.column}: {named}")
    return lines


def read_discovery(path: Path) -> DiscoveryBundle:
    """A discovery bundle, verified first (InputError naming the file when it is not a valid
    bundle or holds no discovery)."""
    from .bundle import NotABundle

    name = str(path)
    try:
        verdict = verify_bundle(path)
    except NotABundle as exc:  # its message names the file already
        raise exc.input_error(path) from None
    if not verdict.valid:
        raise InputError(name, None, f"is not a valid release bundle: {verdict.problems[0]}")
    files = read_bundle(path)
    record = bundle_json(files[RECORD])
    plan = plan_from_dict(bundle_json(files[PLAN]), PLAN)
    tables = tables_of(record)
    found: dict[str, FoundValues] = {}
    for q in plan.queries:
        if not kind_of(q).is_discovery:
            continue
        table = tables[q.id]
        cells = table.column("cell")
        values = table.column("value")
        finds = kind_of(q).discovers
        keys = tuple(str(c) for c in cells) if finds == "keys" else None
        bounds = (float(values[0]), float(values[1])) if finds == "bounds" else None
        found[q.id] = FoundValues(q.id, q.kind, q.column or "", keys, bounds, q.epsilon,
                                  q.delta)
    if not found:
        raise InputError(name, None, "holds no discovery (no discover_keys or discover_bounds "
                                     "statistic)")
    return DiscoveryBundle(path, str(record["release_id"]), sha256_bytes(files[MANIFEST]),
                           plan.dataset.name, found)


def _named(value: Any) -> str | None:
    """The discovery statistic a plan value names ("discovered:ID"), else None."""
    if isinstance(value, str) and value.startswith(PLACEHOLDER):
        return value[len(PLACEHOLDER):].strip()
    return None


def apply_discovery(doc: dict[str, Any], bundle: DiscoveryBundle, source: str
                    ) -> tuple[dict[str, Any], list[str]]:
    """The plan document with every value that names one of ``bundle``'s discoveries
    replaced by it, and that field's reason set; and what was applied, in words. InputError
    (naming the plan file and the field) for a name the bundle does not hold, a discovery of
    the wrong kind or column, or a plan of another dataset."""
    queries = doc.get("queries")
    if not isinstance(queries, list):
        raise InputError(source, "queries", "must be a list of statistics")
    dataset = (doc.get("dataset") or {}).get("name") if isinstance(doc.get("dataset"),
                                                                   dict) else None
    done: list[str] = []
    for i, q in enumerate(queries):
        if not isinstance(q, dict):
            continue
        where = f"queries[{q.get('id', i)}]"
        for field, statistic, column in _placeholders(q, source):
            found = bundle.found.get(statistic)
            if found is None:
                held = ", ".join(sorted(bundle.found))
                raise InputError(source, f"{where}.{field}", f"names discovery {statistic!r}, "
                                 f"which {bundle.path.name} does not hold (it holds: {held})")
            if dataset != bundle.dataset:
                raise InputError(source, "dataset.name", f"is {dataset!r}, but "
                                 f"{bundle.path.name} is a release of {bundle.dataset!r}: a "
                                 "discovery is charged to one dataset and used for it")
            if column != found.column:
                raise InputError(source, f"{where}.{field}", f"reads column {column!r}, but "
                                 f"discovery {statistic!r} found values of {found.column!r}")
            done.append(_apply(q, field, found, bundle.reason(statistic), source, where))
    return doc, done


def _placeholders(q: dict[str, Any], source: str) -> list[tuple[str, str, str]]:
    """(field, discovery id, column read) for each value of one statistic naming one."""
    out = []
    name = _named(q.get("categories"))
    if name is not None:
        out.append(("categories", name, str(q.get("column"))))
    g = q.get("group_by")
    if isinstance(g, dict):
        name = _named(g.get("keys"))
        if name is not None:
            out.append(("group_by.keys", name, str(g.get("column"))))
    lower, upper = _named(q.get("lower")), _named(q.get("upper"))
    if (lower is None) != (upper is None) or (lower is not None and lower != upper):
        # fixdisc: a discovered range replaces both bounds and their one reason; a bound the
        # owner declared is never written over
        field = "upper" if lower is not None else "lower"
        raise InputError(source, f"queries[{q.get('id', '?')}].{field}",
                         f"is {q.get(field)!r} while the other bound names a discovery: a "
                         "range found privately replaces both bounds, so write the same "
                         "\"discovered:ID\" in lower and upper, or declare both yourself")
    if lower is not None:
        out.append(("lower", lower, str(q.get("column"))))
    return out


def _apply(q: dict[str, Any], field: str, found: FoundValues, reason: str, source: str,
           where: str) -> str:
    reasons = q.get("justification")
    if not isinstance(reasons, dict):
        reasons = {}
    if field in ("categories", "group_by.keys"):
        if found.keys is None:
            raise InputError(source, f"{where}.{field}", f"names {found.statistic!r}, a "
                             "discovery of bounds, not of keys")
        if not found.keys:
            raise InputError(source, f"{where}.{field}", f"discovery {found.statistic!r} "
                             f"{NO_KEY_FOUND}")
        if field == "categories":
            q["categories"] = list(found.keys)
            reasons["categories"] = reason
        else:
            q["group_by"]["keys"] = list(found.keys)
            reasons["keys"] = reason
        q["justification"] = reasons
        return f"{where}.{field}: {len(found.keys)} keys from {found.statistic}"
    if found.bounds is None:
        raise InputError(source, f"{where}.{field}", f"names {found.statistic!r}, a discovery "
                         "of keys, not of bounds")
    low, high = found.bounds
    if not low < high:
        raise InputError(source, f"{where}.{field}", f"discovery {found.statistic!r} found "
                         f"the bounds {shown(low)} and {shown(high)}, which are no range: "
                         "discover again with more ε or a wider public grid")
    q["lower"], q["upper"] = low, high
    reasons["bounds"] = reason
    q["justification"] = reasons
    return f"{where}.lower, upper: {shown(low)} to {shown(high)} from {found.statistic}"


def named_discoveries(plan: Plan) -> list[tuple[str, str, str, str, str]]:
    """(statistic id, reason field, release id, manifest hash, discovery id) of every value
    of ``plan`` whose reason says it was found privately."""
    out = []
    for q in plan.queries:
        for field in FIELDS:
            m = REFERENCE.search((q.justification or {}).get(field, "") or "")
            if m is not None:
                out.append((q.id, field, m["release"], m["manifest"], m["statistic"]))
    return out


def discovery_problems(plan: Plan, bundles: list[DiscoveryBundle], source: str = "plan"
                       ) -> list[str]:
    """What is wrong with the values of ``plan`` that say they were found privately, checked
    against the given discovery bundles: each must be a given bundle (InputError naming the
    missing one: refused, not skipped), with the same manifest hash, and the declared value
    must equal that bundle's output."""
    given = {b.release_id for b in bundles}
    for qid, field, release, _manifest, _statistic in named_discoveries(plan):
        if release not in given:
            raise InputError(source, f"queries[{qid}].justification.{field}",
                             f"says it was found privately in release {release}: give that "
                             "discovery bundle with --discovery BUNDLE.zip to check it")
    return given_discovery_problems(plan, bundles)


def given_discovery_problems(plan: Plan, bundles: Sequence[DiscoveryBundle]) -> list[str]:
    """What is wrong with the values of ``plan`` found privately in one of ``bundles`` (the
    values found in a release not given are passed over: the caller decides about them)."""
    by_release = {b.release_id: b for b in bundles}
    problems = []
    for qid, field, release, manifest, statistic in named_discoveries(plan):
        b = by_release.get(release)
        if b is None:
            continue
        if b.manifest_sha256 != manifest:
            problems.append(f"{qid}: {field} names release {release} with manifest SHA-256 "
                            f"{manifest[:12]}…, but {b.path.name} has {b.manifest_sha256[:12]}…")
            continue
        found = b.found.get(statistic)
        declared = _declared(plan, qid, field)
        if found is None:
            problems.append(f"{qid}: {field}: {b.path.name} holds no discovery {statistic!r}")
        elif field == "bounds":
            if found.bounds is None or declared != found.bounds:
                problems.append(f"{qid}: the bounds {declared} are not those discovery "
                                f"{statistic!r} found ({found.bounds})")
        elif found.keys is None or declared != tuple(canonical_key(k) for k in found.keys):
            problems.append(f"{qid}: the declared {field} are not the keys discovery "
                            f"{statistic!r} found in release {release}")
    return problems


def _declared(plan: Plan, qid: str, field: str) -> Any:
    from ..kinds.params import bounds_of, cells_of

    q = plan.query(qid)
    if field == "bounds":
        return bounds_of(q)
    if field == "keys":
        return tuple(canonical_key(k) for k in (q.group_by.keys if q.group_by else ()))
    cells = cells_of(q)
    return tuple(canonical_key(k) for k in (cells.categories or ())) if cells else None


def discovery_plan_problem(plan: Plan) -> str | None:
    """Why ``planner-app discover`` refuses this plan: it must hold discoveries only."""
    others = [q.id for q in plan.queries if not kind_of(q).is_discovery]
    if others:
        kinds = ", ".join(k for k, v in KINDS.items() if v.is_discovery)
        return (f"a discovery plan holds only {kinds} statistics; "
                f"{', '.join(others[:3])}{' …' if len(others) > 3 else ''} "
                f"{'is' if len(others) == 1 else 'are'} not (release them with "
                "planner-app release)")
    return None


def load_plan_document(path: Path) -> dict[str, Any]:
    """A plan file's JSON document, as written (its discovery names not yet values), read
    as every command reads a plan file (planfile.read_plan_document)."""
    doc = read_plan_document(path)
    if not isinstance(doc, dict):
        raise InputError(str(path), None, "must be a JSON object (a plan)")
    return doc


def require_discoveries(plan: Plan, paths: Sequence[Path | str], source: str = "plan",
                        home: AppHome | None = None) -> list[DiscoveryBundle]:
    """The one rule for a plan's values that say they were found privately (fixdisc), used
    by check, release (before the charge), verify, report, the API and the app: every
    discovery the plan names must be given (``paths``) and its output must equal the declared
    value; a bundle given but not named is refused (never silently ignored); and, with
    ``home`` (check and release), the discovery must be a release of this dataset charged in
    this home's ledger, so that its ε counts against the same lifetime cap. InputError (one
    line) otherwise; the verified bundles when all is well."""
    bundles = [read_discovery(Path(p)) for p in paths]
    refuse_unneeded(plan, bundles)
    problems = discovery_problems(plan, bundles, source)
    if problems:
        raise InputError(source, None, problems[0])
    if home is not None:
        for b in bundles:
            _require_charged_here(plan, b, home)
    return bundles


def refuse_unneeded(plan: Plan, bundles: Sequence[DiscoveryBundle]) -> None:
    """InputError for a discovery bundle given that no value of ``plan`` names."""
    named = {release for _q, _f, release, _m, _s in named_discoveries(plan)}
    for b in bundles:
        if b.release_id not in named:
            raise InputError(str(b.path), None, f"is discovery release {b.release_id}, which "
                             "no list or bound of the plan says it was found in: it is not "
                             "needed (give --discovery only for a discovery the plan names)")


def _require_charged_here(plan: Plan, bundle: DiscoveryBundle, home: AppHome) -> None:
    """A discovery bundle used by a plan of this home: a release of the plan's dataset whose
    charge this home's ledger holds (by its release id). A bundle made in another home (or
    for another dataset) is refused: its ε would otherwise escape this dataset's lifetime
    cap, which the issue requires it to count against."""
    from ..records.books import ledger_for

    dataset = plan.dataset.name
    if bundle.dataset != dataset:
        raise InputError(str(bundle.path), None, f"is a release of dataset "
                         f"{bundle.dataset!r}, not of {dataset!r}: a discovery is used only "
                         "for the dataset it was charged to")
    state = ledger_for(home, for_reading=True).state_without_creating(dataset)
    held = {r.id for r in state.releases}
    if bundle.release_id not in held:
        raise InputError(str(bundle.path), None, f"is release {bundle.release_id}, which "
                         f"the ledger of this app home does not hold for {dataset!r}: a "
                         "discovery must be charged to the same dataset's lifetime budget "
                         "(run planner-app discover in this app home)")
