"""Bundles made by earlier versions still verify (issue 22's leftover, issue 23's "the bundles
of the old code still verify"): every real bundle in tests/data/old_bundles verifies with this
code, its README and reports checked by their hashes and named as not rebuilt; tampering with
one fails as before; a bundle of this version still has its reports rebuilt byte for byte, and
a forger who claims another report format is named, or caught by a trusted signature."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.keys import KeyStore, load_public_key
from planner_app.core.release.bundle import SIGNATURE, read_bundle, zip_bytes
from planner_app.core.release.publish import publish
from planner_app.core.release.report_format import REPORT_FORMAT
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.home import app_home
from tests.conftest import ROOT, flip_zip_byte, plan_dict, with_reasons
from tests.corpus.crafted import reseal, rezip

OLD = ROOT / "tests" / "data" / "old_bundles"
BUNDLES = sorted(OLD.glob("*/*.zip"))
REBUILT = "results.csv, README.txt, report.html and report.pdf are exactly what release.json gives"


def record_of(bundle: Path) -> dict[str, Any]:
    """release.json read straight from the zip (not through planner_app)."""
    with zipfile.ZipFile(bundle) as zf:
        return dict(json.loads(zf.read("release.json")))


def trust_args(bundle: Path) -> list[str]:
    pub = bundle.parent / "owner.pub"
    return ["--trust", str(pub)] if bundle.name.endswith("-signed.zip") else []


def not_rebuilt(version: str, fmt: int) -> str:
    return (f"README.txt, report.html and report.pdf were written by planner-app {version} in "
            f"report format {fmt}, which this version (format {REPORT_FORMAT}) no longer "
            "writes")


def test_the_corpus_holds_bundles_of_every_earlier_report_format() -> None:
    assert len(BUNDLES) >= 2 and any(b.name.endswith("-signed.zip") for b in BUNDLES)
    formats = {record_of(b)["software"].get("report_format", 1) for b in BUNDLES}
    assert formats >= set(range(1, REPORT_FORMAT)), (
        "tests/data/old_bundles has no bundle of report format(s) "
        f"{sorted(set(range(1, REPORT_FORMAT)) - formats)}: add one made before the format "
        "changed (tests/data/old_bundles/README.md says how)")


def _format(bundle: Path) -> int:
    return int(record_of(bundle)["software"].get("report_format", 1))


OLDER_FORMAT = [b for b in BUNDLES if _format(b) < REPORT_FORMAT]
THIS_FORMAT = [b for b in BUNDLES if _format(b) == REPORT_FORMAT]


@pytest.mark.parametrize("bundle", OLDER_FORMAT, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_old_bundle_verifies_with_this_version(bundle: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    record = record_of(bundle)
    fmt = record["software"].get("report_format", 1)
    assert fmt < REPORT_FORMAT  # made by an older version: its reports are not rebuilt
    code = main(["verify", str(bundle), *trust_args(bundle)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"{bundle.name}: verified" in out
    assert "  ok: results.csv is exactly what release.json gives\n" in out
    assert not_rebuilt(record["software"]["version"], fmt) in out
    assert ("but not rebuilt from release.json, so their words are not checked against it; "
            f"rely on release.json and results.csv, or make this version's report from them "
            f"with planner-app report {bundle.name} --pdf OUT.pdf") in out
    assert "ok: the audit segment is an intact chain that seals these files" in out
    assert "ok: sensitivities, noise, accuracy and totals recompute from the plan" in out
    if trust_args(bundle):  # origin proven: the line says who the reports are unchanged since
        key = load_public_key(bundle.parent / "owner.pub")
        assert f"they are unchanged since owner (key {key.fingerprint}), a key you trust, " \
               "signed them" in out
        assert "origin proven" in out
    else:
        assert "they are unchanged since the bundle was sealed (their hashes)" in out
    verdict = verify_bundle(bundle)
    assert verdict.valid and verdict.summary["report_format"] == fmt
    assert verdict.summary["reports_rebuilt"] is False


@pytest.mark.parametrize("bundle", THIS_FORMAT, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_old_bundle_of_this_report_format_verifies_byte_for_byte(
        bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bundle the code made before issue 23 rearranged it (6590bb3): its report format is
    this version's, so verify rebuilds its README and reports from release.json and finds
    them byte for byte equal."""
    code = main(["verify", str(bundle), *trust_args(bundle)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"  ok: {REBUILT}\n" in out
    verdict = verify_bundle(bundle)
    assert verdict.valid and verdict.summary["reports_rebuilt"] is True


def test_an_old_bundle_s_report_is_made_again_by_this_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What verify points a recipient to: this version's report of the checked release.json."""
    bundle = OLD / "e6e0bd3" / "small.zip"
    assert main(["report", str(bundle), "--html", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert record_of(bundle)["release_id"] in html
    assert html != read_bundle(bundle)["report.html"].decode("utf-8")  # this version's words
    capsys.readouterr()


# ----------------------------------------------------------------------------- tampering


def test_a_changed_byte_of_an_old_report_fails(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    flip_zip_byte(OLD / "e6e0bd3" / "small.zip", bad, "report.html", offset=500)
    verdict = verify_bundle(bad)
    assert not verdict.valid
    assert verdict.problems[0] == ("report.html: its content does not match its hash in "
                                   "MANIFEST.sha256 (changed)")


def test_a_changed_value_in_an_old_release_json_fails_with_every_hash_recomputed(
        tmp_path: Path) -> None:
    files = read_bundle(OLD / "e6e0bd3" / "small.zip")
    record = json.loads(files["release.json"])
    record["results"][0]["value"] += 1
    files["release.json"] = json.dumps(record, indent=2).encode()
    bad = tmp_path / "bad.zip"
    bad.write_bytes(rezip(reseal(files)))
    verdict = verify_bundle(bad)
    assert not verdict.valid
    assert "results.csv: line 2: does not agree with the results in release.json" in \
        verdict.problems


def test_a_changed_report_of_an_old_signed_bundle_fails_on_its_signature(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = OLD / "1452c4e" / "demo-synthetic-signed.zip"
    files = read_bundle(source)
    signature = files.pop(SIGNATURE)
    files["report.html"] = files["report.html"].replace(b"</body>", b"<p>eps = 0.1</p></body>")
    files = reseal(files)
    bad = tmp_path / "bad-signed.zip"
    bad.write_bytes(zip_bytes(files, signature=signature))
    code = main(["verify", str(bad), *trust_args(source)])
    err = capsys.readouterr().err
    assert code == 1
    assert "NOT valid: MANIFEST.sha256.minisig" in err and "changed after it was signed" in err


def test_an_unsigned_old_bundle_s_report_is_only_as_good_as_its_hashes(tmp_path: Path) -> None:
    """The documented limit (docs/bundle-format.md): an unsigned old bundle whose report text
    was changed and every hash recomputed verifies, and verify's line says its words were not
    checked against release.json -- the numbers to rely on are the record's."""
    files = read_bundle(OLD / "e6e0bd3" / "small.zip")
    files["report.html"] = files["report.html"].replace(b"</body>", b"<p>eps = 0.1</p></body>")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(rezip(reseal(files)))
    verdict = verify_bundle(bad)
    assert verdict.valid
    assert any("so their words are not checked against it" in c for c in verdict.checks)


# ----------------------------------------------------------------------------- this version


@pytest.fixture(scope="module")
def current(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A bundle of this version, unsigned and signed, with the signer's public key."""
    folder = tmp_path_factory.mktemp("current")
    home = app_home(folder / "home").ensure()
    store = KeyStore(home)
    store.create("owner")
    table = folder / "t.csv"
    table.write_text("colour\n" + "red\nblue\n" * 40)
    plan = plan_from_dict(with_reasons(plan_dict(
        queries=[{"id": "n", "kind": "count", "epsilon": 0.5},
                 {"id": "by_colour", "kind": "histogram", "column": "colour",
                  "categories": ["red", "blue"], "epsilon": 0.5}])))
    unsigned, signed = folder / "unsigned.zip", folder / "signed.zip"
    publish(plan, load_table(table), unsigned, home)
    publish(plan, load_table(table), signed, home, sign_with=store.secret("owner"))
    return {"unsigned": unsigned, "signed": signed,
            "pub": store.export("owner", folder / "owner.pub")}


def test_this_version_states_its_report_format_and_rebuilds_its_reports(
        current: dict[str, Any]) -> None:
    assert record_of(current["unsigned"])["software"]["report_format"] == REPORT_FORMAT
    verdict = verify_bundle(current["unsigned"])
    assert verdict.valid, verdict.problems
    assert verdict.checks[-1] == REBUILT
    assert verdict.summary["reports_rebuilt"] is True


def recrafted(src: Path, dst: Path, change_record: Any = None,
              report: bytes | None = None) -> Path:
    """``src`` with release.json changed and/or report.html's text replaced, every hash
    recomputed (an unsigned bundle: a forger's)."""
    files = read_bundle(src)
    files.pop(SIGNATURE, None)
    if change_record is not None:
        record = json.loads(files["release.json"])
        change_record(record)
        files["release.json"] = json.dumps(record, indent=2).encode()
    if report is not None:
        files["report.html"] = files["report.html"].replace(b"</body>", report + b"</body>")
    dst.write_bytes(rezip(reseal(files)))
    return dst


def test_a_changed_report_of_this_version_does_not_agree(current: dict[str, Any],
                                                         tmp_path: Path) -> None:
    bad = recrafted(current["unsigned"], tmp_path / "bad.zip", report=b"<p>eps = 0.1</p>")
    verdict = verify_bundle(bad)
    assert verdict.problems == [
        "report.html: does not agree with release.json (it is not the report planner-app "
        f"0.1.0 builds from it in report format {REPORT_FORMAT})"]


def _drop_format(record: dict[str, Any]) -> None:
    del record["software"]["report_format"]


def test_a_forger_claiming_an_older_format_is_named_not_believed(current: dict[str, Any],
                                                                 tmp_path: Path) -> None:
    """Claiming format 1 escapes the rebuild of an unsigned bundle, and verify says the words
    were not checked; it gains nothing against a signature checked with a trusted key."""
    bad = recrafted(current["unsigned"], tmp_path / "claim.zip", _drop_format,
                    report=b"<p>eps = 0.1</p>")
    verdict = verify_bundle(bad)
    assert verdict.valid
    assert verdict.checks[-1].startswith(not_rebuilt("0.1.0", 1))
    assert REBUILT not in verdict.checks
    files = read_bundle(current["signed"])
    signature = files.pop(SIGNATURE)
    record = json.loads(files["release.json"])
    _drop_format(record)
    files["release.json"] = json.dumps(record, indent=2).encode()
    forged = tmp_path / "claim-signed.zip"
    forged.write_bytes(zip_bytes(reseal(files), signature=signature))
    for trusted in ([], [load_public_key(current["pub"])]):
        verdict = verify_bundle(forged, trusted=trusted)
        assert not verdict.valid
        assert verdict.problems[0].startswith("MANIFEST.sha256.minisig:")


def test_a_later_report_format_is_named_as_not_known_yet(current: dict[str, Any],
                                                         tmp_path: Path) -> None:
    later = REPORT_FORMAT + 1
    bad = recrafted(current["unsigned"], tmp_path / "later.zip",
                    lambda r: r["software"].__setitem__("report_format", later))
    verdict = verify_bundle(bad)
    assert verdict.valid
    assert verdict.checks[-1].startswith(
        f"README.txt, report.html and report.pdf were written by planner-app 0.1.0 in report "
        f"format {later}, which this version (format {REPORT_FORMAT}) does not know yet")
    assert verdict.checks[-1].endswith("; a newer planner-app compares them")


@pytest.mark.parametrize("value", ["2", True, 0, -1, 2.0, None])
def test_a_report_format_that_is_not_a_whole_number_is_not_valid(
        current: dict[str, Any], tmp_path: Path, value: Any) -> None:
    bad = recrafted(current["unsigned"], tmp_path / "bad.zip",
                    lambda r: r["software"].__setitem__("report_format", value))
    verdict = verify_bundle(bad)
    assert verdict.problems == ["release.json: software.report_format must be a whole number "
                                "from 1"]


def test_a_later_release_format_names_the_version_that_made_it(current: dict[str, Any],
                                                               tmp_path: Path) -> None:
    def later(record: dict[str, Any]) -> None:
        record["format"] = "planner-app/release@4"  # release@3 is read since issue 27
        record["software"]["version"] = "0.7.0"

    verdict = verify_bundle(recrafted(current["unsigned"], tmp_path / "r4.zip", later))
    assert verdict.problems == [
        "release.json: is a planner-app/release@4 record, made by planner-app 0.7.0; this "
        "planner-app reads planner-app/release@1, planner-app/release@2 and "
        "planner-app/release@3 only: verify it with the version that made it or a newer one"]
