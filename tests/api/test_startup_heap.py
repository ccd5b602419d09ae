"""Start-up's heap is frozen out of the collector's reach while the app serves.

Found by tests/faults/test_outage.py: with everything start-up allocated still tracked,
one full collection during a burst of fifty prefetches paused the event loop for about
200 ms (300 ms answers on the service's own clock, against a 150 + 50 ms deadline)."""

from __future__ import annotations

import gc
from typing import Any

from fastapi.testclient import TestClient

from api.http.app import create_app
from api.http.settings import Settings


def test_start_up_freezes_its_heap_and_stop_releases_it(neo4j_driver: Any) -> None:
    """After start-up every object it made is frozen (`gc.get_freeze_count`), so a full
    collection walks only what requests allocate; the app's stop unfreezes them."""
    gc.unfreeze()
    application = create_app(Settings(curator_in_process=False), neo4j_driver)
    with TestClient(application) as client:
        assert client.get("/healthz").status_code == 200
        assert gc.get_freeze_count() > 10_000
    assert gc.get_freeze_count() == 0
