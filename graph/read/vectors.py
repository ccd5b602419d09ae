"""An in-process cache of owners' vectors, fact rows' and episodes', for semantic search
(CONTRACT §6 "Pull", §12).

Why: the vector indexes `fact_embedding` and `episode_embedding` are shared by every
owner, so for a small owner in a crowded store their nearest hits are mostly other
owners', and search paid for the index query and then ranked the owner's rows exactly
anyway (issue 17); ranking them exactly in Cypher reads every vector of the owner from
the store on every search. Ranking a few thousand vectors with numpy takes well under a
millisecond; the cache holds them.

What it is: per (owner, model, kind), every fact row (kind `fact`) or every episode (kind
`episode`) of the owner with a vector of that model, on every axis, with its four times
in microseconds (an episode's valid time is `[said_at, open)`, CONTRACT §12).
`OwnerVectors.candidates` picks the ids of those nearest to a query among those visible
at an as-of point; the store then checks them (graph/cypher/vectors.py NEAREST_OF and
EPISODES_NEAREST_OF: the as-of point and the scope's memory access are decided in
Cypher) and scores them exactly. So the cache only proposes; it never decides what a
caller may see.

Staleness is told by transaction time (graph/cypher/vectors.py): a read compares the
owner's `last_tx` and `search_rev` with the key of what it holds, and brings it up to
date in the same READ transaction as the search (`OwnerVectors.updated`: rows are
immutable except `retracted_at`, and so are episodes, so new ones are appended and
retractions recorded). Owners with more than `owner_rows` rows (of one kind) are never
cached (the index serves them); owners are evicted least recently used past `max_rows`
rows in all, but only for an owner asked for more often than each owner it would evict
(`VectorCache.admits`, a frequency doorkeeper in the manner of TinyLFU): when more owners
take turns than the cache can hold, loading one evicts the next one asked for, and every
search paid for loading an owner's vectors (bench/graphiti_compare.py at 5x: 20 owners
of 13,000 rows, search p50 900 ms); refused, an owner is served by the index as an owner
too big to cache is. The cache is thread-safe; its entries are immutable.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

FACTS = "fact"
"""The kind of a cache entry holding an owner's fact rows."""
EPISODES = "episode"
"""The kind of a cache entry holding an owner's episodes."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def to_micros(t: datetime) -> int:
    """An aware datetime as integer microseconds since the epoch (UTC), exactly."""
    return (t - _EPOCH) // _MICROSECOND


@dataclass(frozen=True, slots=True)
class OwnerVectors:
    """One owner's rows (fact rows or episodes) with a vector of one model, as the store held
    them at a key.

    Attributes:
        last_tx: the owner's last commit time when this was read (the store's value).
        rev: the owner's `search_rev` when this was read.
        ids: fact (or episode) ids, one per row.
        matrix: the rows' vectors, unit length, float32, shape (rows, dimensions).
        times: recorded_at, retracted_at, valid_from, valid_to of each row, in
            microseconds since the epoch (UTC), int64, shape (4, rows).
    """

    last_tx: Any
    rev: int
    ids: tuple[str, ...]
    matrix: npt.NDArray[np.float32]
    times: npt.NDArray[np.int64]

    @property
    def rows(self) -> int:
        """How many rows are held."""
        return len(self.ids)

    @classmethod
    def load(cls, last_tx: Any, rev: int, rows: Sequence[Any]) -> OwnerVectors:
        """Build from records of graph/cypher/vectors.py OWNER_VECTORS.

        Args:
            last_tx: the key's commit time (VECTORS_KEY).
            rev: the key's `search_rev`.
            rows: records with id, embedding, recorded, retracted, valid_from, valid_to.
        """
        if not rows:
            return cls(last_tx, rev, (), np.zeros((0, 0), np.float32), np.zeros((4, 0), np.int64))
        matrix = _unit(np.asarray([r["embedding"] for r in rows], dtype=np.float32))
        return cls(last_tx, rev, tuple(r["id"] for r in rows), matrix, _times(rows))

    def updated(self, last_tx: Any, changes: Sequence[Any]) -> OwnerVectors:
        """Apply the changes since this key (graph/cypher/vectors.py VECTORS_SINCE).

        Args:
            last_tx: the owner's current commit time.
            changes: records with id, embedding (null for a row already held: its new
                `retracted` time is taken), recorded, retracted, valid_from, valid_to.

        Returns:
            A new entry at key (`last_tx`, this `rev`).
        """
        position = {fid: i for i, fid in enumerate(self.ids)}
        times = self.times.copy()
        new = []
        for r in changes:
            at = position.get(r["id"])
            if at is not None:
                times[1, at] = r["retracted"]
            elif r["embedding"] is not None:
                new.append(r)
        if not new:
            return replace(self, last_tx=last_tx, times=times)
        if not self.ids:
            return OwnerVectors.load(last_tx, self.rev, new)
        added = _unit(np.asarray([r["embedding"] for r in new], dtype=np.float32))
        return OwnerVectors(
            last_tx,
            self.rev,
            self.ids + tuple(r["id"] for r in new),
            np.vstack([self.matrix, added]),
            np.hstack([times, _times(new)]),
        )

    def candidates(
        self, vector: Sequence[float], known_at: datetime, valid_at: datetime, count: int
    ) -> tuple[list[tuple[str, float]], int]:
        """Pick the `count` rows nearest to `vector` among those visible at
        (`valid_at`, `known_at`) (CONTRACT §2), nearest first.

        Args:
            vector: the query's embedding (any length scale).
            known_at: transaction time, aware.
            valid_at: valid time, aware.
            count: how many rows at most.

        Returns:
            ([(id, (1 + cosine) / 2)], how many rows were visible at the as-of point).
            The score is the one the vector index and `vector.similarity.cosine` give.
        """
        if not self.ids:
            return [], 0
        known, valid = to_micros(known_at), to_micros(valid_at)
        t = self.times
        visible = (t[0] <= known) & (t[1] > known) & (t[2] <= valid) & (t[3] > valid)
        seen = int(np.count_nonzero(visible))
        if seen == 0:
            return [], 0
        query = _unit(np.asarray([vector], dtype=np.float32))[0]
        # einsum, not `@`: BLAS's threads contend for a few shared cores (15x slower here).
        similarity = np.einsum("ij,j->i", self.matrix, query)
        similarity[~visible] = -np.inf
        count = min(count, seen)
        if count < similarity.shape[0]:
            best = np.argpartition(-similarity, count - 1)[:count]
        else:
            best = np.arange(similarity.shape[0])
        exact = np.einsum("ij,j->i", self.matrix[best].astype(np.float64), query.astype(np.float64))
        order = np.lexsort((np.asarray([self.ids[i] for i in best]), -exact))
        return [(self.ids[best[i]], float((1.0 + exact[i]) / 2.0)) for i in order], seen


Key = tuple[str, str, str]
"""(owner, model, kind) of a cache entry."""

ASKED_WINDOW = 1_000
"""After this many requests (`VectorCache.get`), every count of `VectorCache.asked` is
halved, so the doorkeeper follows what is asked for now."""


class VectorCache:
    """Owners' vectors held in this process, least recently used evicted first, and only
    for an owner asked for more often than each owner it would evict (`admits`).

    Every method takes `kind`: `FACTS` (the default) or `EPISODES`; an owner's fact rows
    and its episodes are two entries, each with its own `owner_rows` limit.

    Args:
        max_rows: rows held in all, of both kinds (each costs 4 bytes per dimension: 1.5 KB
            at 384).
        owner_rows: an owner with more rows (of one kind) than this is not cached.
    """

    def __init__(self, max_rows: int = 100_000, owner_rows: int = 20_000):
        self.max_rows = max_rows
        self.owner_rows = min(owner_rows, max_rows)
        self._lock = threading.Lock()
        self._held: OrderedDict[Key, OwnerVectors] = OrderedDict()
        self._too_big: set[Key] = set()
        self._total = 0
        self._asked: dict[Key, int] = {}
        self._requests = 0
        self._sizes: dict[Key, int] = {}

    def get(
        self, owner: str, model: str, kind: str = FACTS, count: bool = True
    ) -> OwnerVectors | None:
        """Return what is held for (owner, model, kind), or None; counts the request
        (`asked`) unless `count` is False (a request already counted: one search asks
        for an owner's entry several times, and must count once, or owners taking
        turns would each look asked for more often than the one they evict)."""
        key = (owner, model, kind)
        with self._lock:
            if count:
                self._asked[key] = self._asked.get(key, 0) + 1
                self._requests += 1
            if self._requests >= ASKED_WINDOW:
                self._requests = 0
                self._asked = {k: n // 2 for k, n in self._asked.items() if n > 1}
            found = self._held.get(key)
            if found is not None:
                self._held.move_to_end(key)
            return found

    def put(self, owner: str, model: str, entry: OwnerVectors, kind: str = FACTS) -> None:
        """Hold `entry` for (owner, model, kind) unless a later key is held; evict past
        `max_rows`. An entry past `owner_rows` marks the owner as too big instead."""
        key = (owner, model, kind)
        with self._lock:
            if entry.rows > self.owner_rows:
                self._too_big.add(key)
                self._drop(key)
                return
            held = self._held.get(key)
            if held is not None and _later(held, entry):
                return
            self._drop(key)
            self._held[key] = entry
            self._total += entry.rows
            while self._total > self.max_rows and len(self._held) > 1:
                self._drop(next(iter(self._held)))

    def asked(self, owner: str, model: str, kind: str = FACTS) -> int:
        """How often (owner, model, kind) was asked for lately (`get`; halved every
        `ASKED_WINDOW` requests)."""
        with self._lock:
            return self._asked.get((owner, model, kind), 0)

    def admits(self, owner: str, model: str, rows: int, kind: str = FACTS) -> bool:
        """Whether loading `rows` rows for (owner, model, kind) is worth it: True when they
        fit beside what is held, or when the owner was asked for more often than each
        owner that `put` would evict for them (least recently used first). Equal counts
        keep what is held, so owners taking turns beyond the cache's size do not evict
        each other on every search (`ASKED_WINDOW`).

        Args:
            owner, model, kind: the entry.
            rows: how many rows it would hold (the owner's count on every axis).

        Returns:
            True to load it; False to serve the owner from the index this time.
        """
        key = (owner, model, kind)
        with self._lock:
            self._sizes[key] = rows
            held = self._held.get(key)
            need = self._total - (held.rows if held is not None else 0) + rows - self.max_rows
            if need <= 0:
                return True
            wanted = self._asked.get(key, 0)
            for victim, entry in self._held.items():
                if victim == key:
                    continue
                if self._asked.get(victim, 0) >= wanted:
                    return False
                need -= entry.rows
                if need <= 0:
                    return True
            return False

    def refused_before(self, owner: str, model: str, kind: str = FACTS) -> bool:
        """True when `admits` refused the entry at its last known size and would again now
        (so its rows need not be counted again)."""
        key = (owner, model, kind)
        with self._lock:
            rows = self._sizes.get(key)
        return rows is not None and not self.admits(owner, model, rows, kind)

    def too_big(self, owner: str, model: str, kind: str = FACTS) -> bool:
        """True when the owner was found to have more than `owner_rows` rows of `kind`."""
        with self._lock:
            return (owner, model, kind) in self._too_big

    def mark_too_big(self, owner: str, model: str, kind: str = FACTS) -> None:
        """Remember that the owner has more than `owner_rows` rows of `kind` (for this
        process)."""
        with self._lock:
            self._too_big.add((owner, model, kind))
            self._drop((owner, model, kind))

    def forget(self, owner: str) -> None:
        """Drop everything held for `owner` (it is unknown to the store: erased)."""
        with self._lock:
            for key in [k for k in self._held if k[0] == owner]:
                self._drop(key)
            self._too_big = {k for k in self._too_big if k[0] != owner}
            self._asked = {k: n for k, n in self._asked.items() if k[0] != owner}
            self._sizes = {k: n for k, n in self._sizes.items() if k[0] != owner}

    def _drop(self, key: Key) -> None:
        held = self._held.pop(key, None)
        if held is not None:
            self._total -= held.rows


def _later(held: OwnerVectors, entry: OwnerVectors) -> bool:
    if held.rev != entry.rev:
        return held.rev > entry.rev
    return bool(
        held.last_tx is not None and entry.last_tx is not None and held.last_tx > entry.last_tx
    )


def _unit(m: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: npt.NDArray[np.float32] = (m / norms).astype(np.float32)
    return unit


def _times(rows: Sequence[Any]) -> npt.NDArray[np.int64]:
    return np.asarray(
        [[r["recorded"], r["retracted"], r["valid_from"], r["valid_to"]] for r in rows],
        dtype=np.int64,
    ).T.copy()
