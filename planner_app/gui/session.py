"""The bridge between the Qt views and the core: the plan document, the loaded table, the
selection, the held statistics and cached engine results.

The session is the only thing that changes this state. Views read it through properties that
return immutable values, change it through the methods below (each one a core edit, undoable
where it edits the plan), and learn what changed from ``changed``, which carries an
``OpChanges`` (core/planning/changes.py) after every edit, undo, redo, load and settings change."""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from ..core.data.repeats import Repeats, id_like_columns
from ..core.dp.accounting import Total, compose
from ..core.dp.accuracy import Accuracy, check_confidence
from ..core.dp.measure import Measurement
from ..core.kinds.shared_dp import accuracy_for, measurements_for
from ..core.model import YES_NO_KINDS, Plan, PrivacyUnit, Query
from ..core.planning import plan_edits
from ..core.planning.changes import OpChanges, plan_changes
from ..core.planning.editing import (
    GoalResult,
    HarmPreset,
    PlanDocument,
    add_query,
    duplicate_query,
    remove_query,
    replace_query,
    set_query_epsilon,
    split_remaining,
)
from ..core.planning.readiness import Readiness, RuleResult, again_blocked, readiness
from ..core.planning.settings import Settings, save_settings
from ..core.planning.starters import empty_plan
from ..core.records.keys import KeyInfo, KeyStore, Passphrase, PublicKey, SecretKey, check_name
from ..core.records.ledger import Ledger, LedgerError, LedgerState
from ..core.records.policy import (
    Policy,
    PolicyError,
    approval_rule,
    effective_state,
    policy_or_error,
)
from ..core.records.released import EarlierRelease, bundle_names, earlier_releases
from ..core.records.review import approval_keys
from ..core.support.errors import Cancelled, InputError, PlannerError
from ..core.support.home import AppHome
from ..core.support.private import private_folder
from .workers import Worker, WorkerSlot

if TYPE_CHECKING:  # the table's types: pandas is imported when a table is opened
    from ..core.data.facts import YesNoTally
    from ..core.data.source import TableSource
    from ..core.data.tables import ColumnInfo, Table


@dataclass
class _Cached:
    query: Query
    unit: PrivacyUnit
    relation: str
    rows: int | None
    confidence: float
    measurements: list[Measurement]
    accuracy: Accuracy


class Session(QObject):
    changed = Signal(object)  # an OpChanges: what the last operation changed
    selectionChanged = Signal(str)
    message = Signal(str)
    # a data question asked on a worker has its answer: "fit", "query" or "values" (see
    # ask_fit_problems, ask_query_checks, ask_column_values)
    dataAnswered = Signal(str)  # noqa: N815 - Qt's naming
    # tables of at least this many rows are asked on a worker (a full scan of 10^8 rows takes
    # tens of seconds); smaller ones answer at once
    ASYNC_ROWS = 200_000

    def __init__(self, home: AppHome, settings: Settings) -> None:
        super().__init__()
        self.home = home
        self._settings = settings
        self._doc = PlanDocument()
        self._doc.subscribe(self._document_changed)
        self._shown_plan: Plan | None = None  # the plan the last notification described
        self._replacing = False
        self._table: Table | None = None
        self._table_path: Path | None = None
        self._columns: tuple[ColumnInfo, ...] = ()
        self._column_types: dict[str, str] = {}
        self._held: frozenset[str] = frozenset()
        self._selected: str | None = None
        self._cache: dict[str, _Cached] = {}
        self._total: tuple[Plan, Total] | None = None
        self._flat: tuple[Plan, list[Measurement]] | None = None  # every measurement, in order
        self._accuracies: tuple[Plan, float, dict[str, Accuracy]] | None = None
        self._lifetime: tuple[str, LedgerState | None] | None = None
        # this plan's earlier releases: (plan, the lifetime read, the releases)
        self._released: tuple[Plan, LedgerState | None, list[EarlierRelease]] | None = None
        self._bundle_paths: dict[str, Path] = {}  # bundles this session wrote, by release id
        self._bundles: dict[str, str] | None = None  # the audit log's bundle names
        self._observed: dict[tuple[int, str], Any] = {}
        self._fit: tuple[Plan, Table, list[InputError]] | None = None
        self._source: tuple[Table, TableSource] | None = None
        self._query_fit: dict[tuple[int, Query], tuple[Table, list[InputError],
                                                       YesNoTally | None]] = {}
        self._rules: tuple[tuple[Any, ...], Readiness] | None = None
        self._notes: dict[tuple[int, Query], list[str]] = {}
        self._trusted: tuple[PublicKey, ...] | None = None
        self._policy: Policy | PolicyError | None = policy_or_error(home)
        self._same_file: tuple[Table, tuple[str, ...] | None] | None = None
        self._known: tuple[str, ...] | None = None  # the ledger's datasets (policy rule)
        self._asking: dict[Any, Worker] = {}  # data questions under way, by what they ask
        self._slots: dict[str, WorkerSlot] = {}  # one per kind: a newer question supersedes
        self._values: dict[tuple[int, str, int], tuple[Table, list[str]]] = {}

    # -- read-only state ----------------------------------------------------------------------

    @property
    def plan(self) -> Plan | None:
        return self._doc.plan

    @property
    def path(self) -> Path | None:
        """The plan's file, once saved or opened."""
        return self._doc.path

    @property
    def dirty(self) -> bool:
        return self._doc.dirty

    @property
    def can_undo(self) -> bool:
        return self._doc.can_undo

    @property
    def can_redo(self) -> bool:
        return self._doc.can_redo

    @property
    def undo_text(self) -> str:
        return self._doc.undo_text

    @property
    def redo_text(self) -> str:
        return self._doc.redo_text

    @property
    def held(self) -> frozenset[str]:
        """The statistics whose ε a split keeps."""
        return self._held

    @property
    def selected(self) -> str | None:
        return self._selected

    @property
    def selected_query(self) -> Query | None:
        plan, qid = self.plan, self._selected
        if plan is None or qid is None:
            return None
        try:
            return plan.query(qid)
        except KeyError:
            return None

    @property
    def table(self) -> Table | None:
        return self._table

    @property
    def table_path(self) -> Path | None:
        return self._table_path

    @property
    def columns(self) -> tuple[ColumnInfo, ...]:
        return self._columns

    @property
    def repeating(self) -> list[Repeats]:
        """The loaded table's columns whose values repeat like a person's id, the likeliest
        first (core/data/repeats.py; owner-only); empty without a table."""
        return id_like_columns(c.repeats for c in self._columns) if self._table else []

    def people_question(self) -> Repeats | None:
        """The repeating column the owner has not answered for yet: each row is taken as a
        person, no reason is recorded, and a column repeats like an id (the people rule)."""
        from ..core.planning.readiness import rows_are_people_recorded

        plan = self.plan
        if plan is None or plan.privacy_unit.kind == "person" or \
                rows_are_people_recorded(plan.privacy_unit) or not self.repeating:
            return None
        return self.repeating[0]

    def unit_unanswered(self) -> str | None:
        """Why statistics wait for who one person is (readiness.unit_unanswered), or None."""
        from ..core.planning.readiness import unit_unanswered

        plan = self.plan
        return None if plan is None else unit_unanswered(plan, self.repeating)

    def default_column(self, kind: str) -> str | None:
        """The column a new statistic of ``kind`` starts on (starters.default_column: never
        one that identifies a person)."""
        from ..core.planning.starters import default_column

        plan = self.plan
        return default_column(kind, self._columns, self._column_types,
                              plan.privacy_unit.id_column if plan is not None else None)

    @property
    def column_types(self) -> Mapping[str, str]:
        return MappingProxyType(self._column_types)

    @property
    def confidence(self) -> float:
        """The confidence every ± on screen is computed at, and every release is made at."""
        return self._settings.confidence

    # -- notifications ------------------------------------------------------------------------

    def _emit(self, changes: OpChanges) -> None:
        if not changes:
            return
        self.changed.emit(changes)

    def _document_changed(self) -> None:
        """The document's one callback: after an edit, undo, redo, load or save."""
        plan = self._doc.plan
        changes = plan_changes(self._shown_plan, plan) | OpChanges(history=True)
        if self._replacing:
            changes = changes | OpChanges(plan_replaced=True, statistic_list=True)
        self._shown_plan = plan
        ids = {q.id for q in plan.queries} if plan is not None else set()
        if self._held - ids:
            self._held = self._held & frozenset(ids)
            changes = changes | OpChanges(held=True)
        selected = self._selected
        if plan is None:
            selected = None
        elif selected not in ids:
            selected = plan.queries[0].id if plan.queries else None
        if selected != self._selected:
            self._selected = selected
            changes = changes | OpChanges(selection=True)
        self._emit(changes)

    # -- the plan: loading and saving ---------------------------------------------------------

    def keep_recovery_copy(self) -> Path | None:
        """Save the plan being edited (if it has unsaved changes) to a recovery file in the app
        home; its path, or None when there was nothing to keep or it could not be written."""
        from datetime import datetime, timezone

        from ..core.planfile import save_plan

        plan = self._doc.plan
        if plan is None or not self._doc.dirty:
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
        self._replacing = True
        try:
            self._doc.load(plan, path, saved=saved)
        finally:
            self._replacing = False

    def close_plan(self) -> None:
        self._replacing = True
        try:
            self._doc.close()
        finally:
            self._replacing = False

    def mark_saved(self, path: Path) -> None:
        self._doc.mark_saved(path)

    def new_plan(self, name: str) -> None:
        """Start the core's empty starter plan (the same defaults as ``plan new``)."""
        plan = empty_plan(name, self.table.name if self.table else None,
                          [c.name for c in self._columns] if self.table else ())
        self.load_plan(plan, None, saved=False)

    # -- the plan: undoable edits -------------------------------------------------------------

    def apply(self, description: str, plan: Plan, merge_key: str | None = None) -> None:
        """Apply a whole new plan as one undoable command. Views call the named edits below;
        this is for a plan a dialog has built and checked through the core."""
        self._doc.apply(description, plan, merge_key)

    def undo(self) -> None:
        self._doc.undo()

    def redo(self) -> None:
        self._doc.redo()

    def end_merge(self) -> None:
        """A drag ended: the next edit is a new undo step."""
        self._doc.end_merge()

    def _plan(self) -> Plan:
        plan = self._doc.plan
        if plan is None:
            raise PlannerError("no plan is open")
        return plan

    def add_query(self, query: Query) -> None:
        self.apply(f"Add {query.title!r}", add_query(self._plan(), query))
        self.select(query.id)

    def replace_query(self, query: Query, old_id: str | None = None) -> None:
        self.apply(f"Edit {query.title!r}", replace_query(self._plan(), query, old_id))
        self.select(query.id)

    def duplicate_query(self, query_id: str) -> str:
        plan = self._plan()
        new_plan, new_id = duplicate_query(plan, query_id)
        self.apply(f"Duplicate {plan.query(query_id).title!r}", new_plan)
        self.select(new_id)
        return new_id

    def remove_query(self, query_id: str) -> None:
        plan = self._plan()
        self.apply(f"Remove {plan.query(query_id).title!r}", remove_query(plan, query_id))

    def set_epsilon(self, query_id: str, epsilon: float, dragging: bool = False) -> None:
        plan = self._plan()
        epsilon = float(f"{epsilon:.6g}")
        label = plan.query(query_id).title
        self.apply(f"Set ε of {label!r} to {epsilon:g}",
                   set_query_epsilon(plan, query_id, epsilon),
                   merge_key=f"epsilon:{query_id}" if dragging else None)

    def split(self, weights: dict[str, float] | None = None) -> None:
        how = "by weights" if weights else "evenly"
        self.apply(f"Split the budget {how}", split_remaining(self._plan(), self._held, weights))

    def set_budget(self, epsilon: float | None = None, delta: float | None = None) -> None:
        """The release budget; a δ the core refuses keeps the plan's."""
        self.apply("Change the release budget",
                   plan_edits.set_budget(self._plan(), epsilon, delta))

    def use_preset(self, preset: HarmPreset) -> None:
        self.apply(f"Use the budget for {preset.name.lower()}",
                   plan_edits.use_preset(self._plan(), preset))

    def use_goal(self, goal: GoalResult) -> None:
        self.apply("Use the ε that meet the accuracy targets", goal.apply(self._plan()))

    def set_privacy_unit(self, unit: PrivacyUnit) -> None:
        self.apply("Change who one person is", plan_edits.set_privacy_unit(self._plan(), unit))

    def use_person_id(self, column: str) -> None:
        """One person is ``column``, keeping the rows per person a person unit already states
        (none for a new one: the owner states it, as the number is published)."""
        unit = self._plan().privacy_unit
        self.set_privacy_unit(PrivacyUnit("person", column,
                                          unit.max_rows if unit.kind == "person" else None))

    def set_rows_are_people(self, reason: str) -> None:
        """Each row is a different person, with the owner's reason recorded in the plan."""
        text = " ".join(reason.split())
        if not text:
            raise InputError("plan", "privacy_unit.rows_are_people.reason",
                             "is empty: say why the rows are different people")
        self.set_privacy_unit(PrivacyUnit(rows_reason=text))

    def set_relation(self, relation: str) -> None:
        self.apply("Change what is protected", plan_edits.set_relation(self._plan(), relation))

    def set_dataset(self, name: str | None = None,
                    expected_rows: int | None | bool = False) -> None:
        self.apply("Change the dataset's name or row count",
                   plan_edits.set_dataset(self._plan(), name, expected_rows))

    def set_reason(self, reason: str | None) -> None:
        """The plan's reason for its ε (blank: none); no undo step when unchanged."""
        plan = self._plan()
        new = plan_edits.set_reason(plan, reason)
        if new is not plan:
            self.apply("Change the reason for ε", new)

    def attach_table(self, path_text: str, table_name: str) -> None:
        """Point the plan at another table (what it records: a relative path or a name)."""
        self.apply(f"Use the plan with {table_name}",
                   plan_edits.set_dataset(self._plan(), path=path_text))

    # -- not in the plan: held statistics, selection, settings --------------------------------

    def set_held(self, query_id: str, held: bool) -> None:
        """Hold (or release) a statistic's ε when the budget is split."""
        new = self._held | {query_id} if held else self._held - {query_id}
        if new != self._held:
            self._held = frozenset(new)
            self._emit(OpChanges(held=True))

    def select(self, query_id: str | None) -> None:
        if query_id != self._selected:
            self._selected = query_id
            self.selectionChanged.emit(query_id or "")
            self.changed.emit(OpChanges(selection=True))

    @property
    def settings(self) -> Settings:
        """A copy of the app's settings: views read it; changes go through the methods below."""
        return copy.deepcopy(self._settings)

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

    def set_confidence(self, confidence: float) -> None:
        """The confidence of every ± shown and released (the core's range)."""
        check_confidence(confidence)
        if confidence != self._settings.confidence:
            self._settings.confidence = confidence
            self.save_settings()
            self._emit(OpChanges(settings=True))

    @property
    def policy(self) -> Policy | PolicyError | None:
        """The organisation's policy installed in the app home (verified when read), the
        error that makes every release refuse, or None."""
        return self._policy

    @property
    def approval_required(self) -> bool:
        """Whether a release needs an approval: the setting, or the policy (core rule)."""
        return approval_rule(self._policy, self._settings.require_approval)[0]

    @property
    def approval_locked_by(self) -> str | None:
        """The policy that requires approval (its title), when the owner cannot switch it
        off; else None."""
        policy = self._policy
        if isinstance(policy, Policy) and approval_rule(policy, False)[0]:
            return policy.title
        return None

    @property
    def approval_keys_in_force(self) -> tuple[PublicKey, ...]:
        """The keys an approval must be signed by: the policy's officers when it names them,
        else the app home's trusted keys (core rule: policy.approval_rule)."""
        return tuple(approval_rule(self._policy, self._settings.require_approval,
                                   self.trusted_keys)[1])

    def refresh_policy(self) -> None:
        """Read and verify the installed policy again (it may have been installed, replaced
        or damaged since)."""
        self._policy = policy_or_error(self.home)
        self._lifetime = None
        self._same_file = None
        self._known = None
        self._emit(OpChanges(settings=True, ledger=True))

    def file_datasets(self) -> tuple[str, ...] | None:
        """The datasets the ledger has released the loaded table's exact file as (only under
        a policy, which has a rule about it); None without a table, policy or ledger."""
        from ..core.release.publish import file_datasets

        table = self.table
        if table is None or self._policy is None:
            return None
        if self._same_file is None or self._same_file[0] is not table:
            if self.asks_on_worker():  # the file's hash streams for a while: never wait here
                home = self.home

                def work() -> tuple[str, ...] | None:
                    try:
                        return tuple(file_datasets(home, table))
                    except PlannerError:
                        return None

                def store(answer: Any) -> None:
                    self._same_file = (table, None if isinstance(answer, InputError)
                                       else answer)
                    self._emit(OpChanges(ledger=True))  # the release rules, again

                self._ask("file", ("file", id(table)), work, store)
                return None  # unknown until then; publish checks the rule itself
            try:
                found: tuple[str, ...] | None = tuple(file_datasets(self.home, table))
            except PlannerError:
                found = None
            self._same_file = (table, found)
        return self._same_file[1]

    def known_datasets(self) -> tuple[str, ...] | None:
        """The datasets the ledger holds (only under a policy, whose dataset-name rule asks);
        read again with the lifetime (refresh_lifetime)."""
        from ..core.release.publish import known_datasets

        if self._policy is None:
            return None
        if self._known is None:
            try:
                self._known = tuple(known_datasets(self.home))
            except PlannerError:
                self._known = ()
        return self._known

    def set_require_approval(self, on: bool) -> None:
        if on != self._settings.require_approval:
            self._settings.require_approval = on
            self.save_settings()
            self._emit(OpChanges(settings=True))

    # -- trusted keys (issue 12) -----------------------------------------------------------------

    @property
    def trusted_keys(self) -> tuple[PublicKey, ...]:
        """The keys a required approval must be signed by (review.approval_keys: the app
        home's trusted keys; none: any approval of this exact plan counts)."""
        if self._trusted is None:
            try:
                self._trusted = tuple(approval_keys(self.home))
            except PlannerError:
                self._trusted = ()
        return self._trusted

    def refresh_trusted(self) -> None:
        """Read the app home's trusted keys again (`planner-app keys trust` may have changed
        them while the app was open): before a release and when the Keys dialog opens."""
        before = self._trusted
        self._trusted = None
        if before is not None and before != self.trusted_keys:
            self._emit(OpChanges(settings=True))

    def trust_key(self, path: Path, name: str | None = None) -> PublicKey:
        """Trust a public key file (KeyStore.trust): approvals signed with it count."""
        key = KeyStore(self.home).trust(path, name)
        self._trusted = None
        self._emit(OpChanges(settings=True))
        return key

    def untrust_key(self, name: str) -> None:
        KeyStore(self.home).untrust(name)
        self._trusted = None
        self._emit(OpChanges(settings=True))

    # -- signing releases (a setting; the key itself stays in the app home) ------------------

    @property
    def signing_key(self) -> str | None:
        """The name of the key that signs the app's releases (setting), or None."""
        return self._settings.sign_with or None

    def signing_keys(self) -> list[KeyInfo]:
        """The app home's own key pairs, to choose the signing key from."""
        return KeyStore(self.home).key_infos()

    def set_signing_key(self, name: str | None) -> None:
        """Sign releases with the app home's key ``name`` (None: do not sign)."""
        name = check_name(name) if name else ""
        if name != self._settings.sign_with:
            self._settings.sign_with = name
            self.save_settings()
            self._emit(OpChanges(settings=True))

    def load_signing_key(self, name: str, passphrase: Passphrase | None) -> SecretKey:
        """The secret key ``name`` (``passphrase(name)`` asked when it is protected); raises
        InputError with a one-line reason. Loaded before anything is charged."""
        return KeyStore(self.home).secret(name, passphrase, None)  # no option in the app

    def key_is_protected(self, name: str) -> bool:
        try:
            return KeyStore(self.home).is_protected(name)
        except PlannerError:  # not a key name (a hand-edited settings file): loading says so
            return False

    # -- engine results (cached per query object) ---------------------------------------------

    def _entry(self, query: Query) -> _Cached:
        plan = self.plan
        assert plan is not None
        hit = self._cache.get(query.id)
        rows = plan.dataset.expected_rows
        if (hit is not None and hit.query is query and hit.unit == plan.privacy_unit
                and hit.relation == plan.neighbouring and hit.rows == rows
                and hit.confidence == self._settings.confidence):
            return hit
        ms = measurements_for(query, plan)
        acc = accuracy_for(query, plan, self._settings.confidence, ms)
        entry = _Cached(query, plan.privacy_unit, plan.neighbouring, rows,
                        self._settings.confidence, ms, acc)
        self._cache[query.id] = entry
        return entry

    def measurements(self, query: Query) -> list[Measurement]:
        return self._entry(query).measurements

    def accuracy(self, query: Query) -> Accuracy:
        return self._entry(query).accuracy

    def query_epsilon(self, query: Query) -> float:
        return math.fsum(m.epsilon for m in self.measurements(query))

    def _all_measurements(self, plan: Plan) -> list[Measurement]:
        """Every measurement of ``plan``, in order (once per plan: the total and the release
        rules both ask at each slider step, a walk of every statistic at 1,000)."""
        if self._flat is None or self._flat[0] is not plan:
            self._flat = (plan, [m for q in plan.queries for m in self.measurements(q)])
        return self._flat[1]

    def _all_accuracies(self, plan: Plan) -> dict[str, Accuracy]:
        confidence = self._settings.confidence
        hit = self._accuracies
        if hit is None or hit[0] is not plan or hit[1] != confidence:
            hit = self._accuracies = (plan, confidence,
                                      {q.id: self.accuracy(q) for q in plan.queries})
        return hit[2]

    def total(self) -> Total:
        plan = self.plan
        if plan is None:
            return Total(0.0, 0.0, "basic")
        if self._total is not None and self._total[0] is plan:
            return self._total[1]
        ms = self._all_measurements(plan)
        try:
            total = compose(ms, plan.budget.delta, plan.budget.accountant)
        except PlannerError:
            total = compose(ms, plan.budget.delta)
        self._total = (plan, total)
        return total

    def again_blocked(self) -> RuleResult | None:
        """The lifetime rule when this plan's release cannot happen (core: again_blocked)."""
        plan = self.plan
        if plan is None:
            return None
        state = self.lifetime()
        return again_blocked(plan, self.total(), self._all_measurements(plan),
                             state if state is not None else LedgerError(
                                 f"the budget ledger {self.home.ledger_path} cannot be read"),
                             self._policy)

    def lifetime(self) -> LedgerState | None:
        """The dataset's ledger state (None when the ledger cannot be read)."""
        plan = self.plan
        if plan is None:
            return None
        name = plan.dataset.name
        if self._lifetime is None or self._lifetime[0] != name:
            try:  # the effective cap: the smaller of the ledger's and the policy's
                state: LedgerState | None = effective_state(
                    Ledger(self.home.ledger_path).state(name), self._policy)
            except PlannerError:
                state = None
            self._lifetime = (name, state)
        return self._lifetime[1]

    def earlier_releases(self) -> list[EarlierRelease]:
        """The releases of this exact plan in the ledger (core rule: records/released.py),
        oldest first; read again with the lifetime (refresh_lifetime)."""
        plan = self.plan
        if plan is None:
            return []
        state = self.lifetime()
        hit = self._released
        if hit is None or hit[0] is not plan or hit[1] is not state:
            if self._bundles is None:  # read once per lifetime read, not per edit
                self._bundles = bundle_names(self.home)
            names = {**self._bundles, **{k: str(v) for k, v in self._bundle_paths.items()}}
            found = earlier_releases(plan, state, names)
            hit = self._released = (plan, state, found)
        return hit[2]

    def note_bundle(self, release_id: str, path: Path) -> None:
        """A release this session made wrote ``path``: its banner names the full path."""
        self._bundle_paths[release_id] = path
        self._released = None

    def release_rules(self, unit_confirmed: bool | None = None) -> Readiness:
        """The core's release rules (readiness.py) for the plan as it stands: what the
        wizard's checklist, the meter and `planner-app check` / `release` all decide by."""
        plan = self.plan
        assert plan is not None
        state = self.lifetime()
        key = (plan, state, self.table, self.approval_required,
               self._settings.confidence, unit_confirmed, self._policy, self.file_datasets(),
               self.known_datasets(),
               self.approval_keys_in_force)
        if self._rules is not None and all(
                a is b or (type(a) in (bool, float) and a == b)
                for a, b in zip(self._rules[0], key, strict=True)):
            return self._rules[1]  # the meter asks on every slider step
        result = readiness(
            plan, self.total(), self._all_measurements(plan),
            ledger=state if state is not None else LedgerError(
                f"the budget ledger {self.home.ledger_path} cannot be read"),
            require_approval=self.approval_required, unit_confirmed=unit_confirmed,
            trusted=self.approval_keys_in_force,
            policy=self._policy, file_datasets=self.file_datasets(),
            known_datasets=self.known_datasets(),
            table_loaded=self.table is not None,
            table_name=self.table.name if self.table is not None else "",
            accuracies=self._all_accuracies(plan),
            repeating=self.repeating if self.table is not None else None)
        self._rules = (key, result)
        return result

    def refresh_lifetime(self) -> None:
        """Read the ledger, and verify the installed policy, again."""
        self._lifetime = None
        self._released = None
        self._bundles = None
        self._policy = policy_or_error(self.home)
        self._same_file = None
        self._known = None
        self._emit(OpChanges(ledger=True))

    # -- table ------------------------------------------------------------------------------

    def set_table(self, table: Table, path: Path, columns: list[ColumnInfo]) -> None:
        self._table = table
        self._observed.clear()
        self._notes.clear()
        self._values.clear()
        self._table_path = path
        self._columns = tuple(columns)
        self._column_types = {c.name: c.detected_type for c in columns}
        self._emit(OpChanges(table=True, column_types=True))

    def close_table(self) -> None:
        self._table = None
        self._table_path = None
        self._columns = ()
        self._column_types = {}
        self._observed.clear()
        self._notes.clear()
        self._values.clear()
        self._emit(OpChanges(table=True, column_types=True))

    def set_column_type(self, name: str, kind: str) -> None:
        if self._column_types.get(name) != kind:
            self._column_types[name] = kind
            self._emit(OpChanges(column_types=True))

    def fit_problems(self) -> list[InputError]:
        """Every way the plan does not fit the loaded table (the core's one rule), cached for
        this plan and table; empty without a plan or a table."""
        from ..core.data.fit import plan_problems

        plan, table = self.plan, self.table
        if plan is None or table is None:
            return []
        if self._fit is None or self._fit[0] is not plan or self._fit[1] is not table:
            self._fit = (plan, table, plan_problems(plan, self.table_source(), table.name,
                                                    self._counted()))
        return self._fit[2]

    def query_fit(self, query: Query) -> tuple[list[InputError], YesNoTally | None]:
        """One statistic against the loaded table: its problems, and for a yes/no statistic
        how its column reads (owner-only, never exported)."""
        from ..core.data.facts import yes_no_tally
        from ..core.data.fit import query_problems

        table = self.table
        if table is None:
            return [], None
        # what the answer depends on (not the label, ε or reasons): a form's keystrokes and
        # a slider's moves do not scan the column again
        key = (id(table), _fit_key(query))
        hit = self._query_fit.get(key)
        if hit is not None and hit[0] is table:
            return hit[1], hit[2]
        source = self.table_source()
        problems = query_problems(query, source, table.name, self._counted())
        tally = None
        if not problems and query.kind in YES_NO_KINDS and query.column is not None:
            tally = yes_no_tally(source, query)
        if len(self._query_fit) > 256:
            self._query_fit.clear()
        self._query_fit[key] = (table, problems, tally)
        return problems, tally

    def column_facts(self, column: str):  # type: ignore[no-untyped-def]
        """What the data shows about a column (owner-only warnings), cached per table."""
        from ..core.planning.check import column_facts

        if self.table is None or column not in self.table.columns:
            return None
        key = (id(self.table), column)
        if key not in self._observed:
            read = next((c.facts for c in self._columns if c.name == column), None)
            self._observed[key] = read if read is not None else \
                column_facts(self.table_source(), column)
        return self._observed[key]

    def _counted(self) -> dict[str, tuple[int, int]]:
        """Each column's filled and numeric cells, counted in the pass that opened the table
        (so a statistic's fit does not read the file again)."""
        return {c.name: c.filled_numbers for c in self._columns if c.filled_numbers is not None}

    def table_source(self) -> TableSource:
        """How the engine reads the open table (its file in place, or its frame): every
        question about the data is an engine query over it, never a scan of a frame here."""
        from ..core.data.tables import source_of

        table = self.table
        assert table is not None
        if self._source is None or self._source[0] is not table:
            self._source = (table, source_of(table))
        return self._source[1]

    def column_values(self, column: str, limit: int = 50) -> list[str] | None:
        """Up to ``limit`` distinct values of a column (the core's reading), for the owner to
        sort into lists; None without a table or when the column is not in it."""
        from ..core.data.facts import distinct_values

        if self.table is None or column not in self.table.columns:
            return None
        return distinct_values(self.table_source(), column, limit)

    # -- data questions on a worker (issue 13) ------------------------------------------------
    # A full scan of a large table takes tens of seconds: the views ask these, get None while
    # the answer is being computed (they show "checking…"), and redraw on dataAnswered. The
    # answers are cached as the synchronous ones above; only this class stores them.

    def asks_on_worker(self) -> bool:
        """True when the open table is large enough that its questions run on a worker."""
        table = self.table
        return table is not None and table.n_rows >= self.ASYNC_ROWS

    def _ask(self, kind: str, key: Any, work: Any, store: Any) -> None:
        """Run ``work()`` (core calls only, no session state) on a worker unless the same
        question is under way; a newer question of the same kind supersedes an older one (it
        is cancelled, or its answer merely cached). ``store(answer)`` runs on this thread,
        while the same table is open, then dataAnswered(kind)."""
        running = self._asking.get(key)
        if running is not None and not running.is_cancelled():
            return  # asked once: its answer is on the way
        table = self.table

        def fn(progress, cancel):  # type: ignore[no-untyped-def]
            from ..core.data.facts import cancelling

            if cancel():  # superseded while it waited for a thread
                return _SUPERSEDED
            with cancelling(cancel):  # superseded while it reads: DuckDB is interrupted
                return work()

        worker = Worker(fn)

        def done(answer: Any) -> None:
            if self._asking.get(key) is worker:
                del self._asking[key]
            if answer is _SUPERSEDED or self.table is not table:
                return
            store(answer)
            self.dataAnswered.emit(kind)

        def failed(exc: object) -> None:
            if self._asking.get(key) is worker:
                del self._asking[key]
            if self.table is not table or isinstance(exc, Cancelled):
                return  # superseded: a newer question is on its way
            # a one-line message that never quotes a cell (the engine's reading of its error)
            from ..core.data.source import engine_problem

            problem = exc if isinstance(exc, InputError) else \
                engine_problem(self.table_source(), exc) if isinstance(exc, Exception) else \
                InputError("table", None, "could not be read")
            store(problem)
            self.dataAnswered.emit(kind)

        worker.signals.finished.connect(done)
        worker.signals.failed.connect(failed)
        self._asking[key] = worker
        self._slots.setdefault(kind, WorkerSlot()).start(worker)

    def ask_fit_problems(self) -> list[InputError] | None:
        """fit_problems() without blocking: None while a large table is being checked."""
        from ..core.data.fit import plan_problems

        plan, table = self.plan, self.table
        if plan is None or table is None:
            return []
        if self._fit is not None and self._fit[0] is plan and self._fit[1] is table:
            return self._fit[2]
        if not self.asks_on_worker():
            return self.fit_problems()
        source, counted, name = self.table_source(), self._counted(), table.name

        def store(answer: Any) -> None:
            self._fit = (plan, table, [answer] if isinstance(answer, InputError) else answer)

        self._ask("fit", ("fit", id(plan), id(table)),
                  lambda: plan_problems(plan, source, name, counted), store)
        return None

    def ask_query_checks(self, query: Query) -> QueryChecks | None:
        """One statistic against the open table without blocking: its problems, its yes/no
        tally and the warnings that its public parameters look read off the data (bounds equal
        to the minimum and maximum, a list equal to the values present); None while a large
        table is being read."""
        from ..core.planning.check import copied_from_data, declared_columns

        table = self.table
        if table is None:
            return QueryChecks([], None, [])
        key = (id(table), _fit_key(query))
        hit = self._query_fit.get(key)
        if hit is not None and hit[0] is table and key in self._notes:
            return QueryChecks(hit[1], hit[2], self._notes[key])
        columns = [c for c in declared_columns(query) if c in table.columns]
        known = {c: self._observed.get((id(table), c),
                                       next((i.facts for i in self._columns if i.name == c),
                                            None))
                 for c in columns}
        if not self.asks_on_worker():
            problems, tally = self.query_fit(query)
            notes = copied_from_data(query, self.column_facts)
            self._notes[key] = notes
            return QueryChecks(problems, tally, notes)
        source, counted, name = self.table_source(), self._counted(), table.name

        def work() -> tuple[Any, ...]:
            from ..core.data.facts import column_facts, yes_no_tally
            from ..core.data.fit import query_problems

            facts = dict(known)
            unread = [c for c, f in facts.items() if f is None]
            if unread:
                facts.update(column_facts(source, unread))
            problems = query_problems(query, source, name, counted)
            tally = None
            if not problems and query.kind in YES_NO_KINDS and query.column is not None:
                tally = yes_no_tally(source, query)
            notes = copied_from_data(query, facts.get)  # reads the values present here
            return problems, tally, notes, facts

        def store(answer: Any) -> None:
            if isinstance(answer, InputError):
                answer = ([answer], None, [], {})
            problems, tally, notes, facts = answer
            for c, f in facts.items():
                self._observed[(id(table), c)] = f
            if len(self._query_fit) > 256:
                self._query_fit.clear()
                self._notes.clear()
            self._query_fit[key] = (table, problems, tally)
            self._notes[key] = notes

        self._ask("query", ("query", key), work, store)
        return None

    def ask_column_values(self, column: str, limit: int = 50) -> list[str] | None:
        """column_values() without blocking: None while a large table is being read (the
        answer then arrives with dataAnswered("values")); [] without a table or column."""
        from ..core.data.facts import distinct_values

        table = self.table
        if table is None or column not in table.columns:
            return []
        key = (id(table), column, limit)
        hit = self._values.get(key)
        if hit is not None and hit[0] is table:
            return hit[1]
        if not self.asks_on_worker():
            values = self.column_values(column, limit) or []
            self._values[key] = (table, values)
            return values
        source = self.table_source()

        def store(answer: Any) -> None:
            if isinstance(answer, InputError):
                self.message.emit(str(answer))
                return
            self._values[key] = (table, answer)

        self._ask("values", ("values", key), lambda: distinct_values(source, column, limit),
                  store)
        return None


_SUPERSEDED = object()


@dataclass(frozen=True)
class QueryChecks:
    """One statistic against the open table (owner-only, never exported)."""

    problems: list[InputError]
    tally: YesNoTally | None
    notes: list[str]  # its public parameters look read off the data


def _fit_key(query: Query) -> Query:
    """What a statistic's fit depends on (not the label, ε or reasons): a form's keystrokes
    and a slider's moves do not read the column again."""
    return replace(query, label="", epsilon=1.0, justification=None, expected_count=None)
