"""The only executor of writes (STYLE: "committer/apply.py (the only executor)").

Each public method is one Neo4j transaction: it locks the owner (serializing commits of
one owner, CONTRACT §2.1 rule 6), takes the commit time, reads the current rows it
needs, plans with the pure rules in `committer.rules.plan`, and writes the plan. Either
all of it lands or none of it does (STYLE: "one commit is one Neo4j transaction").
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from neo4j import Driver

from committer.groups import AccessCommands
from committer.batch import Batch, CommitResult, start_of
from committer.decisions import ReviewCommands
from committer.entity_changes import EntityCommands
from committer.episodes import EpisodeCommands
from committer.erasure import ErasureCommands
from committer.owners import ensure_owner, live_entity, new_entity
from committer.proposals import Assertion, Reviewed, Said
from committer.filing import record_run
from committer.rules.plan import Predecessor, plan_end, plan_retract
from committer.trail import Trail
from graph.attributes import known_areas
from graph.embedding import Embedder
from graph.errors import Conflict, InvalidInput
from graph.names import token_hash
from graph.records import (
    MEMORY_MODES,
    EntityRecord,
    FactRecord,
    MemoryAccess,
    RunRecord,
    TokenRecord,
    run_key,
)
from graph.time import FAR_FUTURE, utcnow
from graph.write.writer import Writer, WriteTx, new_id

MAX_ATTEMPTS = 5
"""Claims of one run after which it is given up as `failed` (CONTRACT §4)."""
RETRY_BASE_SECONDS = 5.0
"""First retry delay of a released run; it doubles per try."""
RETRY_MAX_SECONDS = 300.0
"""Longest retry delay of a released run."""


@dataclass(frozen=True, slots=True)
class RetractResult:
    """The outcome of forget or retract (CONTRACT §10 `DELETE /v1/facts/{id}`).

    Attributes:
        retracted: ids of rows whose retracted_at became `recorded_at`.
        fact: the new `invalidated` row of a forget, or None.
        restored: rows recorded again by a retract (values it had pushed out).
        recorded_at: the commit's transaction time, aware UTC.
        event_id: the action event that records it (CONTRACT §8).
    """

    retracted: tuple[str, ...]
    fact: FactRecord | None
    restored: tuple[FactRecord, ...]
    recorded_at: datetime
    event_id: str | None = None


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """Counts of one run's proposals (CONTRACT §10 `GET /v1/runs/{id}`)."""

    proposals: int
    committed: int
    held: int
    entity_ids: tuple[str, ...] = ()
    """Entities the committed proposals touched (for merge suggestions)."""


SOURCES = ("user_stated", "user_edit", "inferred", "untrusted", "integration")
"""Sources a restricted memory access may list (CONTRACT §10 Fact.source; `integration`
admits every `integration:<name>`, graph/scope.py)."""


class Committer(ReviewCommands, AccessCommands, ErasureCommands, EntityCommands, EpisodeCommands):
    """The only writer of facts (CONTRACT §1).

    Args:
        driver: a connected neo4j driver.
        database: the Neo4j database, or None for the default.
        embedder: embeds each new row in the transaction that writes it (CONTRACT §6
            semantic recall; committer/search_index.py), or None: rows get their search
            text only.
    """

    def __init__(
        self, driver: Driver, database: str | None = None, embedder: Embedder | None = None
    ):
        self._writer = Writer(driver, database, embedder)

    # --- owners, entities, tokens --------------------------------------------------------

    def ensure_owner(self, owner: str) -> str:
        """Create the owner and its own person entity if missing; return that entity's id."""
        return self._writer.transaction(lambda w: ensure_owner(w, owner)[0])

    def create_entity(
        self,
        owner: str,
        name: str,
        kind: str,
        aliases: Sequence[str] = (),
        area: str | None = None,
    ) -> EntityRecord:
        """Create an entity (CONTRACT §10 `POST /v1/entities`); the owner is created if new.

        Args:
            owner: the owner id.
            name: display name (non-empty).
            kind: person, project, place, ... (free text, lower case by convention).
            aliases: other names it goes by.
            area: the life area for access policies, or None.
        """

        def work(w: WriteTx) -> EntityRecord:
            ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            return new_entity(w, owner, name, kind, aliases, area, t)

        return self._writer.transaction(work)

    def create_token(self, owner: str, scopes: Sequence[str]) -> tuple[str, TokenRecord]:
        """Create a bearer token for `owner` (created if new); return (secret, record).

        Only the sha256 of the secret is stored (CONTRACT §7).
        """
        secret = "ws_" + secrets.token_urlsafe(32)

        def work(w: WriteTx) -> TokenRecord:
            ensure_owner(w, owner)
            return w.create_token(
                owner,
                token_id=new_id("tok"),
                token_hash=token_hash(secret),
                scopes=list(scopes),
                now=utcnow(),
            )

        return secret, self._writer.transaction(work)

    # --- facts ---------------------------------------------------------------------------

    def assert_fact(self, owner: str, assertion: Assertion, by: str = "rest") -> CommitResult:
        """Commit one assertion by CONTRACT §2.1 rules 1-4 and 6, in one transaction.

        `by` names who asserted it (`rest`, `chat:<id>`), recorded on its action event.

        Raises:
            NotFound: the entity (or object entity) is not the owner's.
            InvalidInterval: valid_to is not after valid_from.
            InvalidInput: neither or both of value and object_id are given.
        """

        return self.assert_facts(owner, [assertion], by)[0]

    def assert_facts(
        self, owner: str, assertions: Sequence[Assertion], by: str = "rest"
    ) -> list[CommitResult]:
        """Commit several assertions in one transaction at one commit time, in order.

        Later assertions see the effect of earlier ones (CONTRACT §2.1 applies to each
        in turn). Either all land or none does. One `action` event (`assert`, actor
        `by`) records them (CONTRACT §8).

        Raises:
            NotFound: an entity (or object entity) is not the owner's.
            InvalidInterval: a valid_to is not after its valid_from.
            InvalidInput: neither or both of value and object_id are given.
        """

        def work(w: WriteTx) -> list[CommitResult]:
            t = w.begin_commit(owner, utcnow())
            # A merged entity's id stands for its survivor (CONTRACT §5).
            merged = w.require_entities(
                owner,
                [a.entity_id for a in assertions]
                + [a.object_id for a in assertions if a.object_id],
            )
            live = {i: live_entity(w, owner, i).id for i in merged}
            current = [
                a.model_copy(
                    update={
                        "entity_id": live.get(a.entity_id, a.entity_id),
                        "object_id": live.get(a.object_id, a.object_id) if a.object_id else None,
                    }
                )
                for a in assertions
            ]
            trail = Trail(w, owner, t)
            trail.act(
                "action",
                actor=by,
                action="assert",
                entity_id=current[0].entity_id if current else None,
            )
            batch = Batch(w, owner, t, trail)
            batch.load([(a.entity_id, a.attribute, start_of(a.valid_from, t)) for a in current])
            results = [batch.assert_(a) for a in current]
            batch.flush()
            return [batch.settle(r) for r in results]

        return self._writer.transaction(work)

    def forget(self, owner: str, fact_id: str, by: str = "rest") -> RetractResult:
        """Forget a fact: it no longer holds from now on (CONTRACT §2.2).

        Forgetting a row that is already `invalidated` and ended changes nothing: the
        result names no retracted row and returns that row. The person's `action` event
        (`forget`, actor `by`) is recorded either way (CONTRACT §8).

        Raises:
            NotFound: no such row for this owner.
            Conflict: the row is already retracted (it is not current knowledge).
        """

        def work(w: WriteTx) -> RetractResult:
            t = w.begin_commit(owner, utcnow())
            row = _current(w, owner, fact_id)
            trail = Trail(w, owner, t)
            act = trail.act(
                "action", actor=by, action="forget", fact_id=fact_id, entity_id=row.entity_id
            )
            if row.status == "invalidated" and row.valid_to <= t:
                trail.flush()
                return RetractResult((), row, (), t, act)  # already forgotten: no change
            batch = Batch(w, owner, t, trail)
            created = batch.execute(plan_end(row, t), row.entity_id, row.attribute)
            batch.flush()
            return RetractResult((row.id,), created[0] if created else None, (), t, act)

        return self._writer.transaction(work)

    def retract(self, owner: str, fact_id: str, by: str = "rest") -> RetractResult:
        """Retract a fact: it was never true; what it pushed out comes back (CONTRACT §2.2).

        Recorded as the person's `action` event (`retract`, actor `by`; CONTRACT §8).

        Raises:
            NotFound: no such row for this owner.
            Conflict: the row is already retracted.
        """

        def work(w: WriteTx) -> RetractResult:
            t = w.begin_commit(owner, utcnow())
            row = _current(w, owner, fact_id)
            lineage = w.lineage(owner, row.id)
            trail = Trail(w, owner, t)
            act = trail.act(
                "action", actor=by, action="retract", fact_id=fact_id, entity_id=row.entity_id
            )
            batch = Batch(w, owner, t, trail)
            rows = batch.rows(row.entity_id, row.attribute, min(start for start, _ in lineage))
            predecessors = [Predecessor(p, d) for p, d in w.predecessors(owner, row.id)]
            plan = plan_retract(row, lineage, predecessors, rows)
            created = batch.execute(plan, row.entity_id, row.attribute)
            batch.flush()
            return RetractResult(plan.retract, None, tuple(created), t, act)

        return self._writer.transaction(work)

    # --- runs ----------------------------------------------------------------------------

    def submit_run(
        self,
        owner: str,
        *,
        run_id: str,
        chat_id: str,
        surface: str | None,
        payload: str,
        canonical: str | None = None,
    ) -> tuple[RunRecord, bool]:
        """Queue a finished run for the curator; idempotent on run id (CONTRACT §4).

        Args:
            owner: the owner id.
            run_id: the client's run id (unique per owner).
            chat_id: the chat it came from.
            surface: where it ran, or None.
            payload: the run as JSON text (messages, observations).
            canonical: the form compared for idempotency (e.g. with times in UTC, so the
                same instant written in another offset is the same run); default payload.

        Returns:
            (the stored run, True if this call queued it).

        A run of a chat whose memory access is `none` is stored without its content
        (payload `{}`; CONTRACT §7, §12: that chat's messages are never stored); the
        digest still makes a repost with other content a conflict.

        Raises:
            Conflict: the run id was posted before with different content, or is a
                sync's id (CONTRACT §10: both are event ids).
        """
        digest = hashlib.sha256((canonical or payload).encode()).hexdigest()

        def work(w: WriteTx) -> tuple[RunRecord, bool]:
            ensure_owner(w, owner)
            taken = w.event(owner, run_id)
            if taken is not None and taken.kind != "run":
                raise Conflict(
                    f"id {run_id!r} is already the id of a {taken.kind}; a run's "
                    "event id is its run id, so runs and syncs need distinct ids"
                )
            closed = w.memory_access(owner, chat_id).mode == "none"
            return w.create_run(
                owner,
                key=run_key(owner, run_id),
                run_id=run_id,
                chat_id=chat_id,
                surface=surface,
                payload="{}" if closed else payload,
                digest=digest,
                now=utcnow(),
            )

        return self._writer.transaction(work)

    def claim_run(
        self, worker: str, lease_seconds: float = 30.0, max_attempts: int = MAX_ATTEMPTS
    ) -> RunRecord | None:
        """Claim the oldest claimable run of any owner for `worker`, atomically (CONTRACT §4).

        Claimable: `queued` and past its `retry_at`, or `curating` with a lapsed lease
        (its worker died: takeover). Claims of all processes are serialized on one queue
        lock (graph/cypher/runs.py LOCK_QUEUE), so two workers never hold one run.

        Args:
            worker: the claiming worker's id (host-pid-random).
            lease_seconds: how long the claim holds without a heartbeat.
            max_attempts: a run claimed this many times already is closed `failed`.

        Returns:
            The run `curating` under `worker`'s lease; or a run closed at once: `skipped`
            (its chat's memory access is `none`, CONTRACT §7; its payload is neither
            read nor returned) or `failed` (attempts exhausted); None when none waits.
        """
        lease = timedelta(seconds=lease_seconds)
        return self._writer.transaction(
            lambda w: w.claim_run(worker, utcnow(), lease, max_attempts)
        )

    def heartbeat(self, run: RunRecord, worker: str, lease_seconds: float) -> bool:
        """Extend `worker`'s lease on `run` to now + `lease_seconds`.

        Returns:
            False when the lease is no longer `worker`'s (it lapsed and another worker
            took the run over, or the run was closed): the worker's apply will fail.
        """
        lease = timedelta(seconds=lease_seconds)
        return self._writer.transaction(
            lambda w: w.heartbeat_run(run_key(run.owner, run.id), worker, utcnow(), lease)
        )

    def release_run(
        self,
        run: RunRecord,
        worker: str,
        error: str | None,
        *,
        count_attempt: bool = False,
        retry_in: float | None = None,
        max_attempts: int = MAX_ATTEMPTS,
    ) -> bool:
        """Put a run `worker` holds back in the queue, to be retried later (CONTRACT §4).

        For a run that could not be curated now through no fault of its own (the LLM
        extractor's endpoint failing, a worker stopping): the run is never lost.

        Args:
            run: the claimed run.
            worker: the worker holding its lease.
            error: why, kept on the run (never message text), or None.
            count_attempt: count this attempt against `max_attempts` (the run itself
                failed); then a run out of attempts is closed `failed` instead.
            retry_in: seconds before it may be claimed again; default an exponential
                backoff, `RETRY_BASE_SECONDS` doubling per try up to `RETRY_MAX_SECONDS`.
            max_attempts: see `count_attempt`.

        Returns:
            False when the lease was no longer `worker`'s (nothing changed).
        """
        if count_attempt and run.attempts >= max_attempts:
            return self.close_run(run, "failed", error, worker=worker)
        if retry_in is None:
            tries = max(run.attempts + run.releases, 1)
            retry_in = min(RETRY_BASE_SECONDS * 2 ** (tries - 1), RETRY_MAX_SECONDS)

        def work(w: WriteTx) -> bool:
            now = utcnow()
            return w.release_run(
                run_key(run.owner, run.id),
                worker,
                refund=not count_attempt,
                retry_at=now + timedelta(seconds=retry_in),
                error=error,
                now=now,
            )

        return self._writer.transaction(work)

    def apply_run(
        self,
        run: RunRecord,
        reviewed: Sequence[Reviewed],
        *,
        worker: str,
        said: Sequence[Said] = (),
    ) -> RunOutcome:
        """Store a claimed run's episodes and reviewed proposals and mark it done, in one
        transaction.

        Each message the curator handed over (`said`, secrets already redacted) is kept as
        an episode (CONTRACT §12); low-risk proposals are committed, the rest held pending
        for the person, and suppressed ones dropped (CONTRACT §3,
        `committer.filing.record_run`). Either all of it lands and the run is `done`, or
        nothing does (CONTRACT §4: nothing is applied twice; proposals and episodes are
        idempotent on id).

        Raises:
            Conflict: the run is no longer being curated under `worker`'s lease (it lapsed
                and another worker took the run over, or it was finished): nothing is
                written.
        """

        def work(w: WriteTx) -> RunOutcome:
            self_id, _ = ensure_owner(w, run.owner)
            t = w.begin_commit(run.owner, utcnow())
            review = record_run(
                w, run.owner, self_id, run, reviewed, t, Trail(w, run.owner, t), worker, said
            )
            outcome = RunOutcome(review.proposals, review.committed, review.held, review.entity_ids)
            if not w.finish_run(
                run_key(run.owner, run.id),
                worker=worker,
                status="done",
                proposals=review.proposals,
                committed=review.committed,
                held=review.held,
                error=None,
                now=t,
            ):
                raise Conflict(f"run {run.id!r} is not being curated")
            return outcome

        return self._writer.transaction(work)

    def close_run(
        self, run: RunRecord, status: str, error: str | None = None, *, worker: str
    ) -> bool:
        """Mark a run `worker` holds `failed` or `skipped` with nothing applied.

        Returns:
            False when the lease was no longer `worker`'s (nothing changed).
        """
        return self._writer.transaction(
            lambda w: w.finish_run(
                run_key(run.owner, run.id),
                worker=worker,
                status=status,
                proposals=0,
                committed=0,
                held=0,
                error=error,
                now=utcnow(),
            )
        )

    # --- memory access -------------------------------------------------------------------

    def set_memory_access(
        self,
        owner: str,
        chat_id: str | None,
        mode: str,
        areas: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> MemoryAccess:
        """Set a chat's memory access, or the owner's default with `chat_id` None (CONTRACT §7).

        Args:
            owner: the owner id (created if new).
            chat_id: the chat, or None for the owner's profile default.
            mode: `none`, `restricted` or `full`.
            areas: areas a fact may come from under `restricted` (empty: none passes).
            sources: sources allowed under `restricted` (empty: none passes).

        Returns:
            The stored setting.

        Raises:
            InvalidInput: an unknown mode, area (graph/attributes.py) or source.
            Conflict: the chat id collides with another owner's chat key.
        """
        if mode not in MEMORY_MODES:
            raise InvalidInput("mode", f"must be one of {', '.join(MEMORY_MODES)}")
        known = known_areas()
        for area in areas:  # a typo would silently let nothing through (fail-closed)
            if area not in known:
                raise InvalidInput(
                    "areas", f"unknown area {area!r}; known: {', '.join(sorted(known))}"
                )
        for source in sources:
            if source not in SOURCES and not (
                source.startswith("integration:") and len(source) > len("integration:")
            ):
                raise InvalidInput(
                    "sources",
                    f"unknown source {source!r}; known: {', '.join(SOURCES)}, integration:<name>",
                )

        def work(w: WriteTx) -> MemoryAccess:
            ensure_owner(w, owner)
            return w.set_memory_access(
                owner, chat_id, mode=mode, areas=list(areas), sources=list(sources), now=utcnow()
            )

        return self._writer.transaction(work)


def _current(w: WriteTx, owner: str, fact_id: str) -> FactRecord:
    row = w.fact(owner, fact_id)
    if row.retracted_at < FAR_FUTURE:
        raise Conflict(f"fact {fact_id!r} is already retracted; only current rows change")
    return row
