"""Reads for search: semantic and full-text hits a scope may see (CONTRACT §6, §10 search).

A mixin of `graph.read.reader.Reader`: READ transactions only. The vector and full-text
indexes hold every owner's rows, so each read checks the as-of point and the scope's
`FACT_VISIBLE` after the index, and makes sure the answer is complete:

* semantic: a caller whose rows (its own and those shared with it, open at the as-of
  point) number fewer than `EXACT_CAP` has them ranked exactly at once (SEMANTIC_SMALL:
  an index seek on the owner, so its cost follows the caller's size, never the other
  owners'). For a larger caller the `k` nearest rows of the whole index are fetched
  (over-fetched, `ANN_FACTOR` times what is asked, at least `ANN_MIN`). When fewer than
  asked survive the filter, the index is asked once more for as many as the share that
  survived suggests (`deeper`, up to `ANN_DEEP_MAX`; what sufficed is remembered per owner
  and asked first next time), and when that too falls short the caller's own rows are
  ranked exactly instead (`vector.similarity.cosine` over the rows the scope sees at the
  as-of point, an index seek on the owner):
  other owners' rows can push the caller's out of any fixed `k`, never out of the exact
  ranking. (Whether the index "had more to give" cannot be told: HNSW may return fewer
  than `k` nodes from an index holding more.) When enough survive, they are the
  caller's best rows up to the index's approximation.
* full-text: the Lucene query itself is narrowed to the caller's owner and shared
  entities, so other owners' rows never fill the result; it is then exact.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from datetime import datetime
from typing import Any

from graph.cypher import entities as ec
from graph.cypher import facts as fc
from graph.cypher import search as sc
from graph.cypher import vectors as vc
from graph.read.base import ReadBase
from graph.read.vectors import FACTS
from graph.records import EntityRecord, FactRecord
from graph.scope import Scope, params
from graph.time import AsOf

EXACT_CAP = 4_000
"""A caller with fewer rows than this (as of the read) is ranked exactly, without the index."""
ANN_FACTOR = 10
"""The vector index is asked for this many times the rows wanted."""
ANN_MIN = 100
"""... and for at least this many."""
ANN_MAX = 1_000
"""... and for at most this many (the index's cost grows with it)."""
ANN_DEEP_MAX = 8_000
"""When the index's answer held fewer of the caller's rows than wanted, it is asked once
more, for as many as the share it held suggests (`deeper`), up to this many; past that
the caller's rows are ranked exactly. (At 5x in bench/graphiti_compare.py, an owner's
13,000 rows among 264,000: the index's 500 nearest held ~26 of the 50 wanted; its 1,500
hold ~75, in 45 ms, where ranking the owner's rows exactly took 290 ms.)"""
ANN_HINTS = 10_000
"""Owners whose last deeper ask is remembered (`ReadBase._ann_hints`); past it all are
forgotten."""
SCAN_PER_RESULT = 8
"""Full-text hits read per result asked for (`fulltext_scan`)."""
SCAN_MIN = 200
"""The fewest full-text hits a search reads before it filters them by time and access."""

MAX_TERMS = 32
"""Words of a query past this are left out of the full-text query."""
MAX_NARROWED_ENTITIES = 256
"""Shared entities past this: the full-text query is not narrowed (still exact, slower)."""

STOP_WORDS = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    )
)
"""The English stop words of the `fact_text` index's analyzer (Lucene's `standard-folding`):
the index drops them, so the query does too."""

_WORD = re.compile(r"\w+")
_SAFE_ID = re.compile(r"[\w.@:+-]+")


class Hit:
    """One fact row found by one index, with its entity.

    Attributes:
        fact: the row.
        entity: its subject entity (as known at the read's known_at).
        score: the index's score: (1 + cosine) / 2 for semantic hits, BM25 for full-text.
        text: the row's search text, or None.
        semantic: (1 + cosine) / 2 against the query's vector (a semantic hit's `score`; a
            full-text hit's when the search gave a vector), or None.

    A hit read from the store (`of_record`) decodes `fact` and `entity` on first use: a
    search reads about a hundred candidates and keeps ten, and decoding every one (eight
    times each) was a tenth of its time (issue 17). `id`, `valid_from`, `run_id` and
    `message_id` are read without decoding the rest. Never changed once made.
    """

    __slots__ = ("_entity", "_fact", "_known_at", "_node", "_row", "score", "semantic", "text")

    def __init__(
        self,
        fact: FactRecord,
        entity: EntityRecord,
        score: float,
        text: str | None = None,
        semantic: float | None = None,
    ):
        self._fact: FactRecord | None = fact
        self._entity: EntityRecord | None = entity
        self._row: Any = None
        self._node: Any = None
        self._known_at: datetime | None = None
        self.score = score
        self.text = text
        self.semantic = semantic

    @classmethod
    def of_record(
        cls,
        row: Any,
        node: Any,
        score: float,
        known_at: datetime,
        text: str | None = None,
        semantic: float | None = None,
    ) -> Hit:
        """A hit of a query's `row` (graph.cypher.facts FACT_COLUMNS) and `e`
        (graph.cypher.entities ENTITY_MAP) columns, read as known at `known_at`."""
        hit = cls.__new__(cls)
        hit._fact, hit._entity, hit._row, hit._node, hit._known_at = None, None, row, node, known_at
        hit.score, hit.text = float(score), text
        hit.semantic = None if semantic is None else float(semantic)
        return hit

    @property
    def fact(self) -> FactRecord:
        """The row."""
        if self._fact is None:
            self._fact = fc.fact_from_record(self._row)
        return self._fact

    @property
    def entity(self) -> EntityRecord:
        """Its subject entity, as known at the read's known_at (not merged yet then)."""
        if self._entity is None:
            entity = ec.entity_from_record(self._node)
            assert self._known_at is not None
            if entity.merged_at is not None and self._known_at < entity.merged_at:
                entity = replace(entity, merged_into=None, merged_at=None)
            self._entity = entity
        return self._entity

    @property
    def id(self) -> str:
        """The row's id."""
        return self._fact.id if self._fact is not None else str(self._row["id"])

    @property
    def valid_from(self) -> datetime:
        """The row's valid_from (aware UTC)."""
        return self.fact.valid_from if self._fact is not None else fc.valid_from(self._row)

    @property
    def run_id(self) -> str | None:
        """The run the row was drawn from, or None."""
        return self._fact.run_id if self._fact is not None else self._row.get("run_id")

    @property
    def message_id(self) -> str | None:
        """The message the row was drawn from, or None."""
        return self._fact.message_id if self._fact is not None else self._row.get("message_id")

    def _key(self) -> tuple[Any, ...]:
        return (self.fact, self.entity, self.score, self.text, self.semantic)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hit) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Hit(fact={self.fact!r}, entity={self.entity!r}, score={self.score!r})"


def fulltext_scan(limit: int) -> int:
    """How many of Lucene's best hits a full-text read of `limit` results filters first:
    `max(SCAN_PER_RESULT * limit, SCAN_MIN)` (facts and episodes alike)."""
    return max(SCAN_PER_RESULT * limit, SCAN_MIN)


def words(text: str, limit: int | None = MAX_TERMS) -> list[str]:
    """The words of `text` as the full-text index sees them: runs of letters and digits,
    accents folded and case-folded ("Zürich" -> "zurich"), stop words left out, each once,
    in order, at most `limit` (None: all of them)."""
    if text.isascii():  # nothing to fold but case (the common case, and much cheaper)
        folded = text.lower()
    else:
        folded = unicodedata.normalize("NFKD", text)
        folded = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
    found = list(dict.fromkeys(w for w in _WORD.findall(folded) if w not in STOP_WORDS))
    return found if limit is None else found[:limit]


def lucene_query(text: str, scope: Scope) -> str | None:
    """The full-text query for `text`: its words (any of them), narrowed to the rows of
    `scope.owner` and of the entities shared with it.

    Words are runs of letters and digits (`words`), so no Lucene operator comes from the
    caller; stop words are left out, as the index leaves them out. An id the analyzer could not
    match as a phrase (characters outside letters, digits and `._@:+-`, or nothing but
    stop words) leaves the query un-narrowed: still exact after the Cypher filter, slower.

    Returns:
        The Lucene query, or None when `text` has no word but stop words.
    """
    terms = words(text)
    if not terms:
        return None
    query = "+search_text:(" + " ".join(terms) + ")"
    ids = [scope.owner, *scope.shared]
    if len(scope.shared) <= MAX_NARROWED_ENTITIES and all(_phrase_safe(i) for i in ids):
        owners = f'owner:"{scope.owner}"'
        shared = "".join(f' entity_id:"{e}"' for e in scope.shared)
        query += " +(" + owners + shared + ")"
    return query


def _phrase_safe(ident: str) -> bool:
    tokens = [t.lower() for t in _WORD.findall(ident)]
    return bool(_SAFE_ID.fullmatch(ident)) and any(t not in STOP_WORDS for t in tokens)


def ann_first(limit: int) -> int:
    """How many nodes the vector index is first asked for, for `limit` hits."""
    return min(max(limit * ANN_FACTOR, ANN_MIN), ANN_MAX)


def deeper(asked: int, kept: int, limit: int) -> int | None:
    """How many nodes to ask the vector index for again when its `asked` nearest held
    `kept` (< `limit`) of the caller's visible rows: 1.5 times what that share suggests
    (asked * limit / kept), or None when it held none or that passes `ANN_DEEP_MAX` (the
    caller's rows are then ranked exactly)."""
    if kept <= 0:
        return None
    more = -(-asked * limit * 3 // (kept * 2))  # ceil(asked * limit / kept * 1.5)
    return more if asked < more <= ANN_DEEP_MAX else None


class SearchReads(ReadBase):
    """Semantic and full-text reads for `GET /v1/search`."""

    def semantic(
        self,
        scope: Scope,
        vector: list[float],
        model: str,
        as_of: AsOf,
        limit: int,
        exact_cap: int = EXACT_CAP,
    ) -> tuple[list[Hit], str]:
        """Return the `limit` rows nearest to `vector` that `scope` sees at `as_of`.

        Args:
            scope: who reads (graph/scope.py).
            vector: the query's embedding, by the embedder named `model`.
            model: only rows embedded by this model are compared.
            as_of: the point on both axes (CONTRACT §2).
            limit: how many rows.
            exact_cap: a caller with fewer rows than this is ranked exactly at once (0:
                always ask the vector index first; so does an owner the vector cache found
                to hold more than its `owner_rows` rows on any axis, when that is at least
                `exact_cap`).

        Returns:
            (hits best first, ties by fact id; "cache" when the owner's vectors held in
            this process picked the candidates (graph/read/vectors.py; exact too), "small"
            when the caller's rows, fewer than `EXACT_CAP`, were ranked exactly at once,
            "index" when the vector index's over-fetch answered, "exact" when the caller's
            rows were ranked exactly after it did not).
        """
        base = self._vector_params(scope, vector, model, as_of)
        if self._vectors is not None and not scope.shared:
            cached = self._semantic_cached(scope, vector, model, as_of, limit, base)
            if cached is not None:
                return cached
        if exact_cap > 0 and not self._known_big(scope.owner, model, exact_cap):
            small = self._rows(sc.SEMANTIC_SMALL, k=limit, cap=exact_cap, **base)[0]
            if small["complete"]:
                hits = [
                    Hit.of_record(row, e, score, as_of.known_at, text, score)
                    for row, e, score, text in small["hits"]
                ]
                return hits, "small"
        k = self._ann_hint(scope.owner, FACTS, ann_first(limit))
        rows = self._rows(sc.SEMANTIC_NEAREST, k=k, **base)
        more = deeper(k, len(rows), limit) if len(rows) < limit else None
        if more is not None:
            k, rows = more, self._rows(sc.SEMANTIC_NEAREST, k=more, **base)
        if len(rows) >= limit:
            self._ann_learned(scope.owner, FACTS, k, ann_first(limit))
            return [_scored(r, as_of) for r in rows[:limit]], "index"
        rows = self._rows(sc.SEMANTIC_EXACT, k=limit, **base)
        return [_scored(r, as_of) for r in rows], "exact"

    def _semantic_cached(
        self,
        scope: Scope,
        vector: list[float],
        model: str,
        as_of: AsOf,
        limit: int,
        base: dict[str, Any],
    ) -> tuple[list[Hit], str] | None:
        """`semantic` from the owner's vectors held in this process; None when they are
        not held (unknown owner, or too big to cache)."""
        picks = self._cache_picks(scope, model, FACTS, vector, as_of, limit)
        if picks is None:
            return None
        candidates, visible = picks
        rows = (
            self._rows(vc.NEAREST_OF, candidates=candidates, k=limit, **base) if candidates else []
        )
        return self._fact_checked(rows, candidates, visible, limit, as_of, base)

    def _fact_checked(
        self,
        rows: list[Any],
        candidates: list[dict[str, Any]],
        visible: int,
        limit: int,
        as_of: AsOf,
        base: dict[str, Any],
    ) -> tuple[list[Hit], str]:
        """The hits of the candidates the store kept (`rows`, NEAREST_OF's columns), or of
        the exact ranking when they cannot be told complete."""
        # Complete when enough candidates pass the scope's filter (every row left out is
        # farther than each candidate), or when every visible row was one.
        if len(rows) >= limit or len(candidates) == visible:
            return [_scored(r, as_of) for r in rows], "cache"
        exact = self._rows(sc.SEMANTIC_EXACT, **{**base, "k": limit})
        return [_scored(r, as_of) for r in exact], "exact"

    def fulltext(
        self,
        scope: Scope,
        text: str,
        as_of: AsOf,
        limit: int,
        vector: list[float] | None = None,
        model: str | None = None,
    ) -> list[Hit]:
        """Return the `limit` best full-text hits for the words of `text` that `scope`
        sees at `as_of`, best first, ties by fact id (empty when `text` has no word),
        each with its similarity to `vector` when one is given (of `model`).

        Reads only Lucene's `fulltext_scan(limit)` best hits (FULLTEXT_TOP), so its cost
        does not grow with the owner's rows; when fewer than `limit` of those are visible
        at `as_of` and Lucene had more, it reads them all (FULLTEXT)."""
        query = lucene_query(text, scope)
        if query is None:
            return []
        rows = self._best_rows(
            sc.FULLTEXT_TOP,
            sc.FULLTEXT,
            limit,
            fulltext_scan(limit),
            lucene=query,
            valid_at=as_of.valid_at,
            known_at=as_of.known_at,
            vector=vector,
            model=model,
            **params(scope),
        )
        return [_texted(r, as_of) for r in rows]


def _texted(r: Any, as_of: AsOf) -> Hit:
    """A hit of a full-text query of fact rows (FULLTEXT's columns)."""
    return Hit.of_record(r["row"], r["e"], r["score"], as_of.known_at, r["text"], r["semantic"])


def _scored(r: Any, as_of: AsOf) -> Hit:
    """A hit of a semantic query (its score is the similarity)."""
    return Hit.of_record(r["row"], r["e"], r["score"], as_of.known_at, r["text"], r["score"])
