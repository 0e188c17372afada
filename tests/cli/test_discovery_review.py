"""The outside review of private discovery (issue 25, branch fixdisc): each defect it found,
driven through the command line and the API as an owner would meet it.

Independent answers: the ledger's list of releases (what was charged), the plan files as
JSON, and for the threshold a step-by-one search written here.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from tests.cli.test_discovery_cli import DISCOVERY, MAIN, census, plan


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def charged(capsys: pytest.CaptureFixture[str]) -> list[float]:
    code, out, _ = run(capsys, "ledger", "show", "census", "--json")
    return [r["epsilon"] for r in json.loads(out)["releases"]] if code == 0 else []


def discovered(tmp_path: Path, capsys: pytest.CaptureFixture[str]
               ) -> tuple[Path, Path, Path]:
    """(table, discovery bundle, applied main plan) of this app home."""
    table = census(tmp_path / "census.csv")
    (tmp_path / "discovery.json").write_text(json.dumps(DISCOVERY))
    (tmp_path / "main.json").write_text(json.dumps(MAIN))
    disc, applied = tmp_path / "discovery.zip", tmp_path / "applied.json"
    code, _, err = run(capsys, "discover", str(tmp_path / "discovery.json"), "--data",
                       str(table), "--out", str(disc))
    assert code == 0, err
    code, _, err = run(capsys, "plan", "apply-discovery", str(tmp_path / "main.json"),
                       "--bundle", str(disc), "--out", str(applied))
    assert code == 0, err
    return table, disc, applied


# --- 1. release checks what check checks, before the charge -------------------------------

def test_release_refuses_a_forged_discovered_list_before_the_charge(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table, disc, applied = discovered(tmp_path, capsys)
    doc = json.loads(applied.read_text())
    doc["queries"][0]["categories"].append("astronaut")  # typed in, reason kept
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(doc))
    before = charged(capsys)
    assert before == pytest.approx([4.0])
    out_zip = tmp_path / "x.zip"
    code, _, err = run(capsys, "release", str(forged), "--data", str(table), "--out",
                       str(out_zip))
    assert code == 2 and "--discovery" in err and len(err.strip().splitlines()) == 1, err
    code, _, err = run(capsys, "release", str(forged), "--data", str(table), "--out",
                       str(out_zip), "--discovery", str(disc))
    assert code == 2 and "are not the keys discovery 'occupations' found" in err, err
    assert not out_zip.exists() and charged(capsys) == before

    from planner_app import api
    from planner_app.core.support.errors import InputError

    with pytest.raises(InputError, match="are not the keys"):
        api.check(forged, discovery=[disc])
    with pytest.raises(InputError, match="--discovery"):
        api.check(forged)
    with pytest.raises(InputError, match="are not the keys"):
        api.release(forged, table, out_zip, discovery=[disc])
    assert not out_zip.exists() and charged(capsys) == before
    report = api.check(applied, discovery=[disc])
    assert report.readiness is not None and report.readiness.ready


def test_report_and_verify_take_the_discovery_and_refuse_one_not_needed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table, disc, applied = discovered(tmp_path, capsys)
    main_zip = tmp_path / "main.zip"
    code, _, err = run(capsys, "release", str(applied), "--data", str(table), "--out",
                       str(main_zip), "--discovery", str(disc))
    assert code == 0, err
    html = tmp_path / "r.html"
    code, out, err = run(capsys, "report", str(main_zip), "--html", str(html))
    assert code == 0 and "not checked" in out and "--discovery" in out, out + err  # disc25c
    code, _, err = run(capsys, "report", str(main_zip), "--html", str(html), "--force",
                       "--discovery", str(disc))
    assert code == 0 and html.exists(), err
    # the discovery bundle itself names no discovery: a --discovery for it is not needed
    code, _, err = run(capsys, "verify", str(disc), "--discovery", str(disc))
    assert code == 2 and "not needed" in err, err
    code, _, err = run(capsys, "check", str(tmp_path / "discovery.json"), "--discovery",
                       str(disc))
    assert code == 2 and "not needed" in err, err


# --- 5. a discovery charged in another app home ---------------------------------------------

def test_a_discovery_from_another_app_home_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(__import__("os").environ["PLANNER_APP_HOME"])
    other = tmp_path / "other-home"
    monkeypatch.setenv("PLANNER_APP_HOME", str(other))
    table, disc, applied = discovered(tmp_path, capsys)  # charged in the other home
    monkeypatch.setenv("PLANNER_APP_HOME", str(home))
    assert charged(capsys) == []
    code, _, err = run(capsys, "check", str(applied), "--discovery", str(disc))
    assert code == 2 and "does not hold" in err, err
    code, _, err = run(capsys, "release", str(applied), "--data", str(table), "--out",
                       str(tmp_path / "m.zip"), "--discovery", str(disc))
    assert code == 2 and "does not hold" in err, err
    assert charged(capsys) == [] and not (tmp_path / "m.zip").exists()


# --- 2. the threshold and the preview in a bounded number of steps --------------------------

def _threshold_by_steps(scale: Fraction, m: int, delta: float, sides: int) -> int:
    from planner_app.core.dp.threshold import selection_delta

    tau = 2
    while selection_delta(scale, tau, m, sides) > delta:
        tau += 1
    return tau


def _preview_by_steps(scale: Fraction, threshold: int, confidence: float = 0.95
                      ) -> list[tuple[int, float]]:
    from planner_app.core.dp.threshold import keep_probability

    sizes: list[tuple[int, float]] = []
    n = max(1, threshold - 1)
    while keep_probability(scale, threshold, n) > 0.1 and n > 1:
        n -= 1
    while True:
        p = keep_probability(scale, threshold, n)
        sizes.append((n, p))
        if p >= confidence:
            break
        n += 1
    return sorted({sizes[0], sizes[len(sizes) // 2], sizes[-1]})


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(1), Fraction(3), Fraction(7, 2)])
@pytest.mark.parametrize("delta", [1e-3, 2e-7, 1e-10])
@pytest.mark.parametrize("m,sides", [(1, 1), (3, 2)])
def test_threshold_and_preview_equal_the_step_by_one_search(
        scale: Fraction, delta: float, m: int, sides: int) -> None:
    from planner_app.core.dp.threshold import keep_preview, threshold_for

    tau = threshold_for(scale, m, delta, sides)
    assert tau == _threshold_by_steps(scale, m, delta, sides)
    assert keep_preview(scale, tau) == _preview_by_steps(scale, tau)


def test_a_tiny_epsilon_gives_a_finite_threshold_in_few_evaluations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from planner_app.core.dp import threshold

    calls = {"n": 0}
    tail = threshold.key_tail

    def counted(scale: Fraction, t: int) -> float:
        calls["n"] += 1
        return tail(scale, t)

    monkeypatch.setattr(threshold, "key_tail", counted)
    keep = threshold.keep_probability
    keeps = {"n": 0}

    def counted_keep(scale: Fraction, t: int, people: int) -> float:
        keeps["n"] += 1
        return keep(scale, t, people)

    monkeypatch.setattr(threshold, "keep_probability", counted_keep)
    scale = Fraction(10**12)  # ε = 1e-12 on a count
    tau = threshold.threshold_for(scale, 1, 1e-6, 1)
    assert 2 < tau < 10**15 and calls["n"] < 400
    assert threshold.selection_delta(scale, tau, 1, 1) <= 1e-6
    assert threshold.selection_delta(scale, tau - 1, 1, 1) > 1e-6
    picks = threshold.keep_preview(scale, tau)
    assert keeps["n"] < 400 and len(picks) == 3
    assert picks[0][1] <= 0.1 and picks[-1][1] >= 0.95


# --- 3. a large δ: refused at plan read, never an infinite total in the audit log ----------

def test_an_unreasonable_delta_of_a_discovery_of_keys_is_refused_at_plan_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = plan([{"id": "occupations", "kind": "discover_keys",
                 "mechanism": "laplace_threshold", "column": "occupation", "epsilon": 1.0,
                 "delta": 0.9}], 1.0)
    doc["budget"]["delta"] = 0.95
    p = tmp_path / "big-delta.json"
    p.write_text(json.dumps(doc))
    code, out, err = run(capsys, "check", str(p))
    assert code == 2 and "delta" in err and "internal" not in err, out + err
    assert len(err.strip().splitlines()) == 1


def test_the_audit_log_never_holds_an_infinite_number(tmp_path: Path) -> None:
    from planner_app.core.records.audit import AuditLog

    log = AuditLog(tmp_path / "audit.jsonl")
    log.append("plan checked", {"epsilon": math.inf, "delta": math.nan, "n": [1.0, -math.inf]})
    text = (tmp_path / "audit.jsonl").read_text()
    assert "Infinity" not in text and "NaN" not in text
    entry: dict[str, Any] = json.loads(text.splitlines()[-1])
    assert "plan checked" in json.dumps(entry)


# --- 4. a grid step wider than the range: refused before the charge -------------------------

def test_a_grid_step_wider_than_the_range_is_refused_before_the_charge(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = census(tmp_path / "census.csv")
    doc = plan([{"id": "wage_range", "kind": "discover_bounds", "column": "wage", "lower": 0,
                 "upper": 100_000, "grid_step": 1048576, "quantiles": [0.02, 0.98],
                 "epsilon": 1.0, "justification": {"bounds": "no weekly wage reaches it"}}],
               1.0)
    p = tmp_path / "wide-step.json"
    p.write_text(json.dumps(doc))
    code, _, err = run(capsys, "check", str(p))
    assert code == 2 and "grid_step" in err, err
    code, _, err = run(capsys, "discover", str(p), "--data", str(table), "--out",
                       str(tmp_path / "d.zip"))
    assert code == 2 and "grid_step" in err, err
    assert charged(capsys) == [] and not (tmp_path / "d.zip").exists()


# --- 9. check's sentence and its preview: one computation -----------------------------------

def test_checks_found_with_sentence_agrees_with_its_preview(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import re

    p = tmp_path / "discovery.json"
    p.write_text(json.dumps(DISCOVERY))
    code, out, err = run(capsys, "check", str(p))
    assert code == 0, err
    sure = re.search(r"a key held by ([\d,]+) or more people is found with 95% confidence", out)
    chances = re.findall(r"([\d,]+) people: (\d+)%", out)
    assert sure is not None and chances, out
    first_sure = min(int(n.replace(",", "")) for n, pc in chances if int(pc) >= 95)
    assert int(sure[1].replace(",", "")) == first_sure


# --- 10. a list found privately is not "copied from the data" ------------------------------

def test_a_verified_discovered_list_is_not_warned_as_copied_from_the_data(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table, disc, applied = discovered(tmp_path, capsys)
    doc = json.loads(applied.read_text())
    assert set(doc["queries"][1]["group_by"]["keys"]) == {"health", "education", "transport"}
    code, out, err = run(capsys, "release", str(applied), "--data", str(table), "--out",
                         str(tmp_path / "m.zip"), "--discovery", str(disc))
    assert code == 0, err
    assert "exactly the values present" not in out + err
    # a list typed by hand that equals the data's values is still warned about
    doc["queries"][1]["justification"]["keys"] = "the three industries we survey"
    typed = tmp_path / "typed.json"
    doc["queries"][0]["justification"]["categories"] = "the occupations of the form"
    doc["queries"][1]["justification"]["bounds"] = "a weekly wage never exceeds this"
    typed.write_text(json.dumps(doc))
    code, out, err = run(capsys, "check", str(typed), "--data", str(table))
    assert "group keys of industry are exactly the values present" in out + err, out + err


# --- 6 and 7. apply-discovery changes only what names a discovery, and overwrites only
# with --force -------------------------------------------------------------------------------

def test_apply_discovery_never_replaces_a_declared_bound_nor_the_plan_without_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table, disc, _applied = discovered(tmp_path, capsys)
    mixed = json.loads(json.dumps(MAIN))
    mixed["queries"][1]["upper"] = 5000
    mixed["queries"][1]["justification"] = {"bounds": "our own upper bound"}
    p = tmp_path / "mixed.json"
    p.write_text(json.dumps(mixed))
    code, _, err = run(capsys, "plan", "apply-discovery", str(p), "--bundle", str(disc),
                       "--out", str(tmp_path / "mixed-out.json"))
    assert code == 2 and "queries[wage_by_industry].upper" in err, err
    assert not (tmp_path / "mixed-out.json").exists()

    main_plan = tmp_path / "main.json"
    before = main_plan.read_text()
    code, _, err = run(capsys, "plan", "apply-discovery", str(main_plan), "--bundle",
                       str(disc))
    assert code == 2 and "--force" in err and main_plan.read_text() == before, err
    code, _, err = run(capsys, "plan", "apply-discovery", str(main_plan), "--bundle",
                       str(disc), "--out", str(main_plan))
    assert code == 2 and "--force" in err and main_plan.read_text() == before, err
    code, _, err = run(capsys, "plan", "apply-discovery", str(main_plan), "--bundle",
                       str(disc), "--force")
    assert code == 0, err
    assert "discovered:" not in main_plan.read_text()


# --- 8. max_keys above a person's rows is stated, never silently clamped --------------------

def test_max_keys_above_the_rows_of_a_person_is_stated(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = plan([{"id": "occupations", "kind": "discover_keys",
                 "mechanism": "laplace_threshold", "column": "occupation", "epsilon": 1.0,
                 "delta": 1e-7, "max_keys": 5}], 1.0)  # a person has at most 2 rows
    p = tmp_path / "many-keys.json"
    p.write_text(json.dumps(doc))
    code, out, err = run(capsys, "check", str(p))
    assert code == 0, err
    assert "max_keys 5 is more than the 2 rows a person has" in out, out
    assert "sensitivity 2" in out


# --- 11. published counts say they were selected above the threshold ------------------------

def test_published_counts_carry_the_selection_note_in_the_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import zipfile

    table = census(tmp_path / "census.csv")
    doc = plan([{"id": "occupations", "kind": "discover_keys",
                 "mechanism": "laplace_threshold", "column": "occupation", "epsilon": 1.0,
                 "delta": 1e-7, "publish_counts": True}], 1.0)
    p = tmp_path / "counts.json"
    p.write_text(json.dumps(doc))
    out_zip = tmp_path / "c.zip"
    code, _, err = run(capsys, "discover", str(p), "--data", str(table), "--out", str(out_zip))
    assert code == 0, err
    with zipfile.ZipFile(out_zip) as z:
        names = z.namelist()
        text = "".join(z.read(n).decode("utf-8", "replace") for n in names
                       if n.endswith((".csv", ".json", ".html")))
    assert "biased upward" in text
    code, _, err = run(capsys, "verify", str(out_zip))
    assert code == 0, err


# --- 12. discovery statistics released by release, mixed with others (as the docs say) ------

def test_release_takes_a_plan_mixing_a_discovery_with_other_statistics(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = census(tmp_path / "census.csv")
    doc = plan([{"id": "occupations", "kind": "discover_keys",
                 "mechanism": "laplace_threshold", "column": "occupation", "epsilon": 1.0,
                 "delta": 1e-7},
                {"id": "people", "kind": "count", "epsilon": 0.5}], 1.5)
    p = tmp_path / "mixed.json"
    p.write_text(json.dumps(doc))
    out_zip = tmp_path / "mixed.zip"
    code, _, err = run(capsys, "release", str(p), "--data", str(table), "--out", str(out_zip))
    assert code == 0, err
    spent = charged(capsys)
    assert len(spent) == 1 and 1.4 < spent[0] <= 1.5 * (1 + 1e-12)  # pld: at most the sum
    code, _, err = run(capsys, "verify", str(out_zip))
    assert code == 0, err
