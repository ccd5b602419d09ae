"""Plan search's queries before a user's first search (CONTRACT §6 "Pull"; issue 17 "Under
load").

Neo4j plans a query on first use. Right after start-up, the first search on a fresh store
waited 2.3-2.8 s through `serve` on an idle machine (5.6 s without prefetch's warm-up
before it), about 8 s under 50 clients (bench/load.py: the whole of search's p99 in that
run), where later ones took 0.1-0.3 s; after this warm-up, 0.5 s (its owner's vectors
still load into the cache, and the store's pages into memory).
`start_warm_up` runs, in a daemon thread once start-up is done, one search for nobody
(api/chat/prefetch/warm.py `WARM_OWNER`) through the API's own reader and embedder, which
plans the full-text queries, the cache key and the semantic fallbacks, and then the
queries of the vector cache's path, which a search for nobody never reaches
(graph/read/recall.py `plan_recall`). It runs off the time to ready: `/readyz` waits for
prefetch's warm-up only. Read-only.
"""

from __future__ import annotations

import logging
import threading

from api.chat.prefetch.warm import WARM_MESSAGE, WARM_OWNER
from api.chat.search import search
from graph.embedding import Embedder
from graph.read.reader import Reader
from graph.scope import Scope
from graph.time import AsOf

log = logging.getLogger("worldstate.search")


def warm_up(reader: Reader, embedder: Embedder | None) -> bool:
    """Run one search for nobody through `reader` and `embedder`, then plan the vector
    cache's queries (with an embedder); return True when both answered. A failure (the
    store unreachable, the embedder failing) is logged, never raised: the first user's
    search then plans the queries itself."""
    try:
        now = AsOf.at()
        search(reader, embedder, Scope(WARM_OWNER), WARM_MESSAGE, now, 10)
        if embedder is not None:
            vector = embedder.embed([WARM_MESSAGE])[0]
            with reader.snapshot() as snap:
                snap.plan_recall(WARM_OWNER, vector, embedder.model, now)
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
