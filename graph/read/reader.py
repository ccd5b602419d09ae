"""The read side: every query runs in a Neo4j READ transaction, so it cannot write.

Every method that reads facts or entities takes `owner: str | Scope` and its query ANDs
`FACT_VISIBLE` / `ENTITY_VISIBLE` with `**params(scope)` (graph/scope.py): this module is
the one place where reads are scoped (CONTRACT §7: another owner's ids look absent; a
chat's memory access and group shares are honoured by every caller). A bare owner id
means the owner's own memory, full access, no shares. A write attempted through
`Reader` fails in Neo4j itself (tests/graph/test_reader.py proves it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from graph.cypher import entities as ec
from graph.cypher import facts as fc
from graph.cypher import memory_access as ac
from graph.cypher import runs as rc
from graph.errors import NotFound
from graph.read.audit import AuditReads
from graph.read.episodes import EpisodeReads
from graph.read.export import ExportReads
from graph.read.groups import GroupReads
from graph.read.knowledge import KnowledgeReads
from graph.read.lifecycle import LifecycleReads
from graph.read.notes import NotesReads
from graph.read.prefetch import PrefetchReads
from graph.read.proposals import ProposalReads
from graph.read.pull import PullReads
from graph.read.recall import RecallReads
from graph.read.search import SearchReads
from graph.read.state import StateReads
from graph.read.turn import TurnReads
from graph.records import (
    EntityRecord,
    FactRecord,
    MemoryAccess,
    RunRecord,
    TokenRecord,
    run_key,
)
from graph.scope import SHARED_ENTITY_IDS, Scope, params
from graph.time import FAR_FUTURE, AsOf, from_store, utcnow

T = TypeVar("T")


class Reader(
    RecallReads,
    TurnReads,
    ProposalReads,
    GroupReads,
    LifecycleReads,
    PullReads,
    AuditReads,
    SearchReads,
    PrefetchReads,
    KnowledgeReads,
    StateReads,
    NotesReads,
    EpisodeReads,
    ExportReads,
):
    """Read-only access to one owner's memory (and what is shared with it): the facade of
    the read side, built from its parts on one base (graph.read.base.ReadBase, whose
    arguments it takes)."""

    # --- owners and tokens -------------------------------------------------------------

    def self_entity_id(self, owner: str) -> str | None:
        """Return the id of the owner's own person entity, or None if the owner is unknown."""
        rows = self._rows(ec.OWNER, owner=owner)
        return rows[0]["self_entity_id"] if rows else None

    def token(self, token_hash: str) -> TokenRecord | None:
        """Return the live token with this sha256 hex hash, or None."""
        rows = self._rows(rc.TOKEN_BY_HASH, hash=token_hash)
        return rc.token_from_record(rows[0]["k"]) if rows else None

    # --- entities ----------------------------------------------------------------------

    def entities_by_ids(self, owner: str | Scope, entity_ids: list[str]) -> dict[str, EntityRecord]:
        """Return the entities among `entity_ids` the scope may see, keyed by id (the
        others left out)."""
        rows = self._rows(ec.ENTITIES_BY_IDS, **params(owner), entity_ids=entity_ids)
        return {r["e"]["id"]: ec.entity_from_record(r["e"]) for r in rows}

    def entities(
        self,
        owner: str | Scope,
        *,
        q: str | None = None,
        kind: str | None = None,
        after: str | None = None,
        limit: int = 100,
    ) -> list[EntityRecord]:
        """List the entities the scope may see (its own and those shared with it), by id.

        Args:
            owner: the owner id, or a `Scope`.
            q: a normalized search string (see `graph.names.search_key`) matched as a
                substring of names and aliases, or None for all.
            kind: only entities of this kind, or None.
            after: cursor, the last id of the previous page.
            limit: page size.
        """
        rows = self._rows(
            ec.LIST_ENTITIES, **params(owner), q=q, kind=kind, after=after, limit=limit
        )
        return [ec.entity_from_record(r["e"]) for r in rows]

    def entity_names(
        self, owner: str | Scope, known_at: datetime | None = None
    ) -> list[tuple[str, tuple[str, ...], bool]]:
        """Return (id, normalized names and aliases, archived) for each live entity the
        scope may see that existed at `known_at` (default now)."""
        rows = self._rows(ec.ALL_ENTITY_NAMES, **params(owner), known_at=known_at or utcnow())
        return [(r["id"], tuple(r["names"] or ()), bool(r["archived"])) for r in rows]

    # --- facts -------------------------------------------------------------------------

    def facts(self, owner: str | Scope, entity_id: str, as_of: AsOf) -> list[FactRecord]:
        """Return the rows of one entity visible at `as_of` (CONTRACT §2) that the scope
        may see (CONTRACT §7), by attribute."""
        return self.facts_of_entities(owner, [entity_id], as_of)

    def facts_of_entities(
        self, owner: str | Scope, entity_ids: list[str], as_of: AsOf
    ) -> list[FactRecord]:
        """Return the rows of several entities visible at `as_of` that the scope may see,
        by entity then attribute.

        With `as_of.current` (known_at is now) the rows visible are exactly the open
        ones, and the query seeks on them directly (graph/cypher/facts.py FACTS_CURRENT).
        """
        return self._facts(
            fc.FACTS_CURRENT if as_of.current else fc.FACTS_AS_OF,
            **params(owner),
            entity_ids=entity_ids,
            valid_at=as_of.valid_at,
            known_at=as_of.known_at,
            far=FAR_FUTURE,
        )

    def owner_attributes(
        self, owner: str | Scope, attributes: list[str], as_of: AsOf, limit: int = 50
    ) -> list[FactRecord]:
        """Return rows of `attributes` visible at `as_of` on any entity the scope may see
        (the owner's own, and those shared with it), that the scope may see."""
        return self._facts(
            fc.OWNER_ATTRIBUTE_AS_OF,
            **params(owner),
            attributes=attributes,
            valid_at=as_of.valid_at,
            known_at=as_of.known_at,
            limit=limit,
        )

    def recent(
        self, owner: str | Scope, attribute: str, as_of: AsOf, limit: int = 5
    ) -> list[FactRecord]:
        """Return the latest rows of an event-like `attribute` that started by
        `as_of.valid_at`, on any entity the scope may see, that the scope may see."""
        return self._facts(
            fc.OWNER_EVENTS_BEFORE,
            **params(owner),
            attribute=attribute,
            valid_at=as_of.valid_at,
            known_at=as_of.known_at,
            limit=limit,
        )

    def fact(self, owner: str | Scope, fact_id: str) -> FactRecord:
        """Return one row by id, on any axis (retracted rows included), if the scope may
        see it.

        Raises:
            NotFound: no such row for this scope (another owner's row, or one the chat's
                memory access keeps out, looks the same, CONTRACT §7).
        """
        rows = self._rows(fc.FACT_BY_ID, **params(owner), fact_id=fact_id)
        if not rows:
            raise NotFound("fact", fact_id)
        return fc.fact_from_record(rows[0]["row"])

    def corroborations(self, owner: str | Scope, fact_id: str) -> list[dict[str, Any]]:
        """Return the later assertions that said what row `fact_id` says (CONTRACT §2.1
        rule 1), oldest first, of a row the scope may see and from sources it may see:
        id, source, evidence, reason, confidence, run_id, message_id, valid_from,
        valid_to (None when open), recorded_at."""
        out = []
        for r in self._rows(fc.CORROBORATIONS, **params(owner), fact_id=fact_id):
            k = dict(r["k"])
            for key in ("valid_from", "valid_to", "recorded_at"):
                k[key] = from_store(k[key])
            k["valid_to"] = None if k["valid_to"] >= FAR_FUTURE else k["valid_to"]
            k.pop("owner", None)
            out.append(k)
        return out

    # --- runs --------------------------------------------------------------------------

    def run(self, owner: str, run_id: str) -> RunRecord:
        """Return a run of this owner.

        Raises:
            NotFound: no such run for this owner.
        """
        rows = self._rows(rc.RUN_BY_ID, owner=owner, key=run_key(owner, run_id))
        if not rows:
            raise NotFound("run", run_id)
        return rc.run_from_record(rows[0]["r"])

    # --- memory access -----------------------------------------------------------------

    def memory_access(self, owner: str, chat_id: str | None = None) -> MemoryAccess:
        """Return the effective memory access of a chat (CONTRACT §7).

        Args:
            owner: the owner id.
            chat_id: the chat, or None for the owner's default (the profile).

        Returns:
            The chat's own setting, else the owner's profile default, else `full`
            (`MemoryAccess.origin` says which). An unknown owner or chat reads as `full`.
        """
        return ac.effective_access(self._rows, owner, chat_id)

    def scope(
        self, owner: str, chat_id: str | None = None, known_at: datetime | None = None
    ) -> Scope:
        """Resolve what a read may see (CONTRACT §7; graph/scope.py): the chat's effective
        memory access (full when `chat_id` is None) and the entities shared with `owner`
        through groups as known at `known_at` (default now). Two small reads."""
        access = self.memory_access(owner, chat_id) if chat_id is not None else Scope(owner).access
        rows = self._rows(SHARED_ENTITY_IDS, owner=owner, known_at=known_at or utcnow())
        shared = tuple(sorted(rows[0]["ids"])) if rows else ()
        return Scope(owner, access, shared)

    def ping(self) -> None:
        """Round-trip `RETURN 1` in a read transaction (the benchmark floor; a health check).

        Raises:
            StoreUnavailable: Neo4j did not answer.
        """
        self._rows("RETURN 1 AS one")


__all__ = ["FAR_FUTURE", "Reader", "run_key"]
