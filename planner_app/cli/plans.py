"""Commands about plans: explain an ε, check a plan, make a starter plan, review a plan."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..core.support.errors import InputError
from ..core.support.numbers import shown
from ..core.support.words import composed_total_words, confidence_percent
from .common import (
    EXIT_OK,
    _audit_best_effort,
    _confidence,
    _home,
    _naming_plan_file,
    _num,
    _print_json,
    use_spark_master,
)


def cmd_explain(args: argparse.Namespace) -> int:
    from ..core.dp.risk import explain

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
    from ..core.data.tables import open_table
    from ..core.planfile import load_plan
    from ..core.planning.readiness import people_unchecked
    from ..core.release.home_check import check_in_home

    use_spark_master(args)  # before anything reads the table
    plan = load_plan(args.plan)
    table = open_table(args.data) if args.data else None
    with _naming_plan_file(args.plan):  # the home's rules, as a release applies them
        report = check_in_home(plan, table, _home(args), confidence=args.confidence,
                               require_approval=args.require_approval,
                               trust_files=getattr(args, "trust", None) or (),
                               engine=getattr(args, "engine", None) or "duckdb",
                               discoveries=getattr(args, "discovery", None) or [])
    data = report.to_dict()
    from ..core.planfile import plan_digest

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
    from ..core.support.words import relation_words, unit_of

    print(f"Plan for {p['dataset']!r}: {unit_of(unit)}; {relation_words(p['neighbouring'])}")
    print(f"Budget for this release: ε = {p['budget']['epsilon']:g}, "
          f"δ = {p['budget']['delta']:g}")
    print()
    at = f"± at {confidence_percent(_confidence(args))}"
    header = f"{'statistic':<26} {'kind':<19} {'ε':>8} {at:>14}  noise"
    print(header)
    print("-" * len(header))
    from ..core.dp.accuracy import format_half_width
    from ..core.kinds import kind_of

    for q, qc in zip(data["queries"], report.queries, strict=True):
        acc = q["accuracy"]
        noise = (f"σ = {_num(q['sigma'])}" if "sigma" in q else
                 f"scale {_num(q.get('scale'))}" if q.get("scale") is not None else q["mechanism"])
        print(f"{q['id'][:26]:<26} {q['kind']:<19} {q['epsilon']:>8.4g} "
              f"{format_half_width(acc).removeprefix('± '):>14}  {noise}")
        print(f"    {q['derivation']}")
        # the public parameters and missing values, in the review window's and report's words
        from ..core.planning.parameters import parameter_lines

        for name, value in parameter_lines(qc.query, plan.privacy_unit):
            if name not in ("Kind", "ε", "δ"):  # the table has ε; δ: the budget line
                print(f"    {name}: {value}")
        # its accuracy in words: a quantile's ranks, what a row count is of, what a
        # synthetic table's budget buys
        for line in kind_of(qc.query).check_lines(qc.query, plan, acc):
            print(f"    {line}")
    from ..core.planfile.relations import relation_lines  # lazily, as the plan's reader

    for line in relation_lines(plan):  # issue 27
        print(line)
    if plan.programme is not None:  # cal26: a plan released on a schedule
        from ..core.planfile.programme import schedule_words, today_words
        from ..core.records.programme import today_utc

        print(f"Released on a schedule: {schedule_words(plan.programme)}; "
              f"{today_words(plan.programme, today_utc())}.")
    t = data["total"]
    print()
    print(composed_total_words(t["epsilon"], t["delta"], t["accountant"], data["fits_budget"]))
    others = ", ".join(f"{a['accountant']} {shown(a['epsilon'])}" for a in data["alternatives"])
    print(f"  other accountants: {others}")
    print(data["risk"]["sentence"])
    from ..core.records.books import charged_to_words
    from ..core.records.policy import Policy, policy_or_error

    policy = policy_or_error(_home(args))
    if isinstance(policy, Policy) and policy.ledger is not None:  # pg26: whose budget
        print(charged_to_words(policy))
    for w in data["warnings"]:
        print(f"warning: {w}")
    for f in data["owner_facts"]:
        print(f"note (for you only, never exported): {f}")
    print()
    print(f"Ready to release: {'yes' if data['ready'] else 'NO'}")
    assert report.readiness is not None
    for r in report.readiness.results:
        print(f"  {RULE_MARKS[r.status]} {r.file_line}")
    unchecked = people_unchecked(plan) if table is None else None
    if unchecked:
        print(f"  ?    {unchecked}")
    return EXIT_OK


RULE_MARKS = {"pass": "ok  ", "fail": "NO  ", "warn": "warn"}


def cmd_plan_new(args: argparse.Namespace) -> int:
    from ..core.data.repeats import id_like_columns, repeat_note
    from ..core.data.tables import describe_columns, open_table
    from ..core.planning.starters import starter_from_columns
    from ..core.support.files import atomic_write_text, check_output_path

    out = check_output_path(Path(args.out), overwrite=args.force,  # never over a link,
                            keep=[Path(args.data)])  # a pipe, a device or the table
    table = open_table(args.data)  # read in place: the engine describes the columns
    columns = describe_columns(table)
    starter = starter_from_columns(args.dataset or Path(args.data).stem, Path(args.data).name,
                                   columns)
    queries = starter.document["queries"]
    if args.reason and args.reason.strip():
        starter.document["justification"] = " ".join(args.reason.split())
    atomic_write_text(out, json.dumps(starter.document, indent=2, ensure_ascii=False) + "\n",
                      overwrite=args.force)
    repeating = id_like_columns(c.repeats for c in columns)
    summary = {"plan": str(out), "queries": len(queries), "to_fill_in": starter.to_fill_in,
               "columns": [{"name": c.name, "type": c.detected_type} for c in columns],
               "id_column": starter.id_column,  # read from the table: for the owner only
               "repeating": [{"column": r.column, "most_rows_sharing_a_value": r.most,
                              "distinct": r.distinct} for r in repeating]}
    if args.json:
        _print_json(summary)
    else:
        print(f"Wrote a starter plan with {len(queries)} statistics to {out}.")
        print(f"{starter.to_fill_in} of them need bounds or categories that you know from the "
              "domain (never copied from the data), and each a reason in place of its TODO; "
              "`planner-app check` names each missing field and reason. Not known? Find "
              "them privately, charged to the budget: `planner-app discover` "
              "(docs/discovery.md).")
        for r in repeating:  # read from the table: printed for the owner, never written
            print(f"note (for you only, never written to the plan): {repeat_note(r)}")
        if repeating and starter.id_column == repeating[0].column:
            print(f"The plan names {starter.id_column} as the person id: set "
                  "privacy_unit.max_rows to the most rows one person may have, from how the "
                  f"data was collected (the table shows up to {repeating[0].most:,}; the "
                  "number is published with the plan); or, if the rows are different people, "
                  "write privacy_unit as {\"kind\": \"row\", \"rows_are_people\": "
                  "{\"reason\": \"…\"}} with your reason.")
        elif starter.id_column:
            print(f"{starter.id_column} looks like a person id: set privacy_unit.max_rows to "
                  "the most rows one person may have.")
        else:
            print("No column repeats like a person's id; set privacy_unit to a person id "
                  "column if a person can have several rows.")
    return EXIT_OK


def cmd_review(args: argparse.Namespace) -> int:
    from ..core.planfile import load_plan
    from ..core.records.audit import AuditLog
    from ..core.records.review import record_review

    path = Path(args.plan)
    decision = "approved" if args.approve else "rejected"
    if not args.key and not (args.reviewer or "").strip():
        raise InputError("argument", None, "review needs --key NAME (a signed decision) or "
                                           "--reviewer NAME (an unsigned one)")
    plan = load_plan(path)
    home = _home(args)
    key = None
    if args.key:  # the key (and its passphrase) before anything is written
        from ..core.records.keys import KeyStore
        from .keys import passphrase_prompt
        from .passphrase import warn_loose

        key = KeyStore(home).secret(args.key, passphrase_prompt())
        warn_loose(KeyStore(home), args.key)
    reviewer = args.reviewer if (args.reviewer or "").strip() else args.key
    audit = AuditLog(home.ensure().audit_path)
    reviewed = record_review(path, plan, reviewer, decision, args.comment, audit, key=key)
    entry = dict(reviewed.approvals[-1])
    if args.json:
        _print_json(entry)
    else:
        signed = f", signed with key {key.name} ({key.public.fingerprint})" if key else \
            " (unsigned: a release that trusts keys will not accept it)"
        print(f"{path.name}: {decision} by {entry['reviewer']}{signed}; plan SHA-256 "
              f"{entry['plan_sha256'][:16]}…. A change to the plan needs a new review.")
        if plan.programme is not None:  # cal26: one decision for the whole programme
            from ..core.planfile.programme import programme_decision_words

            print(programme_decision_words(plan.programme, decision))
    return EXIT_OK


def cmd_plan_apply_discovery(args: argparse.Namespace) -> int:
    from ..core.release.discovery import apply_discovery, load_plan_document, read_discovery
    from ..core.support.files import atomic_write_text, check_output_path

    source = Path(args.plan)
    out = Path(args.out) if args.out else source
    # fixdisc: the README's rule, with or without --out: never over a file without --force
    # (the plan itself included), never over a link, a pipe or the bundle
    if out.absolute() == source.absolute() or (out.exists() and source.exists()
                                               and out.samefile(source)):
        if not args.force:
            raise InputError("argument", "--out", f"would write over the plan {source.name}: "
                             "give --out NEW.json, or --force to replace the plan")
    else:
        check_output_path(out, overwrite=args.force, keep=[source, Path(args.bundle)])
    doc = load_plan_document(source)
    bundle = read_discovery(Path(args.bundle))
    doc, done = apply_discovery(doc, bundle, args.plan)
    if not done:
        raise InputError(args.plan, None, "names no discovery (write \"discovered:ID\" in "
                                          "place of categories, group_by.keys or lower and "
                                          "upper)")
    atomic_write_text(out, json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                      overwrite=True)
    if args.json:
        _print_json({"plan": str(out), "release_id": bundle.release_id,
                     "manifest_sha256": bundle.manifest_sha256, "applied": done})
    else:
        print(f"Wrote {out}: {len(done)} value{'s' if len(done) != 1 else ''} found privately "
              f"in release {bundle.release_id}:")
        for line in done:
            print(f"  {line}")
    return EXIT_OK


def cmd_plan(args: argparse.Namespace) -> int:
    if args.plan_command == "new":
        return cmd_plan_new(args)
    if args.plan_command == "apply-discovery":
        return cmd_plan_apply_discovery(args)
    raise InputError("argument", None, "plan needs an action: new or apply-discovery")
