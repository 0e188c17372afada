"""The one verdict on a release bundle's lists and bounds found privately (disc25c), from the
bundle's plan and the discovery bundles its reader gives: ``planner-app verify`` and
``report`` (--discovery) and the app's bundle viewer ("Check its discoveries…") all call it
and say its lines.

The rule: a value whose reason names a discovery release is checked against that release's
bundle when it is given (a different value or manifest: a problem, so the release is NOT
valid); when it is not given the release stays valid and one line per discovery release says
what was not checked and how to check it; a discovery bundle given that the plan does not
name is refused (InputError), never ignored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..kinds.shared_release import FOUND_PRIVATELY
from ..model import Plan
from ..planfile import plan_from_dict
from ..support import words
from ..support.errors import InputError
from .bundle import PLAN, Verdict, bundle_json, read_bundle
from .discovery import (
    given_discovery_problems,
    named_discoveries,
    read_discovery,
    refuse_unneeded,
)

#: who reads the lines: the command line (--discovery) or the app ("Check its discoveries…")
CLI, APP = "cli", "app"


@dataclass(frozen=True)
class DiscoveryVerdict:
    """What a reader's check of the discoveries a release names found: the checks passed,
    the problems (any makes the release NOT valid) and the releases not checked, in words."""

    checks: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    not_checked: tuple[str, ...] = ()

    @property
    def names_discoveries(self) -> bool:
        return bool(self.checks or self.problems or self.not_checked)


def found_in(plan: Plan) -> list[str]:
    """The discovery releases a plan's lists and bounds say they were found in, in order."""
    return list(dict.fromkeys(release for *_, release, _m, _s in named_discoveries(plan)))


def discovery_verdict(plan: Plan, paths: Sequence[Path], reader: str = CLI
                      ) -> DiscoveryVerdict:
    """The verdict on ``plan``'s values found privately given the discovery bundles
    ``paths`` (InputError, one line, for a bundle that is unreadable, not valid, or not
    named by the plan)."""
    try:
        bundles = [read_discovery(Path(p)) for p in paths]
        refuse_unneeded(plan, bundles)
    except InputError as exc:
        if reader != APP:
            raise
        problem = exc.problem
        for cli, app in words.DISCOVERY_VIEWER_WORDS:
            problem = problem.replace(cli, app)
        raise InputError(exc.source, exc.where, problem, exc.hint) from None
    problems = given_discovery_problems(plan, bundles)
    given = {b.release_id for b in bundles}
    checked = [r for r in found_in(plan) if r in given]
    checks = [] if problems or not checked else [words.DISCOVERY_CHECKED.format(
        releases=", ".join(checked), names=", ".join(b.path.name for b in bundles))]
    how = words.DISCOVERY_HOW_APP if reader == APP else words.DISCOVERY_HOW_CLI
    not_checked = []
    for release in found_in(plan):
        if release in given:
            continue
        fields = [f"{qid}.{field}" for qid, field, r, _m, _s in named_discoveries(plan)
                  if r == release]
        named = (", ".join(fields[:-1]) + " and " + fields[-1]) if len(fields) > 1 else \
            fields[0]
        not_checked.append(words.DISCOVERY_NOT_CHECKED.format(
            fields=named, s="" if len(fields) > 1 else "s",
            they="they were" if len(fields) > 1 else "it was", release=release, how=how))
    return DiscoveryVerdict(tuple(checks), tuple(problems), tuple(not_checked))


def bundle_plan(bundle: Path) -> Plan:
    """The plan inside a release bundle (InputError naming the bundle when unreadable)."""
    return plan_from_dict(bundle_json(read_bundle(bundle)[PLAN]), f"{bundle.name}: {PLAN}")


def bundle_discovery_verdict(bundle: Path, paths: Sequence[Path], reader: str = CLI
                             ) -> DiscoveryVerdict:
    """``discovery_verdict`` for the plan inside a release bundle that verified. A bundle
    whose plan names no discovery, with none given, has an empty verdict (its plan is not
    read again: an older bundle's plan stays as it was verified)."""
    raw = read_bundle(bundle)[PLAN]
    if not paths and FOUND_PRIVATELY.encode("utf-8") not in raw:
        return DiscoveryVerdict()
    return discovery_verdict(
        plan_from_dict(bundle_json(raw), f"{bundle.name}: {PLAN}"), paths, reader)


def with_discoveries(verdict: Verdict, bundle: Path, paths: Sequence[Path],
                     reader: str = CLI) -> DiscoveryVerdict:
    """Join a release bundle's discoveries' verdict into the bundle's own, for every reader
    (verify, report, the API): their checks and problems become the verdict's (a problem
    makes the bundle NOT valid), their not-checked lines its ``not_checked``. Returns the
    discoveries' verdict alone (empty for a bundle that did not verify, which is left as it
    is). InputError for a discovery bundle refused, as ``discovery_verdict``."""
    if not verdict.valid:
        return DiscoveryVerdict()
    found = bundle_discovery_verdict(bundle, paths, reader)
    verdict.checks.extend(found.checks)
    verdict.problems.extend(found.problems)
    verdict.not_checked.extend(found.not_checked)
    verdict.valid = not verdict.problems
    return found
