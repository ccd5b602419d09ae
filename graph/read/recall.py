"""A search's candidate lists, fact rows' and episodes', semantic and full-text, in as few
round trips as the store allows (CONTRACT §6 "Pull", §12).

A mixin of `graph.read.reader.Reader`: READ transactions only. When this process holds the
owner's fact and episode vectors (graph/read/vectors.py), their candidates are checked by
the store together (graph/cypher/vectors.py NEAREST_OF_BOTH) instead of one query each,
and `recall` reads both full-text lists and the owner's cache key in that same query
(graph/cypher/recall.py RECALL_LISTS): candidates taken from the vectors held are checked
against the key there, and taken again when the store moved on. The hits, their scores
and their order are those of `semantic`, `episode_semantic`, `fulltext` and
`episode_fulltext`, which answer every other case (no cache, shared entities, an owner
too big to cache, no vector).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph.cypher import episodes as pc
from graph.cypher import search as sc
from graph.cypher import vectors as vc
from graph.cypher.recall import RECALL_LISTS
from graph.read.base import picks_of
from graph.read.episodes import EpisodeHit, EpisodeReads, episode_lucene
from graph.read.episodes import _hit as _said
from graph.read.search import Hit, SearchReads, _texted, fulltext_scan, lucene_query
from graph.read.vectors import EPISODES, FACTS, OwnerVectors
from graph.scope import Scope
from graph.time import AsOf

WARM_WORDS = "warm up"
"""What `plan_recall`'s full-text lists look for (no owner's words: its owner holds nothing)."""

Picks = tuple[list[dict[str, Any]], int]
"""The cache's candidates of one kind ([{id, score}]) and how many of its held ones are
visible (graph.read.base `_cache_picks`)."""


@dataclass(frozen=True, slots=True)
class Recalled:
    """A search's four candidate lists, each best first, ties by id.

    Attributes:
        fact_near: fact rows nearest the query's vector (`semantic`), empty without one.
        fact_text: full-text hits among fact rows (`fulltext`).
        said_near: episodes nearest the query's vector (`episode_semantic`).
        said_text: full-text hits among episodes (`episode_fulltext`).
    """

    fact_near: list[Hit]
    fact_text: list[Hit]
    said_near: list[EpisodeHit]
    said_text: list[EpisodeHit]


class RecallReads(SearchReads, EpisodeReads):
    """The candidate lists of `GET /v1/search`."""

    def recall(
        self,
        scope: Scope,
        text: str,
        as_of: AsOf,
        k: int,
        vector: list[float] | None = None,
        model: str | None = None,
    ) -> Recalled:
        """Return the four lists a search of `text` fuses, `k` of each: `fulltext` and
        `episode_fulltext` of `text` (with each hit's similarity to `vector`), and
        `nearest` to `vector` (none without a vector), the same hits in the same order
        with the same scores, in one query when the owner's vectors are held in this
        process and `text` has words.

        Args:
            scope: who reads (graph/scope.py).
            text: the query's text.
            as_of: the point on both axes (CONTRACT §2, §12).
            k: how many of each list.
            vector: the query's embedding, by the embedder named `model`, or None.
            model: the embedder's model id, or None.

        Raises:
            StoreUnavailable: Neo4j could not be reached.
        """
        if vector is None or model is None:
            return Recalled(
                [],
                self.fulltext(scope, text, as_of, k),
                [],
                self.episode_fulltext(scope, text, as_of, k),
            )
        lucene, said_lucene = lucene_query(text, scope), episode_lucene(text, scope.owner)
        worded = lucene is not None and said_lucene is not None
        held = self._held(scope, model) if worded else None
        if held is not None:  # the key is checked in RECALL_LISTS itself
            picks: tuple[Picks, Picks] | None = (
                picks_of(held[1], vector, as_of, k, scope),
                picks_of(held[2], vector, as_of, k, scope),
            )
        else:
            picks = self._picks(scope, vector, model, as_of, k)
        if picks is None or lucene is None or said_lucene is None:
            fact_text = self.fulltext(scope, text, as_of, k, vector, model)
            said_text = self.episode_fulltext(scope, text, as_of, k, vector, model)
            (fact_near, _), (said_near, _) = self._nearest(picks, scope, vector, model, as_of, k)
            return Recalled(fact_near, fact_text, said_near, said_text)
        (facts, fact_visible), (said, said_visible) = picks
        scan = fulltext_scan(k)
        base = self._vector_params(scope, vector, model, as_of)
        found = self._rows(
            RECALL_LISTS,
            candidates=facts,
            episode_candidates=said,
            k=k,
            scan=scan,
            lucene=lucene,
            episode_lucene=said_lucene,
            **base,
        )[0]
        fact_text = self._or_every(
            found["fact_text"], found["fact_scanned"], sc.FULLTEXT, k, scan, lucene=lucene, **base
        )
        said_text = self._or_every(
            found["said_text"],
            found["said_scanned"],
            pc.EPISODES_FULLTEXT,
            k,
            scan,
            lucene=said_lucene,
            **base,
        )
        if held is not None:
            key = None if found["rev"] is None else (found["last_tx"], int(found["rev"]))
            self._keys[scope.owner] = key
            if key != held[0]:  # the store moved on: the candidates again, as of its key
                (fact_near, _), (said_near, _) = self.nearest(scope, vector, model, as_of, k)
                return Recalled(
                    fact_near,
                    [_texted(r, as_of) for r in fact_text],
                    said_near,
                    [_said(r) for r in said_text],
                )
        fact_near, _ = self._fact_checked(found["facts"], facts, fact_visible, k, as_of, base)
        said_near, _ = self._episode_checked(
            found["episodes"], said, said_visible, k, {**base, "k": k}
        )
        return Recalled(
            fact_near,
            [_texted(r, as_of) for r in fact_text],
            said_near,
            [_said(r) for r in said_text],
        )

    def nearest(
        self, scope: Scope, vector: list[float], model: str, as_of: AsOf, k: int
    ) -> tuple[tuple[list[Hit], str], tuple[list[EpisodeHit], str]]:
        """Return `semantic(scope, vector, model, as_of, k)` and `episode_semantic(scope,
        vector, model, as_of, k)`, the same hits in the same order with the same scores,
        in one round trip when both kinds are held in this process.

        Args:
            scope: who reads (graph/scope.py).
            vector: the query's embedding, by the embedder named `model`.
            model: only rows and episodes embedded by this model are compared.
            as_of: the point on both axes (CONTRACT §2, §12).
            k: how many of each.

        Returns:
            ((fact hits, how), (episode hits, how)), each as its own method answers it.
        """
        picks = self._picks(scope, vector, model, as_of, k)
        return self._nearest(picks, scope, vector, model, as_of, k)

    def _held(
        self, scope: Scope, model: str
    ) -> tuple[tuple[Any, int], OwnerVectors, OwnerVectors] | None:
        """(their key, fact rows, episodes) when this process holds the owner's vectors of
        both kinds at one key, and this snapshot has not read the owner's key yet: `recall`
        then takes its candidates from them at once and reads the key in RECALL_LISTS
        itself (one round trip fewer), checking them against it. None otherwise (no
        cache, no snapshot, shared entities, an owner not held or too big)."""
        cache, owner = self._vectors, scope.owner
        if cache is None or self._tx is None or scope.shared or owner in self._keys:
            return None
        if cache.too_big(owner, model, FACTS) or cache.too_big(owner, model, EPISODES):
            return None
        facts = self._cached(cache, owner, model, FACTS)
        said = self._cached(cache, owner, model, EPISODES)
        if facts is None or said is None or (facts.last_tx, facts.rev) != (said.last_tx, said.rev):
            return None
        return (facts.last_tx, facts.rev), facts, said

    def _picks(
        self, scope: Scope, vector: list[float], model: str, as_of: AsOf, k: int
    ) -> tuple[Picks, Picks] | None:
        """The cache's candidates of both kinds for `k` hits of each, or None when it does
        not hold both (no cache, shared entities, an owner too big to cache)."""
        cached = self._vectors is not None
        facts = (
            self._cache_picks(scope, model, FACTS, vector, as_of, k)
            if cached and not scope.shared
            else None
        )
        said = self._cache_picks(scope, model, EPISODES, vector, as_of, k) if cached else None
        return None if facts is None or said is None else (facts, said)

    def _nearest(
        self,
        picks: tuple[Picks, Picks] | None,
        scope: Scope,
        vector: list[float],
        model: str,
        as_of: AsOf,
        k: int,
    ) -> tuple[tuple[list[Hit], str], tuple[list[EpisodeHit], str]]:
        """`nearest` from the cache's `picks` (`_picks`), or from `semantic` and
        `episode_semantic` when there are none."""
        if picks is None:
            return (
                self.semantic(scope, vector, model, as_of, k),
                self.episode_semantic(scope, vector, model, as_of, k),
            )
        facts, said = picks
        base = self._vector_params(scope, vector, model, as_of)
        found: Any = {"facts": [], "episodes": []}
        if facts[0] or said[0]:
            found = self._rows(
                vc.NEAREST_OF_BOTH, candidates=facts[0], episode_candidates=said[0], k=k, **base
            )[0]
        return (
            self._fact_checked(found["facts"], facts[0], facts[1], k, as_of, base),
            self._episode_checked(found["episodes"], said[0], said[1], k, {**base, "k": k}),
        )

    def plan_recall(self, owner: str, vector: list[float], model: str, as_of: AsOf) -> None:
        """Run each query the vector cache's path of a search runs, for `owner` (one that
        holds nothing: a warm-up's), with parameters of the shapes a real search passes:
        both kinds' count, load and update (graph/cypher/vectors.py `QUERIES`), and the
        check of both lists' candidates (NEAREST_OF_BOTH, with 100 ids that name nothing:
        a one-id list left the real check to plan again, 0.6 s), alone and with both
        full-text lists (RECALL_LISTS, for the words `WARM_WORDS`). Answers are empty and
        dropped. Neo4j plans a query on first use; this moves that cost off a user's first
        search (api/chat/warm_search.py). READ only.

        Raises:
            StoreUnavailable: Neo4j could not be reached.
        """
        for kind in (FACTS, EPISODES):
            queries = vc.QUERIES[kind]
            self._rows(queries.rows, owner=owner, limit=1)
            self._rows(queries.load, owner=owner, model=model, limit=1)
            self._rows(
                queries.since,
                owner=owner,
                model=model,
                since=as_of.known_at,
                last_tx=as_of.known_at,
            )
        pick = [{"id": f"\x00warm-up-{i}", "score": 0.0} for i in range(100)]
        base = self._vector_params(Scope(owner), vector, model, as_of)
        self._rows(vc.NEAREST_OF_BOTH, candidates=pick, episode_candidates=pick, k=1, **base)
        self._rows(
            RECALL_LISTS,
            candidates=pick,
            episode_candidates=pick,
            k=1,
            scan=fulltext_scan(1),
            lucene=lucene_query(WARM_WORDS, Scope(owner)),
            episode_lucene=episode_lucene(WARM_WORDS, owner),
            **base,
        )
