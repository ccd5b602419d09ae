"""`create_app(settings)`: the FastAPI application (STYLE: settings built here, never at import)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from neo4j import Driver

from api.chat.prefetch.warm import Warmer
from api.chat.routes import prefetch as prefetch_route
from api.chat.routes import pull, search
from api.http import errors
from api.http.abuse import AbuseLimits
from api.http.bounded import BoundedCalls, DeadlineMissed, Overloaded, StoreDeadline
from api.http.deps import PrincipalDep, TokenCache
from api.http.limits import BodyLimit
from api.http.routes import (
    audit,
    entities,
    facts,
    groups,
    memory_access,
    merges,
    notifications,
    owners,
    proposals,
    runs,
    splits,
    syncs,
)
from api.http.settings import Settings
from committer.apply import Committer
from curator.worker import CuratorWorker
from graph.embedding import build_embedder, warm
from graph.read.reader import Reader
from graph.schema import ensure_schema

log = logging.getLogger("worldstate.api")


def create_app(settings: Settings, driver: Driver) -> FastAPI:
    """Build the API over a connected driver.

    Args:
        settings: this process's settings.
        driver: a driver to a running Neo4j (the caller owns and closes it).

    Returns:
        The app. On start-up it creates the schema idempotently, loads the embedder
        (`WORLDSTATE_EMBEDDER`, graph/embedding.py) and, unless
        `WORLDSTATE_CURATOR_IN_PROCESS=false`, starts a curator worker thread.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        ensure_schema(driver, settings.neo4j_database, vector_dimensions=settings.vector_dimensions)
        warm(app.state.embedder)
        warmer = app.state.warmer
        warmer.start()
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

    app = FastAPI(
        title="worldstate",
        version="0.1.0",
        lifespan=lifespan,
        description="A bitemporal memory service for AI assistants.",
    )
    app.state.settings = settings
    policy = settings.retry_policy()
    app.state.reader = Reader(driver, settings.neo4j_database, policy=policy)
    app.state.prefetch_reader = Reader(
        driver, settings.neo4j_database, retry=False, timeout=settings.prefetch_deadline_ms / 1000
    )
    app.state.embedder = build_embedder(settings)
    app.state.committer = Committer(driver, settings.neo4j_database, app.state.embedder, policy)
    app.state.token_cache = TokenCache(app.state.reader)
    app.state.abuse = AbuseLimits(settings.rate_limit_per_minute, settings.bad_tokens_per_minute)
    # Prefetch and health checks wait on the wall clock (api/http/bounded.py): 8 threads,
    # at most 64 calls queued or still running (abandoned ones included).
    app.state.prefetch_pool = BoundedCalls(workers=8, max_pending=64, name="prefetch")
    app.state.health_pool = BoundedCalls(workers=2, max_pending=8, name="health")
    app.state.health_reader = Reader(driver, settings.neo4j_database, retry=False)
    # The warmer's reader shares prefetch's pool but has no deadline: planning
    # prefetch's query takes longer than a turn may (api/chat/prefetch/warm.py).
    app.state.warmer = Warmer(
        Reader(driver, settings.neo4j_database, retry=False), settings.prefetch_keepalive_seconds
    )
    errors.install(app)

    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(StoreDeadline, seconds=settings.request_store_seconds)

    async def store_answers() -> str | None:
        """None when Neo4j ran `RETURN 1` within the health timeout, else why not."""
        try:
            await app.state.health_pool.call(
                settings.health_timeout_seconds, app.state.health_reader.ping
            )
        except (DeadlineMissed, Overloaded):
            return f"the store did not answer within {settings.health_timeout_seconds:.1f} s"
        except Exception as exc:  # noqa: BLE001 - any failure of the store means "not healthy"
            return f"the store cannot be reached ({type(exc).__name__})"
        return None

    @app.get("/healthz", tags=["health"])
    async def healthz() -> JSONResponse:
        """Liveness and store reachability, answered within 1 s (CONTRACT §15): 200
        `{status: "ok"}`, or 503 problem+json when Neo4j did not answer `RETURN 1` within
        `WORLDSTATE_HEALTH_TIMEOUT_SECONDS` (0.8 s)."""
        why = await store_answers()
        if why is not None:
            return errors.problem(503, "Store unavailable", why)
        return JSONResponse({"status": "ok"})

    @app.get("/readyz", tags=["health"])
    async def readyz() -> JSONResponse:
        """Readiness, answered within 1 s: 200 `{status: "ready"}` once prefetch's warm-up
        has answered at least once (api/chat/prefetch/warm.py) and Neo4j answers now;
        else 503 problem+json saying which is missing."""
        if not app.state.warmer.warmed:
            return errors.problem(503, "Not ready", "prefetch's warm-up has not finished yet")
        why = await store_answers()
        if why is not None:
            return errors.problem(503, "Not ready", why)
        return JSONResponse({"status": "ready"})

    @app.get("/v1/me", tags=["health"])
    def me(principal: PrincipalDep) -> JSONResponse:
        """The caller as its token says: `{owner, scopes}` (any valid token)."""
        return JSONResponse({"owner": principal.owner, "scopes": sorted(principal.scopes)})

    for module in (
        entities,
        facts,
        pull,
        search,
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
        owners,
    ):
        app.include_router(module.router)
    return app
