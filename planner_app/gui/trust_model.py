"""The session's trust model: what the app home says about releasing (the organisation's
policy, the trusted and own keys, the budget ledger) as read for the open plan.

Everything here is read from files another process may change (`planner-app release`,
`keys trust`, `policy install`), so each answer is cached against a generation that
``reread`` advances: the operation runner calls it with the change set of every persistent
change (operations.py), and the views ask again when told (``OpChanges.ledger`` /
``settings``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.model import Plan
from ..core.planning.changes import OpChanges
from ..core.planning.settings import Settings
from ..core.records.books import charged_to_short, charged_to_words, ledger_for
from ..core.records.keys import KeyInfo, KeyStore, Passphrase, PublicKey, SecretKey
from ..core.records.ledger import LedgerError, LedgerState
from ..core.records.policy import (
    Policy,
    PolicyError,
    approval_rule,
    effective_state,
    policy_or_error,
)
from ..core.records.programme import ProgrammeRelease
from ..core.records.released import EarlierRelease, bundle_names, earlier_releases
from ..core.records.review import approval_keys
from ..core.support.errors import InputError, PlannerError
from ..core.support.home import AppHome
from .data_model import Answered, DataModel
from .memo import Memo

if TYPE_CHECKING:
    from ..core.data.tables import Table


class TrustModel:
    """Policy, keys and ledger state; ``emit`` announces what an answer from a worker
    changed."""

    def __init__(self, home: AppHome, settings: Settings, data: DataModel,
                 emit: Callable[[OpChanges], None]) -> None:
        self.home = home
        self._settings = settings
        self._data = data
        self._emit = emit
        self._ledger_read = 0  # advanced when the ledger (or the policy) may have changed
        self._keys_read = 0  # advanced when the trusted keys may have changed
        self.policy: Policy | PolicyError | None = policy_or_error(home)
        self._trusted: Memo[tuple[PublicKey, ...]] = Memo()
        self._lifetime: Memo[LedgerState | None] = Memo()
        self._ledger_error: PlannerError | None = None
        self._bundles: Memo[dict[str, str]] = Memo()  # the audit log's bundle names
        self._released: Memo[list[EarlierRelease]] = Memo()
        self._programme: Memo[list[ProgrammeRelease] | None] = Memo()
        self._known: Memo[tuple[str, ...]] = Memo()
        self._same_file: Memo[tuple[str, ...] | None] = Memo()
        self._bundle_paths: dict[str, Path] = {}  # bundles this session wrote, by release id

    # -- reading again ------------------------------------------------------------------------

    def reread(self, changes: OpChanges) -> None:
        """Forget what ``changes`` may have made stale: the ledger and the policy
        (``ledger``), the trusted keys (``settings``)."""
        if changes.ledger:
            self._ledger_read += 1
            self.policy = policy_or_error(self.home)
        if changes.settings:
            self._keys_read += 1

    def reread_keys(self) -> bool:
        """Read the trusted keys again; True when they differ from the last ones read."""
        before = self._trusted.peek((self._keys_read,))
        self._keys_read += 1
        return before is not None and before != self.trusted_keys

    # -- the policy and the approval rule -----------------------------------------------------

    @property
    def approval_required(self) -> bool:
        return approval_rule(self.policy, self._settings.require_approval)[0]

    @property
    def approval_locked_by(self) -> str | None:
        """The policy that requires approval (its title), when the owner cannot switch it
        off; else None."""
        policy = self.policy
        if isinstance(policy, Policy) and approval_rule(policy, False)[0]:
            return policy.title
        return None

    @property
    def approval_keys_in_force(self) -> tuple[PublicKey, ...]:
        return tuple(approval_rule(self.policy, self._settings.require_approval,
                                   self.trusted_keys)[1])

    # -- keys ---------------------------------------------------------------------------------

    @property
    def trusted_keys(self) -> tuple[PublicKey, ...]:
        def read() -> tuple[PublicKey, ...]:
            try:
                return tuple(approval_keys(self.home))
            except PlannerError:
                return ()

        return self._trusted.get((self._keys_read,), read)

    def signing_keys(self) -> list[KeyInfo]:
        return KeyStore(self.home).key_infos()

    def load_signing_key(self, name: str, passphrase: Passphrase | None) -> SecretKey:
        """The secret key ``name`` (``passphrase(name)`` asked when it is protected); raises
        InputError with a one-line reason. Loaded before anything is charged."""
        return KeyStore(self.home).secret(name, passphrase, None)  # no option in the app

    def key_is_protected(self, name: str) -> bool:
        try:
            return KeyStore(self.home).is_protected(name)
        except PlannerError:  # not a key name (a hand-edited settings file): loading says so
            return False

    # -- the ledger ---------------------------------------------------------------------------

    def ledger_unreadable(self) -> PlannerError:
        """Why the ledger could not be read (the home's or the office's, as it said)."""
        return self._ledger_error or LedgerError(f"the budget ledger {self.home.ledger_path} "
                                                 "cannot be read")

    def charged_to(self, short: bool = False) -> str:
        """Which ledger a release is charged to, in the core's words (records/books.py)."""
        return (charged_to_short if short else charged_to_words)(self.policy)

    def lifetime(self, plan: Plan | None) -> LedgerState | None:
        """The dataset's ledger state (None when the ledger cannot be read)."""
        if plan is None:
            return None
        name = plan.dataset.name

        def read() -> LedgerState | None:
            try:  # the effective cap: the smaller of the ledger's and the policy's
                return effective_state(ledger_for(self.home, True).state(name), self.policy)
            except PlannerError as exc:  # the office's ledger unreachable, say
                self._ledger_error = exc
                return None

        return self._lifetime.get((name, self._ledger_read), read)

    def programme_history(self, plan: Plan | None) -> list[ProgrammeRelease] | None:
        """The programme releases of the plan's dataset in the books (home_check's
        programme_history), read once per ledger read; None for a plan with no programme."""
        if plan is None or plan.programme is None:
            return None
        from ..core.release.home_check import programme_history

        return self._programme.get((plan.dataset.name, self._ledger_read),
                                   lambda: programme_history(self.home, plan))

    def earlier_releases(self, plan: Plan | None) -> list[EarlierRelease]:
        """The releases of this exact plan in the ledger (records/released.py), oldest
        first."""
        if plan is None:
            return []
        state = self.lifetime(plan)
        written = tuple(sorted(self._bundle_paths.items()))

        def find() -> list[EarlierRelease]:
            # the audit log's names, read once per ledger read, not per edit
            names = self._bundles.get((self._ledger_read,), lambda: bundle_names(self.home))
            return earlier_releases(
                plan, state, {**names, **{k: str(v) for k, v in self._bundle_paths.items()}})

        return self._released.get((plan, state, written), find)

    def note_bundle(self, release_id: str, path: Path) -> None:
        """A release this session made wrote ``path``: its banner names the full path."""
        self._bundle_paths[release_id] = path

    def known_datasets(self) -> tuple[str, ...] | None:
        from ..core.release.publish import known_datasets

        if self.policy is None:
            return None

        def read() -> tuple[str, ...]:
            try:
                return tuple(known_datasets(self.home))
            except PlannerError:
                return ()

        return self._known.get((self._ledger_read,), read)

    def file_datasets(self) -> tuple[str, ...] | None:
        """The datasets the ledger has released the open table's exact file as (only under a
        policy); None without a table, policy or ledger, or while a large file's hash is
        computed on a worker (publish checks the rule itself)."""
        from ..core.release.publish import file_datasets

        table, home = self._data.table, self.home
        if table is None or self.policy is None:
            return None
        key = (table, self._ledger_read)
        if self._same_file.has(key):
            return self._same_file.peek(key)

        def read(table: Table) -> tuple[str, ...] | None:
            try:
                return tuple(file_datasets(home, table))
            except PlannerError:
                return None

        if not self._data.asks_on_worker():
            return self._same_file.get(key, lambda: read(table))

        def store(answer: Any) -> None:  # the hash streams for a while: never wait here
            self._same_file.put(key, None if isinstance(answer, InputError) else answer)
            self._emit(OpChanges(ledger=True))  # the release rules, again

        self._data.ask(Answered.FILE, ("file", self._ledger_read), lambda: read(table), store)
        return None
