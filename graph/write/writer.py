"""The write side, for `committer` only (STYLE: import-linter forbids everyone else).

`Writer.transaction(work)` runs `work(WriteTx)` in one Neo4j write transaction (retried
by the driver on transient errors such as deadlocks, so `work` must be re-runnable).
`WriteTx` exposes the few write primitives the committer composes; it never deletes
and never rewrites a fact row except its `retracted_at` (owner erasure, CONTRACT §9, is
the one hard delete: graph/write/erasure.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from neo4j import Driver

from graph.cypher import entities as ec
from graph.cypher import fact_rows as fr
from graph.cypher import facts as fc
from graph.cypher import memory_access as ac
from graph.cypher import runs as rc
from graph.embedding import Embedder
from graph.errors import Conflict, NotFound
from graph.records import (
    EntityRecord,
    FactRecord,
    MemoryAccess,
    TokenRecord,
    chat_key,
)
from graph.scope import params as own
from graph.time import FAR_FUTURE, epoch_parts, from_store
from graph.transactions import DEFAULT_RETRY, RetryPolicy, run_transaction
from graph.write.audit import AuditWrites
from graph.write.episodes import EpisodeWrites
from graph.write.erasure import ErasureWrites
from graph.write.groups import GroupWrites
from graph.write.held import HeldWrites
from graph.write.notes import NoteWrites
from graph.write.proposals import ProposalWrites
from graph.write.restore import RestoreWrites
from graph.write.runs import RunWrites
from graph.write.search import SearchWrites

T = TypeVar("T")
TICK = timedelta(microseconds=1)


class WriteTx(
    ProposalWrites,
    GroupWrites,
    ErasureWrites,
    AuditWrites,
    SearchWrites,
    RunWrites,
    HeldWrites,
    NoteWrites,
    RestoreWrites,
    EpisodeWrites,
):
    """Write primitives inside one transaction (graph.write.base.WriteBase, whose arguments
    it takes), built from its parts. Every query is scoped by `owner`."""

    def begin_commit(self, owner: str, now: datetime) -> datetime:
        """Lock the owner and return this commit's time: max(now, last commit + 1 µs).

        The owner node's write lock is held to the end of the transaction, so commits of
        one owner are serialized (CONTRACT §2.1 rule 6) and their times strictly increase
        (CONTRACT §2).

        Raises:
            NotFound: the owner does not exist (call `ensure_owner` first).
        """
        if not self._run(ec.LOCK_OWNER, owner=owner, tx_id=uuid.uuid4().hex):
            raise NotFound("owner", owner)
        last = from_store(self._run(ec.NEXT_TX_TIME, owner=owner)[0]["last_tx"])
        t = max(now, last + TICK)
        self._run(ec.SET_TX_TIME, owner=owner, t=t)
        return t

    def ensure_owner(self, owner: str, now: datetime) -> tuple[str, bool]:
        """Create the owner node if missing; return (self entity id, created now)."""
        row = self._run(ec.ENSURE_OWNER, owner=owner, t=now, self_id=new_id("ent"))[0]
        return row["self_entity_id"], bool(row["created"])

    def create_entity(
        self,
        owner: str,
        *,
        entity_id: str,
        name: str,
        kind: str,
        aliases: Sequence[str],
        search_names: Sequence[str],
        area: str | None,
        t: datetime,
    ) -> EntityRecord:
        """Create an entity node owned by `owner` at time `t`."""
        rows = self._run(
            ec.CREATE_ENTITY,
            owner=owner,
            id=entity_id,
            name=name,
            kind=kind,
            aliases=list(aliases),
            search_names=list(search_names),
            area=area,
            t=t,
        )
        if not rows:
            raise NotFound("owner", owner)
        return ec.entity_from_record(rows[0]["e"])

    def entity(self, owner: str, entity_id: str) -> EntityRecord:
        """Return an entity of `owner` inside this transaction: its own only, never one
        shared with it through a group (members read shares, they never write them,
        CONTRACT §7).

        Raises:
            NotFound: no such entity for this owner.
        """
        rows = self._run(ec.ENTITY_BY_ID, **own(owner), entity_id=entity_id, known_at=FAR_FUTURE)
        if not rows:
            raise NotFound("entity", entity_id)
        return ec.entity_from_record(rows[0]["e"])

    def find_entity(self, owner: str, kind: str, name_key: str) -> EntityRecord | None:
        """Return the oldest live entity of `kind` whose name or alias key is `name_key`."""
        rows = self._run(ec.FIND_BY_NAME, owner=owner, kind=kind, name=name_key)
        return ec.entity_from_record(rows[0]["e"]) if rows else None

    def fact(self, owner: str, fact_id: str) -> FactRecord:
        """Return a row of `owner` by id (its own only, as `entity`). Raises NotFound."""
        rows = self._run(fc.FACT_BY_ID, **own(owner), fact_id=fact_id)
        if not rows:
            raise NotFound("fact", fact_id)
        return fc.fact_from_record(rows[0]["row"])

    def current_rows_many(
        self, owner: str, pairs: dict[tuple[str, str], datetime]
    ) -> dict[tuple[str, str], list[FactRecord]]:
        """Return current rows of several (entity, attribute) pairs in one round trip.

        Args:
            owner: the owner id.
            pairs: for each (entity_id, attribute), the `since` instant: only rows with
                `valid_to >= since` are returned (the others cannot touch a write that
                starts at `since`).
        """
        out: dict[tuple[str, str], list[FactRecord]] = {pair: [] for pair in pairs}
        params = []
        for (e, a), since in pairs.items():
            seconds, nanos = epoch_parts(since)
            params.append({"entity_id": e, "attribute": a, "since_s": seconds, "since_ns": nanos})
        for r in self._run(fr.CURRENT_ROWS_MANY, owner=owner, pairs=params, far=FAR_FUTURE):
            row = fc.fact_from_record(r["row"])
            out[(row.entity_id, row.attribute)].append(row)
        return out

    def require_entities(self, owner: str, entity_ids: Sequence[str]) -> set[str]:
        """Check every id names an entity of `owner`; return those merged into another.

        Raises:
            NotFound: the first id (in the given order) that does not.
        """
        wanted = list(dict.fromkeys(entity_ids))
        rows = self._run(ec.ENTITY_IDS_OF_OWNER, owner=owner, entity_ids=wanted)
        found = {r["id"] for r in rows}
        for entity_id in wanted:
            if entity_id not in found:
                raise NotFound("entity", entity_id)
        return {r["id"] for r in rows if r["merged_into"] is not None}

    def lineage(self, owner: str, fact_id: str) -> list[tuple[datetime, datetime]]:
        """Return the windows of a row and of every row it continues (REPLACES, any depth)."""
        rows = self._run(fr.LINEAGE, owner=owner, fact_id=fact_id)
        return [(from_store(r["valid_from"]), from_store(r["valid_to"])) for r in rows]

    def predecessors(
        self, owner: str, fact_ids: Sequence[str], undoing: str
    ) -> list[tuple[str, FactRecord, int, bool]]:
        """Return what held before each of the rows `fact_ids` (fact_rows.PREDECESSORS).

        Args:
            owner: the owner id.
            fact_ids: rows whose lineages to look at.
            undoing: the row a retract is retracting now (its claim counts as disowned).

        Returns:
            (the id in `fact_ids`, a row that id's lineage pushed out or folded in, its
            REPLACES depth, whether it is part of a claim a retract declared never true).
        """
        rows = self._run(fr.PREDECESSORS, owner=owner, fact_ids=list(fact_ids), undoing=undoing)
        return [
            (r["origin"], fc.fact_from_record(r["row"]), int(r["depth"]), bool(r["disowned"]))
            for r in rows
        ]

    def retract(self, owner: str, ids: Sequence[str], t: datetime) -> None:
        """Set `retracted_at = t` on current rows `ids`.

        Raises:
            Conflict: one of them is not a current row of this owner (nothing is kept:
                the transaction is rolled back by the caller's exception).
        """
        if not ids:
            return
        count = self._run(fr.RETRACT_ROWS, owner=owner, ids=list(ids), far=FAR_FUTURE, t=t)
        if count[0]["retracted"] != len(set(ids)):
            raise Conflict("a row to retract is no longer current; nothing was written")

    def create(self, owner: str, rows: Sequence[dict[str, Any]], t: datetime) -> None:
        """Record new rows at transaction time `t`, with their edges.

        Each row is a map of the fields in `graph.cypher.facts.CREATE_ROWS` plus
        `replaces`, `supersedes` and `coalesces` (lists of row ids) for LINK_ROWS.
        """
        if not rows:
            return
        fields = [_wire(r) for r in rows]
        self._run(fr.CREATE_ROWS, owner=owner, rows=fields, t=t, far=FAR_FUTURE)
        replaces = [{"from": r["id"], "to": old} for r in rows for old in r["replaces"]]
        supersedes = [{"from": r["id"], "to": old} for r in rows for old in r["supersedes"]]
        coalesces = [{"from": r["id"], "to": old} for r in rows for old in r["coalesces"]]
        objects = [{"from": r["id"], "to": r["object_id"]} for r in rows if r["object_id"]]
        if replaces or supersedes or coalesces or objects:
            self._run(
                fr.LINK_ROWS,
                owner=owner,
                replaces=replaces,
                supersedes=supersedes,
                coalesces=coalesces,
                objects=objects,
            )

    def corroborate(self, owner: str, items: Sequence[dict[str, Any]], t: datetime) -> None:
        """Link duplicate assertions to the rows that cover them (CONTRACT §2.1 rule 1)."""
        if items:
            self._run(fr.CREATE_CORROBORATIONS, owner=owner, items=list(items), t=t)

    def raw_create(self, owner: str, rows: Sequence[dict[str, Any]], t: datetime) -> None:
        """Benchmark floor: create rows with no rules applied (bench/ only)."""
        self._run(fr.RAW_CREATE, owner=owner, rows=[_wire(r) for r in rows], t=t, far=FAR_FUTURE)

    # --- memory access -------------------------------------------------------------------

    def memory_access(self, owner: str, chat_id: str | None) -> MemoryAccess:
        """Return the effective memory access of a chat, or the owner's default (CONTRACT §7)."""
        return ac.effective_access(self._run, owner, chat_id)

    def set_memory_access(
        self,
        owner: str,
        chat_id: str | None,
        *,
        mode: str,
        areas: Sequence[str],
        sources: Sequence[str],
        now: datetime,
    ) -> MemoryAccess:
        """Store a chat's memory access, or the owner's default when `chat_id` is None.

        Raises:
            NotFound: the owner does not exist (call `ensure_owner` first).
            Conflict: the chat key is taken by another owner's chat.
        """
        params = {
            "owner": owner,
            "mode": mode,
            "areas": list(areas),
            "sources": list(sources),
            "t": now,
        }
        if chat_id is None:
            rows = self._run(ac.SET_PROFILE_ACCESS, **params)
            if not rows:
                raise NotFound("owner", owner)
            return ac.access_from_record(rows[0]["profile"], None)
        row = self._run(
            ac.SET_CHAT_ACCESS, chat_key=chat_key(owner, chat_id), chat_id=chat_id, **params
        )[0]
        if row["owner"] != owner:
            raise Conflict("chat id already used")
        return ac.access_from_record(None, row["chat"])

    def create_token(
        self, owner: str, *, token_id: str, token_hash: str, scopes: Sequence[str], now: datetime
    ) -> TokenRecord:
        """Store a token (only its hash) for `owner`, creating the owner if needed."""
        row = self._run(
            rc.CREATE_TOKEN,
            owner=owner,
            id=token_id,
            hash=token_hash,
            scopes=list(scopes),
            self_id=new_id("ent"),
            t=now,
        )[0]
        return rc.token_from_record(row["k"])


class Writer:
    """Runs committer work in Neo4j write transactions.

    Args:
        driver: a connected driver.
        database: the Neo4j database, or None for the default.
        embedder: handed to every `WriteTx` (see there), or None for none.
        policy: the retry budgets (graph/transactions.py; `Settings.retry_policy()`).
    """

    def __init__(
        self,
        driver: Driver,
        database: str | None = None,
        embedder: Embedder | None = None,
        policy: RetryPolicy = DEFAULT_RETRY,
    ):
        self._driver = driver
        self._database = database
        self._embedder = embedder
        self._policy = policy

    @property
    def embedder(self) -> Embedder | None:
        """The embedder every `WriteTx` carries (for work done before a transaction)."""
        return self._embedder

    def transaction(self, work: Callable[[WriteTx], T], embedder: Embedder | None = None) -> T:
        """Run `work` in one write transaction and return its result.

        `embedder`, when given, is the one this transaction's `WriteTx` carries instead of
        the writer's (the committer hands in one that answers from vectors it made before
        the transaction opened).

        `work` is retried on transient errors (deadlocks, leader switches) and while the
        store does not answer, within the policy's budgets (graph/transactions.py), so it
        must not have side effects outside the transaction. A commit whose answer was lost
        is not retried (it may have landed). The session shares the driver's bookmark
        manager, and the commit's bookmark is recorded in the current causal unit
        (graph/bookmarks.py: read-your-writes on a cluster).

        Raises:
            StoreUnavailable: Neo4j could not be reached within the budget, or the answer
                to the commit was lost.
            QueryTimedOut: the transaction ran past the server's timeout.
        """
        return run_transaction(
            self._driver,
            self._database,
            "WRITE",
            lambda tx: work(WriteTx(tx, embedder or self._embedder)),
            policy=self._policy,
        )


LINK_FIELDS = ("replaces", "supersedes", "coalesces")
"""The fields of a row to create that name the rows it continues, pushes out or folds in."""


def _wire(row: dict[str, Any]) -> dict[str, Any]:
    """A row as CREATE_ROWS takes it: links dropped, valid times as epoch parts."""
    out = {k: v for k, v in row.items() if k not in LINK_FIELDS}
    for key in ("valid_from", "valid_to"):
        if key in out:
            out[key + "_s"], out[key + "_ns"] = epoch_parts(out.pop(key))
    return out


def new_id(prefix: str) -> str:
    """Return a new random id such as `fct_3f2a...` (prefix + 24 hex digits)."""
    return f"{prefix}_{uuid.uuid4().hex[:24]}"
