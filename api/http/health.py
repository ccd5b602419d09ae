"""`/healthz` and `/readyz`, answered within 1 s whatever the store does (CONTRACT §15)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from api.http import errors
from api.http.bounded import DeadlineMissed, Overloaded
from api.http.settings import Settings


def install(app: FastAPI, settings: Settings) -> None:
    """Register the two health routes on `app` (they use `app.state.health_pool`,
    `health_reader` and `warmer`)."""

    async def store_answers() -> str | None:
        """None when Neo4j ran `RETURN 1` within the health timeout, else why not."""
        try:
            await app.state.health_pool.call(
                settings.health_timeout_seconds, app.state.health_reader.ping
            )
        except (DeadlineMissed, Overloaded):
            return f"the store did not answer within {settings.health_timeout_seconds:.1f} s"
        except Exception as exc:  # any failure of the store means "not healthy"
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
