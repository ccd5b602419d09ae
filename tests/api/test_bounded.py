"""Blocking calls bounded by the wall clock (api/http/bounded.py; CONTRACT §6, §15)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from api.http.bounded import BoundedCalls, DeadlineMissed, Overloaded


def test_a_stuck_call_is_abandoned_at_its_deadline_and_others_still_answer() -> None:
    """A call that hangs is abandoned at its deadline and keeps its place; a call queued
    behind it is cancelled at its own deadline and never runs; once the hung call
    returns, all is well again."""
    pool = BoundedCalls(workers=1, max_pending=2, name="t")
    release = threading.Event()
    ran: list[str] = []

    def queued() -> None:
        ran.append("queued")

    async def scenario() -> list[float]:
        took = []
        for fn in (release.wait, queued):
            began = time.monotonic()
            with pytest.raises(DeadlineMissed):
                await pool.call(0.05, fn)
            took.append(time.monotonic() - began)
        assert pool.pending == 1 and pool.abandoned == 1
        return took

    took = asyncio.run(scenario())
    assert max(took) < 0.2
    release.set()
    deadline = time.monotonic() + 5
    while pool.pending and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.pending == 0 and ran == []
    assert asyncio.run(pool.call(1.0, lambda: 42)) == 42
    pool.shutdown()


def test_with_every_place_held_a_call_is_refused_at_once() -> None:
    """Two hung calls hold both places: the next is refused with Overloaded, not queued."""
    pool = BoundedCalls(workers=2, max_pending=2, name="t")
    release = threading.Event()

    async def scenario() -> float:
        for _ in range(2):
            with pytest.raises(DeadlineMissed):
                await pool.call(0.05, release.wait)
        began = time.monotonic()
        with pytest.raises(Overloaded):
            await pool.call(0.05, release.wait)
        return time.monotonic() - began

    assert asyncio.run(scenario()) < 0.01
    assert pool.abandoned == 2
    release.set()
    pool.shutdown()


def test_fifty_calls_at_once_answer_within_the_deadline() -> None:
    """Fifty calls against a hung store all answer near the deadline, none queued behind
    another (fifty in turn on eight threads would take 1 s and more); the 50 ms margin of
    the promise is measured against a real server in tests/faults/test_outage.py."""
    pool = BoundedCalls(workers=8, max_pending=64, name="t")
    hang = threading.Event()

    async def one() -> float:
        began = time.monotonic()
        with pytest.raises(DeadlineMissed):
            await pool.call(0.15, hang.wait)
        return time.monotonic() - began

    async def many() -> list[float]:
        return list(await asyncio.gather(*(one() for _ in range(50))))

    took = asyncio.run(many())
    hang.set()
    pool.shutdown()
    assert max(took) < 0.4, max(took)
