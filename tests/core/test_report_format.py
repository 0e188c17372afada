"""The report format's version moves with the report's bytes.

verify rebuilds README.txt, report.html and report.pdf byte for byte only for bundles whose
release.json states this version's REPORT_FORMAT (core/release/report_format.py). If the
files built from one fixed release.json change while REPORT_FORMAT stays, every bundle
released before the change stops verifying ("report.html: does not agree with release.json",
issue 22). This test holds the digests of the three files built from a fixed record, one set
per format: a change to the report's words, layout, charts (or to matplotlib, fpdf2 or the
font, which draw them) fails it until the format is bumped.
"""

from __future__ import annotations

import hashlib
import json

from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.publish import readme_text
from planner_app.core.release.report import report_html, report_pdf
from planner_app.core.release.report_format import FORMATS, REPORT_FORMAT
from tests.conftest import ROOT

RECORD = ROOT / "tests" / "data" / "report_format" / "release.json"

#: SHA-256 of README.txt, report.html and report.pdf built from RECORD, by report format
# format 2 is the first format with a number; its digests were set when the branches of issue 22's
# second session were merged, before any format-2 bundle was released
GOLDEN: dict[int, dict[str, str]] = {
    2: {"README.txt": "e23e58a6224c2cc621ae7de62d4be46f3e8f428271db0896ae2e7779b2246aca",
        "report.html": "1075b75293c65f5e52927b6d41e0667862a15e2b754c109932cb42a6b0e7d55a",
        "report.pdf": "9cb6c3450be5468df0ac6b45ab050af6019a816c36c2fa9cf599a6ab2aff251e"},
}

BUMP = ("{name} built from tests/data/report_format/release.json changed (sha256 {digest}), "
        "but REPORT_FORMAT is still {fmt}: bundles released before your change would no longer "
        "verify. Bump REPORT_FORMAT in planner_app/core/release/report_format.py (and describe "
        "the new format in its FORMATS), add a bundle released by the commit before your "
        "change to tests/data/old_bundles/ (its README.md says how), and put the new digests "
        "under the new format in GOLDEN here.")


def test_the_report_s_bytes_are_those_of_this_report_format() -> None:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    plan = plan_from_dict(record["plan"])
    built = {"README.txt": readme_text(plan, record).encode("utf-8"),
             "report.html": report_html(record).encode("utf-8"),
             "report.pdf": report_pdf(record)}
    assert REPORT_FORMAT in GOLDEN, (
        f"REPORT_FORMAT is {REPORT_FORMAT}: put the digests of the files built from "
        "tests/data/report_format/release.json under it in GOLDEN")
    for name, data in built.items():
        digest = hashlib.sha256(data).hexdigest()
        assert digest == GOLDEN[REPORT_FORMAT][name], BUMP.format(name=name, digest=digest,
                                                                  fmt=REPORT_FORMAT)


def test_every_report_format_is_described() -> None:
    assert sorted(FORMATS) == list(range(1, REPORT_FORMAT + 1))
    assert sorted(GOLDEN) == list(range(2, REPORT_FORMAT + 1))  # format 1 had no field to test
