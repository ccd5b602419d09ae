"""The one base of the read side: a READ transaction, and the entity every part starts from.

Every part of `graph.read.reader.Reader` (groups, audit, lifecycle, prefetch, pull,
proposals, search, episodes) subclasses `ReadBase`, so each part calls the real primitives
(`_rows`, `_facts`, `snapshot`, `entity`, `_owner_vectors`) and none re-declares them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from typing import Any, Self, TypeVar

from neo4j import Driver

from graph import bookmarks
from graph.cypher import entities as ec
from graph.cypher import facts as fc
from graph.cypher import lifecycle as lc
from graph.cypher import vectors as vc
from graph.driver import store_errors
from graph.errors import NotFound
from graph.read.vectors import FACTS, OwnerVectors, VectorCache
from graph.records import EntityRecord, FactRecord
from graph.scope import Scope, params
from graph.time import AsOf, utcnow
from graph.transactions import DEFAULT_RETRY, RetryPolicy, run_transaction

T = TypeVar("T")

ANN_HINTS = 10_000
"""Owners whose last deeper ask of the vector index is remembered (`ReadBase._ann_hints`,
graph/read/search.py `deeper`); past it all are forgotten."""
CACHE_FACTOR = 2
"""From an owner's cached vectors (graph/read/vectors.py), this many times the hits wanted
are checked against the store for a restricted scope (its memory access hides rows the
cache cannot tell) ..."""
CACHE_MIN = 20
"""... and at least this many."""
CACHE_MARGIN = 5
"""For a scope of full access and no shared entities, the hits wanted and this many more:
every row the cache finds visible at the as-of point passes the store's check then, save
a withheld episode (graph/scope.py EPISODE_FINDABLE), so checking twice as many only
paid for rows never kept (issue 17: 100 index seeks of each kind a search)."""


def picks_of(
    held: OwnerVectors, vector: list[float], as_of: AsOf, k: int, scope: Scope
) -> tuple[list[dict[str, Any]], int]:
    """([{id, score}] `held` proposes for `k` hits seen by `scope`, how many of its vectors
    are visible at `as_of`): `k + CACHE_MARGIN` of them for a scope of full access and no
    shared entities, else `CACHE_FACTOR` times `k`, at least `CACHE_MIN`. Fewer than `k`
    passing the store's check sends the reader to the exact ranking."""
    whole = scope.access.mode != "restricted" and not scope.shared
    count = k + CACHE_MARGIN if whole else max(k * CACHE_FACTOR, CACHE_MIN)
    picked, visible = held.candidates(vector, as_of.known_at, as_of.valid_at, count)
    return [{"id": i, "score": score} for i, score in picked], visible


class ReadBase:
    """Read-only access to the store: every query runs in a Neo4j READ transaction.

    Args:
        driver: a connected neo4j driver.
        database: the Neo4j database name, or None for the default.
        timeout: per-transaction timeout in seconds (None = server default).
        retry: retry failed reads within `policy` (graph/transactions.py); False for a
            caller with a deadline of its own, such as prefetch: one attempt.
        policy: the retry budgets (`Settings.retry_policy()`; defaults: 1 s while the
            store does not answer, 30 s of contention).
        vectors: owners' vectors held in this process for semantic search
            (graph/read/vectors.py), or None to use the vector index alone.
    """

    def __init__(
        self,
        driver: Driver,
        database: str | None = None,
        timeout: float | None = None,
        retry: bool = True,
        policy: RetryPolicy = DEFAULT_RETRY,
        vectors: VectorCache | None = None,
    ):
        self._driver = driver
        self._database = database
        self._timeout = timeout
        self._retry = retry
        self._policy = policy
        self._vectors = vectors
        self._tx: Any = None
        self._keys: dict[str, tuple[Any, int] | None] = {}  # VECTORS_KEY, per snapshot
        self._counted: set[tuple[str, str]] = set()  # (owner, kind) asked of the cache, ditto
        self._ann_hints: dict[tuple[str, str], int] = {}  # shared with its snapshots
        self._groups: dict[str, tuple[str, ...]] = {}  # an owner's groups now, per snapshot

    @contextmanager
    def snapshot(self) -> Iterator[Self]:
        """Yield a reader of this class whose every query runs in one READ transaction (one
        consistent
        view, fewer round trips: prefetch uses it). No retries inside.

        Raises:
            StoreUnavailable: Neo4j could not be reached.
            QueryTimedOut: the transaction ran past this reader's timeout.
        """
        with (
            store_errors(),
            bookmarks.session(self._driver, self._database, "READ") as s,
            s.begin_transaction(timeout=self._timeout) as tx,
        ):
            bound = type(self)(
                self._driver,
                self._database,
                self._timeout,
                self._retry,
                self._policy,
                self._vectors,
            )
            bound._tx = tx
            bound._ann_hints = self._ann_hints
            yield bound

    def _read(self, work: Callable[[Any], T]) -> T:
        if self._tx is not None:
            with store_errors():
                return work(self._tx)
        return run_transaction(
            self._driver,
            self._database,
            "READ",
            work,
            timeout=self._timeout,
            policy=self._policy if self._retry else None,
        )

    def _rows(self, query: str, **params: Any) -> list[Any]:
        def work(tx: Any) -> list[Any]:
            return list(tx.run(query, params))

        return self._read(work)

    def _best_rows(self, top: str, every: str, k: int, scan: int, **params: Any) -> list[Any]:
        """The `k` best rows of a full-text read: `top` over only the `scan` best hits
        (graph.cypher._fragments.top_hits: its rows carry `scanned`, and when none passed
        it gives one row with a null `score`), and `every` over all of them only when
        fewer than `k` of those passed and Lucene had more. So an owner with no hit at all
        costs one query, not two."""
        rows = self._rows(top, k=k, scan=scan, **params)
        scanned = rows[0]["scanned"] if rows else scan
        return self._or_every(
            [r for r in rows if r["score"] is not None], scanned, every, k, scan, **params
        )

    def _or_every(
        self, rows: list[Any], scanned: int, every: str, k: int, scan: int, **params: Any
    ) -> list[Any]:
        """`rows`, the visible ones of a full-text read of Lucene's `scan` best hits (of
        which there were `scanned`), or `every`'s rows when fewer than `k` were visible
        and Lucene had more (`_best_rows`)."""
        if len(rows) < k and scanned >= scan:
            rows = self._rows(every, k=k, **params)  # the best hits were not visible enough
        return rows

    def _owner_vectors(self, owner: str, model: str, kind: str = FACTS) -> OwnerVectors | None:
        """The owner's vectors of `model` and `kind` (graph.read.vectors FACTS or EPISODES),
        brought up to date in this reader's transaction; None when the owner is unknown or
        too big to cache or not admitted (`VectorCache.admits`: the index serves it) or
        there is no cache."""
        cache = self._vectors
        if cache is None or cache.too_big(owner, model, kind):
            return None
        held = self._cached(cache, owner, model, kind)
        if held is None and cache.refused_before(owner, model, kind):
            return None  # the owners held are asked for as often: the index serves it
        key = self._vectors_key(owner)
        if key is None:
            cache.forget(owner)
            return None
        last_tx, rev = key
        queries = vc.QUERIES[kind]
        if held is not None and held.rev == rev:
            if held.last_tx == last_tx:
                return held
            changes = self._rows(
                queries.since, owner=owner, model=model, since=held.last_tx, last_tx=last_tx
            )
            fresh = held.updated(last_tx, changes)
        else:
            loaded = self._load_vectors(cache, owner, model, kind, key)
            if loaded is None:
                return None
            fresh = loaded
        cache.put(owner, model, fresh, kind)
        return None if fresh.rows > cache.owner_rows else fresh

    def _ann_hint(self, owner: str, kind: str, first: int) -> int:
        """How many nodes to ask the vector index for first, for the owner's `kind`: `first`,
        or what a deeper ask needed last time (graph/read/search.py `deeper`), if more."""
        return max(first, self._ann_hints.get((owner, kind), 0))

    def _ann_learned(self, owner: str, kind: str, asked: int, first: int) -> None:
        """Remember that asking the index for `asked` nodes answered the owner's `kind`
        (forgotten when `asked` is `first` again); at most `ANN_HINTS` owners."""
        key = (owner, kind)
        if asked <= first:
            self._ann_hints.pop(key, None)
            return
        if len(self._ann_hints) >= ANN_HINTS:
            self._ann_hints.clear()
        self._ann_hints[key] = asked

    def _cached(self, cache: VectorCache, owner: str, model: str, kind: str) -> OwnerVectors | None:
        """`cache.get`, counted as a request once per snapshot (one search) and owner and
        kind, however often the search asks; outside a snapshot every call is a request."""
        if self._tx is None:
            return cache.get(owner, model, kind)
        first = (owner, kind) not in self._counted
        self._counted.add((owner, kind))
        return cache.get(owner, model, kind, count=first)

    def _load_vectors(
        self,
        cache: VectorCache,
        owner: str,
        model: str,
        kind: str,
        key: tuple[Any, int],
    ) -> OwnerVectors | None:
        """Every vector of the owner's `kind` at `key` (last_tx, rev), or None when the
        owner has more than `owner_rows` of them (marked too big) or the cache does not
        admit them (`VectorCache.admits`)."""
        queries = vc.QUERIES[kind]
        limit = cache.owner_rows + 1
        count = self._rows(queries.rows, owner=owner, limit=limit)[0]["rows"]
        if count >= limit:
            cache.mark_too_big(owner, model, kind)
            return None
        if not cache.admits(owner, model, count, kind):
            return None
        rows = self._rows(queries.load, owner=owner, model=model, limit=limit)
        return OwnerVectors.load(key[0], key[1], rows)

    @staticmethod
    def _vector_params(
        scope: Scope, vector: list[float], model: str, as_of: AsOf
    ) -> dict[str, Any]:
        """The parameters every semantic read of fact rows and episodes takes: $vector,
        $model, $valid_at, $known_at and the scope's (graph/scope.py `params`)."""
        return {
            "vector": vector,
            "model": model,
            "valid_at": as_of.valid_at,
            "known_at": as_of.known_at,
            **params(scope),
        }

    def _cache_picks(
        self, scope: Scope, model: str, kind: str, vector: list[float], as_of: AsOf, k: int
    ) -> tuple[list[dict[str, Any]], int] | None:
        """([{id, score}] the owner's held vectors of `kind` propose for `k` hits of
        `scope` (`picks_of`), how many held ones are visible at `as_of`); None when they
        are not held. The store then checks them."""
        held = self._owner_vectors(scope.owner, model, kind)
        return None if held is None else picks_of(held, vector, as_of, k, scope)

    def _vectors_key(self, owner: str) -> tuple[Any, int] | None:
        """(last_tx, search_rev) of the owner (graph/cypher/vectors.py VECTORS_KEY), None
        for an unknown owner. Read once per snapshot: a search's fact rows and episodes
        share it (each proposal is checked by the store anyway)."""
        if self._tx is not None and owner in self._keys:
            return self._keys[owner]
        rows = self._rows(vc.VECTORS_KEY, owner=owner)
        key = (rows[0]["last_tx"], int(rows[0]["rev"])) if rows else None
        if self._tx is not None:
            self._keys[owner] = key
        return key

    def _known_big(self, owner: str, model: str, exact_cap: int, kind: str = FACTS) -> bool:
        """True when this process's vector cache already found the owner to hold more rows
        of `kind` than `exact_cap`: trying to rank them exactly at once would read
        `exact_cap` of them to learn that again (20,000 db hits a search at 10^5 facts,
        bench/growth.py)."""
        cache = self._vectors
        return (
            cache is not None
            and cache.owner_rows >= exact_cap
            and cache.too_big(owner, model, kind)
        )

    def _facts(self, query: str, **params: Any) -> list[FactRecord]:
        """Run a query whose `row` column is a fact row (graph.cypher.facts.FACT_COLUMNS)."""
        return [fc.fact_from_record(r["row"]) for r in self._rows(query, **params)]

    def run_query(self, query: str, **params: Any) -> list[dict[str, Any]]:
        """Run an arbitrary query in a READ transaction and return its records as dicts.

        For diagnostics and tests: a write in `query` fails with a Neo4j client error.
        """
        return [r.data() for r in self._rows(query, **params)]

    def entity(
        self, owner: str | Scope, entity_id: str, known_at: datetime | None = None
    ) -> EntityRecord:
        """Return one entity the scope may see, as known at `known_at` (default now).

        Raises:
            NotFound: no such entity for this scope (another owner's unshared entity, or
                one not yet created at `known_at`, looks the same, CONTRACT §7).
        """
        rows = self._rows(
            ec.ENTITY_BY_ID, **params(owner), entity_id=entity_id, known_at=known_at or utcnow()
        )
        if not rows:
            raise NotFound("entity", entity_id)
        return self.as_known(ec.entity_from_record(rows[0]["e"]), known_at)

    def as_known(self, found: EntityRecord, known_at: datetime | None) -> EntityRecord:
        """Return an entity node's record as known at `known_at` (None: now, unchanged).

        Not merged yet when the merge came after `known_at`; the name and aliases it had
        at `known_at` when they changed since (one more read, only then).
        """
        if known_at is None:
            return found
        if found.merged_at is not None and known_at < found.merged_at:
            found = replace(found, merged_into=None, merged_at=None)
        if found.names_since is not None and known_at < found.names_since:
            rows = self._rows(
                lc.NAMES_AS_OF, owner=found.owner, entity_id=found.id, known_at=known_at
            )
            names = lc.names_from_record(rows[0] if rows else None)
            if names is not None:
                found = replace(found, name=names[0], aliases=names[1])
        return found
