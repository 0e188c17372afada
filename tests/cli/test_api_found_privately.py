"""The Python API verifies a release whose lists were found privately as ``planner-app
verify`` does (one core verdict, release/discovery_verdict.with_discoveries): without the
discovery bundle the release is valid and ``not_checked`` names the discovery release; with
it the list is checked; a list that differs from the discovery's output is NOT valid, and
``results`` refuses it. The answers are compared with the CLI's own --json output."""

from __future__ import annotations

import json

import pytest

from planner_app import api
from planner_app.cli import main
from planner_app.core.support.errors import InputError
from tests.found_bundles import FoundBundles


@pytest.fixture
def bundles(found_privately: FoundBundles) -> FoundBundles:
    return found_privately  # made once per test process (tests/conftest.py)


def cli_verdict(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    main(["verify", *args, "--json"])
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_the_api_and_verify_say_the_same(bundles: FoundBundles,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    plain = api.verify(bundles.main)
    assert plain.valid and len(plain.not_checked) == 1
    assert bundles.release in plain.not_checked[0]
    assert plain.not_checked == cli_verdict(capsys, str(bundles.main))["not_checked"]

    checked = api.verify(bundles.main, discovery=[bundles.regions])
    assert checked.valid and checked.not_checked == []
    cli = cli_verdict(capsys, str(bundles.main), "--discovery", str(bundles.regions))
    assert checked.checks == cli["checks"]

    wrong = api.verify(bundles.mismatched, discovery=[bundles.regions])
    assert not wrong.valid
    cli = cli_verdict(capsys, str(bundles.mismatched), "--discovery", str(bundles.regions))
    assert wrong.problems == cli["problems"] and cli["valid"] is False
    opened = api.open_bundle(bundles.mismatched, discovery=[bundles.regions])
    assert not opened.valid
    with pytest.raises(api.BundleNotValid):
        opened.results  # noqa: B018
    assert len(api.results(bundles.main, discovery=[bundles.regions])) > 0


def test_a_discovery_bundle_the_plan_does_not_name_is_refused(bundles: FoundBundles) -> None:
    with pytest.raises(InputError, match="employment|not name|does not"):
        api.verify(bundles.main, discovery=[bundles.employment])
