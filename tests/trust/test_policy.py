"""The organisation's policy (issue 12): a corpus of cases, each refused with one clear line
and its exit code, nothing charged, written or installed; the signature checked by Debian's
minisign too."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.records.audit import AuditLog
from planner_app.core.records.keys import KeyStore
from planner_app.core.records.ledger import Ledger
from planner_app.core.records.policy import (
    PolicyError,
    PolicyStore,
    approval_rule,
    parse_policy,
)
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import AppHome, app_home
from tests.conftest import DEMO_PLAN, DEMO_TABLE

from .minisign_tool import minisign_verify

DEMO = json.loads(DEMO_PLAN.read_text(encoding="utf-8"))
# a synthetic table over two columns no other statistic of the demo plan reads on its own
SYNTH = {"id": "synth", "kind": "synthetic", "method": "mst", "epsilon": 2.0, "delta": 5e-7,
         "columns": [{"column": "region", "categories": ["North", "South", "East", "West"]},
                     {"column": "smoker", "categories": ["yes", "no"]}],
         "rows": 100, "justification": {"categories": "official regions; the form's answers"}}
DEMO_EPSILON = 3.322  # the demo plan's composed total (pld), as `check` prints it
DEMO_DELTA = 1e-6


@dataclass
class World:
    tmp: Path
    officer_home: Path
    owner_home: Path
    officer_pub: Path
    other_pub: Path

    @property
    def owner(self) -> AppHome:
        return app_home(self.owner_home)

    def run(self, capsys: pytest.CaptureFixture[str], *args: str,
            home: Path | None = None) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["--home", str(home or self.owner_home), *args])
        out, err = capsys.readouterr()
        return code, out, err

    def policy(self, doc: dict[str, Any], name: str = "policy.json",
               key: str | None = "officer") -> Path:
        path = self.tmp / name
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        if key is not None:
            store = KeyStore(app_home(self.officer_home))
            sig = store.secret(key).sign(path.read_bytes(), f"policy signed by {key}")
            (self.tmp / f"{name}.minisig").write_text(sig, encoding="utf-8")
        return path

    def plan(self, name: str = "plan.json", **changes: Any) -> Path:
        doc = copy.deepcopy(DEMO)
        for key, value in changes.items():
            if value is None:
                doc.pop(key, None)
            else:
                doc[key] = value
        path = self.tmp / name
        path.write_text(json.dumps(doc), encoding="utf-8")
        return path

    def snapshot(self) -> tuple[Any, ...]:
        """What a refusal must leave unchanged: the ledger, the audit log, the out folder."""
        home = self.owner
        rows = []
        if home.ledger_path.exists():
            ledger = Ledger(home.ledger_path)
            rows = [(d, [r.id for r in ledger.state(d).releases]) for d in ledger.datasets()]
        audit = home.audit_path.read_bytes() if home.audit_path.exists() else b""
        outs = sorted(p.name for p in (self.tmp / "out").iterdir())
        return rows, audit, outs


@pytest.fixture
def world(tmp_path: Path) -> World:
    officer = tmp_path / "officer-home"
    store = KeyStore(app_home(officer))
    store.create("officer")
    store.create("other")
    (tmp_path / "out").mkdir()
    return World(tmp_path, officer, tmp_path / "owner-home",
                 store.export("officer", tmp_path / "officer.pub"),
                 store.export("other", tmp_path / "other.pub"))


def base_policy(**fields: Any) -> dict[str, Any]:
    return {"format": "planner-app/policy@1", "version": 1, "name": "Statistics office 2026",
            **fields}


def install(world: World, capsys: pytest.CaptureFixture[str], doc: dict[str, Any]) -> None:
    code, _, err = world.run(capsys, "policy", "install", str(world.policy(doc)), "--trust",
                             str(world.officer_pub))
    assert code == 0, err


def release(world: World, capsys: pytest.CaptureFixture[str], plan: Path,
            out: str) -> tuple[int, str, str]:
    return world.run(capsys, "release", str(plan), "--data", str(DEMO_TABLE), "--out",
                     str(world.tmp / "out" / out))


# ----------------------------------------------------------------------------- installing


def test_a_signed_policy_installs_and_minisign_agrees(world: World,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    doc = base_policy(max_epsilon_per_release=5, max_delta_per_release=1e-6,
                      forbidden_columns=["SSN"])
    path = world.policy(doc)
    # the officer's own command writes the signature; Debian's minisign checks it
    path.with_name(path.name + ".minisig").unlink()
    code, _, err = world.run(capsys, "policy", "sign", str(path), "--key", "officer",
                             home=world.officer_home)
    assert code == 0, err
    done = minisign_verify(world.officer_pub, path)
    assert done.returncode == 0, done.stderr
    assert minisign_verify(world.other_pub, path).returncode != 0
    code, out, err = world.run(capsys, "policy", "install", str(path), "--trust",
                               str(world.officer_pub))
    assert code == 0, err and "At most ε = 5 per release." in out
    code, out, _ = world.run(capsys, "policy", "show", "--json")
    shown = json.loads(out)
    assert shown["max_epsilon_per_release"] == 5 and shown["forbidden_columns"] == ["SSN"]
    assert shown["signed_by"]["fingerprint"] == \
        KeyStore(app_home(world.officer_home)).public("officer").fingerprint
    events = [e["event"] for e in AuditLog(world.owner.audit_path).read()]
    assert events == ["policy installed"]


@dataclass
class InstallCase:
    name: str
    doc: dict[str, Any]
    code: int
    message: str
    key: str | None = "officer"  # who signs; None: no signature file
    trust: str = "officer"
    tamper: bool = False  # one byte of the file changed after signing
    first: dict[str, Any] | None = None  # a policy installed before (by the officer)


INSTALL_CASES = [
    InstallCase("unsigned", base_policy(), 3, "is not signed: policy.json.minisig is missing",
                key=None),
    InstallCase("signed by another key", base_policy(), 3,
                "which is not a trusted key", key="other"),
    InstallCase("one byte changed after signing",
                base_policy(max_epsilon_per_release=2, max_delta_per_release=1e-6), 3,
                "does not match the signed content (it was changed after signing)",
                tamper=True),
    InstallCase("replacement signed by another key",
                base_policy(max_epsilon_per_release=9, max_delta_per_release=1e-6, version=2),
                3, "a replacement must be signed by the same key", key="other",
                trust="other",
                first=base_policy(max_epsilon_per_release=2, max_delta_per_release=1e-6)),
    InstallCase("unknown field", base_policy(max_epsilon=2), 2,
                "policy.json: max_epsilon: is not a field of a policy"),
    InstallCase("negative ε",
                base_policy(max_epsilon_per_release=-1, max_delta_per_release=1e-6), 2,
                "policy.json: max_epsilon_per_release: must be above 0"),
    InstallCase("ε as text",
                base_policy(max_epsilon_per_release="2", max_delta_per_release=1e-6), 2,
                "max_epsilon_per_release: must be a number, not text"),
    InstallCase("δ of 1", base_policy(max_delta_per_release=1), 2,
                "max_delta_per_release: must lie in [0, 1)"),
    InstallCase("a cap without δ", base_policy(lifetime_caps={"a": {"epsilon": 1}}), 2,
                "lifetime_caps.a.delta: is missing"),
    InstallCase("reasons as text", base_policy(require_reasons="yes"), 2,
                "require_reasons: must be true or false"),
    InstallCase("unknown same-file rule", base_policy(same_file_new_name="warn"), 2,
                "same_file_new_name: must be one of refuse, allow"),
    InstallCase("officer key not a key", base_policy(require_approval_by=[
        {"name": "ann", "key": "abc"}]), 2, "require_approval_by[0].key: is not a minisign"),
    InstallCase("wrong format", {**base_policy(), "format": "planner-app/plan@1"}, 2,
                "format: must be 'planner-app/policy@1'"),
]


@pytest.mark.parametrize("case", INSTALL_CASES, ids=[c.name for c in INSTALL_CASES])
def test_install_refusals(world: World, capsys: pytest.CaptureFixture[str],
                          case: InstallCase) -> None:
    if case.first is not None:
        install(world, capsys, case.first)
    before = world.snapshot()
    installed = (world.owner.data_dir / "policy").exists() and sorted(
        (p.name, p.read_bytes()) for p in (world.owner.data_dir / "policy").iterdir())
    path = world.policy(case.doc, key=case.key)
    if case.tamper:
        data = bytearray(path.read_bytes())
        data[data.index(b"2")] = ord("9")  # max ε 2 -> 9 after signing
        path.write_bytes(bytes(data))
    trust = world.officer_pub if case.trust == "officer" else world.other_pub
    code, out, err = world.run(capsys, "policy", "install", str(path), "--trust", str(trust))
    assert code == case.code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and case.message in lines[0], lines
    assert "Traceback" not in err and out == ""
    assert world.snapshot() == before  # nothing installed, logged or charged
    now = (world.owner.data_dir / "policy").exists() and sorted(
        (p.name, p.read_bytes()) for p in (world.owner.data_dir / "policy").iterdir())
    assert now == installed


def test_a_replacement_signed_by_the_same_key_is_installed_and_logged(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    install(world, capsys, base_policy(max_epsilon_per_release=2, max_delta_per_release=1e-6))
    install(world, capsys, base_policy(max_epsilon_per_release=9, max_delta_per_release=1e-6,
                                       version=2))
    policy = PolicyStore(world.owner).load()
    assert policy is not None and policy.max_epsilon_per_release == 9
    log = AuditLog(world.owner.audit_path).read()
    assert [e["event"] for e in log] == ["policy installed", "policy replaced"]
    assert log[1]["params"]["replaced_sha256"] == log[0]["params"]["policy_sha256"]


# ----------------------------------------------------------------------------- releasing


@dataclass
class ReleaseCase:
    name: str
    policy: dict[str, Any]
    message: str
    code: int = 3
    plan: dict[str, Any] = field(default_factory=dict)
    rule: str = ""  # the rule `check` shows failing


RELEASE_CASES = [
    ReleaseCase("beyond max ε",
                base_policy(max_epsilon_per_release=3, max_delta_per_release=1e-6),
                "this release's total ε = 3.322 is above its limit of ε = 3 per release",
                rule="policy-release"),
    ReleaseCase("beyond max δ", base_policy(max_delta_per_release=5e-7),
                "this release's total δ = 1e-06 is above its limit of δ = 5e-07 per release",
                rule="policy-release"),
    ReleaseCase("beyond the dataset's lifetime cap",
                base_policy(lifetime_caps={"demo-survey": {"epsilon": 3, "delta": 1e-5}},
                            default_lifetime_cap={"epsilon": 10, "delta": 1e-5}),
                "lifetime cap ε = 3, δ = 1e-05 (set by the organisation's policy)",
                rule="lifetime"),
    ReleaseCase("beyond the default lifetime cap",
                base_policy(default_lifetime_cap={"epsilon": 2, "delta": 1e-5},
                            lifetime_caps={"other": {"epsilon": 9, "delta": 1e-5}}),
                "lifetime cap ε = 2, δ = 1e-05 (set by the organisation's policy)",
                rule="lifetime"),
    ReleaseCase("a forbidden column (other letter case)",
                base_policy(forbidden_columns=["SMOKER"]),
                "the plan uses the forbidden column 'smoker' (queries[smokers].column)",
                rule="policy-columns"),
    ReleaseCase("a forbidden filter column", base_policy(forbidden_columns=["Employment"]),
                "forbidden column 'employment' (queries[employed].where[0].column)",
                rule="policy-columns"),
    ReleaseCase("a forbidden column of a synthetic table",
                base_policy(forbidden_columns=["Smoker"]),
                "forbidden column 'smoker' (queries[synth].columns[1].column)",
                plan={"queries": [SYNTH]}, rule="policy-columns"),
    ReleaseCase("a forbidden privacy unit id", base_policy(forbidden_columns=["person_id"]),
                "forbidden column 'person_id' (privacy_unit.id_column)",
                rule="policy-columns"),
    ReleaseCase("missing budget reason", base_policy(require_reasons=True),
                "it requires a written reason for the budget's ε",
                plan={"justification": None}, rule="policy-reasons"),
    ReleaseCase("a TODO reason", base_policy(require_reasons=True),
                "it requires a written reason for the budget's ε",
                plan={"justification": "TODO: say why"}, rule="policy-reasons"),
    ReleaseCase("approval by the policy's officer", base_policy(),
                "this release requires an approved plan", rule="approval"),
]


@pytest.mark.parametrize("case", RELEASE_CASES, ids=[c.name for c in RELEASE_CASES])
def test_release_refusals(world: World, capsys: pytest.CaptureFixture[str],
                          case: ReleaseCase) -> None:
    doc = case.policy
    if case.name.startswith("approval"):
        key = KeyStore(app_home(world.officer_home)).public("officer")
        doc = {**doc, "require_approval_by": [{"name": "officer", "key": key.line}]}
    plan = world.plan(**case.plan)
    # without the policy, the same plan releases (so the policy is what refuses)
    code, _, err = world.run(capsys, "check", str(plan), "--json")
    assert code == 0 and json.loads(_)["ready"] is True, err
    install(world, capsys, doc)
    code, out, err = world.run(capsys, "check", str(plan), "--data", str(DEMO_TABLE),
                               "--json")
    assert code == 0, err
    rules = {r["rule"]: r for r in json.loads(out)["rules"]}
    assert rules[case.rule]["status"] == "fail", rules
    before = world.snapshot()
    code, out, err = release(world, capsys, plan, "b.zip")
    assert code == case.code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and case.message in lines[0], lines
    assert "Nothing was charged or written" in lines[0]
    assert world.snapshot() == before


def test_the_app_checklist_names_a_new_spelling(world: World,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The wizard's checklist comes from Session.release_rules: it shows the dataset-name
    rule too, not only the release (one rule, policy_rules.py)."""
    from planner_app.core.planfile import load_plan
    from planner_app.core.planning.settings import load_settings
    from planner_app.gui.session import Session

    install(world, capsys, base_policy(same_file_new_name="allow",
                                       default_lifetime_cap={"epsilon": 5, "delta": 1e-5}))
    assert release(world, capsys, world.plan(), "1.zip")[0] == 0
    renamed = world.plan("renamed.json", dataset={**DEMO["dataset"], "name": "DEMO-survey"})
    session = Session(world.owner, load_settings(world.owner.settings_path))
    session.load_plan(load_plan(renamed), renamed)
    rules = session.release_rules(unit_confirmed=True)
    named = [r for r in rules.results if r.rule == "policy-name"]
    assert named and named[0].failed and "'demo-survey'" in named[0].message


def test_within_the_policy_a_release_goes_ahead(world: World,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    install(world, capsys, base_policy(max_epsilon_per_release=4, max_delta_per_release=1e-6,
                                       default_lifetime_cap={"epsilon": 5, "delta": 1e-5},
                                       forbidden_columns=["ssn"], require_reasons=True))
    plan = world.plan()
    code, _, err = release(world, capsys, plan, "1.zip")
    assert code == 0, err
    # the second release would pass the ledger's default cap (ε = 10) but not the policy's 5
    before = world.snapshot()
    code, _, err = release(world, capsys, plan, "2.zip")
    assert code == 3 and "(set by the organisation's policy)" in err
    assert world.snapshot() == before


def test_the_same_file_under_a_new_name(world: World,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    install(world, capsys, base_policy(same_file_new_name="refuse"))
    code, _, err = release(world, capsys, world.plan(), "1.zip")
    assert code == 0, err
    renamed = world.plan("renamed.json", dataset={**DEMO["dataset"], "name": "survey-2"})
    before = world.snapshot()
    code, _, err = release(world, capsys, renamed, "2.zip")
    assert code == 3
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "released before as dataset 'demo-survey'" in lines[0]
    assert world.snapshot() == before
    code, out, _ = world.run(capsys, "check", str(renamed), "--data", str(DEMO_TABLE),
                             "--json")
    rules = {r["rule"]: r["status"] for r in json.loads(out)["rules"]}
    assert rules["policy-same-file"] == "fail"


# ----------------------------------------------------------------------------- fail closed


@pytest.mark.parametrize("damage", ["edited", "signature removed", "all files deleted",
                                    "key swapped"])
def test_a_damaged_installed_policy_refuses_every_release(
        world: World, capsys: pytest.CaptureFixture[str], damage: str) -> None:
    install(world, capsys, base_policy(max_epsilon_per_release=5, max_delta_per_release=1e-6))
    folder = world.owner.data_dir / "policy"
    if damage == "edited":
        path = folder / "policy.json"
        path.write_bytes(path.read_bytes().replace(b"5", b"50"))
        expected = "was changed after it was signed"
    elif damage == "signature removed":
        (folder / "policy.json.minisig").unlink()
        expected = "the installed policy is incomplete (policy.json.minisig is missing"
    elif damage == "all files deleted":
        for p in folder.iterdir():
            p.unlink()
        expected = "the budget ledger records that a policy"
    else:  # someone signs their own policy and puts it and their key in place
        other = world.policy(base_policy(max_epsilon_per_release=50, max_delta_per_release=1e-6),
                             "mine.json",
                             key="other")
        (folder / "policy.json").write_bytes(other.read_bytes())
        (folder / "policy.json.minisig").write_bytes(
            other.with_name("mine.json.minisig").read_bytes())
        (folder / "officer.pub").write_bytes(world.other_pub.read_bytes())
        expected = "is not the key recorded at installation"
    with pytest.raises(PolicyError, match="releases are refused"):
        PolicyStore(world.owner).load()
    before = world.snapshot()
    code, _, err = release(world, capsys, world.plan(), "b.zip")
    assert code == 4, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], lines
    assert world.snapshot() == before
    code, out, _ = world.run(capsys, "check", str(world.plan()), "--json")
    assert code == 0
    rules = {r["rule"]: r["status"] for r in json.loads(out)["rules"]}
    assert rules["policy"] == "fail" and json.loads(out)["ready"] is False
    code, _, err = world.run(capsys, "policy", "show")
    assert code == 4 and expected in err


def test_reinstalling_the_signed_file_mends_an_edited_policy(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    doc = base_policy(max_epsilon_per_release=5, max_delta_per_release=1e-6)
    install(world, capsys, doc)
    path = world.owner.data_dir / "policy" / "policy.json"
    path.write_bytes(path.read_bytes() + b" ")
    install(world, capsys, doc)
    assert PolicyStore(world.owner).load() is not None
    code, _, err = release(world, capsys, world.plan(), "b.zip")
    assert code == 0, err


# ----------------------------------------------------------------------------- the core


def test_parse_policy_is_strict() -> None:
    ok = json.dumps(base_policy(forbidden_columns=["a"])).encode()
    assert parse_policy(ok, "p.json").forbidden_columns == ("a",)
    for text, where in [(b'{"format": "planner-app/policy@1", "name": "a", "name": "b"}',
                         "name: appears twice"),
                        (b'{"format": "planner-app/policy@1", '
                         b'"max_epsilon_per_release": NaN}', "is not strict JSON"),
                        (b"[]", "must be a JSON object"),
                        (b"{", "is not valid JSON")]:
        with pytest.raises(InputError, match=where):
            parse_policy(text, "p.json")


def test_the_policy_makes_approval_required_by_its_officers(world: World) -> None:
    key = KeyStore(app_home(world.officer_home)).public("officer")
    doc = base_policy(require_approval_by=[{"name": "ann", "key": key.line}])
    policy = parse_policy(json.dumps(doc).encode(), "p.json")
    required, trusted = approval_rule(policy, False, [])
    assert required and [k.key_id for k in trusted] == [key.key_id]
    assert approval_rule(None, False, []) == (False, [])
    assert approval_rule(parse_policy(json.dumps(base_policy()).encode(), "p"), True, [key]) \
        == (True, [key])


def test_the_documented_example_is_a_valid_policy() -> None:
    from tests.conftest import ROOT

    text = (ROOT / "docs" / "policy-format.md").read_text(encoding="utf-8")
    example = text.split("```json\n", 1)[1].split("```", 1)[0]
    policy = parse_policy(example.encode(), "policy-format.md")
    assert policy.max_epsilon_per_release == 2.0 and policy.same_file_new_name == "refuse"
    assert policy.forbids("SSN") and policy.require_approval_by[0].name == "Ada Officer"


def test_the_charge_tests_the_policy_cap_under_its_lock(tmp_path: Path) -> None:
    """Two releases prepared at once both pass the pre-check; the charge, under the ledger's
    lock, is what keeps the policy's cap."""
    from planner_app.core.dp.accounting import Total
    from planner_app.core.records.ledger import BudgetExceeded, Cap
    from planner_app.core.records.policy import effective_cap

    ledger = Ledger(tmp_path / "ledger.sqlite3")
    policy = parse_policy(json.dumps(base_policy(
        default_lifetime_cap={"epsilon": 1.5, "delta": 1e-5})).encode(), "p.json")
    limit = (lambda cap: effective_cap(cap, policy, "d"))  # noqa: E731
    assert limit(Cap(10, 1e-5)) == Cap(1.5, 1e-5, False, by_policy=True)
    args = dict(dataset="d", file_name="f.csv", file_sha256="0" * 64, plan_sha256="1" * 64,
                total=Total(1.0, 0.0, "basic"), measurements=[])
    ledger.charge(release_id="a", cap_limit=limit, **args)  # type: ignore[arg-type]
    with pytest.raises(BudgetExceeded, match=r"\(set by the organisation's policy\)"):
        ledger.charge(release_id="b", cap_limit=limit, **args)  # type: ignore[arg-type]
    ledger.charge(release_id="b", **args)  # type: ignore[arg-type]  # the ledger's own cap: 10
    assert [r.id for r in ledger.state("d").releases] == ["a", "b"]


def test_a_policy_cap_equal_to_the_ledger_s_is_said_to_be_the_policy_s() -> None:
    """A policy whose cap equals the default (ε 10, δ 1e-5) binds it: raising the ledger's
    cap would not lift it, so the cap is labelled the policy's, not "(the default)"; a policy
    above the ledger's cap in ε leaves the ledger's cap and its label."""
    from planner_app.core.records.ledger import DEFAULT_CAP, Cap
    from planner_app.core.records.policy import effective_cap

    def policy_with(eps: float, delta: float) -> Any:
        return parse_policy(json.dumps(base_policy(
            default_lifetime_cap={"epsilon": eps, "delta": delta})).encode(), "p.json")

    same = effective_cap(DEFAULT_CAP, policy_with(10, 1e-5), "d")
    assert (same.epsilon, same.delta, same.is_default, same.by_policy) == (10, 1e-5, False, True)
    looser = effective_cap(DEFAULT_CAP, policy_with(12, 1e-5), "d")
    assert looser == DEFAULT_CAP
    own = Cap(3, 1e-6)
    assert effective_cap(own, policy_with(3, 1e-6), "d") == Cap(3, 1e-6, False, by_policy=True)


# ----------------------------------------------------------------------------- review fixes


def forged_key(world: World, name: str = "forged") -> tuple[Path, Any]:
    """A NEW Ed25519 key pair that carries the officer's 8-byte key id (minisign key ids are
    chosen by whoever makes the key): its .pub file and its secret key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from planner_app.core.records.keys import PublicKey, SecretKey

    officer = KeyStore(app_home(world.officer_home)).public("officer")
    private = Ed25519PrivateKey.generate()
    raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    public = PublicKey(officer.key_id, raw, name)
    assert public.fingerprint == officer.fingerprint and public.key != officer.key
    path = world.tmp / f"{name}.pub"
    path.write_text(public.to_text(), encoding="utf-8")
    return path, SecretKey(name, public, private)


def sign_with(path: Path, secret: Any) -> None:
    path.with_name(path.name + ".minisig").write_text(
        secret.sign(path.read_bytes(), "forged"), encoding="utf-8")


STRICT = dict(max_epsilon_per_release=2, max_delta_per_release=1e-6)


def test_a_key_with_the_officers_key_id_cannot_replace_the_policy(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    install(world, capsys, base_policy(**STRICT))
    forged_pub, secret = forged_key(world)
    loose = world.policy(base_policy(max_epsilon_per_release=100, max_delta_per_release=1e-5),
                         "loose.json", key=None)
    sign_with(loose, secret)
    before = world.snapshot()
    code, out, err = world.run(capsys, "policy", "install", str(loose), "--trust",
                               str(forged_pub))
    assert code == 3, err
    assert "a replacement must be signed by the same key" in err and out == ""
    assert world.snapshot() == before
    policy = PolicyStore(world.owner).load()
    assert policy is not None and policy.max_epsilon_per_release == 2


def test_a_forged_key_put_beside_the_installed_policy_fails_closed(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    install(world, capsys, base_policy(**STRICT))
    forged_pub, secret = forged_key(world)
    loose = world.policy(base_policy(max_epsilon_per_release=100, max_delta_per_release=1e-5),
                         "loose.json", key=None)
    sign_with(loose, secret)
    folder = world.owner.data_dir / "policy"
    for p in folder.iterdir():
        if p.name.endswith(".pub"):
            p.write_bytes(forged_pub.read_bytes())
    (folder / "policy.json").write_bytes(loose.read_bytes())
    (folder / "policy.json.minisig").write_bytes(
        loose.with_name("loose.json.minisig").read_bytes())
    with pytest.raises(PolicyError, match="releases are refused"):
        PolicyStore(world.owner).load()
    code, _, err = release(world, capsys, world.plan(), "b.zip")
    assert code == 4, err


def test_deleting_the_ledger_and_the_policy_does_not_switch_it_off(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    install(world, capsys, base_policy(**STRICT))
    shutil.rmtree(world.owner.data_dir / "policy")
    world.owner.ledger_path.unlink()
    with pytest.raises(PolicyError, match="audit log"):
        PolicyStore(world.owner).load()
    code, _, err = release(world, capsys, world.plan(), "b.zip")
    assert code == 4 and "audit log" in err, err
    assert not (world.tmp / "out" / "b.zip").exists()


def test_charge_existing_is_refused_and_refuse_is_the_default(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    path = world.policy(base_policy(same_file_new_name="charge_existing"))
    code, out, err = world.run(capsys, "policy", "install", str(path), "--trust",
                               str(world.officer_pub))
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "same_file_new_name" in err and "whether two files are the same" in err
    assert parse_policy(json.dumps(base_policy()).encode(), "p").same_file_new_name \
        == "refuse"
    install(world, capsys, base_policy())
    code, _, err = release(world, capsys, world.plan(), "1.zip")
    assert code == 0, err
    renamed = world.plan("renamed.json", dataset={**DEMO["dataset"], "name": "survey-2"})
    code, _, err = release(world, capsys, renamed, "2.zip")
    assert code == 3 and "released before as dataset 'demo-survey'" in err


def test_lifetime_caps_match_names_without_regard_to_case_or_unicode_form(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    policy = parse_policy(json.dumps(base_policy(
        lifetime_caps={"demo-survey": {"epsilon": 3, "delta": 1e-5}},
        default_lifetime_cap={"epsilon": 9, "delta": 1e-5})).encode(), "p")
    for name in ("Demo-Survey", "DEMO-SURVEY", "\uff24emo-survey"):  # fullwidth D (NFKC)
        cap = policy.cap_for(name)
        assert cap is not None and cap.epsilon == 3, name
    install(world, capsys, base_policy(
        lifetime_caps={"demo-survey": {"epsilon": 3, "delta": 1e-5}},
        default_lifetime_cap={"epsilon": 9, "delta": 1e-5}))
    renamed = world.plan("renamed.json", dataset={**DEMO["dataset"], "name": "Demo-Survey"})
    code, _, err = release(world, capsys, renamed, "b.zip")
    assert code == 3 and "lifetime cap ε = 3" in err, err


@pytest.mark.parametrize("doc,field_name", [
    (base_policy(lifetime_caps={"a": {"epsilon": 1, "delta": 0}}), "default_lifetime_cap"),
    (base_policy(max_epsilon_per_release=1), "max_delta_per_release"),
    (base_policy(lifetime_caps={"a": {"epsilon": 1, "delta": 0},
                                "A": {"epsilon": 2, "delta": 0}},
                 default_lifetime_cap={"epsilon": 1, "delta": 0}), "lifetime_caps"),
])
def test_policies_with_an_escape_are_refused(world: World, capsys: pytest.CaptureFixture[str],
                                             doc: dict[str, Any], field_name: str) -> None:
    code, out, err = world.run(capsys, "policy", "install", str(world.policy(doc)), "--trust",
                               str(world.officer_pub))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and field_name in lines[0], err
    assert out == "" and not (world.owner.data_dir / "policy").exists()


def test_a_deeply_nested_policy_is_a_one_line_error(world: World,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = world.tmp / "deep.json"
    path.write_text('{"format": "planner-app/policy@1", "name": ' + "[" * 100_000
                    + "]" * 100_000 + "}", encoding="utf-8")
    code, _, err = world.run(capsys, "policy", "sign", str(path), "--key", "officer",
                             home=world.officer_home)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    sign_with(path, KeyStore(app_home(world.officer_home)).secret("officer"))
    code, _, err = world.run(capsys, "policy", "install", str(path), "--trust",
                             str(world.officer_pub))
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_install_verifies_the_signature_before_reading_the_policy(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    path = world.policy(base_policy(no_such_field=1), key="other")
    code, _, err = world.run(capsys, "policy", "install", str(path), "--trust",
                             str(world.officer_pub))
    assert code == 3 and "not a trusted key" in err, err


def test_a_whole_pub_file_as_an_officer_key_says_which_line(world: World) -> None:
    text = world.officer_pub.read_text(encoding="utf-8").strip()
    doc = base_policy(require_approval_by=[{"name": "ann", "key": text}])
    with pytest.raises(InputError, match="use the second line of the .pub file"):
        parse_policy(json.dumps(doc).encode(), "p.json")


def test_the_approval_refusal_names_the_policys_officers(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    key = KeyStore(app_home(world.officer_home)).public("officer")
    install(world, capsys, base_policy(require_approval_by=[{"name": "Ada Officer",
                                                              "key": key.line}]))
    code, _, err = world.run(capsys, "release", str(world.plan()), "--data", str(DEMO_TABLE),
                             "--out", str(world.tmp / "out" / "b.zip"), "--require-approval",
                             "--trust", str(world.other_pub))
    assert code == 3, err
    assert ("the organisation's policy accepts only approvals signed by: Ada Officer (key "
            f"{key.fingerprint})") in err
    assert "(--trust is not used: the policy names the officers)" in err
    code, _, err = release(world, capsys, world.plan(), "c.zip")
    assert code == 3 and "Ada Officer" in err and "--trust is not used" not in err


def test_sign_and_install_warn_when_the_signer_is_not_an_approver(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    other = KeyStore(app_home(world.officer_home)).public("other")
    path = world.policy(base_policy(require_approval_by=[{"name": "Bo", "key": other.line}]))
    code, out, err = world.run(capsys, "policy", "sign", str(path), "--key", "officer",
                               home=world.officer_home)
    assert code == 0 and "warning" in (out + err) and "require_approval_by" in (out + err)
    code, out, err = world.run(capsys, "policy", "install", str(path), "--trust",
                               str(world.officer_pub))
    assert code == 0 and "warning" in (out + err) and "require_approval_by" in (out + err)
    path = world.policy(base_policy())  # no approvers named: nothing to warn about
    code, out, err = world.run(capsys, "policy", "sign", str(path), "--key", "officer",
                               home=world.officer_home)
    assert code == 0 and "warning" not in (out + err)


def test_the_signers_name_is_kept(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    ada = world.tmp / "ada-lovelace.pub"
    ada.write_bytes(world.officer_pub.read_bytes())
    path = world.policy(base_policy())
    code, _, err = world.run(capsys, "policy", "install", str(path), "--trust", str(ada))
    assert code == 0, err
    code, out, _ = world.run(capsys, "policy", "show")
    assert "signed by ada-lovelace (key" in out, out
    code, out, _ = world.run(capsys, "policy", "show", "--json")
    assert json.loads(out)["signed_by"]["name"] == "ada-lovelace"


def test_check_says_a_tampered_policy_is_unusable_at_the_lifetime_line(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    install(world, capsys, base_policy(default_lifetime_cap={"epsilon": 4, "delta": 1e-5}))
    path = world.owner.data_dir / "policy" / "policy.json"
    path.write_bytes(path.read_bytes().replace(b"4", b"40"))
    code, out, _ = world.run(capsys, "check", str(world.plan()), "--json")
    rules = {r["rule"]: r for r in json.loads(out)["rules"]}
    assert rules["lifetime"]["status"] == "fail", rules["lifetime"]
    assert "cap ε = 10" not in rules["lifetime"]["message"]
    assert "policy" in rules["lifetime"]["message"]
    for r in rules.values():
        text = r["message"] + " " + (r.get("action") or "")
        assert "file Ask" not in text and "file. Ask the privacy officer to install" not in text
    assert "owner" in rules["policy"]["action"]
    assert "privacy officer to install" not in rules["policy"]["action"]


def test_a_lifetime_refusal_names_the_policy_and_its_officer(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    install(world, capsys, base_policy(default_lifetime_cap={"epsilon": 3, "delta": 1e-5}))
    code, out, _ = world.run(capsys, "check", str(world.plan()), "--json")
    rules = {r["rule"]: r for r in json.loads(out)["rules"]}
    assert rules["lifetime"]["status"] == "fail"
    assert "whoever manages" not in rules["lifetime"]["action"]
    assert "Statistics office 2026" in rules["lifetime"]["action"]
    assert "officer" in rules["lifetime"]["action"]


def test_an_older_policy_cannot_be_put_back(world: World,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    old = world.policy(base_policy(max_epsilon_per_release=9, max_delta_per_release=1e-5),
                       "old.json")
    code, _, err = world.run(capsys, "policy", "install", str(old), "--trust",
                             str(world.officer_pub))
    assert code == 0, err
    install(world, capsys, base_policy(version=2, **STRICT))
    assert Ledger(world.owner.ledger_path).policy_record()[1] == 2  # type: ignore[index]
    before = world.snapshot()
    # reinstalled by its command: refused, naming the versions
    code, out, err = world.run(capsys, "policy", "install", str(old), "--trust",
                               str(world.officer_pub))
    assert code == 3 and "version 1" in err and "version 2" in err, err
    assert world.snapshot() == before
    # copied into the app home by hand: the policy in force fails closed
    folder = world.owner.data_dir / "policy"
    (folder / "policy.json").write_bytes(old.read_bytes())
    (folder / "policy.json.minisig").write_bytes(old.with_name("old.json.minisig").read_bytes())
    with pytest.raises(PolicyError, match="is not the one installed"):
        PolicyStore(world.owner).load()
    code, _, err = release(world, capsys, world.plan(), "b.zip")
    assert code == 4, err


@pytest.mark.parametrize("version", [0, -1, 1.5, "2", True, None])
def test_a_policy_needs_a_positive_whole_version(version: Any) -> None:
    doc = base_policy()
    if version is None:
        del doc["version"]
    else:
        doc["version"] = version
    with pytest.raises(InputError, match="version: must be a whole number of at least 1"):
        parse_policy(json.dumps(doc).encode(), "p.json")


def test_a_new_spelling_of_a_released_dataset_is_refused(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """The cap matches Demo-Survey to demo-survey; the ledger's spending must too, so a new
    spelling of a dataset the ledger holds is refused rather than given a fresh budget."""
    install(world, capsys, base_policy(same_file_new_name="allow",
                                       default_lifetime_cap={"epsilon": 5, "delta": 1e-5}))
    code, _, err = release(world, capsys, world.plan(), "1.zip")
    assert code == 0, err
    before = world.snapshot()
    renamed = world.plan("renamed.json", dataset={**DEMO["dataset"], "name": "Demo-Survey"})
    code, _, err = release(world, capsys, renamed, "2.zip")
    lines = err.strip().splitlines()
    assert code == 3 and len(lines) == 1 and "'demo-survey'" in lines[0], err
    assert "Nothing was charged or written" in lines[0]
    assert world.snapshot() == before
    # check (and the app's checklist: the same readiness rules) names it before a release
    code, out, err = world.run(capsys, "check", str(renamed))
    assert code == 0, err
    assert "another spelling of 'demo-survey'" in out and "Ready to release: NO" in out


def test_an_installation_cut_short_after_its_audit_entry_is_completed_by_installing_again(
        world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    install(world, capsys, base_policy(**STRICT))
    newer = base_policy(version=2, max_epsilon_per_release=3, max_delta_per_release=1e-6)

    def crash(*args: Any, **kwargs: Any) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(Ledger, "record_policy", crash)
    with pytest.raises(OSError):
        PolicyStore(world.owner).install(world.policy(newer), KeyStore(
            app_home(world.officer_home)).public("officer"))
    monkeypatch.undo()
    with pytest.raises(PolicyError):  # audit log and ledger disagree: closed
        PolicyStore(world.owner).load()
    install(world, capsys, newer)
    policy = PolicyStore(world.owner).load()
    assert policy is not None and policy.version == 2


def test_policy_events_are_the_audit_logs_policy_entries(world: World,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """Every policy load scans the audit log for its policy events without parsing every
    line; what it finds must be exactly what a full read finds, including around entries
    whose parameters merely mention the words."""
    from planner_app.core.records.policy import POLICY_EVENTS, policy_events

    install(world, capsys, base_policy(**STRICT))
    AuditLog(world.owner.audit_path).append("note", {"dataset": "policy installed"})
    install(world, capsys, base_policy(**{**STRICT, "version": 2}))
    full = [e for e in AuditLog(world.owner.audit_path).read()
            if e.get("event") in POLICY_EVENTS]
    found = policy_events(world.owner)
    assert [e["hash"] for e in found] == [e["hash"] for e in full]
    assert [e["event"] for e in found] == ["policy installed", "policy replaced"]
