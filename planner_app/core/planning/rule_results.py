"""What every release rule returns (``RuleResult``, a plan's ``Readiness``) and the one test of
a written reason, below the rules themselves: readiness.py and policy_rules.py both build on
them (the policy's ``policy-reasons`` asks for the reasons the ``reasons`` rule asks for)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..kinds import kind_of
from ..kinds.params import cells_of, synth_columns_of
from ..model import Query
from ..model.reader import visible_text

PASS, FAIL, WARN = "pass", "fail", "warn"
NOTHING_SPENT = "Nothing was charged or written."
PLACEHOLDER = re.compile(r"^\s*(todo|tbd|fixme|xxx|\?+)(\b|$)", re.IGNORECASE)


@dataclass(frozen=True)
class RuleResult:
    rule: str  # one of RULES (or another branch's warning rule)
    status: str  # pass | fail | warn
    message: str  # what holds or what is wrong, in plain words
    action: str = ""  # what to do about it (empty when it passed)
    where: str | None = None  # the plan field to fix, e.g. "queries[s].justification.bounds"
    refusal: str = ""  # the one-line refusal (CLI stderr, the wizard's dialog)
    in_file: str = ""  # where the plan file holds it, for `check` (the app names controls)

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def failed(self) -> bool:
        return self.status == FAIL

    @property
    def line(self) -> str:
        """The message, and what to do when it did not pass."""
        return self.message if self.passed or not self.action else \
            f"{self.message} {self.action}"

    @property
    def file_line(self) -> str:
        """``line`` with where the plan file holds the answer (the command line's words)."""
        return f"{self.line} {self.in_file}" if self.in_file and not self.passed else self.line

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "status": self.status, "message": self.message,
                "action": self.action, "where": self.where}


@dataclass(frozen=True)
class Readiness:
    results: tuple[RuleResult, ...]

    @property
    def ready(self) -> bool:
        return not any(r.failed for r in self.results)

    @property
    def failures(self) -> list[RuleResult]:
        return [r for r in self.results if r.failed]

    @property
    def warnings(self) -> list[RuleResult]:
        return [r for r in self.results if r.status == WARN]

    def get(self, rule: str) -> RuleResult | None:
        return next((r for r in self.results if r.rule == rule), None)

    def to_dict(self) -> dict[str, Any]:
        return {"ready": self.ready, "rules": [r.to_dict() for r in self.results]}


def has_reason(query: Query, key: str) -> bool:
    """True when the query's justification gives a real reason under ``key`` (a blank or a
    placeholder such as the "TODO: …" of `plan new` is not one)."""
    return is_reason(str((query.justification or {}).get(key) or ""))


def is_reason(text: str | None) -> bool:
    """The one test of a written reason (every reason rule, and the policy's
    require_reasons): some visible character (a zero-width space alone is no reason), and not
    a placeholder such as "TODO"."""
    shown = visible_text(text or "")
    return bool(shown) and not PLACEHOLDER.match(shown)


def missing_reasons(query: Query) -> list[tuple[str, str]]:
    """(justification key, what needs it) for each public parameter of ``query`` that has no
    reason: bounds (sum, mean, variance, quantile), bin edges, categories, group keys."""
    out = []
    if kind_of(query).asks_bounds_reason and not has_reason(query, "bounds"):
        out.append(("bounds", "bounds"))
    cells = cells_of(query)
    if cells is not None and cells.bins is not None and not has_reason(query, "bounds"):
        out.append(("bounds", "bin edges"))
    if cells is not None and cells.categories is not None \
            and not has_reason(query, "categories"):
        out.append(("categories", "categories"))
    if query.group_by is not None and not has_reason(query, "keys"):
        out.append(("keys", "group keys"))
    columns = synth_columns_of(query)  # a synthetic table's declared domains
    if any(c.bins is not None for c in columns) and not has_reason(query, "bounds"):
        out.append(("bounds", "bin edges"))
    if any(c.categories is not None for c in columns) and not has_reason(query, "categories"):
        out.append(("categories", "categories"))
    return out
