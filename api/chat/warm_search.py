"""Plan search's queries before a user's first search (CONTRACT §6 "Pull"; issue 17 "Under
load").

Neo4j plans a query on first use. Right after start-up, the first search on a fresh store
waited 2.3-2.8 s through `serve` on an idle machine (5.6 s without prefetch's warm-up
before it), about 8 s under 50 clients (bench/load.py: the whole of search's p99 in that
run), where later ones took 0.1-0.3 s; after this warm-up, 0.5 s (its owner's vectors
still load into the cache, and the store's pages into memory).

`start_warm_up` runs, in a daemon thread once start-up is done, one search for nobody
(api/chat/prefetch/warm.py `WARM_OWNER`) through the API's own reader, with a stand-in for
its embedder (same model id and vector size, never calling it), which plans the
full-text queries, the cache key and the semantic fallbacks, and then the queries of the
vector cache's path, which a search for nobody never reaches (graph/read/recall.py
`plan_recall`). It runs off the time to ready: `/readyz` waits for
prefetch's warm-up only. Read-only.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from api.chat.prefetch.warm import WARM_MESSAGE, WARM_OWNER
from api.chat.search import search
from graph.embedding import Embedder
from graph.read.reader import Reader
from graph.scope import Scope
from graph.time import AsOf

log = logging.getLogger("worldstate.search")


@dataclass(frozen=True, slots=True)
class _StandIn:
    """An embedder with the configured one's model id and size that never calls it: the
    warm-up needs parameters of a real search's shapes, not a real vector, and an endpoint
    (`WORLDSTATE_EMBEDDER=openai`) is not asked for one at every start."""

    model: str
    dimensions: int

    def warm(self) -> None:
        """Nothing to load."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text (the first axis)."""
        return [[1.0] + [0.0] * (self.dimensions - 1) for _ in texts]


def warm_up(reader: Reader, embedder: Embedder | None) -> bool:
    """Run one search for nobody through `reader`, as a search with `embedder` would run
    (its model id and vector size; the embedder itself is never called), then plan the
    read of the messages next to a search's best results (`Reader.episodes_at`: nobody
    has any) and the vector cache's queries; return True when all answered. A failure (the store
    unreachable, say) is logged, never raised: the first user's search then plans the
    queries itself."""
    stand_in = None if embedder is None else _StandIn(embedder.model, embedder.dimensions)
    try:
        now = AsOf.at()
        search(reader, stand_in, Scope(WARM_OWNER), WARM_MESSAGE, now, 10)
        vector = None if stand_in is None else stand_in.embed([WARM_MESSAGE])[0]
        model = None if stand_in is None else stand_in.model
        with reader.snapshot() as snap:
            # nobody's search has no best results, so it never read the messages next to them
            snap.episodes_at(Scope(WARM_OWNER), [(WARM_OWNER, 0)], now, vector, model)
            if stand_in is not None and vector is not None:
                snap.plan_recall(WARM_OWNER, vector, stand_in.model, now)
    except Exception:
        log.warning("search warm-up failed; the first search will plan its queries", exc_info=True)
        return False
    return True


def start_warm_up(reader: Reader, embedder: Embedder | None) -> threading.Event:
    """Start `warm_up` in a daemon thread; return an event set when it has ended (answered
    or failed)."""
    done = threading.Event()

    def run() -> None:
        try:
            warm_up(reader, embedder)
        finally:
            done.set()

    threading.Thread(target=run, name="search-warm-up", daemon=True).start()
    return done
