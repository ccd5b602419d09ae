"""Reads of an entity's life over transaction time: merges, names, history (CONTRACT §2.3, §5).

A mixin of `graph.read.reader.Reader`: READ transactions only, every query scoped by owner
(fact reads by the `graph.scope` predicates).

* An entity as known at `known_at`: not yet merged when the merge came later, with the
  names it had then (`as_known`).
* A merged id stands for its survivor, following the chain of merges known at
  `known_at` (`resolve`); before the merge it stands for itself, as it was.
* History (`history`), keyset-paginated on (valid_from, recorded_at, attribute, id).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from graph.cypher import entities as ec
from graph.cypher import facts as fc
from graph.cypher import lifecycle as lc
from graph.errors import NotFound
from graph.read.base import ReadBase
from graph.records import EntityRecord, FactRecord
from graph.scope import Scope, as_scope, params
from graph.time import utcnow

MAX_MERGE_HOPS = 20
"""A chain of merges (a into b into c) is followed this far (MERGED_INTO*1..20 in Cypher)."""


@dataclass(frozen=True, slots=True)
class Resolved:
    """The entity an id stands for (CONTRACT §5).

    Attributes:
        entity: the survivor when the id had been merged by `known_at`, else the entity
            itself, both as known at `known_at`.
        merged_from: the id asked for when it was merged into `entity`, else None.
    """

    entity: EntityRecord
    merged_from: str | None


@dataclass(frozen=True, slots=True)
class HistoryKey:
    """A position in a history: the sort key of a row (CONTRACT §2.3 order)."""

    valid_from: datetime
    recorded_at: datetime
    attribute: str
    id: str

    @classmethod
    def of(cls, row: FactRecord) -> HistoryKey:
        """The position just after `row`."""
        return cls(row.valid_from, row.recorded_at, row.attribute, row.id)


class LifecycleReads(ReadBase):
    """Entity-as-known, merge resolution and history reads."""

    def resolve(
        self, owner: str | Scope, entity_id: str, known_at: datetime | None = None
    ) -> Resolved:
        """Return the entity `entity_id` stands for at `known_at` (default now), CONTRACT §5.

        A merged id answers with its survivor (following a chain of merges) and says so;
        with `known_at` before the merge it answers as itself, as it was then.

        Args:
            owner: the owner id, or a `graph.scope.Scope` (a member reads shared ids).

        Raises:
            NotFound: the id is not visible, or did not exist yet at `known_at`; also when
                its survivor is not visible (a shared entity merged into an unshared one):
                the 404 names the id asked for, never the survivor (CONTRACT §7).
        """
        entity = self.entity(owner, entity_id, known_at)
        for _ in range(MAX_MERGE_HOPS):
            if entity.merged_into is None:
                break
            try:
                entity = self.entity(owner, entity.merged_into, known_at)
            except NotFound:
                raise NotFound("entity", entity_id) from None
        return Resolved(entity, entity_id if entity.id != entity_id else None)

    def entities_as_of(
        self,
        owner: str | Scope,
        known_at: datetime,
        *,
        q: str | None = None,
        kind: str | None = None,
        after: str | None = None,
        limit: int = 100,
    ) -> list[EntityRecord]:
        """List the entities that existed at `known_at`, as they were then, ordered by id.

        Args:
            owner: the owner id, or a resolved `graph.scope.Scope`.
            known_at: the knowledge to show, aware UTC.
            q: a normalized search string (`graph.names.search_key`) matched as a
                substring of the names and aliases each entity had at `known_at`.
            kind: only entities of this kind, or None.
            after: cursor, the last id of the previous page.
            limit: page size.
        """
        rows = self._rows(
            lc.LIST_ENTITIES_AS_OF,
            **params(as_scope(owner)),
            known_at=known_at,
            q=q,
            kind=kind,
            after=after,
            limit=limit,
        )
        out = []
        for r in rows:
            entity = self.as_known(ec.entity_from_record(r["e"]), known_at)
            names = lc.names_from_record(r)
            out.append(
                entity if names is None else replace(entity, name=names[0], aliases=names[1])
            )
        return out

    def history(
        self,
        owner: str | Scope,
        entity_id: str,
        attribute: str | None = None,
        known_at: datetime | None = None,
        include_retracted: bool = False,
        *,
        after: HistoryKey | None = None,
        limit: int = 10_000,
    ) -> list[FactRecord]:
        """Return an entity's history (CONTRACT §2.3), ordered by valid_from, recorded_at,
        attribute, id.

        Args:
            owner: the owner id, or a resolved `graph.scope.Scope`.
            entity_id: the entity; rows of the entities merged into it by `known_at`
                count as its own (only the audit view shows them: a merge retracts them).
            attribute: one attribute, or None for every attribute of the entity.
            known_at: the knowledge to show (default now): the rows believed then.
            include_retracted: every row recorded by `known_at`, retracted or not (the
                audit view).
            after: the position after which the page starts (`HistoryKey.of` the last
                row of the previous page), or None for the first page.
            limit: page size.
        """
        position = (
            None
            if after is None
            else {
                "valid_from": after.valid_from,
                "recorded_at": after.recorded_at,
                "attribute": after.attribute,
                "id": after.id,
            }
        )
        return self._facts(
            fc.HISTORY,
            **params(as_scope(owner)),
            entity_id=entity_id,
            attribute=attribute,
            known_at=known_at or utcnow(),
            include_retracted=include_retracted,
            after=position,
            limit=limit,
        )
