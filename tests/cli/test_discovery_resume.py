"""A resumed release applies the discovery rule of its first attempt (issue 25, item 3): the
lists and bounds a plan says it found privately are checked against their discovery bundles
before the charge; a release completed later from its saved record (``release --resume``)
must check them again before its bundle is written, or it would publish a plan whose
discovered values no bundle was shown to back.

Independent answers: the discovery bundles written by ``discover`` and the files on disk.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_discovery_cli import DISCOVERY, MAIN, census, run
from tests.core.test_resume import failing_on_call, pending_files


def _unfinished(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path, str]:
    """A discovery, the main plan applied from it, and the main release left unfinished by
    a failure after its charge: (discovery bundle, another discovery bundle, the main
    bundle's path, the release id)."""
    import planner_app.core.release.publish as publish_module

    table = census(tmp_path / "census.csv")
    (tmp_path / "discovery.json").write_text(json.dumps(DISCOVERY))
    (tmp_path / "main.json").write_text(json.dumps(MAIN))
    disc, other = tmp_path / "discovery.zip", tmp_path / "other.zip"
    for out in (disc, other):
        code, _, err = run(capsys, "discover", str(tmp_path / "discovery.json"), "--data",
                           str(table), "--out", str(out))
        assert code == 0, err
    applied = tmp_path / "applied.json"
    assert run(capsys, "plan", "apply-discovery", str(tmp_path / "main.json"), "--bundle",
               str(disc), "--out", str(applied))[0] == 0
    main_zip = tmp_path / "main.zip"
    # the report is built for the check before the charge, then fails after it
    with monkeypatch.context() as patched:  # (undo() would also drop the test's app home)
        patched.setattr(publish_module, "report_pdf",
                        failing_on_call(publish_module.report_pdf, 2))
        code, _, err = run(capsys, "release", str(applied), "--data", str(table), "--out",
                           str(main_zip), "--discovery", str(disc))
    assert code != 0 and "release --resume" in err, err
    [saved] = pending_files_of_home()
    return disc, other, main_zip, saved.stem


def pending_files_of_home() -> list[Path]:
    from planner_app.core.support.home import app_home

    return pending_files(app_home())


def test_a_resumed_release_checks_its_discoveries_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    disc, other, main_zip, release_id = _unfinished(tmp_path, capsys, monkeypatch)

    # without the discovery bundle: refused, one line, nothing written, still resumable
    code, _, err = run(capsys, "release", "--resume", release_id)
    assert code == 2 and "give that discovery bundle with --discovery" in err, err
    assert len(err.strip().splitlines()) == 1
    assert not main_zip.exists() and pending_files_of_home()
    # another discovery (a release the plan does not name): refused as not needed
    code, _, err = run(capsys, "release", "--resume", release_id, "--discovery", str(other))
    assert code == 2 and "not needed" in err, err
    assert not main_zip.exists() and pending_files_of_home()

    # with it: completed, and the bundle verifies against it
    code, out, err = run(capsys, "release", "--resume", release_id, "--discovery", str(disc))
    assert code == 0, err
    assert main_zip.exists() and not pending_files_of_home()
    code, out, err = run(capsys, "verify", str(main_zip), "--discovery", str(disc))
    assert code == 0 and "equals its discovery bundle's output" in out, out + err
