"""Blocking calls bounded by the wall clock (STYLE: deadlines on the wall clock; CONTRACT §6, §15).

`BoundedCalls.call(timeout, fn)` runs `fn` in a small thread pool of its own and gives up
waiting after `timeout` seconds, whatever the driver is doing: the caller answers
(prefetch: degraded; a health check: 503) and the call is abandoned. Abandoned work
cannot pile up: a call still queued when its deadline passes never starts, and a call
still running holds one of at most `max_pending` places until the driver lets go (its
connect, acquisition and transaction timeouts bound that, graph/driver.py). Past
`max_pending`, a call is refused at once (`Overloaded`) instead of queueing behind stuck
ones. The event loop is never blocked and no request thread is held.
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


class BoundedCalls:
    """A pool of `workers` threads for calls with a deadline.

    Args:
        workers: threads running calls.
        max_pending: calls queued or running at once, abandoned ones included; more are
            refused with `Overloaded`.
        name: thread name prefix.
    """

    def __init__(self, workers: int, max_pending: int, name: str):
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._max_pending = max_pending
        self._pending = 0
        self._lock = threading.Lock()
        self.abandoned = 0
        """Calls given up on past their deadline since start (for logs and tests)."""

    @property
    def pending(self) -> int:
        """Calls queued or running now, abandoned ones included."""
        with self._lock:
            return self._pending

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
            Overloaded: `max_pending` calls are still queued or running.
            Exception: whatever `fn` raised, when it raised in time.
        """
        with self._lock:
            if self._pending >= self._max_pending:
                raise Overloaded(f"{self._pending} calls still pending")
            self._pending += 1
        deadline = time.monotonic() + timeout

        def job() -> T:
            if time.monotonic() >= deadline:
                raise DeadlineMissed("deadline passed before the call started")
            return fn()

        try:
            future: Future[T] = self._pool.submit(job)
        except RuntimeError:
            self._release(None)
            raise
        future.add_done_callback(self._release)
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

    def _release(self, _: Future[T] | None) -> None:
        with self._lock:
            self._pending -= 1


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
