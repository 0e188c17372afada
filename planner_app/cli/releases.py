"""Commands about releases: release (and resume), verify a bundle, write its report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.support.errors import InputError
from ..core.support.numbers import shown
from .common import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_NOT_REGENERATED,
    EXIT_OK,
    PROG,
    _home,
    _naming_plan_file,
    _print_json,
    one_shot_gc,
    use_spark_master,
)


def cmd_release(args: argparse.Namespace) -> int:
    one_shot_gc()  # before the imports below: they are most of the objects made
    from ..core.data.tables import open_table
    from ..core.planfile import load_plan
    from ..core.records.released import again_warning
    from ..core.release.home_check import release_in_home
    from ..core.release.publish import synthetic_release_lines
    from ..core.release.resume import AlreadyComplete, resume_release
    from .passphrase import load_signing_key, terminal_passphrase

    home = _home(args)
    if getattr(args, "unsigned", False) and args.resume is None:
        raise InputError("argument", "--unsigned", "only completes an unfinished release: "
                                                   "planner-app release --resume ID --unsigned")
    if args.resume is not None:
        if args.plan or args.data:
            raise InputError("argument", None, "--resume completes a saved release: give no "
                                               "plan or --data (see planner-app release --help)")
        # a signed release is signed again by the key it names (its passphrase asked first)
        try:
            result = resume_release(home, args.resume or None,
                                    out=Path(args.out) if args.out else None,
                                    overwrite=args.force,
                                    sign_with=(load_signing_key(home, args.sign_with)
                                               if args.sign_with else None),
                                    passphrase=terminal_passphrase(),
                                    unsigned=getattr(args, "unsigned", False),
                                    discoveries=getattr(args, "discovery", []))
        except AlreadyComplete as done:  # what was asked for is done: exit 0
            print(str(done)[0].upper() + str(done)[1:] + ".")
            return EXIT_OK
        plan = result.report.plan
    else:
        missing = [n for n, v in (("PLAN", args.plan), ("--data", args.data),
                                  ("--out", args.out)) if not v]
        if missing:
            raise InputError("argument", None, f"release needs {', '.join(missing)} (see "
                                               "planner-app release --help)")
        use_spark_master(args)  # before anything reads the table
        plan = load_plan(args.plan)
        table = open_table(args.data)  # in place: the engine reads only what the plan needs
        # the key and its passphrase before the charge: a wrong one costs nothing
        key = load_signing_key(home, args.sign_with) if args.sign_with else None
        # the same plan released before: said, not refused (the command line asks nothing),
        # once the release is under way: after the charge has passed its cap (publish's
        # "Drawing the noise" step, at 0.45), so a refused release says only why
        again = again_warning(home, plan)
        said: list[str] = []

        def once_charged(fraction: float, _message: str) -> None:
            if again is not None and fraction >= 0.45 and not said:
                said.append(again)
                print(f"{PROG}: warning: {again}", file=sys.stderr)
        with _naming_plan_file(args.plan):  # core errors name "plan": say which file
            result = release_in_home(plan, table, Path(args.out), home,
                                     confidence=args.confidence,
                                     clamp_counts=args.clamp_counts, overwrite=args.force,
                                     require_approval=args.require_approval,
                                     trust_files=getattr(args, "trust", None) or (),
                                     inputs=[Path(args.plan), Path(args.data)], sign_with=key,
                                     engine=getattr(args, "engine", None) or "duckdb",
                                     progress=once_charged,
                                     discoveries=getattr(args, "discovery", None) or [])
    state = result.ledger
    summary = {
        "bundle": str(result.bundle_path), "bundle_sha256": result.bundle_sha256,
        "release_id": result.release_id, "dataset": plan.dataset.name,
        "total": result.report.total.to_dict(),
        "ledger": {k: v for k, v in state.to_dict().items() if k != "releases"},
        "notes": result.notes,
        "signed_by": result.signed_by,
    }
    if args.json:
        if getattr(args, "command", None) == "discover":  # walk25c: what it found, too
            from ..core.release.discovery import read_discovery

            summary["found"] = read_discovery(result.bundle_path).found_dict()
        _print_json(summary)
        return EXIT_OK
    t = result.report.total
    print(f"Released {len(plan.queries)} statistics of {plan.dataset.name!r} to "
          f"{result.bundle_path} (ε = {shown(t.epsilon)}, δ = {t.delta:.3g}, {t.accountant}).")
    print(f"Lifetime budget of {state.dataset!r}: spent ε = {shown(state.spent.epsilon)} of "
          f"{state.cap.epsilon:g}{' (default cap)' if state.cap.is_default else ''}; "
          f"ε = {shown(state.remaining_epsilon)} left.")
    for line in synthetic_release_lines(result.releases):
        print(line)
    if result.consistency:  # issue 27: the core's sentence, as the app's results say it
        from ..core.release.consistent import consistent_summary  # scipy: not for --help

        print(consistent_summary(result.consistency) + " Both are in results.csv.")
    approval = result.report.readiness.get("approval") if result.report.readiness else None
    if approval is not None:
        print(approval.message)
    if result.signed_by:
        name = result.signed_by["name"]
        print(f"Signed by {name} (key {result.signed_by['fingerprint']}): give recipients "
              f"your public key (planner-app keys export {name} --out {name}.pub); they check "
              f"the bundle with: planner-app verify {result.bundle_path.name} --trust "
              f"{name}.pub")
    for note in result.notes:
        print(f"note (for you only, not in the bundle): {note}", file=sys.stderr)
    return EXIT_OK


def cmd_discover(args: argparse.Namespace) -> int:
    """``planner-app discover``: a plan of discoveries only, released by the release path
    itself (the same checks, approval, ledger charge, bundle and report)."""
    from ..core.planfile import load_plan
    from ..core.release.discovery import discovery_plan_problem

    problem = discovery_plan_problem(load_plan(args.plan))
    if problem:
        raise InputError(args.plan, None, problem)
    args.resume, args.unsigned, args.clamp_counts = None, False, False
    code = cmd_release(args)
    if code == EXIT_OK and not args.json:  # what was found, and how to use it
        from ..core.release.discovery import found_lines, read_discovery

        for line in found_lines(read_discovery(Path(args.out))):
            print(line)
        print(f"Use them: name them in your plan (\"discovered:ID\"), then {PROG} plan "
              f"apply-discovery PLAN.json --bundle {args.out} --out NEW.json "
              "(docs/discovery.md)")
    return code


def _discoveries(args: argparse.Namespace) -> list[Path]:
    """The discovery bundles given (--discovery; verify and report alike)."""
    return [Path(p) for p in getattr(args, "discovery", None) or []]


def cmd_verify(args: argparse.Namespace) -> int:
    from ..core.records.keys import load_trusted
    from ..core.release.bundle import NotABundle
    from ..core.release.discovery_verdict import with_discoveries
    from ..core.release.signing import origin_lines
    from ..core.release.verify_release import verify_bundle

    trusted = load_trusted(args.trust)  # a key file that cannot be read: exit 2, as input
    try:
        verdict = verify_bundle(Path(args.bundle), trusted=trusted,
                                regenerate=getattr(args, "regenerate", False))
    except NotABundle as exc:
        if args.json:
            _print_json({"bundle": Path(args.bundle).name, "valid": False,
                         "problems": [str(exc)], "not_a_bundle": True})
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    try:  # disc25c: checked when given, else said not checked (still valid)
        with_discoveries(verdict, Path(args.bundle), _discoveries(args))
    except InputError as exc:  # walk25c: --json still prints a verdict (a script parses it)
        if args.json:
            _print_json({"bundle": verdict.bundle, "valid": False, "problems": [str(exc)],
                         "discovery_refused": True})
        raise
    not_checked = verdict.not_checked
    origin = origin_lines(verdict.origin, verdict.bundle)
    if args.json:
        _print_json({**verdict.to_dict(), "origin_words": origin})
    elif verdict.valid:
        print(f"{verdict.bundle}: verified"
              + ("" if verdict.origin.get("origin_proven") else " (integrity only, not origin)"))
        for check in verdict.checks:
            print(f"  ok: {check}")
        for line in verdict.information:
            print(f"  info: {line}")
        for line in not_checked:
            print(f"  not checked: {line}")
        for line in origin:
            print(f"  {line}")
    if not verdict.valid:
        print(f"{PROG}: {verdict.bundle}: NOT valid: {verdict.problems[0]}", file=sys.stderr)
        return EXIT_INTERNAL
    if getattr(args, "regenerate", False):
        from ..core.release.verify_synthetic import not_regenerated_lines

        missed = not_regenerated_lines(verdict.synthetic)
        if missed:  # asked for, not done: never a silent exit 0
            if not args.json:
                for line in missed:
                    print(f"  {line}")
            print(f"{PROG}: {verdict.bundle}: valid, but {len(missed)} synthetic "
                  f"table{'' if len(missed) == 1 else 's'} not regenerated as --regenerate "
                  "asked (exit 5)", file=sys.stderr)
            return EXIT_NOT_REGENERATED
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    import json as _json

    from ..core.records.keys import load_trusted
    from ..core.release.bundle import RECORD, NotABundle, read_bundle
    from ..core.release.discovery_verdict import with_discoveries
    from ..core.release.report import report_html, report_pdf
    from ..core.release.verify_release import verify_bundle
    from ..core.support.files import atomic_write_bytes, check_output_path

    registry = getattr(args, "registry", None)
    notebook = getattr(args, "notebook", None)
    if not args.pdf and not args.html and not registry and not notebook:
        raise InputError("argument", None, "say where to write the report: --pdf OUT, "
                                           "--html OUT, --registry OUT.yaml and/or "
                                           "--notebook OUT.ipynb")
    if notebook:  # its name before the bundle is read
        from ..core.release.notebooks import notebook_name_problem

        problem = notebook_name_problem(notebook)
        if problem:
            raise InputError("argument", "--notebook", problem)
    bundle = Path(args.bundle)
    trusted = load_trusted(getattr(args, "trust", None) or [])  # unreadable key: exit 2
    try:
        verdict = verify_bundle(bundle, trusted=trusted)  # as verify: --trust proves origin
    except NotABundle as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    found = with_discoveries(verdict, bundle, _discoveries(args))  # as verify, before writing
    if not verdict.valid:
        print(f"{PROG}: {bundle.name}: NOT valid, so no report: {verdict.problems[0]}",
              file=sys.stderr)
        return EXIT_INTERNAL
    proven = bool(verdict.origin.get("origin_proven"))
    if trusted and not proven:  # verify_bundle refuses this already; never report it proven
        print(f"{PROG}: {bundle.name}: NOT valid, so no report: its signature is not by a "
              "key given with --trust", file=sys.stderr)
        return EXIT_INTERNAL
    targets = [Path(t) for t in (args.pdf, args.html, registry, notebook) if t]
    if len({t.absolute() for t in targets}) < len(targets):
        raise InputError("argument", None, "--pdf, --html, --registry and --notebook name "
                                           "the same file")
    for target in targets:  # before anything is written: never over a file without --force
        check_output_path(target, overwrite=args.force, keep=[bundle])
    record = _json.loads(read_bundle(bundle)[RECORD])
    outputs: list[tuple[str, bytes]] = []
    if args.pdf:
        outputs.append((args.pdf, report_pdf(record)))
    if args.html:
        outputs.append((args.html, report_html(record).encode("utf-8")))
    if registry:
        from ..core.release.registry import registry_yaml

        outputs.append((registry, registry_yaml(record).encode("utf-8")))
    if notebook:
        from ..core.release.notebooks import bundle_notebook

        outputs.append((notebook, bundle_notebook(bundle, Path(notebook), record).encode("utf-8")))
    written = []
    for name, data in outputs:  # every output built before the first is written
        atomic_write_bytes(Path(name), data, overwrite=args.force)
        written.append(name)
    if args.json:
        _print_json({"bundle": bundle.name, "verified": True, "origin_proven": proven,
                     "written": written, "not_checked": list(found.not_checked)})
    else:
        print(f"{bundle.name}: verified"
              + ("" if proven else " (integrity only, not origin)")
              + f"; wrote {', '.join(written)}")
        for line in found.checks:
            print(f"  ok: {line}")
        for line in found.not_checked:
            print(f"  not checked: {line}")
        if not proven:
            print("  to prove who released it: add --trust OWNER.pub (the owner's public key)")
        if registry:
            print(f"{Path(registry).name}: a Draft record for OpenDP's deployments registry; "
                  "fill in the fields that begin with 'to fill in' (curator, intended use, "
                  "region, authors) before submitting it.")
    return EXIT_OK
