"""planner-app report BUNDLE --registry OUT.yaml: the release's transparency record in the
field names of OpenDP's deployments registry, read back with yaml.safe_load and compared with
the release.json it came from."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner_app.cli import main
from planner_app.core.release.bundle import RECORD, read_bundle
from planner_app.core.release.registry import TO_FILL, registry_record
from tests.conftest import plan_dict, with_reasons, write_json
from tests.record_rows import edit_rows

# The registry's fields (github.com/opendp/deployments-registry-data,
# schemas/deployments-schema.yaml, tests/good_deployments/template.yaml): every section the
# record fills, and the fields the schema requires.
TOP = ["url_slug", "status", "tier", "deployment"]
SECTIONS = ["basic", "dp_variant", "privacy_loss", "deployment_model", "accounting",
            "implementation", "administrative"]
REQUIRED_BASIC = {"name", "data_curators", "description", "intended_use", "data_product_type",
                  "data_product_region", "publication_date"}
ALLOWED = {
    "basic": REQUIRED_BASIC | {"data_product_sector"},
    "dp_variant": {"variant_name", "data_domain", "unprotected_quantities"},
    "privacy_loss": {"privacy_unit", "privacy_unit_details", "privacy_parameters",
                     "privacy_parameters_details"},
    "deployment_model": {"model_name", "model_name_details", "actors", "release_type",
                         "release_type_details", "data_source_type", "data_source_type_details",
                         "access_type", "access_type_details"},
    "accounting": {"post_processing", "composition"},
    "implementation": {"preprocessing_and_hyperparameter_tuning", "mechanisms",
                       "justification"},
    "administrative": {"sources", "notes", "registry_authors"},
}

# the schema's enumerations for the fields the record fills
ENUMS = {
    ("basic", "data_product_type"): {"Summary statistics", "Machine learning model", "Dataset",
                                     "Synthetic data", "Interactive API", "SQL queries"},
    ("dp_variant", "variant_name"): {"Pure DP", "Approximate DP", "Zero-concentrated DP",
                                     "Renyi DP", "Custom"},
    ("deployment_model", "model_name"): {"Local", "Central", "Shuffle", "Federated", "Varies"},
    ("deployment_model", "release_type"): {"One release", "Many releases"},
    ("deployment_model", "data_source_type"): {"Static", "Dynamic"},
    ("deployment_model", "access_type"): {"Interactive", "Non-interactive"},
}

TABLE = "pid,g,x\n" + "".join(f"{i},{'a' if i % 3 else 'b'},{i % 7}\n" for i in range(60))
COUNT = {"id": "n", "label": "Rows", "kind": "count", "epsilon": 0.5}
SHARE = {"id": "r", "label": "Share answering a", "kind": "randomized_response",
         "column": "g", "yes": ["a"], "no": ["b"], "epsilon": 1.0,
         "justification": {"values": "the form's two answers"}}
MEAN = {"id": "m", "label": "Mean x", "kind": "mean", "column": "x", "lower": 0, "upper": 10,
        "epsilon": 0.5, "mechanism": "gaussian", "delta": 1e-7}


def _release(tmp_path: Path, name: str, **plan: Any) -> tuple[Path, dict[str, Any]]:
    table = tmp_path / "t.csv"
    table.write_text(TABLE, encoding="utf-8")
    doc = with_reasons(plan_dict(**plan))
    plan_file = write_json(tmp_path / f"{name}.json", doc)
    out = tmp_path / f"{name}.zip"
    assert main(["release", str(plan_file), "--data", str(table), "--out", str(out)]) == 0
    return out, json.loads(read_bundle(out)[RECORD])


def _registry(bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
              *extra: str) -> dict[str, Any]:
    out = tmp_path / f"{bundle.stem}.yaml"
    code = main(["report", str(bundle), "--registry", str(out), *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return dict(yaml.safe_load(out.read_text(encoding="utf-8")))


def test_registry_fields_come_from_release_json(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    bundle, record = _release(tmp_path, "central", queries=[COUNT, MEAN],
                              budget={"epsilon": 2.0, "delta": 1e-6},
                              justification="a yearly table")
    doc = _registry(bundle, tmp_path, capsys)
    assert list(doc) == TOP
    assert doc["status"] == "Draft" and doc["tier"] == 3
    dep = doc["deployment"]
    assert list(dep) == SECTIONS
    for section, fields in dep.items():
        assert set(fields) <= ALLOWED[section], section
    assert REQUIRED_BASIC <= set(dep["basic"])
    for (section, name), allowed in ENUMS.items():
        assert dep[section][name] in allowed, (section, name)
    assert set(dep["privacy_loss"]["privacy_parameters"]) <= {"epsilon", "delta", "rho"}
    assert dep["administrative"]["registry_authors"] and dep["basic"]["data_curators"]
    assert dep["basic"]["publication_date"] == record["created_utc"][:10]
    assert dep["basic"]["data_product_type"] == "Summary statistics"
    params = dep["privacy_loss"]["privacy_parameters"]
    assert params["epsilon"] == record["total"]["epsilon"]
    assert params["delta"] == record["total"]["delta"] > 0
    assert params.get("rho") == record["total"].get("rho")
    assert dep["dp_variant"]["variant_name"] == "Approximate DP"
    assert dep["deployment_model"]["model_name"] == "Central"
    assert dep["deployment_model"]["release_type"] == "One release"
    assert dep["deployment_model"]["access_type"] == "Non-interactive"
    assert "a yearly table" in dep["implementation"]["justification"]
    assert "[0, 10]" in dep["implementation"]["preprocessing_and_hyperparameter_tuning"]
    assert record["total"]["accountant"] in ("basic", "zcdp", "pld")
    # what only the curator knows is marked, never invented
    text = json.dumps(doc, ensure_ascii=False)
    for marker in TO_FILL:
        assert marker in text
    # a second release of the same dataset is one of many
    again, _ = _release(tmp_path, "central2", queries=[COUNT, MEAN],
                        budget={"epsilon": 2.0, "delta": 1e-6})
    assert _registry(again, tmp_path, capsys)["deployment"]["deployment_model"][
        "release_type"] == "Many releases"


def test_a_randomized_response_statistic_is_marked_local(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle, record = _release(tmp_path, "local", queries=[SHARE])
    dep = _registry(bundle, tmp_path, capsys)["deployment"]
    assert dep["deployment_model"]["model_name"] == "Local"
    assert dep["dp_variant"]["variant_name"] == "Pure DP"
    assert "delta" not in dep["privacy_loss"]["privacy_parameters"]
    assert dep["privacy_loss"]["privacy_parameters"]["epsilon"] == record["total"]["epsilon"]
    mixed, _ = _release(tmp_path, "mixed", queries=[COUNT, SHARE],
                        budget={"epsilon": 2.0, "delta": 0.0})
    model = _registry(mixed, tmp_path, capsys)["deployment"]["deployment_model"]
    assert model["model_name"] == "Varies"
    local = model["model_name_details"].split("Local")[1]
    assert "Share answering a" in local and "Rows" not in local


def test_the_unnoised_row_count_under_replace_one_is_an_unprotected_quantity(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle, record = _release(tmp_path, "replace", queries=[COUNT, MEAN],
                              neighbouring="replace-one",
                              budget={"epsilon": 2.0, "delta": 1e-6})
    assert any(m["mechanism"] == "none" for q in record["queries"]
               for m in q["measurements"])  # release.json: the count is not noised
    dep = _registry(bundle, tmp_path, capsys)["deployment"]
    assert "Rows: used without noise" in dep["dp_variant"]["unprotected_quantities"]
    assert "replace-one" in dep["privacy_loss"]["privacy_unit_details"]


def test_no_released_value_reaches_the_record(tmp_path: Path) -> None:
    """The record reads the plan's parameters and the totals, never a result: the same
    release with other noised values gives the same record."""
    _, record = _release(tmp_path, "values", queries=[COUNT, MEAN],
                         budget={"epsilon": 2.0, "delta": 1e-6})
    other = copy.deepcopy(record)
    def shift(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            for key in ("value", "low", "high"):
                if isinstance(row.get(key), (int, float)):
                    row[key] = row[key] + 1000

    edit_rows(other, shift)
    assert registry_record(other) == registry_record(record)


def test_registry_alone_or_with_pdf_never_over_a_file_without_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle, _ = _release(tmp_path, "files", queries=[COUNT])
    out = tmp_path / "out.yaml"
    out.write_text("precious\n")
    assert main(["report", str(bundle), "--registry", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert out.read_text() == "precious\n"
    pdf = tmp_path / "r.pdf"
    assert main(["report", str(bundle), "--registry", str(out), "--pdf", str(pdf)]) == 2
    assert not pdf.exists()  # every target checked before any is written
    assert main(["report", str(bundle), "--registry", str(pdf), "--pdf", str(pdf)]) == 2
    assert "same file" in capsys.readouterr().err
    assert main(["report", str(bundle), "--registry", str(out), "--pdf", str(pdf),
                 "--force"]) == 0
    assert pdf.read_bytes().startswith(b"%PDF")
    assert yaml.safe_load(out.read_text())["status"] == "Draft"
    assert not list(tmp_path.glob(".*tmp*"))  # no temporary file left beside them


# ------------------------------------------------------------- signed bundles and --trust


def _keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Path]:
    """The owner's key in the (test's) app home, exported; another key made elsewhere."""
    assert main(["keys", "new", "owner"]) == 0
    owner_pub = tmp_path / "owner.pub"
    assert main(["keys", "export", "owner", "--out", str(owner_pub)]) == 0
    other_home = tmp_path / "other-home"
    assert main(["--home", str(other_home), "keys", "new", "stranger"]) == 0
    stranger_pub = tmp_path / "stranger.pub"
    assert main(["--home", str(other_home), "keys", "export", "stranger", "--out",
                 str(stranger_pub)]) == 0
    capsys.readouterr()
    return {"owner": owner_pub, "stranger": stranger_pub}


def _signed_release(tmp_path: Path, name: str) -> tuple[Path, dict[str, Any]]:
    table = tmp_path / "t.csv"
    table.write_text(TABLE, encoding="utf-8")
    plan_file = write_json(tmp_path / f"{name}.json", with_reasons(plan_dict(queries=[COUNT])))
    out = tmp_path / f"{name}.zip"
    assert main(["release", str(plan_file), "--data", str(table), "--out", str(out),
                 "--sign-with", "owner"]) == 0
    return out, json.loads(read_bundle(out)[RECORD])


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


def test_report_without_trust_says_integrity_only(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _keys(tmp_path, capsys)
    bundle, _ = _signed_release(tmp_path, "signed")
    capsys.readouterr()
    out = tmp_path / "reg.yaml"
    assert main(["report", str(bundle), "--registry", str(out)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("signed.zip: verified (integrity only, not origin)"), first


def test_report_with_trust_proves_origin_or_refuses(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = _keys(tmp_path, capsys)
    bundle, _ = _signed_release(tmp_path, "signed")
    unsigned, _ = _release(tmp_path, "unsigned", queries=[COUNT])
    capsys.readouterr()
    out = tmp_path / "reg.yaml"
    assert main(["report", str(bundle), "--registry", str(out),
                 "--trust", str(keys["owner"])]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("signed.zip: verified;") and "integrity only" not in first
    assert out.exists()
    # several --trust keys: any one may match, as in verify
    again = tmp_path / "again.yaml"
    assert main(["report", str(bundle), "--registry", str(again), "--trust",
                 str(keys["stranger"]), "--trust", str(keys["owner"])]) == 0
    capsys.readouterr()
    # the wrong key, or an unsigned bundle: not valid (exit 1, as verify), nothing written
    for target, trust in ((bundle, keys["stranger"]), (unsigned, keys["owner"])):
        refused = tmp_path / f"refused-{target.stem}.yaml"
        assert main(["report", str(target), "--registry", str(refused),
                     "--trust", str(trust)]) == 1
        err = capsys.readouterr().err
        assert "NOT valid" in err and "MANIFEST.sha256.minisig" in err, err
        assert not refused.exists()
        # verify agrees
        assert main(["verify", str(target), "--trust", str(trust)]) == 1
        capsys.readouterr()
    # a key file that cannot be read is bad input (exit 2), as in verify
    assert main(["report", str(bundle), "--registry", str(tmp_path / "x.yaml"),
                 "--trust", str(tmp_path / "missing.pub")]) == 2
    assert not (tmp_path / "x.yaml").exists()


def test_the_registry_record_names_the_signature_and_how_to_check_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = _keys(tmp_path, capsys)
    bundle, record = _signed_release(tmp_path, "signed")
    fingerprint = keys["owner"].read_text().splitlines()[0].split()[-1]  # minisign's key id
    assert record["signed_by"]["fingerprint"] == fingerprint
    doc = _registry(bundle, tmp_path, capsys)
    text = " ".join(_strings(doc))
    assert "signed by owner" in text.lower() or "owner (key" in text
    assert fingerprint in text
    assert "minisign -Vm MANIFEST.sha256" in text
    assert "planner-app verify BUNDLE.zip --trust OWNER.pub" in \
        doc["deployment"]["implementation"]["mechanisms"]
    unsigned, _ = _release(tmp_path, "unsigned", queries=[COUNT])
    plain = " ".join(_strings(_registry(unsigned, tmp_path, capsys)))
    assert "not signed" in plain and fingerprint not in plain


def test_the_registry_text_has_no_doubled_punctuation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Reasons that end in a full stop, joined into one answer, gave "200,000.;" and
    "scale.."."""
    income = {"id": "inc", "label": "Income", "kind": "sum", "column": "x", "lower": 0,
              "upper": 200000, "epsilon": 0.5,
              "justification": {"bounds": "The form caps income at 200,000."}}
    scale = {"id": "sat", "label": "Satisfaction", "kind": "mean", "column": "x", "lower": 1,
             "upper": 10, "epsilon": 0.5, "justification": {"bounds": "A 1 to 10 scale."}}
    bundle, _ = _release(tmp_path, "dots", queries=[income, scale],
                         budget={"epsilon": 2.0, "delta": 0.0})
    doc = _registry(bundle, tmp_path, capsys)
    for text in _strings(doc):
        assert ".;" not in text and ".." not in text.replace("...", ""), text
    bounds = doc["deployment"]["implementation"]["preprocessing_and_hyperparameter_tuning"]
    assert "200,000; Satisfaction" in bounds and "A 1 to 10 scale. " in bounds
