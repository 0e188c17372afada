"""One rounding rule for every number a person reads (core/support/numbers.py), and the PDF
report's parameters, synthetic ± and page breaks (issue 22, part 3)."""

from __future__ import annotations

import glob
import io
import re
import shutil
import subprocess
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest
from pypdf import PdfReader

from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.release.report import (
    format_interval,
    format_value,
    report_html,
    report_pdf,
    synthetic_noise_words,
)
from planner_app.core.support.numbers import (
    shown,
    shown_percent,
    shown_percent_range,
    shown_point,
    shown_range,
)
from tests.cli.test_synthetic_cli import PLAN as SYNTH_PLAN
from tests.core.test_report_charts import demo_record
from tests.record_rows import result_rows

# ----------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(("value", "text"), [
    (38.8896, "38.89"), (37.877, "37.88"), (2.73278, "2.733"), (20.228515625, "20.23"),
    (3794, "3,794"), (74818988.0, "74,818,988"), (12345.678, "12,346"), (0.5, "0.5"),
    (1260.0000001, "1,260"), (0.000123456, "0.0001235")])
def test_four_significant_digits(value: float, text: str) -> None:
    assert shown(value) == text


def test_both_ends_of_a_range_share_their_decimals() -> None:
    assert shown_percent_range(0.283, 0.38671) == "28.30% to 38.67%"
    assert shown_range(19.7021484375, 20.748046875) == "19.70 to 20.75"
    assert shown_range(3764, 3824) == "3,764 to 3,824"
    assert shown_range(-0.5, 0.25) == "-0.50 to 0.25"
    assert shown_point(6.8, 6.566, 7.039) == "6.800 (6.566 to 7.039)"
    assert shown_percent(0.2275) == "22.75%"


# ----------------------------------------------------------------------------- the report


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return demo_record(tmp_path_factory.mktemp("numbers"))


@pytest.fixture(scope="module")
def pdf_bytes(record: dict[str, Any]) -> bytes:
    return report_pdf(record)


def _pdf_text(data: bytes) -> str:
    return " ".join(" ".join(p.extract_text().split())
                    for p in PdfReader(io.BytesIO(data)).pages)


def _digits(text: str) -> tuple[int, int]:
    """(decimals, significant digits) of a number as written."""
    plain = text.rstrip("%").replace(",", "").lstrip("-")
    whole, _, frac = plain.partition(".")
    significant = (whole + frac).lstrip("0")
    return len(frac), len(significant)


def test_a_value_and_its_interval_are_shown_alike_everywhere(record: dict[str, Any],
                                                            pdf_bytes: bytes) -> None:
    pdf = _pdf_text(pdf_bytes)
    html = " ".join(report_html(record).split())
    for r in result_rows(record):
        if r["low"] is None:
            continue
        value, interval = format_value(r), format_interval(r)
        low, _, high = interval.partition(" to ")
        places = {_digits(t)[0] for t in (value, low, high)}
        assert len(places) == 1, (r["query_id"], value, interval)  # the same decimals
        if places != {0}:  # a fraction: at most 4 significant digits
            assert max(_digits(t)[1] for t in (value, low, high)) <= 4, (value, interval)
        # the PDF and the HTML show exactly these (the viewer and the wizard call the same
        # functions: tests/gui/test_words_viewer_numbers.py)
        assert f"{value} {interval}" in pdf, (r["query_id"], value, interval)
        assert f">{value}<" in html and f">{interval}<" in html


def test_the_total_epsilon_reads_the_same_on_every_page(record: dict[str, Any],
                                                       pdf_bytes: bytes) -> None:
    total = record["total"]["epsilon"]
    pdf = _pdf_text(pdf_bytes)
    # every "ε = 3.32…" of the PDF is the total at 4 significant digits, never 6
    found = set(re.findall(rf"ε = ({int(total)}\.\d+)", pdf))
    assert found == {f"{total:.4g}"}, found


def test_a_mean_lists_the_noise_of_its_sum_and_its_count(pdf_bytes: bytes) -> None:
    pdf = _pdf_text(pdf_bytes)
    # hours_mean: bounds [0, 80], 3 rows a person, ε 0.4 split evenly (0.2 each):
    # the count's sensitivity is 3 -> scale 3 / 0.2 = 15; the sum is centred on 40, so its
    # sensitivity is 3 × 40 = 120 -> scale 120 / 0.2 = 600
    assert ("its count: noise scale 15, sensitivity 3; its sum: noise scale 600, "
            "sensitivity 120") in pdf


def _page_fill(data: bytes, folder: Path) -> list[float]:
    """How far down each page its content reaches (0 top, 1 bottom), from a rendering."""
    (folder / "r.pdf").write_bytes(data)
    subprocess.run(["pdftoppm", "-gray", "-r", "20", str(folder / "r.pdf"),
                    str(folder / "p")], check=True)
    out = []
    for name in sorted(glob.glob(str(folder / "p*.pgm"))):
        raw = Path(name).read_bytes()
        magic, size, _depth, pixels = raw.split(b"\n", 3)
        assert magic == b"P5"
        w, h = map(int, size.split())
        img = np.frombuffer(pixels, dtype=np.uint8)[:w * h].reshape(h, w)
        dark = np.flatnonzero((img < 200).any(axis=1))
        out.append(float(dark[-1]) / h if dark.size else 0.0)
    return out


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs poppler's pdftoppm")
def test_no_page_but_the_last_is_left_half_empty(pdf_bytes: bytes, tmp_path: Path) -> None:
    fills = _page_fill(pdf_bytes, tmp_path)
    assert len(fills) > 2
    assert all(f > 0.5 for f in fills[:-1]), fills


# ----------------------------------------------------------------------------- synthetic


def test_a_synthetic_table_states_the_noise_of_its_one_way_and_two_way_cells() -> None:
    q = check_plan(plan_from_dict(SYNTH_PLAN)).queries[0].to_dict()
    sigmas = {c["name"].partition(":")[0]: c["sigma"] for c in q["components"]
              if c.get("sigma")}
    assert sigmas["oneway"] != sigmas["twoway"]
    words = synthetic_noise_words(q, 0.95)
    z = NormalDist().inv_cdf(0.975)  # the discrete Gaussian's 95% bound is about z σ
    found = [int(x) for x in re.findall(r"± (\d+)", words)]
    assert len(found) == 2, words
    for hw, kind in zip(found, ("oneway", "twoway"), strict=True):
        assert abs(hw - z * sigmas[kind]) <= 1.5, (kind, hw, sigmas[kind])
    assert "one-way" in words and "two-way" in words


def test_an_interval_from_near_zero_keeps_four_significant_digits() -> None:
    """A release's share with its interval from 0.32% to 76.58%: the decimals are those of
    the largest number, not of the smallest (which gave '38.4505% (0.3206% to 76.5804%)',
    six significant digits; the demo's bundle showed it in one release of three)."""
    from planner_app.core.support.numbers import shown_together

    assert shown_together((38.4505, 0.3206, 76.5804), "%") == ["38.45%", "0.32%", "76.58%"]
    assert shown_together((7.016, 0.0, 44.868), "%") == ["7.02%", "0.00%", "44.87%"]
    assert shown_together((6.8, 6.566, 7.039)) == ["6.800", "6.566", "7.039"]
