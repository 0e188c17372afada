"""Issue 11, plain words: one phrasing of the privacy unit and of what is protected, the
attacker-belief curves from core.risk once, numbers rounded for people, a count that says what
it counts, and the reason behind ε."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from planner_app.core.dp import risk
from planner_app.core.model import PrivacyUnit
from planner_app.core.planfile import load_plan, plan_to_dict
from planner_app.core.support import words
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import run_in_process


def bayes_upper(p: float, eps: float) -> float:
    """Bayes with a likelihood ratio of at most e^ε: p e^ε / (p e^ε + 1 - p)."""
    return p * math.exp(eps) / (p * math.exp(eps) + 1 - p)


def bayes_lower(p: float, eps: float) -> float:
    return p / (p + (1 - p) * math.exp(eps))


@pytest.mark.parametrize("eps", [0.01, 1.0, 3.0, 12.0])
def test_belief_curves_are_bayes_with_likelihood_ratio_e_eps(eps: float) -> None:
    priors = np.linspace(0, 1, 11)
    up, lo = risk.belief_curves(priors, eps)
    for p, u, v in zip(priors, up, lo, strict=True):
        assert u == pytest.approx(bayes_upper(p, eps), abs=1e-12)
        assert v == pytest.approx(bayes_lower(p, eps), abs=1e-12)
    assert np.all(np.isfinite(risk.belief_curves(priors, 900.0)[1]))  # no 0/0 at p = 1


def test_the_reports_chart_draws_the_cores_curves(monkeypatch: pytest.MonkeyPatch) -> None:
    from planner_app.core.release import report

    seen = []
    real = risk.belief_curves

    def spy(priors, eps):  # type: ignore[no-untyped-def]
        seen.append(eps)
        return real(priors, eps)

    monkeypatch.setattr(risk, "belief_curves", spy)
    report.chart_png.cache_clear()  # drawn once per ε and prior in a process: draw it now
    assert report.chart_png(1.5).startswith(b"\x89PNG")
    assert 1.5 in seen


@pytest.mark.parametrize(("x", "want"), [
    (20.5322265625, "20.53"), (3.0, "3"), (12345.678, "12,346"), (0.05, "0.05"),
    (1.3824999, "1.382"), (2.0000000001, "2"), (1e-7, "1e-7"), (math.inf, "unbounded"),
    (1260.0000001, "1,260"), (1260.4, "1,260"), (-0.5, "-0.5")])
def test_format_number(x: float, want: str) -> None:
    assert words.format_number(x) == want


def _person_plan():  # type: ignore[no-untyped-def]
    plan = load_plan(demo_plan_path())
    return replace(plan, privacy_unit=PrivacyUnit(kind="person", id_column="pid", max_rows=3))


def test_the_unit_reads_the_same_in_readme_report_and_check(tmp_path: Path) -> None:
    """The privacy unit was phrased five ways (readme, report, check, review, data pane)."""
    from planner_app.core.planning.check import check_plan
    from planner_app.core.release.publish import readme_text
    from planner_app.core.release.report import transparency

    for plan in (load_plan(demo_plan_path()), _person_plan()):
        want = words.unit_of(plan.privacy_unit)
        relation = words.relation_words(plan.neighbouring)
        report = check_plan(plan)
        record = _fake_record(plan, report)
        answers = dict(transparency(record))
        assert want in answers["Unit of privacy"]
        assert relation in answers["Neighbouring datasets"]
        readme = " ".join(readme_text(plan, record).split())
        assert want in readme and relation[1:] in readme  # the readme starts a sentence


def _fake_record(plan, report):  # type: ignore[no-untyped-def]
    """The fields of a release record that the readme and the transparency list read."""
    doc = plan_to_dict(plan)
    return {"plan": doc, "privacy_unit": doc["privacy_unit"], "neighbouring": plan.neighbouring,
            "total": {"epsilon": report.total.epsilon, "delta": report.total.delta,
                      "accountant": report.total.accountant, "rho": None},
            "queries": [], "ledger": {"spent": {"epsilon": 1}, "cap": {"epsilon": 10},
                                      "remaining": {"epsilon": 9}},
            "dataset": {"name": "x", "file_name": "x.csv"}, "post_processing": {},
            "software": {"version": "0"}, "release_id": "r", "created_utc": "t",
            "confidence": 0.95, "results": [],
            "risk": {"sentence": "", "out_of_100": "", "delta": "", "lower": ""}}


def test_glossary_is_the_guides_glossary() -> None:
    from planner_app.core.support.resources import resource_path

    guide = resource_path("user-guide.md").read_text(encoding="utf-8")
    assert words.glossary_markdown() in guide
    for term in ("Sensitivity", "Noise scale", "Accountant", "PLD", "zCDP", "δ (delta)",
                 "Hoeffding bound", "Grid step", "Add-remove", "Replace-one", "ε (epsilon)",
                 "Confidence", "Clamping", "Bounds", "Contribution bound k",
                 "Discrete Laplace", "Discrete Gaussian"):
        assert words.GLOSSARY[term]


def test_the_demo_plan_fixture_is_json() -> None:
    assert json.loads(demo_plan_path().read_text(encoding="utf-8"))["queries"]


def test_check_prints_the_cores_unit_words(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    doc = plan_to_dict(_person_plan())
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = run_in_process(["check", str(path)])
    assert words.unit_of(doc["privacy_unit"]) in done.stdout, done.stdout + done.stderr
    assert words.relation_words(doc["neighbouring"]) in done.stdout


LONG_FLOAT = r"\d[\d,]*\.\d+(?:e[+-]?\d+)?|\d+e[+-]?\d+"


def _too_precise(text: str) -> list[str]:
    """Numbers shown with more than 4 significant digits after a decimal point (20.5322265625,
    20.5305) or in exponent form (2e+06)."""
    import re

    out = []
    for m in re.findall(LONG_FLOAT, text):
        if "e" in m or len(m.replace(",", "").replace(".", "").lstrip("0")) > 4:
            out.append(m)
    return out


def _odd_plan():  # type: ignore[no-untyped-def]
    """The demo plan with bounds whose grid makes long binary fractions (sensitivity, noise
    scale, midpoint and ± all come out as floats with many digits)."""
    doc = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    for q in doc["queries"]:
        if "lower" in q:
            q["lower"], q["upper"] = 0.3, 13.98
    from planner_app.core.planfile import plan_from_dict

    return plan_from_dict(doc)


def test_check_output_has_no_long_floats(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_to_dict(_odd_plan())), encoding="utf-8")
    done = run_in_process(["check", str(path)])
    assert done.returncode == 0, done.stderr
    body = done.stdout.replace("1e-06", "")  # δ as the plan states it
    assert not _too_precise(body), _too_precise(body)
    variance = next(line for line in done.stdout.splitlines() if line.startswith("age_var"))
    assert "units²" in variance


def test_a_variance_accuracy_is_in_squared_units() -> None:
    from planner_app.core.dp.accuracy import UNIT_WORDS, format_half_width, shown_unit
    from planner_app.core.kinds.shared_dp import accuracy_for

    plan = load_plan(demo_plan_path())
    acc = accuracy_for(plan.query("age_variance"), plan)
    assert format_half_width(acc).endswith("units²")
    assert "squared" in UNIT_WORDS[shown_unit(acc)]
    mean = accuracy_for(plan.query("hours_mean"), plan)
    assert "²" not in format_half_width(mean)


def test_derivations_round_sensitivity_and_midpoint() -> None:

    from planner_app.core.kinds.shared_dp import measurements_for

    plan = _odd_plan()
    for q in plan.queries:
        for m in measurements_for(q, plan):
            text = m.component.derivation.replace("0.3,", "")
            assert not _too_precise(text), text


def test_the_report_rounds_and_says_squared_units(tmp_path: Path) -> None:
    import re

    from planner_app.core.data.tables import load_table
    from planner_app.core.records.review import review
    from planner_app.core.release.publish import publish
    from planner_app.core.release.report import _statistics
    from planner_app.core.support.home import app_home
    from tests.conftest import DEMO_TABLE

    plan = review(_odd_plan(), "Ada Officer", "approved", "checked")
    out = tmp_path / "b.zip"
    publish(plan, load_table(DEMO_TABLE), out, app_home(tmp_path / "home"))
    from planner_app.core.release.bundle import read_bundle

    record = json.loads(read_bundle(out)["release.json"])
    for s in _statistics(record):
        text = s["meaning"] + " " + s["params"] + " " + s["query"]["derivation"]
        text = text.replace("0.3,", "")
        text = re.sub(r"δ = [\d.e+-]+", "", text)  # δ as the plan states it
        assert not _too_precise(text), text
        if s["query"]["kind"] == "variance":
            assert "squared units of age" in s["meaning"] and "units²" in s["meaning"]


def test_set_reason_is_a_plan_edit_that_saves(tmp_path: Path) -> None:
    from planner_app.core.planfile import save_plan
    from planner_app.core.planning.plan_edits import set_reason

    plan = load_plan(demo_plan_path())
    new = set_reason(plan, "  the  moderate preset ")
    assert new.justification == "the moderate preset" and plan.justification != new.justification
    save_plan(new, tmp_path / "p.json")
    assert load_plan(tmp_path / "p.json").justification == "the moderate preset"
    assert set_reason(new, "  ").justification is None


def test_plan_new_takes_a_reason(tmp_path: Path) -> None:
    from tests.conftest import DEMO_TABLE

    out = tmp_path / "p.json"
    done = run_in_process(["plan", "new", "--data", str(DEMO_TABLE), "--out", str(out),
                           "--reason", "a small pilot"], cwd=Path.cwd())
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["justification"] == "a small pilot"


def test_group_words_follow_group_privacy() -> None:
    eps, prior = 0.7, 0.5
    text = risk.group_words(eps, 0.0, prior, 3)
    # g people: ε·g (pure DP), so the highest belief is Bayes with e^(3ε)
    assert f"ε = {3 * eps:.3g}" in text
    assert risk.upper_percent(prior, 3 * eps) in text
    assert "group of 2 people" in risk.group_words(eps, 0.0, prior, 1)  # at least two


def test_replace_one_is_phrased_one_way() -> None:
    """formulas.md: under replace-one the row count is public. The glossary said "the number
    of people", the relation sentence "the number of rows" (different with several rows per
    person)."""
    from planner_app.core.support.words import GLOSSARY, RELATION_HELP, relation_words

    for text in (GLOSSARY["Replace-one"], RELATION_HELP["replace-one"],
                 relation_words("replace-one")):
        assert "number of rows" in text and "number of people" not in text, text


def test_a_confidence_level_reads_as_written() -> None:
    """One formatter for the level: 0.999 read "100%" in the app and "99%" on the command
    line; 0.58 read "57%" on the command line."""
    from planner_app.core.support.words import confidence_percent

    assert [confidence_percent(c) for c in (0.95, 0.999, 0.58, 0.5, 0.999999)] == [
        "95%", "99.9%", "58%", "50%", "99.9999%"]


def test_check_prints_the_level_as_written() -> None:
    from tests.conftest import DEMO_PLAN

    done = run_in_process(["check", str(DEMO_PLAN), "--confidence", "0.58"])
    assert done.returncode == 0, done.stderr
    assert "± at 58%" in done.stdout


def test_group_sentences_say_groups() -> None:
    """With a group size of 3 the right-guesses sentence counted "people targeted"; with a
    group size of 1 the group sentence spoke of a group of 2 without saying why."""
    from planner_app.core.dp.risk import explain, group_words

    assert "groups of 3 people targeted" in explain(1.0, 0.0, 0.5, 3).frequency_sentence
    assert "100 people targeted" in explain(1.0, 0.0, 0.5, 1).frequency_sentence
    assert "for example" in group_words(1.0, 0.0, 0.5, 1)
    assert "for example" not in group_words(1.0, 0.0, 0.5, 3)


def test_the_bundle_and_deployment_headers_have_glossary_entries() -> None:
    """Words a newcomer met with no explanation: the deployments table's Model and
    user-day, the bundle viewer's Mechanism, Derivation and Hash."""
    from planner_app.core.support.words import glossary_tip

    for word in ("Model", "user-day", "Mechanism", "Derivation", "Hash"):
        assert glossary_tip(word), word


def test_the_trust_words_are_in_the_glossary() -> None:
    """Issue 12's words (keys, fingerprints, signatures, trusted keys, the policy) are
    explained in plain words, and found on screen under the names the app uses."""
    for text, term in (("Export public key…", "Key pair"), ("Fingerprint", "Fingerprint"),
                       ("a signed bundle", "Signature"),
                       ("Trusted public keys", "Trusted key"),
                       ("Organisation's policy…", "Organisation's policy")):
        assert term in words.terms_in(text), text
        assert words.GLOSSARY[term].count(". ") + 1 <= 3  # one to three sentences
