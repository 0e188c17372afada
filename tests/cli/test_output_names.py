"""An output named with a final '/' (``--out DIR/o.zip/``) names a folder: refused in one
line before anything is charged or written (issue 22 §6); Path() would drop the '/' and write
DIR/o.zip."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.support.errors import InputError
from planner_app.core.support.files import check_output
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_PLAN, DEMO_TABLE


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().err


def test_release_to_a_name_ending_with_a_slash_is_refused(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    home, out = tmp_path / "home", tmp_path / "out"
    out.mkdir()
    code, err = cli(["--home", str(home), "release", str(DEMO_PLAN), "--data",
                     str(DEMO_TABLE), "--out", f"{out}/o.zip/"], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("planner-app: error: --out: ")
    assert "o.zip/ ends with '/', so it names a folder, not a file" in lines[0]
    assert list(out.iterdir()) == []
    assert not app_home(home).ledger_path.exists()  # nothing charged


@pytest.mark.parametrize("args", [["plan", "new", str(DEMO_TABLE), "--out", "{out}/p.json/"],
                                  ["keys", "export", "me", "--out", "{out}/me.pub/"]])
def test_every_output_option_has_the_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          args: list[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    code, err = cli([a.format(out=out) for a in args], capsys)
    assert code == 2 and "/ ends with '/', so it names a folder" in err
    assert list(out.iterdir()) == []


def test_report_outputs_have_the_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for flag in ("--pdf", "--html", "--registry"):
        code, err = cli(["report", str(tmp_path / "b.zip"), flag, f"{tmp_path}/r/"], capsys)
        assert code == 2 and f"{flag}: " in err and "so it names a folder" in err


def test_the_core_rule_sees_the_typed_name(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="o.zip: .*o.zip/ ends with '/'"):
        check_output(f"{tmp_path}/o.zip/", overwrite=False)
    assert check_output(f"{tmp_path}/o.zip", overwrite=False) == tmp_path / "o.zip"
