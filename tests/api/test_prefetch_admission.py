"""Admission control of prefetch under load (issue 17 "Under load"; CONTRACT §6): when
the prefetch pool's queue is long, a turn is answered degraded at once, not after
waiting out its deadline, and `/metrics` counts it."""

from __future__ import annotations

import re
import threading
from typing import Any

from api.http.bounded import BoundedCalls
from tests.api.conftest import Api
from tests.api.test_bounded import hold_calls

DEGRADED = {"block": "", "items": [], "degraded": True}


def metric(client: Any, name: str, reason: str | None = None) -> int:
    """The value of one counter on /metrics (this process's)."""
    text = client.get("/metrics").text
    label = "" if reason is None else f',reason="{reason}"'
    found = re.search(rf'^{name}\{{pid="\d+"{label}\}} (\d+)$', text, re.MULTILINE)
    assert found is not None, text
    return int(found.group(1))


def test_a_long_queue_answers_degraded_at_once_and_counts_it(api: Api, app: Any) -> None:
    """The pool's one thread is held and its queue (one place) is full: the next prefetch
    answers the empty degraded block with reason `shed`, not `deadline` (the test app's
    deadline is 2 s: it did not wait for it), and the shed counter on /metrics rises by
    one. Once the queue drains, the same turn is served."""
    pool = BoundedCalls(workers=1, max_pending=8, name="t", max_queued=1)
    served_by = app.state.prefetch_pool
    app.state.prefetch_pool = pool
    release = threading.Event()
    holders = hold_calls(pool, release, 2)  # one call runs on the pool's one thread, one waits
    shed_before = metric(api.client, "worldstate_prefetch_shed_total")
    degraded_before = metric(api.client, "worldstate_prefetch_degraded_total", "shed")
    deadline_before = metric(api.client, "worldstate_prefetch_degraded_total", "deadline")
    try:
        r = api.post("/v1/prefetch", {"chat_id": "c1", "message": "How is Ana?"})
        assert r.status_code == 200 and r.json() == DEGRADED
        assert metric(api.client, "worldstate_prefetch_shed_total") == shed_before + 1
        assert (
            metric(api.client, "worldstate_prefetch_degraded_total", "shed") == degraded_before + 1
        )
        assert (
            metric(api.client, "worldstate_prefetch_degraded_total", "deadline") == deadline_before
        )
        release.set()
        for t in holders:
            t.join(10)
        served = api.post("/v1/prefetch", {"chat_id": "c1", "message": "How is Ana?"})
        assert served.status_code == 200 and served.json()["degraded"] is False
    finally:
        release.set()
        app.state.prefetch_pool = served_by
        pool.shutdown()
