"""`create_app(settings)`: the FastAPI application (STYLE: settings built here, never at import)."""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.responses import JSONResponse
from neo4j import Driver

from api.chat.prefetch.warm import Warmer
from api.chat.routes import history, pull, search
from api.chat.routes import prefetch as prefetch_route
from api.chat.warm_search import start_warm_up
from api.http import errors, health, metrics, openapi
from api.http.abuse import AbuseLimits
from api.http.bookmarks import BookmarkHeaders
from api.http.bounded import BoundedCalls, StoreDeadline
from api.http.deps import PrincipalDep, TokenCache
from api.http.limits import BodyLimit
from api.http.query import known_query_only
from api.http.routes import (
    audit,
    entities,
    episodes,
    facts,
    groups,
    knowledge,
    memory,
    memory_access,
    merges,
    notes,
    notifications,
    owners,
    proposals,
    runs,
    splits,
    state,
    syncs,
    usage,
)
from api.http.settings import Settings
from api.http.throttle import ThrottledLog
from api.notes.limits import NoteLimits
from api.web import mount as mount_memory_page
from committer.apply import Committer
from curator.worker import CuratorWorker
from graph.driver import connect
from graph.embedding import build_embedder, warm
from graph.read.reader import Reader
from graph.read.vectors import VectorCache
from graph.schema import ensure_schema

log = logging.getLogger("worldstate.api")


def app_from_environment() -> FastAPI:
    """The app of one API process of `worldstate serve --workers N` (uvicorn's factory).

    Each worker process builds its own settings (the environment `serve` set: `NEO4J_URI`
    of the Neo4j the parent started or was given) and its own driver, closed when the app
    stops. The schema is already in place: the parent made it before starting the workers.

    Returns:
        The app, owning its driver.
    """
    settings = Settings()
    if not settings.neo4j_uri:
        raise RuntimeError("serve --workers: NEO4J_URI must be set for the worker processes")
    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
    driver = connect(settings.neo4j_uri, settings.neo4j_user, password, settings.store_timeouts())
    return create_app(settings, driver, owns_driver=True, schema_ready=True)


def _freeze_startup_heap() -> None:
    """Move everything start-up allocated (modules, the model, the app) out of the
    collector's reach (`gc.freeze`), so a full collection walks only what requests made.

    Found by tests/faults/test_outage.py: a full collection over the start-up heap paused
    the event loop for about 200 ms in the middle of a burst of prefetches, so turns that
    failed fast were answered past their deadline (CONTRACT §6: deadline plus 50 ms)."""
    gc.collect()
    gc.freeze()


def _get_ready(app: FastAPI, settings: Settings, driver: Driver, *, schema_ready: bool) -> Warmer:
    """Start-up before serving: the schema (unless `schema_ready`), the embedder, then
    prefetch's warm-up; logs the time to ready. Returns the started warmer."""
    began = time.monotonic()
    if not schema_ready:
        ensure_schema(driver, settings.neo4j_database, vector_dimensions=settings.vector_dimensions)
    schema_done = time.monotonic()
    warm(app.state.embedder)
    embedder_done = time.monotonic()
    warmer: Warmer = app.state.warmer
    warmer.start()
    _freeze_startup_heap()
    # search plans its queries in the background, off the time to ready
    app.state.search_warm_up = start_warm_up(app.state.reader, app.state.embedder)
    log.info(
        "ready in %.1f s (schema %s, embedder %.1f s, prefetch warm-up %.1f s)%s",
        time.monotonic() - began,
        "made before" if schema_ready else f"{schema_done - began:.1f} s",
        embedder_done - schema_done,
        time.monotonic() - embedder_done,
        "" if warmer.warmed else "; the warm-up failed: /readyz answers 503 until it answers",
    )
    return warmer


def create_app(
    settings: Settings, driver: Driver, *, owns_driver: bool = False, schema_ready: bool = False
) -> FastAPI:
    """Build the API over a connected driver.

    Args:
        settings: this process's settings.
        driver: a driver to a running Neo4j (the caller owns and closes it, unless
            `owns_driver`: then the app closes it when it stops).
        owns_driver: close `driver` when the app stops.
        schema_ready: the caller has just run `ensure_schema` on this driver (`serve`
            does, in `open_store`; with `--workers`, the parent), so start-up skips it.

    Returns:
        The app. On start-up it creates the schema idempotently, loads the embedder
        (`WORLDSTATE_EMBEDDER`, graph/embedding/; a model file failing its sha256 check
        stops the start-up) and, unless
        `WORLDSTATE_CURATOR_IN_PROCESS=false`, starts a curator worker thread.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        warmer = _get_ready(app, settings, driver, schema_ready=schema_ready)
        worker = CuratorWorker.from_settings(app.state.committer, settings, app.state.reader)
        if settings.curator_in_process:
            worker.start()
        app.state.curator = worker
        try:
            yield
        finally:
            worker.stop()
            warmer.stop()
            app.state.prefetch_pool.shutdown()
            app.state.health_pool.shutdown()
            if owns_driver:
                driver.close()
            gc.unfreeze()  # what start-up froze is collectable again once the app stops

    app = FastAPI(
        title="worldstate",
        version="0.1.0",
        lifespan=lifespan,
        description="A bitemporal memory service for AI assistants.",
        # every `/v1` route refuses a query parameter it does not declare (CONTRACT §9)
        dependencies=[Depends(known_query_only)],
    )
    app.state.settings = settings
    policy = settings.retry_policy()
    vectors = (
        VectorCache(settings.search_cache_rows, settings.search_cache_owner_rows)
        if settings.search_cache_rows > 0
        else None
    )
    app.state.reader = Reader(driver, settings.neo4j_database, policy=policy, vectors=vectors)
    app.state.prefetch_reader = Reader(
        driver, settings.neo4j_database, retry=False, timeout=settings.prefetch_deadline_ms / 1000
    )
    app.state.embedder = build_embedder(settings)
    app.state.committer = Committer(driver, settings.neo4j_database, app.state.embedder, policy)
    app.state.committer.note_limit = settings.notes_max_per_owner
    app.state.note_limits = NoteLimits.from_settings(settings)
    app.state.token_cache = TokenCache(app.state.reader)
    app.state.abuse = AbuseLimits(settings.rate_limit_per_minute, settings.bad_tokens_per_minute)
    _pools(app, settings)
    app.state.health_reader = Reader(driver, settings.neo4j_database, retry=False)
    # The warmer's reader shares prefetch's pool but has no deadline: planning
    # prefetch's query takes longer than a turn may (api/chat/prefetch/warm.py).
    app.state.warmer = Warmer(
        Reader(driver, settings.neo4j_database, retry=False),
        settings.prefetch_keepalive_seconds,
        max_chars=settings.prefetch_max_chars,
        max_items=settings.prefetch_max_items,
    )
    errors.install(app)

    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(StoreDeadline, seconds=settings.request_store_seconds)
    app.add_middleware(BookmarkHeaders)

    health.install(app, settings)
    metrics.install(app)

    @app.get("/v1/me", tags=["health"])
    def me(principal: PrincipalDep) -> JSONResponse:
        """The caller as its token says: `{owner, scopes}` (any valid token)."""
        return JSONResponse({"owner": principal.owner, "scopes": sorted(principal.scopes)})

    for module in (
        entities,
        facts,
        pull,
        search,
        history,
        runs,
        syncs,
        prefetch_route,
        memory_access,
        proposals,
        notifications,
        merges,
        splits,
        groups,
        audit,
        knowledge,
        state,
        usage,
        episodes,
        owners,
        notes,
        memory,
    ):
        app.include_router(module.router)
    mount_memory_page(app)
    openapi.install(app)
    return app


def _pools(app: FastAPI, settings: Settings) -> None:
    """Prefetch's and the health checks' bounded pools, and prefetch's counters."""
    # Prefetch and health checks wait on the wall clock (api/http/bounded.py): 8 threads,
    # at most 64 calls queued or still running (abandoned ones included); a turn that would
    # wait out its deadline in the queue is answered degraded at once (admission control).
    app.state.prefetch_pool = BoundedCalls(
        workers=settings.prefetch_threads,
        max_pending=64,
        name="prefetch",
        max_queued=settings.prefetch_max_queued,
    )
    app.state.prefetch_counters = metrics.PrefetchCounters()
    # degraded turns under load would log one line each: one per reason per 10 s instead
    app.state.prefetch_log = ThrottledLog(logging.getLogger("worldstate.prefetch"))
    app.state.health_pool = BoundedCalls(workers=2, max_pending=8, name="health")
