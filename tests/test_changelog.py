"""docs/CHANGELOG.md has a section for every file-format version the code writes (issue 23):
bumping a format without saying what changed, and from which commit, fails here."""

from __future__ import annotations

import re
from pathlib import Path

from planner_app.core.model.plan import FORMAT as PLAN_FORMAT
from planner_app.core.model.plan import FORMAT_PROGRAMME as PLAN_FORMAT_PROGRAMME
from planner_app.core.planning.settings import SCHEMA_VERSION as SETTINGS_SCHEMA
from planner_app.core.records.ledger import SCHEMA_VERSION as LEDGER_SCHEMA
from planner_app.core.records.ledger_schema import SCHEMA_VERSION as SHARED_LEDGER_SCHEMA
from planner_app.core.records.policy import POLICY_FORMAT, POLICY_FORMAT_SHARED
from planner_app.core.records.review import APPROVAL_FORMAT
from planner_app.core.release.bundle import CONSISTENT_FORMAT, RELEASE_FORMAT
from planner_app.core.release.pending import PENDING_FORMAT
from planner_app.core.release.report_format import FORMATS, REPORT_FORMAT

CHANGELOG = Path(__file__).resolve().parents[1] / "docs" / "CHANGELOG.md"


def headings() -> list[str]:
    return re.findall(r"^## (.+)$", CHANGELOG.read_text(encoding="utf-8"), flags=re.M)


def section(title: str) -> str:
    text = CHANGELOG.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def expected_sections() -> list[str]:
    """The heading each format version the code writes (or still reads) must have."""
    names = [PLAN_FORMAT, RELEASE_FORMAT, APPROVAL_FORMAT, POLICY_FORMAT, PENDING_FORMAT,
             CONSISTENT_FORMAT]
    names += [f"Report format {n}" for n in sorted({*FORMATS, REPORT_FORMAT})]
    names += [f"Ledger schema {n}" for n in range(1, LEDGER_SCHEMA + 1)]
    names += [f"Settings schema {n}" for n in range(1, SETTINGS_SCHEMA + 1)]
    names += [POLICY_FORMAT_SHARED]  # pg26
    names += [f"Shared ledger schema {n}" for n in range(1, SHARED_LEDGER_SCHEMA + 1)]
    names += [PLAN_FORMAT_PROGRAMME]  # cal26
    return names


def test_every_format_version_has_a_section() -> None:
    titles = headings()
    missing = [name for name in expected_sections()
               if not any(t == name or t.startswith(name + " ") for t in titles)]
    assert not missing, f"docs/CHANGELOG.md has no section for {missing}"


def test_every_section_names_the_commit_it_starts_from() -> None:
    """A section says from which commit: a short hash of 7 hex digits or more."""
    for name in expected_sections():
        title = next(t for t in headings() if t == name or t.startswith(name + " "))
        assert re.search(r"\b[0-9a-f]{7,40}\b", section(title)), title


def test_the_table_of_formats_lists_what_the_code_writes() -> None:
    text = CHANGELOG.read_text(encoding="utf-8")
    for name in (PLAN_FORMAT, RELEASE_FORMAT, APPROVAL_FORMAT, POLICY_FORMAT, PENDING_FORMAT,
                 POLICY_FORMAT_SHARED, PLAN_FORMAT_PROGRAMME):
        assert f"| `{name}` |" in text, name
