"""The ledger command: set a dataset's lifetime cap, show what was spent, prove a data file
against the commitments of its releases."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.support.errors import InputError
from ..core.support.numbers import shown
from .common import (
    EXIT_INTERNAL,
    EXIT_LEDGER,
    EXIT_OK,
    PROG,
    _home,
    _naming_plan_file,
    _print_json,
)


def _ledger_lines(state, marks=None) -> list[str]:  # type: ignore[no-untyped-def]
    """``marks``: release id -> the discovery statistics it released (disc25c)."""
    from ..core.records.discovery_marks import discovery_mark_words
    from ..core.records.headroom import spent_note

    cap = state.cap
    lines = [f"{state.dataset}: spent ε = {shown(state.spent.epsilon)}, "
             f"δ = {state.spent.delta:.3g} "
             f"({state.spent.accountant}) of the cap ε = {cap.epsilon:g}, δ = {cap.delta:g}"
             f"{' (default cap)' if cap.is_default else ''}; left ε = "
             f"{shown(state.remaining_epsilon)}, δ = {state.remaining_delta:.3g}; "
             f"{len(state.releases)} release(s)"]
    note = spent_note(state)  # why "spent" is less than the releases' ε added up
    if note is not None:
        lines.append(f"  ({note})")
    for r in state.releases:
        lines.append(f"  {r.time}  ε = {shown(r.epsilon)}  δ = {r.delta:.3g}  {r.accountant:<6} "
                     f"{r.status:<9} {r.file_name}  plan {r.plan_sha256[:12]}  release {r.id}"
                     + (f"  {discovery_mark_words(marks[r.id])}" if marks and r.id in marks
                        else ""))
    return lines


def cmd_ledger(args: argparse.Namespace) -> int:
    from ..core.records.books import audit_for, charged_to_words, ledger_for
    from ..core.records.ledger import DEFAULT_CAP_DELTA, DEFAULT_CAP_EPSILON

    home = _home(args).ensure()
    if args.ledger_command in ("doctor", "migrate", "import"):
        return _office_command(args, home)
    ledger = ledger_for(home)
    if args.ledger_command == "set-cap":
        current = ledger.state(args.name)
        delta = args.delta if args.delta is not None else (
            DEFAULT_CAP_DELTA if current.cap.is_default else current.cap.delta)
        state = ledger.set_cap(args.name, args.epsilon, delta)  # recorded in the audit log
        if args.json:
            _print_json(state.to_dict())
        else:
            print("\n".join(_ledger_lines(state)))
        return EXIT_OK
    if args.ledger_command == "show":
        names = [args.name] if args.name else ledger.datasets()
        states = [ledger.state(n) for n in names]
        entries = audit_for(home, ledger).read()
        problems = ledger.audit_problems(entries)
        from ..core.records.discovery_marks import DISCOVERIES, discovery_marks

        marks = discovery_marks(entries)  # disc25c: which releases were discoveries
        if problems and not args.json:  # never edited spending shown as if it were fine
            from ..core.records.crosscheck import UNTRUSTED_FIGURES

            print(UNTRUSTED_FIGURES)
        if args.json:
            shown_states = []
            for state in states:
                d = state.to_dict()
                for r in d["releases"]:
                    r[DISCOVERIES] = list(marks.get(r["id"], ()))
                shown_states.append(d)
            _print_json(shown_states[0] if args.name else shown_states)
        else:
            if not states:
                print(f"No dataset has a release or a cap yet. The default lifetime cap is "
                      f"ε = {DEFAULT_CAP_EPSILON:g}, δ = {DEFAULT_CAP_DELTA:g}.")
            for state in states:
                print("\n".join(_ledger_lines(state, marks)))
            from ..core.records.policy import policy_or_error

            print(charged_to_words(policy_or_error(home)))
        if problems:  # shown, then exit 4: no release runs until this is mended
            print(f"{PROG}: the budget ledger and the audit log disagree: "
                  f"{'; '.join(problems)}", file=sys.stderr)
            return EXIT_LEDGER
        return EXIT_OK
    if args.ledger_command == "prove-file":
        return _prove_file(args, home)
    if args.ledger_command == "forecast":
        return _forecast(args, home)
    raise InputError("argument", None, "ledger needs an action: set-cap, show, forecast, "
                                       "prove-file, doctor, migrate or import")


def _office_command(args: argparse.Namespace, home) -> int:  # type: ignore[no-untyped-def]
    """doctor, migrate, import: the office's shared ledger (core/records/office_admin.py)."""
    from ..core.records import office_admin

    if args.ledger_command == "doctor":
        found = office_admin.doctor(home)
        if args.json:
            _print_json({"ok": found.ok, "lines": found.lines})
        else:
            print("\n".join(found.lines))
        return EXIT_OK if found.ok else EXIT_LEDGER
    if args.ledger_command == "migrate":
        before, after = office_admin.migrate_office(home)
        print(f"The shared ledger's schema is at version {after}"
              + (" (it already was)." if before == after else
                 f" (it was {before or 'not there'})."))
        return EXIT_OK
    done = office_admin.import_home(home)
    print(f"Imported {done['releases']} release(s), {done['caps']} dataset(s) and "
          f"{done['entries']} audit entries into the shared ledger at "
          f"{done['shared_ledger']}; "
          + ("they follow the office's own history in its chain, each naming its place in "
             "this home's chain (which still verifies), and each dataset's cap is the lower "
             "of the two." if done.get("merged") else "the chain continues there."))
    return EXIT_OK


def _forecast(args: argparse.Namespace, home) -> int:  # type: ignore[no-untyped-def]
    """cal26: the dataset's past and planned spending against its cap (core/planning/
    forecast.py), as a table and the sentence of when the cap runs out."""
    from ..core.planfile import load_plan
    from ..core.planning.forecast import forecast_lines, home_forecast
    from ..core.records.books import audit_for, ledger_for

    plans = []
    for path in args.plan:
        with _naming_plan_file(path):
            plans.append(load_plan(path))
    with _naming_plan_file(args.plan[0] if args.plan else "plan"):
        found = home_forecast(home, args.name, plans)
    ledger = ledger_for(home, for_reading=True)
    problems = ledger.audit_problems(audit_for(home, ledger).read())
    if args.json:
        _print_json(found.to_dict())
    else:
        if problems:
            from ..core.records.crosscheck import UNTRUSTED_FIGURES

            print(UNTRUSTED_FIGURES)
        print("\n".join(forecast_lines(found)))
    if problems:
        print(f"{PROG}: the budget ledger and the audit log disagree: "
              f"{'; '.join(problems)}", file=sys.stderr)
        return EXIT_LEDGER
    return EXIT_OK


def _prove_file(args: argparse.Namespace, home) -> int:  # type: ignore[no-untyped-def]
    from ..core.release.commitment import prove_file

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
