"""Prefetch (push): the Known World State block for one message (CONTRACT §6).

Never a 5xx: past the deadline, or on any failure of the store, it answers 200 with an
empty block and `"degraded": true` (CONTRACT §6 "Memory never breaks a run"). The
deadline is kept on the wall clock, whatever the driver does: the token check and the
reads run in a bounded pool (api/http/bounded.py) and the route stops waiting at the
deadline, so a store that hangs or is gone costs a turn at most its deadline. A
token this process has not verified before, with the store gone, cannot be checked in
time: that turn is degraded too (an empty block reveals nothing). A chat
whose memory access is `none` gets an empty block, not degraded (CONTRACT §7). A turn
past its deadline has the warmer run its arguments once without one, so a query shape
that needed planning is served from then on (api/chat/prefetch/warm.py). When the
pool's queue is long, a turn is answered degraded at once rather than after waiting out
its deadline (admission control, api/http/bounded.py `Shed`); every degraded answer is
counted by reason on `/metrics` (api/http/metrics.py), and logged at most once per reason
every 10 s (api/http/throttle.py), so an overload does not flood the log.
"""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request

from api.chat.prefetch import block as prefetch
from api.http.bounded import DeadlineMissed, Overloaded, Shed
from api.http.deps import BearerDep, authenticate_request, cached_principal, has_scope
from api.http.metrics import PrefetchCounters
from api.http.schemas.core import PrefetchIn, PrefetchOut
from api.http.throttle import ThrottledLog
from graph.errors import Forbidden, QueryTimedOut, StoreUnavailable, TooBusy, Unauthenticated
from graph.time import to_utc, utcnow

router = APIRouter(prefix="/v1", tags=["prefetch"])
log = logging.getLogger("worldstate.prefetch")


@router.post("/prefetch", response_model=PrefetchOut)
async def post_prefetch(body: PrefetchIn, request: Request, _: BearerDep) -> PrefetchOut:
    """Return `{block, items, degraded}` for `message` as of `at` (default now).

    Body: `{chat_id, message, at?, max_chars?, max_items?, project?}`. The block is headed
    `## Known World State`, at most `max_chars` characters (default 2,000,
    `WORLDSTATE_PREFETCH_MAX_CHARS`) and `max_items` lines (default 40); what does not
    fit is cut by rank, whole lines only. Each item: `rank`, `section`
    (`preferences`|`mentioned`|`recent events`|`notes`), `kind`
    (`preference`|`entity`|`fact`|`relationship`|`event`|`note`|`notes_due`), `line`, and
    the fact's `fact_id`, `entity_id`, `attribute`, `value`, `object_id`, `valid_from`,
    `valid_to`, `recorded_at` (UTC), `source`, `tag` (a note's: `note_id`, `note_kind`,
    `title`, `key`, `status`, `valid_from`, `source`, `tag`; the due line's: `count`).
    `at` is a point on both time axes. `project`: the project the turn works on; its
    notes stand before the general notes of their key (CONTRACT §13).
    Deadline: `WORLDSTATE_PREFETCH_DEADLINE_MS` (150 ms), plus at most 50 ms.
    Needs scope `read` (401, 403 and 429 as every route).
    """
    settings = request.app.state.settings
    counters = request.app.state.prefetch_counters
    throttled: ThrottledLog = request.app.state.prefetch_log
    at = utcnow() if body.at is None else to_utc(body.at, "at")
    max_chars = body.max_chars or settings.prefetch_max_chars
    max_items = body.max_items or settings.prefetch_max_items
    owners: list[str] = []

    def turn() -> prefetch.Prefetch:
        reader = request.app.state.prefetch_reader
        owners.append(has_scope(authenticate_request(request, reader), "read"))
        return prefetch.build(
            reader,
            owners[0],
            body.chat_id,
            body.message,
            at,
            max_chars,
            max_items,
            body.project,
        )

    try:
        answer = await request.app.state.prefetch_pool.call(
            settings.prefetch_deadline_ms / 1000, turn
        )
    except (Unauthenticated, Forbidden, TooBusy):
        raise
    except (DeadlineMissed, QueryTimedOut):  # ours, or the transaction's (same deadline)
        replan = None
        known = cached_principal(request)
        owner = (
            owners[0]
            if owners
            else known.owner
            if known and known.scopes & {"read", "admin"}
            else None
        )
        if owner is not None:
            replan = request.app.state.warmer.replan(
                owner, body.chat_id, body.message, at, max_chars, max_items, body.project
            )
        throttled.warning(
            "deadline",
            "prefetch past its deadline; answering degraded%s",
            "; planning its shape in the background" if replan else "",
        )
        return _degraded(counters, "deadline")
    except Shed as exc:  # no log line per turn: under load they would flood; /metrics counts
        log.debug("prefetch shed at once: %s", exc)
        return _degraded(counters, "shed")
    except Overloaded:
        throttled.warning(
            "overloaded", "prefetch: every place is held by calls still running; answering degraded"
        )
        return _degraded(counters, "overloaded")
    except StoreUnavailable:
        throttled.warning("store", "prefetch: the store cannot be reached; answering degraded")
        return _degraded(counters, "store")
    except Exception:
        log.exception("prefetch failed; answering degraded")
        return _degraded(counters, "error")
    counters.count()
    return PrefetchOut(block=answer.block, items=answer.items, degraded=False)


def _degraded(counters: PrefetchCounters, reason: str) -> PrefetchOut:
    """Count a degraded turn by reason; return its empty block."""
    counters.count(degraded=reason)
    return PrefetchOut(block="", items=[], degraded=True)
