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
from typing import Any

from neo4j import Driver

from committer import registry
from committer.proposals import Assertion, EntityRef, Proposal, Provenance
from committer.rules.normalize import value_norm
from committer.rules.plan import NewValue, Plan, RowSpec, plan_assert, plan_end, plan_retract
from graph.errors import Conflict, InvalidInput
from graph.names import search_key
from graph.records import EntityRecord, FactRecord, RunRecord, TokenRecord, run_key
from graph.time import FAR_FUTURE, open_end, to_utc, utcnow
from graph.writer import WriteTx, Writer, new_id

FAR_PAST = datetime(1, 1, 1, tzinfo=FAR_FUTURE.tzinfo)
"""valid_from of a fact stated only by its end ("I lost my job as a banker"): start unknown."""


@dataclass(frozen=True, slots=True)
class CommitResult:
    """The outcome of one assertion (CONTRACT §10 `POST /v1/entities/{id}/facts`).

    Attributes:
        fact: the row standing for the assertion (the existing row for a duplicate).
        effect: "created" | "duplicate" | "superseded".
        superseded: ids of rows of other values that were retracted.
        retracted: every row id retracted by this commit.
        recorded_at: the commit's transaction time, aware UTC.
    """

    fact: FactRecord
    effect: str
    superseded: tuple[str, ...]
    retracted: tuple[str, ...]
    recorded_at: datetime


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
        return self._writer.transaction(lambda w: _ensure_owner(w, owner)[0])

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
            _ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            return _new_entity(w, owner, name, kind, aliases, area, t)

        return self._writer.transaction(work)

    def create_token(self, owner: str, scopes: Sequence[str]) -> tuple[str, TokenRecord]:
        """Create a bearer token for `owner` (created if new); return (secret, record).

        Only the sha256 of the secret is stored (CONTRACT §7).
        """
        secret = "ws_" + secrets.token_urlsafe(32)

        def work(w: WriteTx) -> TokenRecord:
            _ensure_owner(w, owner)
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
            batch = _Batch(w, owner, t)
            batch.load([(a.entity_id, a.attribute, _start(a.valid_from, t)) for a in assertions])
            results = [batch.assert_(a) for a in assertions]
            batch.flush()
            return results

        return self._writer.transaction(work)

    def forget(self, owner: str, fact_id: str) -> RetractResult:
        """Forget a fact: it no longer holds from now on (CONTRACT §2.2).

        Raises:
            NotFound: no such row for this owner.
            Conflict: the row is already retracted (it is not current knowledge).
        """

        def work(w: WriteTx) -> RetractResult:
            t = w.begin_commit(owner, utcnow())
            row = _current(w, owner, fact_id)
            batch = _Batch(w, owner, t)
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
            batch = _Batch(w, owner, t)
            rows = batch.rows(row.entity_id, row.attribute, row.valid_from)
            plan = plan_retract(row, w.pushed_out(owner, row.id), rows)
            created = batch.execute(plan, row.entity_id, row.attribute)
            batch.flush()
            return RetractResult(plan.retract, None, tuple(created), t)

        return self._writer.transaction(work)

    # --- runs ----------------------------------------------------------------------------

    def submit_run(
        self, owner: str, *, run_id: str, chat_id: str, surface: str | None, payload: str
    ) -> tuple[RunRecord, bool]:
        """Queue a finished run for the curator; idempotent on run id (CONTRACT §4).

        Args:
            owner: the owner id.
            run_id: the client's run id (unique per owner).
            chat_id: the chat it came from.
            surface: where it ran, or None.
            payload: the run as JSON text (messages, observations).

        Returns:
            (the stored run, True if this call queued it).

        Raises:
            Conflict: the run id was posted before with different content.
        """
        digest = hashlib.sha256(payload.encode()).hexdigest()

        def work(w: WriteTx) -> tuple[RunRecord, bool]:
            _ensure_owner(w, owner)
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
            self_id, _ = _ensure_owner(w, run.owner)
            t = w.begin_commit(run.owner, utcnow())
            committed = _apply_proposals(w, run.owner, self_id, proposals, t)
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


def token_hash(secret: str) -> str:
    """Return the stored form of a bearer token: its sha256, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


def _ensure_owner(w: WriteTx, owner: str) -> tuple[str, bool]:
    self_id, created = w.ensure_owner(owner, utcnow())
    if created:
        w.create_entity(
            owner, entity_id=self_id, name=owner, kind="person", aliases=(),
            search_names=(search_key(owner),), area=None, t=utcnow(),
        )
    return self_id, created


def _new_entity(
    w: WriteTx, owner: str, name: str, kind: str, aliases: Sequence[str], area: str | None,
    t: datetime,
) -> EntityRecord:
    if not name.strip():
        raise InvalidInput("name", "must not be empty")
    keys = list(dict.fromkeys(search_key(n) for n in (name, *aliases) if n.strip()))
    return w.create_entity(
        owner, entity_id=new_id("ent"), name=name.strip(), kind=kind, aliases=list(aliases),
        search_names=keys, area=area, t=t,
    )


def _current(w: WriteTx, owner: str, fact_id: str) -> FactRecord:
    row = w.fact(owner, fact_id)
    if row.retracted_at < FAR_FUTURE:
        raise Conflict(f"fact {fact_id!r} is already retracted; only current rows change")
    return row


def _start(valid_from: datetime | None, t: datetime) -> datetime:
    """The instant a write starts touching valid time: its valid_from, or the commit time."""
    return t if valid_from is None else to_utc(valid_from, "valid_from")


def _provenance(prov: Provenance) -> dict[str, Any]:
    return {
        "source": prov.source,
        "evidence": prov.evidence,
        "reason": prov.reason,
        "confidence": prov.confidence,
        "run_id": prov.run_id,
        "message_id": prov.message_id,
    }


def _new_value(a: Assertion) -> NewValue:
    if (a.value is None) == (a.object_id is None):
        raise InvalidInput("value", "give exactly one of value and object_id")
    if isinstance(a.value, str) and not a.value.strip():
        raise InvalidInput("value", "must not be empty")
    return NewValue(
        value=a.value,
        object_id=a.object_id,
        value_norm=value_norm(a.value, a.object_id),
        cardinality=registry.cardinality(a.attribute, a.cardinality),
        provenance=_provenance(a.provenance),
    )


class _Batch:
    """Several writes in one transaction at one commit time `t`.

    Plans run against an in-memory copy of the current rows of each (entity, attribute),
    updated after every plan, so later writes in the batch see earlier ones. `flush`
    then records every new row and retracts every ended row in a few round trips. Only
    rows that end at or after the earliest instant a write touches are loaded (a
    supersede at the present reads one row, however deep the history).
    """

    def __init__(self, w: WriteTx, owner: str, t: datetime):
        self.w, self.owner, self.t = w, owner, t
        self._state: dict[tuple[str, str], list[FactRecord]] = {}
        self._since: dict[tuple[str, str], datetime] = {}
        self._creates: list[dict[str, Any]] = []
        self._retracts: list[str] = []

    def load(self, needs: Sequence[tuple[str, str, datetime]]) -> None:
        """Make sure each (entity, attribute) has its current rows ending at or after `since`."""
        wanted: dict[tuple[str, str], datetime] = {}
        for entity_id, attribute, since in needs:
            pair = (entity_id, attribute)
            if pair not in self._since or since < self._since[pair]:
                wanted[pair] = min(since, wanted.get(pair, since))
        if not wanted:
            return
        gone = set(self._retracts)
        for pair, fetched in self.w.current_rows_many(self.owner, wanted).items():
            known = {r.id for r in self._state.get(pair, [])}
            extra = [r for r in fetched if r.id not in known and r.id not in gone]
            rows = sorted([*self._state.get(pair, []), *extra], key=lambda r: (r.valid_from, r.id))
            self._state[pair] = rows
            self._since[pair] = wanted[pair]

    def rows(self, entity_id: str, attribute: str, since: datetime) -> list[FactRecord]:
        """The current rows of a pair ending at or after `since`, as this batch leaves them."""
        self.load([(entity_id, attribute, since)])
        return [r for r in self._state[(entity_id, attribute)] if r.valid_to >= since]

    def execute(self, plan: Plan, entity_id: str, attribute: str) -> list[FactRecord]:
        """Queue a plan's writes; return its new rows in plan order."""
        specs = [_row(spec, entity_id, attribute) for spec in plan.record]
        records = [_record(self.owner, spec, self.t) for spec in specs]
        gone = set(plan.retract)
        pair = (entity_id, attribute)
        self._state[pair] = [r for r in self._state.get(pair, []) if r.id not in gone] + records
        self._creates.extend(specs)
        self._retracts.extend(plan.retract)
        return records

    def assert_(self, a: Assertion) -> CommitResult:
        """Plan and queue one assertion (CONTRACT §2.1 rules 1-4)."""
        new = _new_value(a)
        valid_from = self.t if a.valid_from is None else to_utc(a.valid_from, "valid_from")
        rows = self.rows(a.entity_id, a.attribute, valid_from)
        plan = plan_assert(new, valid_from, open_end(a.valid_to), rows)
        if plan.effect == "duplicate":
            existing = next(r for r in rows if r.id == plan.corroborates)
            return CommitResult(existing, "duplicate", (), (), self.t)
        created = self.execute(plan, a.entity_id, a.attribute)
        assert plan.primary is not None
        return CommitResult(created[plan.primary], plan.effect, plan.superseded, plan.retract,
                            self.t)

    def flush(self) -> None:
        """Write everything queued: new rows first, then `retracted_at` on the ended ones."""
        self.w.create(self.owner, self._creates, self.t)
        self.w.retract(self.owner, self._retracts, self.t)
        self._creates, self._retracts = [], []


def _row(spec: RowSpec, entity_id: str, attribute: str) -> dict[str, Any]:
    v = spec.value
    return {
        "id": new_id("fct"),
        "entity_id": entity_id,
        "attribute": attribute,
        "value": v.value,
        "object_id": v.object_id,
        "value_norm": v.value_norm,
        "cardinality": v.cardinality,
        "valid_from": spec.valid_from,
        "valid_to": spec.valid_to,
        "status": spec.status,
        **v.provenance,
        "replaces": list(spec.replaces),
        "supersedes": list(spec.supersedes),
    }


def _record(owner: str, row: dict[str, Any], t: datetime) -> FactRecord:
    return FactRecord(
        id=row["id"], owner=owner, entity_id=row["entity_id"], attribute=row["attribute"],
        value=row["value"], object_id=row["object_id"], value_norm=row["value_norm"],
        cardinality=row["cardinality"], valid_from=row["valid_from"], valid_to=row["valid_to"],
        recorded_at=t, retracted_at=FAR_FUTURE, status=row["status"], source=row["source"],
        evidence=row["evidence"], reason=row["reason"], confidence=float(row["confidence"]),
        run_id=row["run_id"], message_id=row["message_id"],
    )


def _resolve(w: WriteTx, owner: str, self_id: str, ref: EntityRef, t: datetime) -> str:
    """Return the entity id a proposal's EntityRef names, creating a named entity if new."""
    if ref.id is not None:
        return w.entity(owner, ref.id).id
    if ref.name is None or not ref.name.strip():
        return self_id
    key = search_key(ref.name)
    if ref.kind == "person" and key == search_key(owner):
        return self_id
    found = w.find_entity(owner, ref.kind, key)
    if found is not None:
        return found.id
    return _new_entity(w, owner, ref.name, ref.kind, (), None, t).id


def _apply_proposals(
    w: WriteTx, owner: str, self_id: str, proposals: Sequence[Proposal], t: datetime
) -> int:
    """Commit auto-committed proposals in one batch; return how many changed memory."""
    resolved = []
    for p in proposals:
        subject = _resolve(w, owner, self_id, p.subject, t)
        obj = _resolve(w, owner, self_id, p.object, t) if p.object is not None else None
        resolved.append((p, subject, obj))
    batch = _Batch(w, owner, t)
    batch.load([(subject, p.attribute, _start(p.valid_from, t)) for p, subject, _ in resolved])
    changed = 0
    for p, subject, obj in resolved:
        if p.op == "end":
            changed += _end(batch, subject, p)
            continue
        assertion = Assertion(
            entity_id=subject, attribute=p.attribute, value=p.value, object_id=obj,
            valid_from=p.valid_from, valid_to=p.valid_to, cardinality=p.cardinality,
            provenance=p.provenance,
        )
        changed += batch.assert_(assertion).effect != "duplicate"
    batch.flush()
    return changed


def _end(batch: _Batch, entity_id: str, p: Proposal) -> int:
    """End the current rows of `p.attribute` (of `p.value`, if given) at `p.valid_from`."""
    until = to_utc(p.valid_from, "valid_from")
    norm = None if p.value is None else value_norm(p.value, None)
    rows = [
        r for r in batch.rows(entity_id, p.attribute, until)
        if (norm is None or r.value_norm == norm) and r.valid_from < until < r.valid_to
        and r.status != "invalidated"
    ]
    for row in rows:
        batch.execute(plan_end(row, until), entity_id, p.attribute)
    if rows or p.value is None:
        return len(rows)
    # Known only by its end: it held until `until`, since some unknown time.
    assertion = Assertion(
        entity_id=entity_id, attribute=p.attribute, value=p.value, valid_from=FAR_PAST,
        valid_to=until, cardinality=p.cardinality, provenance=p.provenance,
    )
    return int(batch.assert_(assertion).effect != "duplicate")
