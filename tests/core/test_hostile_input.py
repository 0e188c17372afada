"""Bad input found by an adversarial pass (issue 10 §7): output paths, special files, long
lines, line ends, and what verify says it checked. The CLI-level cases are in tests/corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import parse_plan_text
from planner_app.core.support.errors import InputError
from planner_app.core.support.files import check_output_path, input_file_size
from tests.conftest import plan_dict

# ----------------------------------------------------------------------------- output paths


def test_a_writable_new_path_passes_and_nothing_is_left_behind(tmp_path: Path) -> None:
    out = tmp_path / "bundle.zip"
    assert check_output_path(out) == out
    assert list(tmp_path.iterdir()) == []  # the probe file is gone


def test_an_existing_file_needs_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "bundle.zip"
    out.write_bytes(b"precious")
    with pytest.raises(InputError, match="already exists"):
        check_output_path(out)
    assert check_output_path(out, overwrite=True) == out
    assert out.read_bytes() == b"precious"


@pytest.mark.parametrize("kind", ["folder", "symlink", "fifo"])
def test_anything_but_a_regular_file_is_never_replaced(tmp_path: Path, kind: str) -> None:
    out = tmp_path / "target"
    if kind == "folder":
        out.mkdir()
    elif kind == "symlink":
        (tmp_path / "real.txt").write_text("x")
        out.symlink_to(tmp_path / "real.txt")
    else:
        os.mkfifo(out)
    with pytest.raises(InputError, match="folder|not a regular file"):
        check_output_path(out, overwrite=True)


def test_a_name_whose_temporary_name_is_too_long_is_refused(tmp_path: Path) -> None:
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    fits_alone = tmp_path / ("a" * (limit - 10) + ".zip")  # a legal name on its own
    with pytest.raises(InputError, match="too long for this file system"):
        check_output_path(fits_alone)


def test_a_full_disk_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from planner_app.core.support import files

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(files.shutil, "disk_usage", lambda p: usage._replace(free=100))
    with pytest.raises(InputError, match="needs about 1.0 MB but its folder has 0.0 MB free"):
        check_output_path(tmp_path / "b.zip")


def test_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("this user can write to a read-only folder (root)")
        with pytest.raises(InputError, match="cannot be written in its folder"):
            check_output_path(folder / "b.zip")
    finally:
        folder.chmod(0o755)


# ----------------------------------------------------------------------------- input files


def test_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    with pytest.raises(InputError, match="not a regular file"):
        input_file_size(fifo, "plan file")


# ----------------------------------------------------------------------------- plans


def test_a_query_id_with_a_trailing_newline_is_refused() -> None:
    doc = plan_dict(queries=[{"id": "r\n", "kind": "count", "epsilon": 1.0}])
    with pytest.raises(InputError, match=r"queries\[0\]\.id"):
        parse_plan_text(json.dumps(doc))


def test_a_400_digit_integer_names_its_field() -> None:
    text = json.dumps(plan_dict(budget={"epsilon": 7777, "delta": 0})).replace(
        "7777", "9" * 400)
    with pytest.raises(InputError, match=r"budget\.epsilon: is a 400-digit number"):
        parse_plan_text(text)


@pytest.mark.parametrize("delta", [1e-320, 5e-324, 1e-101])
def test_a_delta_no_accountant_handles_is_refused(delta: float) -> None:
    with pytest.raises(InputError, match=r"budget\.delta: .* too small"):
        parse_plan_text(json.dumps(plan_dict(budget={"epsilon": 1, "delta": delta})))
    parse_plan_text(json.dumps(plan_dict(budget={"epsilon": 1, "delta": 1e-100})))  # the floor


# ----------------------------------------------------------------------------- tables


def test_a_line_longer_than_the_limit_is_refused_early(tmp_path: Path) -> None:
    """A stand-in for a 2 GB line: the loader stops at its limit instead of buffering it."""
    path = tmp_path / "long.csv"
    with open(path, "wb") as fh:
        fh.write(b"x,g\n1,a\n2,")
        fh.write(b"b" * 40_000_000)  # 40 MB; the limit below is 1 MB
        fh.write(b"\n3,a\n")
    read: list[float] = []  # the share of the file read, as the loader reports it
    with pytest.raises(InputError, match=r"long\.csv: line 3: is longer than 1,048,576 bytes"):
        load_table(path, lambda f, _m: read.append(f), max_line=1 << 20)
    assert read and max(read) < 0.25, read  # stopped near its 1 MB limit, not at 40 MB


def test_a_header_longer_than_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_bytes(b"x" * 5000)  # no line end at all
    with pytest.raises(InputError, match="line 1: is longer than 4,096 bytes"):
        load_table(path, max_line=4096)


def test_cr_only_line_ends_read_like_lf(tmp_path: Path) -> None:
    rows = "x,g\n1,a\n5,b\n9,a\n"
    (tmp_path / "lf.csv").write_text(rows)
    (tmp_path / "cr.csv").write_bytes(rows.replace("\n", "\r").encode())
    lf, cr = load_table(tmp_path / "lf.csv"), load_table(tmp_path / "cr.csv")
    assert cr.columns == ["x", "g"] and cr.frame.equals(lf.frame)


def test_a_nul_byte_late_in_a_utf16_file_is_text(tmp_path: Path) -> None:
    """UTF-16 text is full of NUL bytes: only 8-bit text is refused for them."""
    path = tmp_path / "u16.csv"
    path.write_bytes(("x,g\n" + "1,a\n" * 30_000).encode("utf-16"))
    assert load_table(path).n_rows == 30_000


# ----------------------------------------------------------------------------- tiny ε


@pytest.mark.parametrize("kind", ["quantile", "randomized_response"])
def test_an_epsilon_whose_probabilities_underflow_is_refused_before_the_charge(
        tmp_path: Path, kind: str) -> None:
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home

    query = ({"id": "q", "kind": "quantile", "column": "x", "lower": 0, "upper": 10,
              "quantile": 0.5, "epsilon": 1e-300} if kind == "quantile" else
             {"id": "q", "kind": "randomized_response", "column": "y", "epsilon": 1e-300})
    (tmp_path / "t.csv").write_text("x,y\n1,yes\n5,no\n9,yes\n")
    home = app_home(tmp_path / "home")
    with pytest.raises(InputError, match=r"queries\[q\]\.epsilon: .* too small"):
        publish(plan_from_dict(plan_dict(queries=[query])), load_table(tmp_path / "t.csv"),
                tmp_path / "b.zip", home)
    assert not home.ledger_path.exists() and not (tmp_path / "b.zip").exists()


def test_what_the_quantile_check_accepts_the_sampler_draws() -> None:
    import numpy as np

    from planner_app.core.dp.mechanisms import (
        MAX_QUANTILE_SCALE,
        exponential_quantile,
    )

    smallest = 4 / MAX_QUANTILE_SCALE * 1.0000001
    from tests.core.test_quantile_sampler import CountingSource

    for epsilon in (smallest, 1e-3, 1.0):  # tiny but drawable: nearly uniform over the grid
        source = CountingSource(int(epsilon * 1e6))
        point = exponential_quantile(source, np.arange(3, dtype=np.int64), 0, 1000, 0.5,
                                     epsilon, 1)
        # drawn, not searched for: one uniform word (a few more on an exact tie-break) and
        # one position in the chosen run (issue 23: work counted, not timed)
        assert 0 <= point <= 1000 and source.words_drawn <= 10 and source.integers_drawn == 1
