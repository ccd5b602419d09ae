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
from datetime import datetime

from neo4j import Driver

from committer.batch import Batch, CommitResult, start_of
from committer.curation import apply_proposals
from committer.owners import ensure_owner, new_entity
from committer.proposals import Assertion, Proposal
from committer.rules.plan import Predecessor, plan_end, plan_retract
from graph.errors import Conflict
from graph.names import token_hash
from graph.records import EntityRecord, FactRecord, RunRecord, TokenRecord, run_key
from graph.time import FAR_FUTURE, utcnow
from graph.writer import Writer, WriteTx, new_id


@dataclass(frozen=True, slots=True)
class RetractResult:
    """The outcome of forget or retract (CONTRACT §10 `DELETE /v1/facts/{id}`).

    Attributes:
        retracted: ids of rows whose retracted_at became `recorded_at`.
        fact: the new `invalidated` row of a forget, or None.
        restored: rows recorded again by a retract (values it had pushed out).
        recorded_at: the commit's transaction time, aware UTC.
    """

    retracted: tuple[str, ...]
    fact: FactRecord | None
    restored: tuple[FactRecord, ...]
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """Counts of one run's proposals (CONTRACT §10 `GET /v1/runs/{id}`)."""

    proposals: int
    committed: int
    held: int


class Committer:
    """The only writer of facts (CONTRACT §1).

    Args:
        driver: a connected neo4j driver.
        database: the Neo4j database, or None for the default.
    """

    def __init__(self, driver: Driver, database: str | None = None):
        self._writer = Writer(driver, database)

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
                owner, token_id=new_id("tok"), token_hash=token_hash(secret),
                scopes=list(scopes), now=utcnow(),
            )

        return secret, self._writer.transaction(work)

    # --- facts ---------------------------------------------------------------------------

    def assert_fact(self, owner: str, assertion: Assertion) -> CommitResult:
        """Commit one assertion by CONTRACT §2.1 rules 1-4 and 6, in one transaction.

        Raises:
            NotFound: the entity (or object entity) is not the owner's.
            InvalidInterval: valid_to is not after valid_from.
            InvalidInput: neither or both of value and object_id are given.
        """

        return self.assert_facts(owner, [assertion])[0]

    def assert_facts(self, owner: str, assertions: Sequence[Assertion]) -> list[CommitResult]:
        """Commit several assertions in one transaction at one commit time, in order.

        Later assertions see the effect of earlier ones (CONTRACT §2.1 applies to each
        in turn). Either all land or none does.

        Raises:
            NotFound: an entity (or object entity) is not the owner's.
            InvalidInterval: a valid_to is not after its valid_from.
            InvalidInput: neither or both of value and object_id are given.
        """

        def work(w: WriteTx) -> list[CommitResult]:
            t = w.begin_commit(owner, utcnow())
            w.require_entities(owner, [a.entity_id for a in assertions]
                               + [a.object_id for a in assertions if a.object_id])
            batch = Batch(w, owner, t)
            batch.load([(a.entity_id, a.attribute, start_of(a.valid_from, t)) for a in assertions])
            results = [batch.assert_(a) for a in assertions]
            batch.flush()
            return results

        return self._writer.transaction(work)

    def forget(self, owner: str, fact_id: str) -> RetractResult:
        """Forget a fact: it no longer holds from now on (CONTRACT §2.2).

        Forgetting a row that is already `invalidated` and ended changes nothing: the
        result names no retracted row and returns that row.

        Raises:
            NotFound: no such row for this owner.
            Conflict: the row is already retracted (it is not current knowledge).
        """

        def work(w: WriteTx) -> RetractResult:
            t = w.begin_commit(owner, utcnow())
            row = _current(w, owner, fact_id)
            if row.status == "invalidated" and row.valid_to <= t:
                return RetractResult((), row, (), t)  # already forgotten: nothing changes
            batch = Batch(w, owner, t)
            created = batch.execute(plan_end(row, t), row.entity_id, row.attribute)
            batch.flush()
            return RetractResult((row.id,), created[0] if created else None, (), t)

        return self._writer.transaction(work)

    def retract(self, owner: str, fact_id: str) -> RetractResult:
        """Retract a fact: it was never true; what it pushed out comes back (CONTRACT §2.2).

        Raises:
            NotFound: no such row for this owner.
            Conflict: the row is already retracted.
        """

        def work(w: WriteTx) -> RetractResult:
            t = w.begin_commit(owner, utcnow())
            row = _current(w, owner, fact_id)
            lineage = w.lineage(owner, row.id)
            batch = Batch(w, owner, t)
            rows = batch.rows(row.entity_id, row.attribute, min(start for start, _ in lineage))
            predecessors = [Predecessor(p, d) for p, d in w.predecessors(owner, row.id)]
            plan = plan_retract(row, lineage, predecessors, rows)
            created = batch.execute(plan, row.entity_id, row.attribute)
            batch.flush()
            return RetractResult(plan.retract, None, tuple(created), t)

        return self._writer.transaction(work)

    # --- runs ----------------------------------------------------------------------------

    def submit_run(
        self, owner: str, *, run_id: str, chat_id: str, surface: str | None, payload: str,
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

        Raises:
            Conflict: the run id was posted before with different content.
        """
        digest = hashlib.sha256((canonical or payload).encode()).hexdigest()

        def work(w: WriteTx) -> tuple[RunRecord, bool]:
            ensure_owner(w, owner)
            return w.create_run(
                owner, key=run_key(owner, run_id), run_id=run_id, chat_id=chat_id,
                surface=surface, payload=payload, digest=digest, now=utcnow(),
            )

        return self._writer.transaction(work)

    def claim_run(self) -> RunRecord | None:
        """Take the oldest queued run of any owner for curation, or None when none waits."""
        return self._writer.transaction(lambda w: w.claim_run(utcnow()))

    def apply_run(self, run: RunRecord, proposals: Sequence[Proposal]) -> RunOutcome:
        """Commit a claimed run's proposals and mark it done, in one transaction.

        Either every proposal lands and the run is `done`, or nothing does (CONTRACT §4:
        nothing is applied twice).

        Raises:
            Conflict: the run is no longer being curated (someone else finished it).
        """

        def work(w: WriteTx) -> RunOutcome:
            self_id, _ = ensure_owner(w, run.owner)
            t = w.begin_commit(run.owner, utcnow())
            committed = apply_proposals(w, run.owner, self_id, proposals, t)
            outcome = RunOutcome(len(proposals), committed, 0)
            if not w.finish_run(run_key(run.owner, run.id), status="done", proposals=len(proposals),
                                committed=committed, held=0, error=None, now=t):
                raise Conflict(f"run {run.id!r} is not being curated")
            return outcome

        return self._writer.transaction(work)

    def close_run(self, run: RunRecord, status: str, error: str | None = None) -> None:
        """Mark a claimed run `failed` or `skipped` with nothing applied."""
        self._writer.transaction(lambda w: w.finish_run(
            run_key(run.owner, run.id), status=status, proposals=0, committed=0, held=0,
            error=error, now=utcnow()))


def _current(w: WriteTx, owner: str, fact_id: str) -> FactRecord:
    row = w.fact(owner, fact_id)
    if row.retracted_at < FAR_FUTURE:
        raise Conflict(f"fact {fact_id!r} is already retracted; only current rows change")
    return row


