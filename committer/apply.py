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
from committer.proposals import Assertion, Proposal, Provenance
from committer.rules.normalize import value_norm
from committer.rules.plan import NewValue, Plan, RowSpec, plan_assert, plan_end, plan_retract
from graph.errors import Conflict, InvalidInput
from graph.names import search_key
from graph.records import EntityRecord, FactRecord, TokenRecord
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

        def work(w: WriteTx) -> CommitResult:
            t = w.begin_commit(owner, utcnow())
            return _assert(w, owner, assertion, t)

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
            created = _execute(w, owner, plan_end(row, t), row.entity_id, row.attribute, t)
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
            rows = w.current_rows(owner, row.entity_id, row.attribute)
            plan = plan_retract(row, w.pushed_out(owner, row.id), rows)
            created = _execute(w, owner, plan, row.entity_id, row.attribute, t)
            return RetractResult(plan.retract, None, tuple(created), t)

        return self._writer.transaction(work)

    # --- runs ----------------------------------------------------------------------------

    def apply_proposals(self, owner: str, proposals: Sequence[Proposal]) -> RunOutcome:
        """Commit a run's proposals in one transaction (CONTRACT §4; auto-commit, issue 2).

        Entities named by the proposals are resolved by kind and normalized name, or
        created. `op="end"` ends the matching current row at `valid_from`; when none
        exists the value is recorded as having held until then (start unknown).
        """

        def work(w: WriteTx) -> RunOutcome:
            self_id, _ = _ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            committed = 0
            for proposal in proposals:
                committed += _apply_proposal(w, owner, self_id, proposal, t)
            return RunOutcome(len(proposals), committed, 0)

        return self._writer.transaction(work)


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


def _new_value(owner: str, a: Assertion, w: WriteTx) -> NewValue:
    if (a.value is None) == (a.object_id is None):
        raise InvalidInput("value", "give exactly one of value and object_id")
    if a.object_id is not None:
        w.entity(owner, a.object_id)
    if isinstance(a.value, str) and not a.value.strip():
        raise InvalidInput("value", "must not be empty")
    prov = a.provenance
    return NewValue(
        value=a.value,
        object_id=a.object_id,
        value_norm=value_norm(a.value, a.object_id),
        cardinality=registry.cardinality(a.attribute, a.cardinality),
        provenance=_provenance(prov),
    )


def _provenance(prov: Provenance) -> dict[str, Any]:
    return {
        "source": prov.source,
        "evidence": prov.evidence,
        "reason": prov.reason,
        "confidence": prov.confidence,
        "run_id": prov.run_id,
        "message_id": prov.message_id,
    }


def _assert(w: WriteTx, owner: str, a: Assertion, t: datetime) -> CommitResult:
    w.entity(owner, a.entity_id)
    new = _new_value(owner, a, w)
    valid_from = t if a.valid_from is None else to_utc(a.valid_from, "valid_from")
    valid_to = open_end(a.valid_to)
    rows = w.current_rows(owner, a.entity_id, a.attribute)
    plan = plan_assert(new, valid_from, valid_to, rows)
    if plan.effect == "duplicate":
        existing = next(r for r in rows if r.id == plan.corroborates)
        return CommitResult(existing, "duplicate", (), (), t)
    created = _execute(w, owner, plan, a.entity_id, a.attribute, t)
    assert plan.primary is not None
    return CommitResult(created[plan.primary], plan.effect, plan.superseded, plan.retract, t)


def _execute(
    w: WriteTx, owner: str, plan: Plan, entity_id: str, attribute: str, t: datetime
) -> list[FactRecord]:
    """Write a plan: retract, then record its rows at `t`; return the new rows in plan order."""
    w.retract(owner, plan.retract, t)
    specs = [_row(spec, entity_id, attribute) for spec in plan.record]
    w.create(owner, specs, t)
    return [_record(owner, spec, t) for spec in specs]


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


def _resolve(w: WriteTx, owner: str, self_id: str, ref: Any, t: datetime) -> str:
    """Return the entity id a proposal's EntityRef names, creating a named entity if new."""
    if ref.id is not None:
        return str(w.entity(owner, ref.id).id)
    if ref.name is None or not ref.name.strip():
        return self_id
    key = search_key(ref.name)
    if ref.kind == "person" and key == search_key(owner):
        return self_id
    found = w.find_entity(owner, ref.kind, key)
    if found is not None:
        return found.id
    return _new_entity(w, owner, ref.name, ref.kind, (), None, t).id


def _apply_proposal(w: WriteTx, owner: str, self_id: str, p: Proposal, t: datetime) -> int:
    """Commit one auto-committed proposal inside the run's transaction; 1 if anything changed."""
    subject = _resolve(w, owner, self_id, p.subject, t)
    object_id = _resolve(w, owner, self_id, p.object, t) if p.object is not None else None
    if p.op == "end":
        return _end(w, owner, subject, p, t)
    assertion = Assertion(
        entity_id=subject, attribute=p.attribute, value=p.value, object_id=object_id,
        valid_from=p.valid_from, valid_to=p.valid_to, cardinality=p.cardinality,
        provenance=p.provenance,
    )
    return 0 if _assert(w, owner, assertion, t).effect == "duplicate" else 1


def _end(w: WriteTx, owner: str, entity_id: str, p: Proposal, t: datetime) -> int:
    """End the current rows of `p.attribute` (of `p.value`, if given) at `p.valid_from`."""
    until = to_utc(p.valid_from, "valid_from")
    norm = None if p.value is None else value_norm(p.value, None)
    rows = [
        r for r in w.current_rows(owner, entity_id, p.attribute)
        if (norm is None or r.value_norm == norm) and r.valid_from < until < r.valid_to
        and r.status != "invalidated"
    ]
    for row in rows:
        _execute(w, owner, plan_end(row, until), entity_id, p.attribute, t)
    if rows or p.value is None:
        return len(rows)
    # Known only by its end: it held until `until`, since some unknown time.
    assertion = Assertion(
        entity_id=entity_id, attribute=p.attribute, value=p.value, valid_from=FAR_PAST,
        valid_to=until, cardinality=p.cardinality, provenance=p.provenance,
    )
    return 0 if _assert(w, owner, assertion, t).effect == "duplicate" else 1
