"""The planner-app command: the desktop app with no sub-command, the CLI with one.

Every sub-command works without PySide6 installed: Qt is imported only when the desktop app
starts. Exit codes: 0 ok; 1 internal error (verify: the bundle is not valid); 2 invalid input
(one line on stderr naming the file and the problem; verify: not a bundle); 3 refused because
the budget does not allow it (nothing charged or written); 4 the ledger or audit log cannot be
used (nothing released). Never a traceback unless PLANNER_APP_DEBUG=1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

from . import __version__
from .core.audit import AuditError
from .core.errors import Cancelled, InputError, PlannerError
from .core.ledger import BudgetExceeded, LedgerError
from .core.review import ApprovalRequired

PROG = "planner-app"
EXIT_OK, EXIT_INTERNAL, EXIT_INPUT, EXIT_REFUSED, EXIT_LEDGER = 0, 1, 2, 3, 4


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (and exit code 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError("argument", None, f"{message} (see {self.prog} --help)")


def _finite_float(name: str, lo: float | None = None, hi: float | None = None,
                  lo_open: bool = False, hi_open: bool = False):  # type: ignore[no-untyped-def]
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, not {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} must be finite")
        if lo is not None and (value < lo or (lo_open and value == lo)):
            raise argparse.ArgumentTypeError(
                f"{name} must be {'above' if lo_open else 'at least'} {lo:g}")
        if hi is not None and (value > hi or (hi_open and value == hi)):
            raise argparse.ArgumentTypeError(
                f"{name} must be {'below' if hi_open else 'at most'} {hi:g}")
        return value

    return parse


def _confidence_arg(text: str) -> float:
    """--confidence: the core's range (accuracy.MIN_CONFIDENCE .. MAX_CONFIDENCE)."""
    from .core.accuracy import MAX_CONFIDENCE, MIN_CONFIDENCE

    return _finite_float("--confidence", lo=MIN_CONFIDENCE, hi=MAX_CONFIDENCE)(text)


def _delta_arg(name: str):  # type: ignore[no-untyped-def]
    """A δ argument: the core's one rule (0, or at least MIN_DELTA and below 1)."""
    def parse(text: str) -> float:
        from .core.plan import delta_problem

        value = _finite_float(name)(text)
        problem = delta_problem(value)
        if problem:
            raise argparse.ArgumentTypeError(f"{name} {problem}")
        return value

    return parse


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Plan, explain and release statistics about people under differential "
                    "privacy. With no sub-command, opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--demo", action="store_true",
                        help="open the desktop app on the bundled demo table and plan")
    parser.add_argument("--home", metavar="DIR",
                        help="keep settings, the budget ledger and the audit log in DIR "
                             "(default: $PLANNER_APP_HOME, else the per-user app folders)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    gui = sub.add_parser("gui", help="open the desktop app (the default)")
    gui.add_argument("--demo", action="store_true", help="open the bundled demo table and plan")
    gui.add_argument("--smoke-test", action="store_true",
                     help="open the main window, render it, and exit 0 (for CI and installers)")

    explain = sub.add_parser("explain", help="what an ε (and δ) means for a person, in words")
    explain.add_argument("--epsilon", required=True,
                         type=_finite_float("--epsilon", lo=0, lo_open=True, hi=1000))
    explain.add_argument("--delta", default=0.0,
                         type=_delta_arg("--delta"))
    explain.add_argument("--prior", default=0.5,
                         type=_finite_float("--prior", lo=0, hi=1, lo_open=True, hi_open=True),
                         help="the attacker's belief before the release (default 0.5)")
    explain.add_argument("--group-size", default=1, type=_positive_int,
                         help="people who share data, such as a household (default 1)")
    explain.add_argument("--relation", choices=("add-remove", "replace-one"),
                         default="add-remove")
    explain.add_argument("--json", action="store_true", help="print JSON")

    check = sub.add_parser("check", help="sensitivity, noise, accuracy and ε of every "
                                         "statistic in a plan, and the composed total")
    check.add_argument("plan", help="plan file (JSON)")
    check.add_argument("--data", help="also check the plan against this table")
    check.add_argument("--confidence", default=0.95,
                       type=_confidence_arg)
    check.add_argument("--require-approval", action="store_true",
                       help="count an approval of this exact plan as a release rule (as "
                            "release --require-approval and the app setting do)")
    check.add_argument("--json", action="store_true", help="print JSON")

    release = sub.add_parser("release", help="charge the ledger, add the noise once and write "
                                             "a release bundle")
    release.add_argument("plan", nargs="?", help="plan file (JSON)")
    release.add_argument("--data", help="the table (required unless --resume)")
    release.add_argument("--out", help="the bundle to write (.zip; required unless --resume, "
                                       "which writes where the release first aimed)")
    release.add_argument("--force", action="store_true",
                         help="replace an existing bundle file at --out")
    release.add_argument("--resume", nargs="?", const="", metavar="RELEASE_ID",
                         help="complete a release that was charged but whose bundle was not "
                              "written, from its saved noised record (no new noise, no new "
                              "charge); the id may be left out when only one is unfinished")
    release.add_argument("--confidence", default=0.95,
                         type=_confidence_arg)
    release.add_argument("--clamp-counts", action="store_true",
                         help="show negative noisy counts as 0 (recorded in release.json)")
    release.add_argument("--require-approval", action="store_true",
                         help="refuse unless a reviewer approved this exact plan (also "
                              "when the app setting 'Require approval before release' is on)")
    release.add_argument("--json", action="store_true", help="print JSON")

    review = sub.add_parser("review", help="approve or reject a plan (the privacy officer)")
    review.add_argument("plan", help="plan file (JSON); the decision is added to it")
    decision = review.add_mutually_exclusive_group(required=True)
    decision.add_argument("--approve", action="store_true")
    decision.add_argument("--reject", action="store_true")
    review.add_argument("--reviewer", required=True, help="your name")
    review.add_argument("--comment", default="", help="why")
    review.add_argument("--json", action="store_true", help="print JSON")

    report = sub.add_parser("report", help="write a bundle's report as PDF (or HTML)")
    report.add_argument("bundle", help="the bundle (.zip)")
    report.add_argument("--pdf", help="where to write the PDF")
    report.add_argument("--html", help="where to write the HTML")
    report.add_argument("--force", action="store_true", help="overwrite existing files")
    report.add_argument("--json", action="store_true", help="print JSON")

    ledger = sub.add_parser("ledger", help="the per-dataset privacy budget ledger")
    ledger_sub = ledger.add_subparsers(dest="ledger_command", metavar="ACTION",
                                       parser_class=_Parser)
    cap = ledger_sub.add_parser("set-cap", help="set a dataset's lifetime budget")
    cap.add_argument("name", help="the dataset's name (as in its plans)")
    cap.add_argument("--epsilon", required=True,
                     type=_finite_float("--epsilon", lo=0, lo_open=True, hi=1000))
    cap.add_argument("--delta", default=None,
                     type=_delta_arg("--delta"))
    cap.add_argument("--json", action="store_true", help="print JSON")
    show = ledger_sub.add_parser("show", help="what each dataset has spent and has left")
    show.add_argument("name", nargs="?", help="one dataset (default: all)")
    show.add_argument("--json", action="store_true", help="print JSON")
    prove = ledger_sub.add_parser(
        "prove-file", help="the keys that open a dataset's file commitments, for an auditor "
                           "who holds the data file")
    prove.add_argument("name", help="the dataset's name (as in its plans)")
    prove.add_argument("--data", required=True, help="the data file to prove")
    prove.add_argument("--bundle", help="check this bundle's commitment (default: every "
                                        "release of NAME made from the file)")
    prove.add_argument("--json", action="store_true", help="print JSON")

    verify = sub.add_parser("verify", help="check a release bundle offline")
    verify.add_argument("bundle", help="the bundle (.zip)")
    verify.add_argument("--json", action="store_true", help="print JSON")

    plan = sub.add_parser("plan", help="make plan files")
    plan_sub = plan.add_subparsers(dest="plan_command", metavar="ACTION", parser_class=_Parser)
    new = plan_sub.add_parser("new", help="a starter plan from a table's columns")
    new.add_argument("--data", required=True, help="the table (CSV, TSV, .xlsx, .parquet)")
    new.add_argument("--out", required=True, help="where to write the plan")
    new.add_argument("--dataset", help="the dataset's name (default: the file's name)")
    new.add_argument("--force", action="store_true", help="overwrite an existing file")
    new.add_argument("--json", action="store_true", help="print JSON")
    return parser


# ----------------------------------------------------------------------------- output


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _print_json(obj: Any) -> None:
    print(json.dumps(_jsonable(obj), indent=2, ensure_ascii=False, allow_nan=False))


def _num(x: Any, digits: int = 6) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and not math.isfinite(x):
        return "unbounded"
    return f"{x:.{digits}g}"


# ----------------------------------------------------------------------------- commands


def cmd_explain(args: argparse.Namespace) -> int:
    from .core.risk import explain

    risk = explain(args.epsilon, args.delta, args.prior, args.group_size, args.relation)
    if args.json:
        _print_json(risk.to_dict())
        return EXIT_OK
    print(risk.sentence)
    print(risk.lower_sentence)
    print(risk.frequency_sentence)
    print(risk.delta_sentence)
    if args.group_size > 1:
        print(risk.group_sentence)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from .core.check import check_plan
    from .core.plan import load_plan
    from .core.tables import load_table

    plan = load_plan(args.plan)
    table = load_table(args.data) if args.data else None
    with _naming_plan_file(args.plan):
        report = check_plan(plan, table, confidence=args.confidence,
                            ledger=_ledger_state_or_error(args, plan.dataset.name),
                            require_approval=_approval_required(args))
    data = report.to_dict()
    from .core.plan import plan_digest

    _audit_best_effort(args, "plan checked", {
        "dataset": plan.dataset.name, "plan_sha256": plan_digest(plan),
        "with_data": table is not None, "epsilon": report.total.epsilon,
        "delta": report.total.delta, "accountant": report.total.accountant,
        "fits_budget": report.fits_budget})
    if args.json:
        _print_json(data)
        return EXIT_OK
    p = data["plan"]
    unit = p["privacy_unit"]
    unit_text = ("each row is one person" if unit["kind"] == "row"
                 else f"a person ({unit['id_column']}) has up to {unit['max_rows']} rows")
    print(f"Plan for {p['dataset']!r}: {unit_text}; neighbouring tables: {p['neighbouring']}")
    print(f"Budget for this release: ε = {p['budget']['epsilon']:g}, "
          f"δ = {p['budget']['delta']:g}")
    print()
    header = f"{'statistic':<26} {'kind':<19} {'ε':>8} {'± at ' + str(int(args.confidence * 100)) + '%':>14}  noise"
    print(header)
    print("-" * len(header))
    from .core.accuracy import format_half_width, quantile_words

    for q, qc in zip(data["queries"], report.queries):
        acc = q["accuracy"]
        noise = (f"σ = {_num(q['sigma'])}" if "sigma" in q else
                 f"scale {_num(q.get('scale'))}" if q.get("scale") is not None else q["mechanism"])
        print(f"{q['id'][:26]:<26} {q['kind']:<19} {q['epsilon']:>8.4g} "
              f"{format_half_width(acc).removeprefix('± '):>14}  {noise}")
        print(f"    {q['derivation']}")
        if qc.query.kind == "quantile" and qc.query.quantile is not None:
            print(f"    {quantile_words(acc, qc.query.quantile)}")
    t = data["total"]
    print()
    print(f"Composed total: ε = {t['epsilon']:.4g}, δ = {t['delta']:.3g} ({t['accountant']} "
          f"accountant); fits the budget: {'yes' if data['fits_budget'] else 'NO'}")
    others = ", ".join(f"{a['accountant']} {a['epsilon']:.4g}" for a in data["alternatives"])
    print(f"  other accountants: {others}")
    print(data["risk"]["sentence"])
    for w in data["warnings"]:
        print(f"warning: {w}")
    for f in data["owner_facts"]:
        print(f"note (for you only, never exported): {f}")
    print()
    print(f"Ready to release: {'yes' if data['ready'] else 'NO'}")
    assert report.readiness is not None
    for r in report.readiness.results:
        print(f"  {RULE_MARKS[r.status]} {r.line}")
    return EXIT_OK


RULE_MARKS = {"pass": "ok  ", "fail": "NO  ", "warn": "warn"}


def _approval_required(args: argparse.Namespace) -> bool:
    """--require-approval, or the app setting "Require approval before release" of this home
    (the same setting the wizard reads)."""
    from .core.settings import load_settings

    settings = load_settings(_home(args).settings_path)
    return bool(args.require_approval) or settings.require_approval


def _ledger_state_or_error(args: argparse.Namespace, dataset: str):  # type: ignore[no-untyped-def]
    """The dataset's ledger state for the lifetime rule, or the error reading it."""
    from .core.ledger import Ledger

    try:
        return Ledger(_home(args).ledger_path).state_without_creating(dataset)
    except PlannerError as exc:
        return exc


@contextlib.contextmanager
def _naming_plan_file(plan_path: str) -> Iterator[None]:
    """Core checks name a plan problem with the source "plan": say which file it is."""
    try:
        yield
    except InputError as exc:
        if exc.source != "plan":
            raise
        raise InputError(Path(plan_path).name, exc.where, exc.problem) from None


def _looks_like_id(name: str) -> bool:
    lowered = name.lower()
    return lowered in ("id", "key", "uuid") or lowered.endswith(("_id", " id", "-id"))


def cmd_plan_new(args: argparse.Namespace) -> int:
    from .core.files import atomic_write_text, check_output_path
    from .core.plan import FORMAT
    from .core.tables import describe_columns, load_table

    out = check_output_path(Path(args.out), overwrite=args.force,  # never over a link,
                            keep=[Path(args.data)])  # a pipe, a device or the table
    table = load_table(args.data)
    columns = describe_columns(table)
    queries: list[dict[str, Any]] = [
        {"id": "rows", "label": "Number of rows", "kind": "count", "epsilon": None}]
    for col in columns:
        if _looks_like_id(col.name):
            continue  # an identifier is a privacy unit, not a statistic
        ident = "".join(ch if ch.isalnum() or ch in "_.-" else "_" for ch in col.name)[:50]
        if col.detected_type == "number":
            queries.append({"id": f"mean_{ident}", "label": f"Mean of {col.name}",
                            "kind": "mean", "column": col.name, "lower": None, "upper": None,
                            "epsilon": None,
                            "justification": {"bounds": "TODO: where the bounds come from"}})
        elif col.detected_type == "yes/no":
            queries.append({"id": f"share_{ident}", "label": f"Share of yes in {col.name}",
                            "kind": "randomized_response", "column": col.name,
                            "epsilon": None})
        else:
            queries.append({"id": f"counts_{ident}", "label": f"Counts of {col.name}",
                            "kind": "histogram", "column": col.name, "categories": [],
                            "epsilon": None, "justification": {
                                "categories": "TODO: where the list comes from"}})
    share = round(1.0 / len(queries), 6)
    for q in queries:
        q["epsilon"] = share
    name = args.dataset or Path(args.data).stem
    ids = [c.name for c in columns if _looks_like_id(c.name)]
    # with an id column, the owner must say how many rows one person may have
    unit: dict[str, Any] = ({"kind": "person", "id_column": ids[0], "max_rows": None}
                            if ids else {"kind": "row"})
    doc = {
        "format": FORMAT,
        "dataset": {"name": name, "path": Path(args.data).name},
        "privacy_unit": unit,
        "neighbouring": "add-remove",
        "budget": {"epsilon": 1.0, "delta": 0.0},
        "queries": queries,
    }
    atomic_write_text(out, json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                      overwrite=args.force)
    todo = sum(1 for q in queries if q.get("lower", 0) is None or q.get("categories") == [])
    summary = {"plan": str(out), "queries": len(queries), "to_fill_in": todo,
               "columns": [{"name": c.name, "type": c.detected_type} for c in columns]}
    if args.json:
        _print_json(summary)
    else:
        print(f"Wrote a starter plan with {len(queries)} statistics to {out}.")
        print(f"{todo} of them need bounds or categories that you know from the domain "
              "(never from the data), and each a reason in place of its TODO; "
              "`planner-app check` names each missing field and reason.")
        if ids:
            print(f"{ids[0]} looks like a person id: set privacy_unit.max_rows to the most "
                  "rows one person may have.")
        else:
            print("Set privacy_unit to a person id column if a person can have several rows.")
    return EXIT_OK


def _home(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from .core.home import app_home

    return app_home(args.home)


def _audit_best_effort(args: argparse.Namespace, event: str, params: dict[str, Any]) -> None:
    from .core.audit import AuditError, AuditLog

    try:
        home = _home(args).ensure()
        AuditLog(home.audit_path).append(event, params)
    except (AuditError, PlannerError) as exc:
        print(f"{PROG}: warning: not recorded in the audit log: {exc}", file=sys.stderr)


def cmd_release(args: argparse.Namespace) -> int:
    from .core.plan import load_plan
    from .core.publish import publish
    from .core.resume import resume_release
    from .core.tables import load_table

    home = _home(args)
    if args.resume is not None:
        if args.plan or args.data:
            raise InputError("argument", None, "--resume completes a saved release: give no "
                                               "plan or --data (see planner-app release --help)")
        result = resume_release(home, args.resume or None,
                                out=Path(args.out) if args.out else None,
                                overwrite=args.force)
        plan = result.report.plan
    else:
        missing = [n for n, v in (("PLAN", args.plan), ("--data", args.data),
                                  ("--out", args.out)) if not v]
        if missing:
            raise InputError("argument", None, f"release needs {', '.join(missing)} (see "
                                               "planner-app release --help)")
        plan = load_plan(args.plan)
        table = load_table(args.data)
        with _naming_plan_file(args.plan):  # core errors name "plan": say which file
            result = publish(plan, table, Path(args.out), home, confidence=args.confidence,
                             clamp_counts=args.clamp_counts, overwrite=args.force,
                             require_approval=_approval_required(args),
                             inputs=[Path(args.plan), Path(args.data)])
    state = result.ledger
    summary = {
        "bundle": str(result.bundle_path), "bundle_sha256": result.bundle_sha256,
        "release_id": result.release_id, "dataset": plan.dataset.name,
        "total": result.report.total.to_dict(),
        "ledger": {k: v for k, v in state.to_dict().items() if k != "releases"},
        "notes": result.notes,
    }
    if args.json:
        _print_json(summary)
        return EXIT_OK
    t = result.report.total
    print(f"Released {len(plan.queries)} statistics of {plan.dataset.name!r} to "
          f"{result.bundle_path} (ε = {t.epsilon:.4g}, δ = {t.delta:.3g}, {t.accountant}).")
    print(f"Lifetime budget of {plan.dataset.name!r}: spent ε = {state.spent.epsilon:.4g} of "
          f"{state.cap.epsilon:g}{' (default cap)' if state.cap.is_default else ''}; "
          f"ε = {state.remaining_epsilon:.4g} left.")
    for note in result.notes:
        print(f"note (for you only, not in the bundle): {note}", file=sys.stderr)
    return EXIT_OK


def _ledger_lines(state) -> list[str]:  # type: ignore[no-untyped-def]
    cap = state.cap
    lines = [f"{state.dataset}: spent ε = {state.spent.epsilon:.4g}, δ = {state.spent.delta:.3g} "
             f"({state.spent.accountant}) of the cap ε = {cap.epsilon:g}, δ = {cap.delta:g}"
             f"{' (default cap)' if cap.is_default else ''}; left ε = "
             f"{state.remaining_epsilon:.4g}, δ = {state.remaining_delta:.3g}; "
             f"{len(state.releases)} release(s)"]
    for r in state.releases:
        lines.append(f"  {r.time}  ε = {r.epsilon:.4g}  δ = {r.delta:.3g}  {r.accountant:<6} "
                     f"{r.status:<9} {r.file_name}  plan {r.plan_sha256[:12]}")
    return lines


def cmd_ledger(args: argparse.Namespace) -> int:
    from .core.ledger import DEFAULT_CAP_DELTA, DEFAULT_CAP_EPSILON, Ledger

    home = _home(args).ensure()
    ledger = Ledger(home.ledger_path)
    if args.ledger_command == "set-cap":
        current = ledger.state(args.name)
        delta = args.delta if args.delta is not None else (
            DEFAULT_CAP_DELTA if current.cap.is_default else current.cap.delta)
        state = ledger.set_cap(args.name, args.epsilon, delta)
        _audit_best_effort(args, "ledger cap set", {"dataset": args.name,
                                                    "epsilon": args.epsilon, "delta": delta})
        if args.json:
            _print_json(state.to_dict())
        else:
            print("\n".join(_ledger_lines(state)))
        return EXIT_OK
    if args.ledger_command == "show":
        from .core.audit import AuditLog

        names = [args.name] if args.name else ledger.datasets()
        states = [ledger.state(n) for n in names]
        problems = ledger.audit_problems(AuditLog(home.audit_path).read())
        if args.json:
            _print_json(states[0].to_dict() if args.name else [s.to_dict() for s in states])
        else:
            if not states:
                print(f"No dataset has a release or a cap yet. The default lifetime cap is "
                      f"ε = {DEFAULT_CAP_EPSILON:g}, δ = {DEFAULT_CAP_DELTA:g}.")
            for state in states:
                print("\n".join(_ledger_lines(state)))
        if problems:  # shown, then exit 4: no release runs until this is mended
            print(f"{PROG}: the budget ledger and the audit log disagree: "
                  f"{'; '.join(problems)}", file=sys.stderr)
            return EXIT_LEDGER
        return EXIT_OK
    if args.ledger_command == "prove-file":
        return _prove_file(args, home)
    raise InputError("argument", None, "ledger needs an action: set-cap, show or prove-file")


def _prove_file(args: argparse.Namespace, home) -> int:  # type: ignore[no-untyped-def]
    from .core.commitment import prove_file

    proof = prove_file(home, args.name, Path(args.data),
                       Path(args.bundle) if args.bundle else None)
    ok = bool(proof.openings) and all(o.opens is not False for o in proof.openings)
    if args.json:
        _print_json(proof.to_dict())
        return EXIT_OK if ok else EXIT_INTERNAL
    if not proof.openings:
        print(f"{proof.file_name} was not used by any release of {args.name!r} (its SHA-256 "
              "is not in the ledger).", file=sys.stderr)
        return EXIT_INTERNAL
    for o in proof.openings:
        if o.opens is False:
            print(f"release {o.release_id}: its commitment does NOT open to "
                  f"{proof.file_name}: this is not the file that release used.")
            continue
        what = "opens to" if o.opens else "was made from"
        print(f"release {o.release_id}{' (' + o.time + ')' if o.time else ''} {what} "
              f"{proof.file_name}\n  commitment {o.commitment}\n  key        {o.key}")
    print(f"An auditor who holds {proof.file_name} checks it with the key alone (see "
          "docs/bundle-format.md): HMAC-SHA256(key, the file's SHA-256 in hex) equals the "
          "bundle's dataset.file_commitment.value. Each key opens one release only.")
    return EXIT_OK if ok else EXIT_INTERNAL


def cmd_verify(args: argparse.Namespace) -> int:
    from .core.bundle import NotABundle
    from .core.opened_bundle import open_bundle

    try:
        verdict = open_bundle(Path(args.bundle)).verdict  # what the app's bundle viewer shows
    except NotABundle as exc:
        if args.json:
            _print_json({"bundle": Path(args.bundle).name, "valid": False,
                         "problems": [str(exc)], "not_a_bundle": True})
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    if args.json:
        _print_json(verdict.to_dict())
    elif verdict.valid:
        print(f"{verdict.bundle}: verified")
        for check in verdict.checks:
            print(f"  ok: {check}")
    if not verdict.valid:
        print(f"{PROG}: {verdict.bundle}: NOT valid: {verdict.problems[0]}", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_OK


def cmd_review(args: argparse.Namespace) -> int:
    from .core.audit import AuditLog
    from .core.plan import load_plan
    from .core.review import record_review

    path = Path(args.plan)
    decision = "approved" if args.approve else "rejected"
    audit = AuditLog(_home(args).ensure().audit_path)
    reviewed = record_review(path, load_plan(path), args.reviewer, decision, args.comment,
                             audit)
    entry = dict(reviewed.approvals[-1])
    if args.json:
        _print_json(entry)
    else:
        print(f"{path.name}: {decision} by {entry['reviewer']} (plan SHA-256 "
              f"{entry['plan_sha256'][:16]}…). A change to the plan needs a new review.")
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    import json as _json

    from .core.bundle import RECORD, NotABundle, verify_bundle, read_bundle
    from .core.files import atomic_write_bytes, check_output_path
    from .core.report import report_html, report_pdf

    if not args.pdf and not args.html:
        raise InputError("argument", None, "say where to write the report: --pdf OUT and/or "
                                           "--html OUT")
    bundle = Path(args.bundle)
    try:
        verdict = verify_bundle(bundle)
    except NotABundle as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    if not verdict.valid:
        print(f"{PROG}: {bundle.name}: NOT valid, so no report: {verdict.problems[0]}",
              file=sys.stderr)
        return EXIT_INTERNAL
    targets = [Path(t) for t in (args.pdf, args.html) if t]
    if len(targets) == 2 and targets[0].absolute() == targets[1].absolute():
        raise InputError("argument", None, "--pdf and --html name the same file")
    for target in targets:  # before anything is written: never over a file without --force
        check_output_path(target, overwrite=args.force, keep=[bundle])
    record = _json.loads(read_bundle(bundle)[RECORD])
    written = []
    if args.pdf:
        atomic_write_bytes(Path(args.pdf), report_pdf(record), overwrite=args.force)
        written.append(args.pdf)
    if args.html:
        atomic_write_bytes(Path(args.html), report_html(record).encode("utf-8"),
                           overwrite=args.force)
        written.append(args.html)
    if args.json:
        _print_json({"bundle": bundle.name, "verified": True, "written": written})
    else:
        print(f"{bundle.name}: verified; wrote {', '.join(written)}")
    return EXIT_OK


def cmd_plan(args: argparse.Namespace) -> int:
    if args.plan_command == "new":
        return cmd_plan_new(args)
    raise InputError("argument", None, "plan needs an action: new")


def cmd_gui(args: argparse.Namespace) -> int:
    try:
        from .gui.app import run
    except ImportError as exc:
        raise PlannerError(f"the desktop app needs PySide6 ({exc.name or 'Qt'} is missing): "
                           "pip install PySide6-Essentials") from None
    return run(demo=getattr(args, "demo", False), smoke_test=getattr(args, "smoke_test", False),
               home=args.home)


def main(argv: Sequence[str] | None = None) -> int:
    debug = os.environ.get("PLANNER_APP_DEBUG") == "1"
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        handlers = {None: cmd_gui, "gui": cmd_gui, "explain": cmd_explain,
                    "check": cmd_check, "release": cmd_release, "ledger": cmd_ledger,
                    "verify": cmd_verify, "plan": cmd_plan, "review": cmd_review,
                    "report": cmd_report}
        return handlers[args.command](args)
    except InputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except (BudgetExceeded, ApprovalRequired) as exc:
        print(f"{PROG}: refused: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except (LedgerError, AuditError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_LEDGER
    except Cancelled as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except PlannerError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # never a traceback for a user
        if debug:
            raise
        print(f"{PROG}: internal error ({type(exc).__name__}); run again with "
              "PLANNER_APP_DEBUG=1 for details", file=sys.stderr)
        return EXIT_INTERNAL
