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
from graph.scope import Scope, params
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
        base = {
            "vector": vector,
            "model": model,
            "valid_at": as_of.valid_at,
            "known_at": as_of.known_at,
            **params(scope),
        }
        found: Any = {"facts": [], "episodes": []}
        if facts[0] or said[0]:
            found = self._rows(
                vc.NEAREST_OF_BOTH, candidates=facts[0], episode_candidates=said[0], k=k, **base
            )[0]
        return (
            self._fact_checked(found["facts"], facts[0], facts[1], k, as_of, base),
            self._episode_checked(found["episodes"], said[0], said[1], k, {**base, "k": k}),
        )
