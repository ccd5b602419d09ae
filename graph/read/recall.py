"""Both semantic lists of a search, fact rows' and episodes', in one round trip (CONTRACT §6
"Pull", §12).

A mixin of `graph.read.reader.Reader`: READ transactions only. When this process holds the
owner's fact and episode vectors (graph/read/vectors.py), their candidates are checked by
the store together (graph/cypher/vectors.py NEAREST_OF_BOTH) instead of one query each;
the hits, their scores and their order are those of `semantic` and `episode_semantic`,
which answer every other case (no cache, shared entities, an owner too big to cache).
"""

from __future__ import annotations

from typing import Any

from graph.cypher import vectors as vc
from graph.read.episodes import EpisodeHit, EpisodeReads
from graph.read.search import Hit, SearchReads
from graph.read.vectors import EPISODES, FACTS
from graph.scope import Scope
from graph.time import AsOf


class RecallReads(SearchReads, EpisodeReads):
    """The semantic lists of `GET /v1/search`."""

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
        cached = self._vectors is not None
        owner = scope.owner
        facts = (
            self._cache_picks(owner, model, FACTS, vector, as_of, k)
            if cached and not scope.shared
            else None
        )
        said = self._cache_picks(owner, model, EPISODES, vector, as_of, k) if cached else None
        if facts is None or said is None:
            return (
                self.semantic(scope, vector, model, as_of, k),
                self.episode_semantic(scope, vector, model, as_of, k),
            )
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
        a one-id list left the real check to plan again, 0.6 s). Answers are empty and
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
        self._rows(
            vc.NEAREST_OF_BOTH,
            candidates=pick,
            episode_candidates=pick,
            k=1,
            **self._vector_params(Scope(owner), vector, model, as_of),
        )
