"""Blocking calls bounded by the wall clock (STYLE: deadlines on the wall clock; CONTRACT §6, §15).

`BoundedCalls.call(timeout, fn)` runs `fn` in a small thread pool of its own and gives up
waiting after `timeout` seconds, whatever the driver is doing: the caller answers
(prefetch: degraded; a health check: 503) and the call is abandoned. Abandoned work
cannot pile up: a call still queued when its deadline passes never starts, and a call
still running holds one of at most `max_pending` places until the driver lets go (its
connect, acquisition and transaction timeouts bound that, graph/driver.py). Past
`max_pending`, a call is refused at once (`Overloaded`) instead of queueing behind stuck
ones. The event loop is never blocked and no request thread is held.

Admission control (issue 17 "Under load"): with `max_queued`, a call that would wait
behind `max_queued` others for a thread, or whose expected wait (the calls ahead of it
times the recent run time of one call, over the threads) already reaches its deadline,
is refused at once with `Shed`, instead of answering the same "no" only after its
deadline. `shed`, `refused` and `abandoned` count what was given up, for /metrics.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from graph.transactions import store_deadline

T = TypeVar("T")


class DeadlineMissed(TimeoutError):
    """The call did not finish within its deadline (it may still be running)."""


class Overloaded(RuntimeError):
    """Every place is held by calls still running (abandoned ones included): refused at once."""


class Shed(Overloaded):
    """The queue is long: the call would wait out its deadline for a thread, refused at once."""


class BoundedCalls:
    """A pool of `workers` threads for calls with a deadline.

    Args:
        workers: threads running calls.
        max_pending: calls queued or running at once, abandoned ones included; more are
            refused with `Overloaded`.
        name: thread name prefix.
        max_queued: calls waiting for a thread at most; a call that would wait behind
            this many, or whose expected wait reaches its timeout, is refused with `Shed`.
            None: no admission control (only `max_pending` bounds the queue).
    """

    SERVICE_WEIGHT = 0.2
    """Weight of the newest run time in the moving average of a call's run time."""

    def __init__(self, workers: int, max_pending: int, name: str, max_queued: int | None = None):
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._workers = workers
        self._max_pending = max_pending
        self._max_queued = max_queued
        self._pending = 0
        self._queued = 0
        self._service_s: float | None = None
        self._lock = threading.Lock()
        self.abandoned = 0
        """Calls given up on past their deadline since start (for logs and tests)."""
        self.refused = 0
        """Calls refused with `Overloaded` since start, every place being held."""
        self.shed = 0
        """Calls refused with `Shed` since start, the queue being long."""
        self.started = 0
        """Calls that started running since start."""
        self.wait_seconds = 0.0
        """Time calls waited for a thread, summed over the calls that started."""
        self.run_seconds = 0.0
        """Time calls ran, summed over the calls that returned or raised."""

    @property
    def pending(self) -> int:
        """Calls queued or running now, abandoned ones included."""
        with self._lock:
            return self._pending

    @property
    def queued(self) -> int:
        """Calls waiting for a thread now."""
        with self._lock:
            return self._queued

    def _admit(self, timeout: float) -> None:
        """Take a place for a call, or refuse it (call with the lock held)."""
        if self._pending >= self._max_pending:
            self.refused += 1
            raise Overloaded(f"{self._pending} calls still pending")
        if self._max_queued is not None:
            ahead = self._queued
            wait = None if self._service_s is None else ahead * self._service_s / self._workers
            if ahead >= self._max_queued or (wait is not None and ahead and wait >= timeout):
                self.shed += 1
                raise Shed(
                    f"{ahead} calls wait for a thread"
                    + ("" if wait is None else f" (about {wait * 1000:.0f} ms)")
                )
        self._pending += 1
        self._queued += 1

    async def call(self, timeout: float, fn: Callable[[], T]) -> T:
        """Run `fn()` in the pool; return its result, or raise after `timeout` seconds.

        Args:
            timeout: seconds to wait, on the wall clock (0 or less: do not wait).
            fn: the blocking call; it should itself be bounded (driver timeouts), since
                an abandoned call keeps its place until it returns.

        Returns:
            What `fn` returned.

        Raises:
            DeadlineMissed: `fn` did not finish in time.
            Shed: the queue is long (`max_queued`): it would wait out its deadline.
            Overloaded: `max_pending` calls are still queued or running.
            Exception: whatever `fn` raised, when it raised in time.
        """
        with self._lock:
            self._admit(timeout)
        submitted = time.monotonic()
        deadline = submitted + timeout
        started: list[float] = []

        def job() -> T:
            began = time.monotonic()
            with self._lock:
                self._queued -= 1
                self.started += 1
                self.wait_seconds += began - submitted
                started.append(began)
            if began >= deadline:
                raise DeadlineMissed("deadline passed before the call started")
            try:
                return fn()
            finally:
                self._ran(time.monotonic() - began)

        def release(_: Future[T] | None) -> None:
            with self._lock:
                self._pending -= 1
                if not started:  # cancelled, or refused by a pool shut down: never ran
                    self._queued -= 1

        try:
            future: Future[T] = self._pool.submit(job)
        except RuntimeError:
            release(None)
            raise
        future.add_done_callback(release)
        waiter = asyncio.wrap_future(future)
        done, _ = await asyncio.wait({waiter}, timeout=max(timeout, 0.0))
        if waiter in done:
            return waiter.result()
        if not future.cancel():  # already running: it keeps its place until it returns
            with self._lock:
                self.abandoned += 1
        waiter.cancel()
        raise DeadlineMissed(f"no answer within {timeout:.3f} s")

    def shutdown(self) -> None:
        """Stop taking calls; queued ones are cancelled, running ones are not waited for."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _ran(self, seconds: float) -> None:
        """Fold one call's run time into the moving average."""
        with self._lock:
            self.run_seconds += seconds
            w = self.SERVICE_WEIGHT
            last = self._service_s
            self._service_s = seconds if last is None else (1 - w) * last + w * seconds


class StoreDeadline:
    """ASGI middleware: every request gets one deadline over all its store calls
    (`graph.transactions.store_deadline`), so a route that reads three times still answers
    503 within its budget when Neo4j is unreachable (CONTRACT §15). The time the app took
    to start its answer is sent as `Server-Timing: app;dur=<ms>` (W3C Server Timing), so a
    client can tell the service's time from the network's and its own.

    Args:
        app: the wrapped ASGI app.
        seconds: the budget of one request, on the wall clock.
    """

    def __init__(self, app: Any, seconds: float):
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Run the request inside `store_deadline(seconds)` (HTTP requests only)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.monotonic()

        async def timed_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                took = (time.monotonic() - began) * 1000
                headers = [
                    *message.get("headers", []),
                    (b"server-timing", f"app;dur={took:.1f}".encode()),
                ]
                message = {**message, "headers": headers}
            await send(message)

        with store_deadline(self.seconds):
            await self.app(scope, receive, timed_send)
