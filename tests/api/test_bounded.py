"""Blocking calls bounded by the wall clock (api/http/bounded.py; CONTRACT §6, §15)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from api.http.bounded import BoundedCalls, DeadlineMissed, Overloaded, Shed


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


def hold_calls(pool: BoundedCalls, release: threading.Event, calls: int) -> list[threading.Thread]:
    """Start `calls` calls that wait for `release`, one at a time, each from a thread of its
    own: the first runs on the pool's one thread, the others wait in its queue."""

    def one() -> None:
        asyncio.run(pool.call(30.0, release.wait))

    threads = []
    for n in range(1, calls + 1):
        threads.append(threading.Thread(target=one, daemon=True))
        threads[-1].start()
        deadline = time.monotonic() + 10
        while (pool.pending, pool.queued) != (n, n - 1) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert (pool.pending, pool.queued) == (n, n - 1)
    return threads


def test_a_long_queue_sheds_the_next_call_at_once() -> None:
    """Admission control: with the one thread held and `max_queued` calls waiting, the
    next call is refused with Shed (an Overloaded) and counted, without waiting for its
    deadline; once the queue drains, calls are admitted again."""
    pool = BoundedCalls(workers=1, max_pending=8, name="t", max_queued=1)
    release = threading.Event()
    threads = hold_calls(pool, release, 2)  # one running, one queued
    assert pool.queued == 1

    async def refused() -> None:
        with pytest.raises(Shed):
            await pool.call(30.0, lambda: None)

    asyncio.run(refused())
    assert (pool.shed, pool.refused, pool.abandoned) == (1, 0, 0)
    release.set()
    for t in threads:
        t.join(10)
    assert pool.queued == 0 and pool.pending == 0
    assert asyncio.run(pool.call(5.0, lambda: 7)) == 7
    pool.shutdown()


def test_a_call_whose_expected_wait_reaches_its_deadline_is_shed() -> None:
    """With one call waiting ahead and calls lately taking at least 50 ms on the one
    thread, a call with a 10 ms deadline cannot be served in time: it is shed at once,
    while the queue is still shorter than `max_queued`. A call with nobody ahead is
    never shed by the estimate."""
    pool = BoundedCalls(workers=1, max_pending=8, name="t", max_queued=10)
    assert asyncio.run(pool.call(5.0, lambda: time.sleep(0.05))) is None
    release = threading.Event()
    threads = hold_calls(pool, release, 2)

    async def refused() -> None:
        with pytest.raises(Shed):
            await pool.call(0.01, lambda: None)

    asyncio.run(refused())
    assert pool.shed == 1
    release.set()
    for t in threads:
        t.join(10)
    assert asyncio.run(pool.call(0.5, lambda: 3)) == 3
    pool.shutdown()
