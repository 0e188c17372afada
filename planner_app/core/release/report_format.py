"""The report format: which version of the words README.txt, report.html and report.pdf a
bundle holds, and the one rule verify applies to it.

A bundle's README and reports are a deterministic function of its release.json, so verify
rebuilds them and compares them byte for byte -- but only the renderer that wrote them can
rebuild them. release.json states the format it was written in (``software.report_format``;
a record without it was written before the field existed: format 1). When that is this
version's ``REPORT_FORMAT`` they are rebuilt and compared; when it is another, they are not
rebuilt, and verify says so in one line naming the version and format that wrote them.
Everything else in the bundle is checked as always. Why this is safe enough, and what a
recipient loses for such a bundle: docs/bundle-format.md, "Bundles made by other versions".

Bump ``REPORT_FORMAT`` whenever the bytes of README.txt, report.html or report.pdf change for
the same release.json (tests/core/test_report_format.py fails until you do), and add a bundle
made before the change to tests/data/old_bundles/.
"""

from __future__ import annotations

from typing import Any

#: the format this version writes and can rebuild
REPORT_FORMAT = 2

#: what each format was; a record without ``software.report_format`` is format 1
FORMATS: dict[int, str] = {
    1: "planner-app 0.1.0 up to commit 4cf71d0 (2026-11-27): no report_format in release.json",
    2: "planner-app 0.1.0 from 2026-11-27: release.json states software.report_format",
}

#: the release.json field, inside ``software``
FIELD = "report_format"

#: the files the report format covers, in the order verify names them
DERIVED = ("README.txt", "report.html", "report.pdf")


def stated_report_format(record: dict[str, Any]) -> int | None:
    """The report format release.json states (1 when it states none); None when the field is
    there but not a whole number from 1 (the record is then not valid)."""
    software = record.get("software")
    if not isinstance(software, dict) or FIELD not in software:
        return 1
    value = software[FIELD]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None
    return value


def report_format_problem(record: dict[str, Any]) -> str | None:
    """Why release.json's report format cannot be read, or None."""
    if stated_report_format(record) is None:
        return f"software.{FIELD} must be a whole number from 1"
    return None


def rebuilds(record: dict[str, Any]) -> bool:
    """Whether this version rebuilds the bundle's README and reports and compares them byte
    for byte: only when they are in this version's format."""
    return stated_report_format(record) == REPORT_FORMAT


def not_rebuilt_line(record: dict[str, Any], bundle: str, signer: str | None) -> str:
    """verify's line for README and reports written in another format: what was checked of
    them, what was not, and how to get a report this version checked. ``signer``: the trusted
    key's name when the signature proved origin, else None."""
    software = record.get("software")
    version = software.get("version") if isinstance(software, dict) else None
    fmt = stated_report_format(record)
    newer = fmt is not None and fmt > REPORT_FORMAT
    sealed = (f"unchanged since {signer}, a key you trust, signed them" if signer else
              "unchanged since the bundle was sealed (their hashes)")
    return (f"README.txt, report.html and report.pdf were written by planner-app {version} in "
            f"report format {fmt}, which this version (format {REPORT_FORMAT}) "
            + ("does not know yet" if newer else "no longer writes")
            + f": they are {sealed}, but not rebuilt from release.json, so their words are not "
            "checked against it; rely on release.json and results.csv, or make "
            f"this version's report from them with planner-app report {bundle} --pdf OUT.pdf"
            + ("; a newer planner-app compares them" if newer else ""))


def report_not_checked_note(record: dict[str, Any]) -> str:
    """The bundle viewer's words above a report written in another format."""
    software = record.get("software")
    version = software.get("version") if isinstance(software, dict) else None
    return (f"This report was written by planner-app {version} in report format "
            f"{stated_report_format(record)}, which this version (format {REPORT_FORMAT}) does "
            "not rebuild: it is the bundle's own file, unchanged, but its words were not "
            "checked against release.json. The Results and Parameters tabs show results.csv and "
            "release.json, which were checked.")
