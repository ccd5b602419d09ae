"""Prefetch (push): the Known World State block for one message (CONTRACT §6).

Never a 5xx: past the deadline, or on any failure of the store, it answers 200 with an
empty block and `"degraded": true` (CONTRACT §6 "Memory never breaks a run"). A chat
whose memory access is `none` gets an empty block, not degraded (CONTRACT §7). A turn
past its deadline has the warmer run its arguments once without one, so a query shape
that needed planning is served from then on (api/chat/prefetch/warm.py).
"""

from __future__ import annotations

import logging
from concurrent.futures import TimeoutError as FutureTimeout

from fastapi import APIRouter, Request

from api.chat.prefetch import block as prefetch
from api.http.deps import ReadOwner
from api.http.schemas.core import PrefetchIn, PrefetchOut
from graph.errors import QueryTimedOut
from graph.time import to_utc, utcnow

router = APIRouter(prefix="/v1", tags=["prefetch"])
log = logging.getLogger("worldstate.prefetch")


@router.post("/prefetch", response_model=PrefetchOut)
def post_prefetch(body: PrefetchIn, owner: ReadOwner, request: Request) -> PrefetchOut:
    """Return `{block, items, degraded}` for `message` as of `at` (default now).

    Body: `{chat_id, message, at?, max_chars?, max_items?}`. The block is headed
    `## Known World State`, at most `max_chars` characters (default 2,000,
    `WORLDSTATE_PREFETCH_MAX_CHARS`) and `max_items` lines (default 40); what does not
    fit is cut by rank, whole lines only. Each item: `rank`, `section`
    (`preferences`|`mentioned`|`recent events`), `kind`
    (`preference`|`entity`|`fact`|`relationship`|`event`), `line`, and the fact's
    `fact_id`, `entity_id`, `attribute`, `value`, `object_id`, `valid_from`, `valid_to`,
    `recorded_at` (UTC), `source`, `tag`. `at` is a point on both time axes.
    Deadline: `WORLDSTATE_PREFETCH_DEADLINE_MS` (150 ms). Needs scope `read`.
    """
    settings = request.app.state.settings
    at = utcnow() if body.at is None else to_utc(body.at, "at")
    max_chars = body.max_chars or settings.prefetch_max_chars
    max_items = body.max_items or settings.prefetch_max_items
    future = request.app.state.prefetch_pool.submit(
        prefetch.build,
        request.app.state.prefetch_reader,
        owner,
        body.chat_id,
        body.message,
        at,
        max_chars,
        max_items,
    )
    try:
        answer = future.result(timeout=settings.prefetch_deadline_ms / 1000)
    except (FutureTimeout, QueryTimedOut):  # ours, or the transaction's (same deadline)
        future.cancel()
        replan = request.app.state.warmer.replan(
            owner, body.chat_id, body.message, at, max_chars, max_items
        )
        log.warning(
            "prefetch past its deadline; answering degraded%s",
            "; planning its shape in the background" if replan else "",
        )
        return PrefetchOut(block="", items=[], degraded=True)
    except Exception:
        log.exception("prefetch failed; answering degraded")
        return PrefetchOut(block="", items=[], degraded=True)
    return PrefetchOut(block=answer.block, items=answer.items, degraded=False)
