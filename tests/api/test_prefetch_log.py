"""An overload does not flood the log (issue 17): degraded prefetches past their deadline
logged one WARNING each; now one per reason every 10 s, saying how many were held back,
while `/metrics` still counts every one."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from api.http.throttle import ThrottledLog
from tests.api.conftest import Api


class Clock:
    """A monotonic clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_one_line_per_key_per_interval_then_the_count_held_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    throttled = ThrottledLog(logging.getLogger("test.throttle"), every=10.0, clock=clock)
    with caplog.at_level(logging.WARNING, logger="test.throttle"):
        written = [throttled.warning("a", "busy %s", "now") for _ in range(5)]
        assert throttled.warning("b", "gone") is True  # another key has its own interval
        clock.now += 9.9
        assert throttled.warning("a", "busy %s", "now") is False
        clock.now += 0.2
        assert throttled.warning("a", "busy %s", "now") is True
    assert written == [True, False, False, False, False]
    assert [r.getMessage() for r in caplog.records] == [
        "busy now",
        "gone",
        "busy now (5 more like it in the last 10 s)",
    ]


def test_degraded_prefetches_past_the_deadline_log_once_and_all_count(
    api: Api, app: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Four turns past a 0 ms deadline: four degraded answers counted on /metrics, one
    WARNING; after the interval, the next one says how many were held back."""
    clock = Clock()
    monkeypatch.setattr(app.state.settings, "prefetch_deadline_ms", 0)
    before = app.state.prefetch_counters.degraded["deadline"]
    body = {"chat_id": "c", "message": "How is Ana?"}
    # starlette's State is not restored by monkeypatch.setattr (it deletes the attribute)
    kept = app.state.prefetch_log
    app.state.prefetch_log = ThrottledLog(logging.getLogger("worldstate.prefetch"), clock=clock)
    try:
        with caplog.at_level(logging.WARNING, logger="worldstate.prefetch"):
            answers = [api.post("/v1/prefetch", body).json() for _ in range(4)]
            clock.now += 10.0
            answers.append(api.post("/v1/prefetch", body).json())
    finally:
        app.state.prefetch_log = kept
    assert all(a["degraded"] is True for a in answers)
    assert app.state.prefetch_counters.degraded["deadline"] == before + 5
    lines = [r.getMessage() for r in caplog.records if "past its deadline" in r.getMessage()]
    assert len(lines) == 2, lines
    assert "3 more like it" in lines[1]
