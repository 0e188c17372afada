"""The command line's arguments: one sub-command per task, each with its own help."""

from __future__ import annotations

import argparse

from .. import __version__
from ..core.data.engine_names import DEFAULT_ENGINE, ENGINES
from .common import (
    PROG,
    _confidence_arg,
    _delta_arg,
    _finite_float,
    _output_arg,
    _Parser,
    _positive_int,
)
from .keys import add_keys_parser


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
                        help="keep settings, the budget ledger, the audit log, your keys, "
                             "the public keys you trust and the installed policy in DIR "
                             "(default: $PLANNER_APP_HOME, else the per-user app folders)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    gui = sub.add_parser("gui", help="open the desktop app (the default)")
    gui.add_argument("plan", nargs="?", default=None, help="open this plan file (JSON)")
    gui.add_argument("--data", metavar="TABLE", default=None,
                     help="and this table (CSV, TSV, .xlsx or Parquet)")
    gui.add_argument("--demo", action="store_true", help="open the bundled demo table and plan")
    gui.add_argument("--smoke-test", action="store_true",
                     help="open the main window, render it, and exit 0 (for CI and installers)")
    gui.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS,
                     help="as planner-app --home (so that planner-app-gui takes it too)")

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
    check.add_argument("--confidence", default=None, type=_confidence_arg,
                       help="confidence of the ± shown (default: the app's setting, 0.95 "
                            "unless changed)")
    check.add_argument("--require-approval", action="store_true",
                       help="count an approval of this exact plan as a release rule (as "
                            "release --require-approval and the app setting do)")
    check.add_argument("--trust", action="append", metavar="OFFICER.pub",
                       help="count only approvals signed with this public key (repeat for "
                            "more keys; implies --require-approval; default: the keys "
                            "trusted with planner-app keys trust)")
    check.add_argument("--engine", choices=ENGINES, default=DEFAULT_ENGINE,
                       help="what reads the table: duckdb (default; reads the file in place, "
                            "any size), pandas (loads it into memory, then the same SQL in "
                            "DuckDB) or spark")
    check.add_argument("--spark-master", metavar="URL",
                       help="with --engine spark: the Spark master, e.g. spark://host:7077, "
                            "yarn or local[4] (default: $PLANNER_APP_SPARK_MASTER, else "
                            "local[*]); the table must be readable at the same path by the "
                            "cluster's executors")
    check.add_argument("--json", action="store_true", help="print JSON")
    # disc25: a list or bounds found privately, checked against its discovery bundle
    check.add_argument("--discovery", action="append", default=[], metavar="BUNDLE.zip",
                       help="the discovery bundle a declared list or bounds says it was found "
                            "in (repeat for several); a plan that names one not given is "
                            "refused")

    release = sub.add_parser("release", help="charge the ledger, add the noise once and write "
                                             "a release bundle")
    release.add_argument("plan", nargs="?", help="plan file (JSON)")
    release.add_argument("--data", help="the table (required unless --resume)")
    release.add_argument("--out", type=_output_arg,
                         help="the bundle to write (.zip; required unless --resume, which "
                              "writes where the release first aimed)")
    release.add_argument("--force", action="store_true",
                         help="replace an existing bundle file at --out")
    release.add_argument("--resume", nargs="?", const="", metavar="RELEASE_ID",
                         help="complete a release that was charged but whose bundle was not "
                              "written, from its saved noised record (no new noise, no new "
                              "charge); the id may be left out when only one is unfinished; "
                              "a release already complete is named with its bundle (exit 0)")
    release.add_argument("--confidence", default=None, type=_confidence_arg,
                         help="confidence of the released intervals (default: the app's "
                              "setting, 0.95 unless changed)")
    release.add_argument("--clamp-counts", action="store_true",
                         help="show negative noisy counts as 0 (recorded in release.json)")
    release.add_argument("--require-approval", action="store_true",
                         help="refuse unless a reviewer approved this exact plan (also "
                              "when the app setting 'Require approval before release' is on)")
    release.add_argument("--trust", action="append", metavar="OFFICER.pub",
                         help="accept only an approval signed with this public key (repeat "
                              "for more keys; implies --require-approval; default: the keys "
                              "trusted with planner-app keys trust)")
    release.add_argument("--sign-with", metavar="NAME",
                         help="sign the bundle's manifest with this key of the app home "
                              "(planner-app keys new NAME); its passphrase is asked before "
                              "anything is charged ($PLANNER_APP_PASSPHRASE when not in a "
                              "terminal)")
    release.add_argument("--unsigned", action="store_true",
                         help="with --resume: complete a signed release without its "
                              "signature (its key was lost); no new noise, no new charge, "
                              "and the audit log records it")
    release.add_argument("--engine", choices=ENGINES, default=DEFAULT_ENGINE,
                         help="what computes the aggregates: duckdb (default; reads CSV and "
                              "Parquet in place, spilling to disk: tables larger than memory), "
                              "pandas (loads the table into memory, then the same SQL in "
                              "DuckDB) or spark (the spark "
                              "extra)")
    release.add_argument("--spark-master", metavar="URL",
                         help="with --engine spark: the Spark master, e.g. spark://host:7077, "
                              "yarn or local[4] (default: $PLANNER_APP_SPARK_MASTER, else "
                              "local[*]); the table must be readable at the same path by the "
                              "cluster's executors")
    release.add_argument("--json", action="store_true", help="print JSON")

    # disc25: a plan of discoveries only, released as release does
    discover = sub.add_parser(
        "discover", help="find a column's keys or bounds privately: release a plan of "
                         "discover_keys / discover_bounds statistics (charged, approved and "
                         "verified as release)")
    discover.add_argument("plan", help="a plan of discovery statistics only (JSON)")
    discover.add_argument("--data", required=True, help="the table")
    discover.add_argument("--out", required=True, type=_output_arg,
                          help="the discovery bundle to write (.zip)")
    discover.add_argument("--force", action="store_true",
                          help="replace an existing bundle file at --out")
    discover.add_argument("--confidence", default=None, type=_confidence_arg,
                          help="confidence of the accuracy stated (default: the app's setting)")
    discover.add_argument("--require-approval", action="store_true",
                          help="refuse unless a reviewer approved this exact plan")
    discover.add_argument("--trust", action="append", metavar="OFFICER.pub",
                          help="accept only an approval signed with this public key")
    discover.add_argument("--sign-with", metavar="NAME",
                          help="sign the bundle's manifest with this key of the app home")
    discover.add_argument("--engine", choices=ENGINES, default=DEFAULT_ENGINE,
                          help="what reads the table (as for release)")
    discover.add_argument("--spark-master", metavar="URL", help="as for release")
    discover.add_argument("--json", action="store_true", help="print JSON")

    review = sub.add_parser("review", help="approve or reject a plan (the privacy officer)")
    review.add_argument("plan", help="plan file (JSON); the decision is added to it")
    decision = review.add_mutually_exclusive_group(required=True)
    decision.add_argument("--approve", action="store_true",
                          help="approve this exact plan (bound to its SHA-256)")
    decision.add_argument("--reject", action="store_true",
                          help="reject it (a release that requires approval then refuses)")
    review.add_argument("--key", metavar="NAME",
                        help="sign the decision with your key NAME (see planner-app keys); "
                             "a release that trusts your public key then accepts it")
    review.add_argument("--reviewer", help="your name (default: the key's name; without "
                                           "--key the decision is unsigned)")
    review.add_argument("--comment", default="", help="why")
    review.add_argument("--json", action="store_true", help="print JSON")

    diff = sub.add_parser(
        "diff", help="what changed between two versions of a plan, with the change in the "
                     "total ε and δ and in each statistic's accuracy",
        description="Compare two versions of a plan: statistics added, removed and changed "
                    "(field by field), the plan's own fields, the composed total and each "
                    "±, as planner-app check computes them for each plan. Approvals are "
                    "not a change; the last lines say whether each plan's latest decision "
                    "is bound to it.")
    diff.add_argument("old", metavar="OLD", help="the earlier plan file (JSON)")
    diff.add_argument("new", metavar="NEW", help="the later plan file (JSON)")
    diff.add_argument("--confidence", default=None, type=_confidence_arg,
                      help="confidence of the ± shown (default: the app's setting, 0.95 "
                           "unless changed)")
    diff.add_argument("--trust", action="append", metavar="OFFICER.pub",
                      help="count an approval only when signed with this public key, as "
                           "release --trust does (repeat for more keys; default: the keys "
                           "trusted with planner-app keys trust, or the installed policy's "
                           "officers)")
    diff.add_argument("--json", action="store_true", help="print JSON")

    report = sub.add_parser("report", help="write a bundle's report as PDF (or HTML), its "
                                           "deployments-registry record (YAML) or a notebook "
                                           "of its results")
    report.add_argument("bundle", help="the bundle (.zip)")
    report.add_argument("--pdf", type=_output_arg, help="where to write the PDF")
    report.add_argument("--html", type=_output_arg, help="where to write the HTML")
    report.add_argument("--registry", metavar="OUT.yaml", type=_output_arg,
                        help="write the release's transparency record in the format of OpenDP's "
                             "deployments registry (YAML, from release.json)")
    report.add_argument("--trust", action="append", default=[], metavar="OWNER.pub",
                        help="as verify --trust: report only a bundle whose manifest is "
                             "signed with this public key (repeat for several); without it, "
                             "the bundle's integrity is checked, not its origin")
    report.add_argument("--notebook", metavar="OUT.ipynb", type=_output_arg,
                        help="write a Jupyter notebook that verifies the bundle, reads its "
                             "results with the Python API and draws them")
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
    show = ledger_sub.add_parser("show", help="what each dataset has spent and has left "
                                              "(exit 4 when the ledger and the audit log "
                                              "disagree)")
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
    # pg26: the office's shared ledger (a policy@2 "ledger" section; issue 26)
    doctor = ledger_sub.add_parser(
        "doctor", help="which ledger this home charges; for the office's shared ledger: "
                       "reachable? schema version? caps? audit chain? (exit 4 on a problem)")
    doctor.add_argument("--json", action="store_true", help="print JSON")
    ledger_sub.add_parser("migrate", help="create or upgrade the office's shared ledger's "
                                          "schema (the privacy officer, once per version)")
    ledger_sub.add_parser("import", help="move this home's own ledger and audit log into the "
                                         "office's empty shared ledger, once, keeping the "
                                         "audit chain")
    # cal26: the calendar of releases (a plan's "programme"; issue 26)
    forecast = ledger_sub.add_parser(
        "forecast", help="a dataset's past and planned spending against its cap, and when "
                         "the cap runs out at its programmes' rate (exit 4 when the ledger "
                         "and the audit log disagree)")
    forecast.add_argument("name", help="the dataset's name (as in its plans)")
    forecast.add_argument("--plan", action="append", default=[], metavar="PLAN",
                          help="also a programme plan of NAME not released yet (repeatable)")
    forecast.add_argument("--json", action="store_true", help="print JSON")

    add_keys_parser(sub)

    # api27: a notebook that checks a plan through the Python API (docs/api.md)
    notebook = sub.add_parser(
        "export-notebook", help="write a Jupyter notebook that loads a plan, checks it and "
                                "shows its accuracy and what ε means (the release in it is "
                                "commented out)")
    notebook.add_argument("plan", help="plan file (JSON)")
    notebook.add_argument("--out", required=True, metavar="OUT.ipynb", type=_output_arg,
                          help="where to write the notebook (.ipynb)")
    notebook.add_argument("--force", action="store_true", help="overwrite an existing file")
    notebook.add_argument("--json", action="store_true", help="print JSON")

    verify = sub.add_parser("verify", help="check a release bundle offline")
    verify.add_argument("bundle", help="the bundle (.zip)")
    verify.add_argument("--trust", action="append", default=[], metavar="OWNER.pub",
                        help="also prove who released it: the manifest's signature must "
                             "verify against this public key (minisign format; repeat for "
                             "several). Without it, verify checks integrity only, not origin")
    verify.add_argument("--regenerate", action="store_true",
                        help="also make each synthetic table again from its released noised "
                             "marginals and seed and check it is byte for byte the bundle's "
                             "(needs the synth extra at the versions the bundle records; "
                             "a table not regenerated is named on a 'not regenerated:' line "
                             "and verify exits 5: valid, but not regenerated as asked)")
    verify.add_argument("--json", action="store_true", help="print JSON")
    # disc25
    verify.add_argument("--discovery", action="append", default=[], metavar="BUNDLE.zip",
                        help="the discovery bundle a list or bounds of this release says it "
                             "was found in (repeat for several): verify checks the plan's "
                             "values equal its output, else NOT valid (exit 1); without it the "
                             "release is still valid and a 'not checked:' line names each "
                             "discovery release not given")

    policy = sub.add_parser("policy", help="the organisation's signed policy: sign, install, "
                                           "show")
    policy_sub = policy.add_subparsers(dest="policy_command", metavar="ACTION",
                                       parser_class=_Parser)
    psign = policy_sub.add_parser("sign", help="sign a policy file with your key (the "
                                               "officer): writes POLICY.json.minisig")
    psign.add_argument("policy", help="the policy file (JSON)")
    psign.add_argument("--key", required=True, help="the name of your key in this app home")
    psign.add_argument("--json", action="store_true", help="print JSON")
    pinstall = policy_sub.add_parser(
        "install", help="verify a signed policy against the officer's public key and install "
                        "it in this app home (exit 3 when unsigned or wrongly signed)")
    pinstall.add_argument("policy", help="the policy file (POLICY.json.minisig beside it)")
    pinstall.add_argument("--trust", required=True, metavar="OFFICER.pub",
                          help="the officer's public key (minisign format)")
    pinstall.add_argument("--json", action="store_true", help="print JSON")
    pshow = policy_sub.add_parser("show", help="the policy in force in this app home")
    pshow.add_argument("--json", action="store_true", help="print JSON")

    plan = sub.add_parser("plan", help="make plan files")
    plan_sub = plan.add_subparsers(dest="plan_command", metavar="ACTION", parser_class=_Parser)
    new = plan_sub.add_parser(
        "new", help="a starter plan from a table's columns",
        description="Write a starter plan from a table's column names and types: the number of "
                    "rows, a mean of each number column, a share of each yes/no column and "
                    "counts of each other column. No bound, category or key is read from the data: "
                    "fill in the bounds, categories and reasons (check names what is missing), "
                    "or open the table in the app.")
    new.add_argument("--data", required=True, help="the table (CSV, TSV, .xlsx, .parquet)")
    new.add_argument("--out", required=True, type=_output_arg, help="where to write the plan")
    new.add_argument("--dataset", help="the dataset's name (default: the file's name)")
    new.add_argument("--force", action="store_true", help="overwrite an existing file")
    new.add_argument("--reason", help="why the budget's ε is what it is (shown in the review "
                                      "and the report)")
    new.add_argument("--json", action="store_true", help="print JSON")
    # disc25: a discovery's outputs written into the plan that names them
    apply = plan_sub.add_parser(
        "apply-discovery", help="write the keys and bounds a discovery bundle found into the "
                                "statistics of a plan that name them (\"discovered:ID\")",
        description="Replace each \"discovered:ID\" of the plan (categories, group_by.keys, "
                    "lower and upper) by what the discovery statistic ID of the bundle "
                    "released, with the reason \"found privately in release …\" that check "
                    "and verify confirm against the bundle.")
    apply.add_argument("plan", help="the plan that names the discoveries (JSON)")
    apply.add_argument("--bundle", required=True, help="the discovery bundle (.zip)")
    apply.add_argument("--out", type=_output_arg,
                       help="write the new plan here (default: replace PLAN, which needs "
                            "--force)")
    apply.add_argument("--force", action="store_true",
                       help="overwrite an existing --out, or PLAN itself")
    apply.add_argument("--json", action="store_true", help="print JSON")
    # fixdisc: release and report take the discovery bundles check and verify take
    release.add_argument("--discovery", action="append", default=[], metavar="BUNDLE.zip",
                         help="the discovery bundle a declared list or bounds says it was "
                              "found in (repeat for several); checked before the charge: a "
                              "plan that names one not given, or differs from it, is refused "
                              "(with --resume: checked again before the bundle is written)")
    report.add_argument("--discovery", action="append", default=[], metavar="BUNDLE.zip",
                        help="the discovery bundle a list or bounds of this release says it "
                             "was found in, checked as verify checks it (without it the "
                             "report is written and the values are said not checked)")
    return parser
