"""The bridge between the Qt views and the core: the plan, the open table, the app home's
policy, keys and ledger, and the app's settings.

The session is the only thing that changes this state. It composes three models (issue 23):
``plans`` (plan_model.py: the undoable document, selection, held set, the engine's numbers),
``data`` (data_model.py: the table and its typed answers) and ``trust`` (trust_model.py:
policy, keys, ledger), and ``ops`` (operations.py), the runner every persistent change goes
through. Views read its properties, change state through its methods, and learn what changed
from ``changed``, which carries an ``OpChanges`` (core/planning/changes.py) after every edit,
undo, redo, load, settings change and operation."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from ..core.data.repeats import Repeats
from ..core.dp.accounting import Total
from ..core.dp.accuracy import Accuracy
from ..core.dp.confidence import check_confidence
from ..core.dp.measure import Measurement
from ..core.model import Plan, PrivacyUnit, Query
from ..core.model.plan import Scalar
from ..core.planning.changes import OpChanges
from ..core.planning.editing import GoalResult, HarmPreset
from ..core.planning.readiness import Readiness, RuleResult
from ..core.planning.settings import Settings, save_settings
from ..core.planning.starters import empty_plan
from ..core.records.keys import KeyInfo, KeyStore, Passphrase, PublicKey, SecretKey, check_name
from ..core.records.ledger import LedgerState
from ..core.records.policy import Policy, PolicyError
from ..core.records.released import EarlierRelease
from ..core.support.errors import InputError
from ..core.support.home import AppHome
from ..core.support.private import private_folder
from ..core.support.words import OPERATION_FAILED_TITLE
from .data_model import Answered, DataModel, QueryChecks
from .operations import Changes, Operation, OperationRunner, Work
from .plan_model import PlanModel
from .rules import SessionRules
from .trust_model import TrustModel

if TYPE_CHECKING:  # the table's types: pandas is imported when a table is opened
    from ..core.data.facts import YesNoTally
    from ..core.data.source import TableSource
    from ..core.data.tables import ColumnInfo, Table
    from ..core.release.publish import PublishResult

__all__ = ["Answered", "QueryChecks", "Session"]

T = TypeVar("T")


class Session(QObject):
    changed = Signal(object)  # an OpChanges: what the last operation changed
    selectionChanged = Signal(str)
    message = Signal(str)
    # a data question asked on a worker has its answer: an ``Answered`` (data_model.py) that
    # says which (ask_fit_problems, ask_query_checks, ask_column_values, file_datasets)
    dataAnswered = Signal(object)  # noqa: N815 - Qt's naming
    # tables of at least this many rows are asked on a worker (a full scan of 10^8 rows takes
    # tens of seconds); smaller ones answer at once
    ASYNC_ROWS = 200_000

    def __init__(self, home: AppHome, settings: Settings) -> None:
        super().__init__()
        self.home = home
        self._settings = settings
        self.plans = PlanModel(settings, self._emit,
                               lambda qid: self.selectionChanged.emit(qid or ""))
        self.data = DataModel(self.dataAnswered.emit, self.message.emit,
                              lambda: self.ASYNC_ROWS)
        self.trust = TrustModel(home, settings, self.data, self._emit)
        self.ops = OperationRunner(self._commit)
        self.rules = SessionRules(self.plans, self.data, self.trust, settings)

    # -- notifications ------------------------------------------------------------------------

    def _emit(self, changes: OpChanges) -> None:
        if changes:
            self.changed.emit(changes)

    def _commit(self, changes: OpChanges) -> None:
        """An operation's change set: forget what it made stale, then say so once."""
        self.trust.reread(changes)
        self._emit(changes)

    def op(self, parent: QWidget | None, work: Work[T], changes: Changes[T],
           failed: str = OPERATION_FAILED_TITLE) -> Operation[T]:
        """A persistent change (operations.py): ``.success(fn).run()`` or
        ``.run_in_background()``."""
        return self.ops.op(parent, work, changes, failed)

    # -- the plan -----------------------------------------------------------------------------

    @property
    def plan(self) -> Plan | None:
        return self.plans.plan

    @property
    def path(self) -> Path | None:
        """The plan's file, once saved or opened."""
        return self.plans.doc.path

    @property
    def dirty(self) -> bool:
        return self.plans.doc.dirty

    @property
    def can_undo(self) -> bool:
        return self.plans.doc.can_undo

    @property
    def can_redo(self) -> bool:
        return self.plans.doc.can_redo

    @property
    def undo_text(self) -> str:
        return self.plans.doc.undo_text

    @property
    def redo_text(self) -> str:
        return self.plans.doc.redo_text

    @property
    def held(self) -> frozenset[str]:
        """The statistics whose ε a split keeps."""
        return self.plans.held

    @property
    def selected(self) -> str | None:
        return self.plans.selected

    @property
    def selected_query(self) -> Query | None:
        return self.plans.selected_query

    def keep_recovery_copy(self) -> Path | None:
        """Save the plan being edited (if it has unsaved changes) to a recovery file in the app
        home; its path, or None when there was nothing to keep or it could not be written."""
        from datetime import datetime, timezone

        from ..core.planfile import save_plan

        plan = self.plan
        if plan is None or not self.dirty:
            return None
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        target = self.home.data_dir / "recovery" / f"plan-{stamp}.json"
        try:
            private_folder(target.parent)  # the app home's: owner only (support/private.py)
            save_plan(plan, target)
        except Exception:  # never let keeping the work raise a second error
            return None
        return target

    def load_plan(self, plan: Plan, path: Path | None = None, saved: bool = True) -> None:
        """Open a plan (a new undo history); ``saved`` False marks it as having changes."""
        if path is None or path != self.path:
            self._discoveries = ()  # another plan's bundles are not this one's
        self.plans.load(plan, path, saved)

    def close_plan(self) -> None:
        self._discoveries = ()
        self.plans.close()

    # -- discovery bundles (gui25) ----------------------------------------------------------

    _discoveries: tuple[Path, ...] = ()

    @property
    def discoveries(self) -> tuple[Path, ...]:
        """The discovery bundles the plan's lists and bounds were found in, as the owner gave
        them (Release → the checklist's "Discovery bundles…", or a "Find … privately" of the
        statistic form): what the release checks the plan against (``--discovery``)."""
        return self._discoveries

    def set_discoveries(self, paths: list[Path] | tuple[Path, ...]) -> None:
        """The discovery bundles given for the plan being edited (each once, in order)."""
        unique = tuple(dict.fromkeys(Path(p) for p in paths))
        if unique != self._discoveries:
            self._discoveries = unique
            self._emit(OpChanges(review=True))  # the checklist's discovery line

    def add_discovery(self, path: Path) -> None:
        self.set_discoveries([*self._discoveries, Path(path)])

    def mark_saved(self, path: Path) -> None:
        self.plans.doc.mark_saved(path)

    def new_plan(self, name: str) -> None:
        """Start the core's empty starter plan (the same defaults as ``plan new``)."""
        plan = empty_plan(name, self.table.name if self.table else None,
                          [c.name for c in self.columns] if self.table else ())
        self.load_plan(plan, None, saved=False)

    def apply(self, description: str, plan: Plan, merge_key: str | None = None) -> None:
        """Apply a whole new plan as one undoable command (for a plan a dialog has built and
        checked through the core); views call the named edits below."""
        self.plans.apply(description, plan, merge_key)

    def undo(self) -> None:
        self.plans.doc.undo()

    def redo(self) -> None:
        self.plans.doc.redo()

    def end_merge(self) -> None:
        """A drag ended: the next edit is a new undo step."""
        self.plans.doc.end_merge()

    # the named edits (plan_model.py), one undo step each
    def add_query(self, query: Query) -> None:
        self.plans.add_query(query)

    def replace_query(self, query: Query, old_id: str | None = None) -> None:
        self.plans.replace_query(query, old_id)

    def duplicate_query(self, query_id: str) -> str:
        return self.plans.duplicate_query(query_id)

    def remove_query(self, query_id: str) -> None:
        self.plans.remove_query(query_id)

    def set_epsilon(self, query_id: str, epsilon: float, dragging: bool = False) -> None:
        self.plans.set_epsilon(query_id, epsilon, dragging)

    def split(self, weights: dict[str, float] | None = None) -> None:
        self.plans.split(weights)

    def set_budget(self, epsilon: float | None = None, delta: float | None = None) -> None:
        self.plans.set_budget(epsilon, delta)

    def use_preset(self, preset: HarmPreset) -> None:
        self.plans.use_preset(preset)

    def use_goal(self, goal: GoalResult) -> None:
        self.plans.use_goal(goal)

    def set_privacy_unit(self, unit: PrivacyUnit) -> None:
        self.plans.set_privacy_unit(unit)

    def use_person_id(self, column: str) -> None:
        self.plans.use_person_id(column)

    def set_rows_are_people(self, reason: str) -> None:
        self.plans.set_rows_are_people(reason)

    def set_relation(self, relation: str) -> None:
        self.plans.set_relation(relation)

    def set_dataset(self, name: str | None = None,
                    expected_rows: int | None | bool = False) -> None:
        self.plans.set_dataset(name, expected_rows)

    def set_reason(self, reason: str | None) -> None:
        self.plans.set_reason(reason)

    def attach_table(self, path_text: str, table_name: str) -> None:
        self.plans.attach_table(path_text, table_name)

    # gui27: the plan's relations and headline values (one undo step each)
    def add_relation(self, total_id: str, parts_id: str,
                     within: Sequence[tuple[Scalar, Sequence[Scalar]]] = ()) -> None:
        self.plans.add_relation(total_id, parts_id, within)

    def remove_relation(self, index: int) -> None:
        self.plans.remove_relation(index)

    def set_consistency_options(self, *, non_negative: bool | None = None,
                                integer: bool | None = None,
                                headline: str | None = None) -> None:
        self.plans.set_consistency_options(non_negative=non_negative, integer=integer,
                                           headline=headline)

    def set_held(self, query_id: str, held: bool) -> None:
        """Hold (or release) a statistic's ε when the budget is split."""
        self.plans.set_held(query_id, held)

    def select(self, query_id: str | None) -> None:
        self.plans.select(query_id)

    # -- the engine's numbers (plan_model.py) -------------------------------------------------

    def measurements(self, query: Query) -> list[Measurement]:
        return self.plans.measurements(query)

    def accuracy(self, query: Query) -> Accuracy:
        return self.plans.accuracy(query)

    def query_epsilon(self, query: Query) -> float:
        return self.plans.query_epsilon(query)

    def total(self) -> Total:
        return self.plans.total()

    # -- the people rule (rules.py) -----------------------------------------------------------

    @property
    def repeating(self) -> list[Repeats]:
        """The open table's columns whose values repeat like a person's id, the likeliest
        first (core/data/repeats.py; owner-only); empty without a table."""
        return self.data.repeating

    def people_question(self) -> Repeats | None:
        return self.rules.people_question()

    def unit_unanswered(self) -> str | None:
        return self.rules.unit_unanswered()

    def default_column(self, kind: str) -> str | None:
        return self.rules.default_column(kind)

    # -- settings -----------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """A copy of the app's settings: views read it; changes go through the methods below."""
        return copy.deepcopy(self._settings)

    @property
    def confidence(self) -> float:
        """The confidence every ± on screen is computed at, and every release is made at."""
        return self._settings.confidence

    def save_settings(self) -> None:
        """Write the settings to the app home (best effort: a read-only home keeps them for
        this session)."""
        try:
            save_settings(self._settings, self.home.settings_path)
        except OSError:
            pass

    def remember_file(self, path: Path) -> None:
        """Put a file at the top of File → Recent, and save."""
        self._settings.add_recent(path)
        self.save_settings()

    @property
    def last_folder(self) -> Path | None:
        """The folder of the last file opened or saved in a dialog (None: none yet, or gone)."""
        folder = Path(self._settings.last_folder) if self._settings.last_folder else None
        return folder if folder is not None and folder.is_dir() else None

    def remember_folder(self, folder: Path) -> None:
        """Where the next file dialog starts, also after a restart (saved)."""
        if str(folder) != self._settings.last_folder:
            self._settings.last_folder = str(folder)
            self.save_settings()

    def keep_window(self, geometry: str, state: str) -> None:
        """The main window's geometry and dock state (base64), saved with the settings."""
        self._settings.window_geometry = geometry
        self._settings.window_state = state

    def mark_welcome_seen(self) -> None:
        self._settings.welcome_seen = True

    def _set(self, field: str, value: object) -> None:
        """A release setting, written through the runner (it is a persistent change)."""
        if getattr(self._settings, field) != value:
            def write() -> None:
                setattr(self._settings, field, value)
                self.save_settings()

            self.ops.call(write, OpChanges(settings=True))

    def set_confidence(self, confidence: float) -> None:
        """The confidence of every ± shown and released (the core's range)."""
        check_confidence(confidence)
        self._set("confidence", confidence)

    def set_require_approval(self, on: bool) -> None:
        self._set("require_approval", on)

    def set_signing_key(self, name: str | None) -> None:
        """Sign releases with the app home's key ``name`` (None: do not sign)."""
        self._set("sign_with", check_name(name) if name else "")

    # -- policy, keys and ledger (trust_model.py) ---------------------------------------------

    @property
    def policy(self) -> Policy | PolicyError | None:
        """The organisation's policy installed in the app home (verified when read), the
        error that makes every release refuse, or None."""
        return self.trust.policy

    @property
    def approval_required(self) -> bool:
        """Whether a release needs an approval: the setting, or the policy (core rule)."""
        return self.trust.approval_required

    @property
    def approval_locked_by(self) -> str | None:
        return self.trust.approval_locked_by

    @property
    def approval_keys_in_force(self) -> tuple[PublicKey, ...]:
        """The keys an approval must be signed by: the policy's officers when it names them,
        else the app home's trusted keys (core rule: policy.approval_rule)."""
        return self.trust.approval_keys_in_force

    @property
    def trusted_keys(self) -> tuple[PublicKey, ...]:
        """The app home's trusted keys (review.approval_keys)."""
        return self.trust.trusted_keys

    @property
    def signing_key(self) -> str | None:
        """The name of the key that signs the app's releases (setting), or None."""
        return self._settings.sign_with or None

    def signing_keys(self) -> list[KeyInfo]:
        return self.trust.signing_keys()

    def load_signing_key(self, name: str, passphrase: Passphrase | None) -> SecretKey:
        return self.trust.load_signing_key(name, passphrase)

    def key_is_protected(self, name: str) -> bool:
        return self.trust.key_is_protected(name)

    def refresh_policy(self) -> None:
        """Read and verify the installed policy (and the ledger) again."""
        self._commit(OpChanges(settings=True, ledger=True))

    def refresh_lifetime(self) -> None:
        """Read the ledger, and verify the installed policy, again (a release from the
        command line counts too)."""
        self._commit(OpChanges(ledger=True))

    def refresh_trusted(self) -> None:
        """Read the trusted keys again (`planner-app keys trust` may have changed them)."""
        if self.trust.reread_keys():
            self._emit(OpChanges(settings=True))

    def trust_key(self, path: Path, name: str | None = None) -> PublicKey:
        """Trust a public key file (KeyStore.trust): approvals signed with it count."""
        return self.ops.call(lambda: KeyStore(self.home).trust(path, name),
                             OpChanges(settings=True))

    def untrust_key(self, name: str) -> None:
        self.ops.call(lambda: KeyStore(self.home).untrust(name), OpChanges(settings=True))

    def lifetime(self) -> LedgerState | None:
        return self.trust.lifetime(self.plan)

    def charged_to(self, short: bool = False) -> str:
        """Which ledger a release is charged to (this computer's or the office's)."""
        return self.trust.charged_to(short)

    def earlier_releases(self) -> list[EarlierRelease]:
        return self.trust.earlier_releases(self.plan)

    def note_bundle(self, release_id: str, path: Path) -> None:
        self.trust.note_bundle(release_id, path)

    def released(self, result: PublishResult) -> OpChanges:
        """What a release (or a completed one) changed, for the runner to emit: the ledger,
        and the bundle this session wrote (its banner names the full path)."""
        self.trust.note_bundle(result.release_id, result.bundle_path)
        return OpChanges(ledger=True)

    def reviewed(self, path: Path, plan: Plan) -> OpChanges:
        """A decision was recorded in the plan file ``path`` (now ``plan``): when it is the
        open plan's own saved file, the open plan takes it (else the owner's next save wrote
        the file without it); the document announces that itself."""
        own = self.path
        if own is not None and not self.dirty and own.resolve() == path.resolve() and \
                self.plan is not None and plan.approvals != self.plan.approvals:
            self.load_plan(plan, own)
        return OpChanges()

    def file_datasets(self) -> tuple[str, ...] | None:
        return self.trust.file_datasets()

    def known_datasets(self) -> tuple[str, ...] | None:
        return self.trust.known_datasets()

    # -- the release rules --------------------------------------------------------------------

    def again_blocked(self) -> RuleResult | None:
        return self.rules.again_blocked()

    def release_rules(self, unit_confirmed: bool | None = None) -> Readiness:
        return self.rules.release_rules(unit_confirmed)

    # -- the table (data_model.py) ------------------------------------------------------------

    @property
    def table(self) -> Table | None:
        return self.data.table

    @property
    def table_path(self) -> Path | None:
        return self.data.table_path

    @property
    def columns(self) -> tuple[ColumnInfo, ...]:
        return self.data.columns

    @property
    def column_types(self) -> Mapping[str, str]:
        return self.data.column_types

    def set_table(self, table: Table, path: Path, columns: list[ColumnInfo]) -> None:
        self.data.set_table(table, path, columns)
        self._emit(OpChanges(table=True, column_types=True))

    def close_table(self) -> None:
        self.data.set_table(None, None, ())
        self._emit(OpChanges(table=True, column_types=True))

    def set_column_type(self, name: str, kind: str) -> None:
        if self.data.set_column_type(name, kind):
            self._emit(OpChanges(column_types=True))

    def table_source(self) -> TableSource:
        return self.data.table_source()

    def fit_problems(self) -> list[InputError]:
        """Every way the plan does not fit the open table (the core's one rule)."""
        return self.data.fit_problems(self.plan)

    def query_fit(self, query: Query) -> tuple[list[InputError], YesNoTally | None]:
        return self.data.query_fit(query)

    def column_facts(self, column: str) -> Any:
        return self.data.column_facts(column)

    def column_values(self, column: str, limit: int = 50) -> list[str] | None:
        return self.data.column_values(column, limit)

    def asks_on_worker(self) -> bool:
        return self.data.asks_on_worker()

    def ask_fit_problems(self) -> list[InputError] | None:
        """fit_problems() without blocking: None while a large table is being checked (the
        answer then arrives with dataAnswered(Answered.FIT))."""
        return self.data.ask_fit_problems(self.plan)

    def ask_query_checks(self, query: Query) -> QueryChecks | None:
        """One statistic's problems, yes/no tally and copied-from-data warnings without
        blocking: None while a large table is read (then dataAnswered(Answered.QUERY))."""
        return self.data.ask_query_checks(query)

    def ask_column_values(self, column: str, limit: int = 50) -> list[str] | None:
        """column_values() without blocking: None while a large table is being read (then
        dataAnswered(Answered.VALUES)); [] without a table or column."""
        return self.data.ask_column_values(column, limit)

