"""Run one unit of work in one transaction, retried on the wall clock (CONTRACT §15).

The driver's managed transactions retry every retryable failure alike for up to
`max_transaction_retry_time` after the first one, with delays from 1 s doubling: with the
store gone that held a request for 30 s. `run_transaction` keeps two budgets instead,
both measured from the start of the call: a short one while the store does not answer
(`RetryPolicy.unreachable_s`: the request then fails fast with `StoreUnavailable`, a 503),
and a longer one for contention between transactions (a deadlock: the store answers, it
is worth waiting). A commit whose answer was lost is never run again (it may have
landed). Failures are translated in `graph.store_errors`.

A caller that makes several transactions for one answer (an HTTP request: the token,
the chat's scope, the read itself) sets one deadline over all of them with
`store_deadline`: past it, no transaction of the block retries an unreachable store.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from neo4j import Driver

from graph.store_errors import Failure, classify, translate

T = TypeVar("T")
log = logging.getLogger("worldstate.store")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How long a transaction is retried, in seconds from the start of the call.

    Attributes:
        unreachable_s: while the store does not answer (refused, reset, starting up);
            with the connect and acquisition timeouts (graph/driver.py) this bounds a
            request's wait in an outage (`WORLDSTATE_NEO4J_RETRY_SECONDS`).
        contention_s: while the store answers with a transient conflict (a deadlock).
        first_delay_s: the first pause between attempts; it doubles, with ±20 % jitter.
    """

    unreachable_s: float = 1.0
    contention_s: float = 30.0
    first_delay_s: float = 0.05


DEFAULT_RETRY = RetryPolicy()
"""The defaults of `RetryPolicy` (what `Settings` gives unless configured)."""

_DEADLINE: ContextVar[float | None] = ContextVar("worldstate_store_deadline", default=None)


@contextmanager
def store_deadline(seconds: float) -> Iterator[None]:
    """Stop retrying an unreachable store `seconds` from now, in every transaction run
    in this block (this context and the threads it hands its context to, such as the
    threads FastAPI runs routes in). Nested blocks keep the earlier deadline.

    Args:
        seconds: the budget on the wall clock.
    """
    now = time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(now if outer is None else min(outer, now))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def run_transaction(
    driver: Driver,
    database: str | None,
    mode: str,
    work: Callable[[Any], T],
    *,
    timeout: float | None = None,
    policy: RetryPolicy | None = DEFAULT_RETRY,
) -> T:
    """Run `work(tx)` in one transaction and commit it; retry within `policy`.

    Args:
        driver: a connected driver.
        database: the Neo4j database, or None for the server's default.
        mode: "READ" or "WRITE" (a write in a READ transaction fails in Neo4j itself).
        work: the unit of work; it may run more than once, so it must have no effects
            outside the transaction.
        timeout: the transaction's timeout in seconds, enforced by Neo4j (None: the
            server's default).
        policy: the retry budgets, or None for a single attempt (a caller with a deadline
            of its own, such as prefetch).

    Returns:
        What `work` returned in the attempt that committed.

    Raises:
        StoreUnavailable: the store did not answer within the budget, a transient failure
            outlived its budget, or a commit's answer was lost.
        QueryTimedOut: the transaction ran past `timeout`.
    """
    began = time.monotonic()
    delay = policy.first_delay_s if policy else 0.0
    while True:
        try:
            return _attempt(driver, database, mode, work, timeout)
        except Exception as exc:
            kind = classify(exc)
            limit = began
            if policy is not None and kind is Failure.UNREACHABLE:
                limit = began + policy.unreachable_s
                deadline = _DEADLINE.get()
                limit = limit if deadline is None else min(limit, deadline)
            elif policy is not None and kind is Failure.CONTENTION:
                limit = began + policy.contention_s
            pause = delay * random.uniform(0.8, 1.2)
            if time.monotonic() + pause > limit:
                mapped = translate(exc)
                if mapped is exc:
                    raise
                raise mapped from exc
            log.info("transaction failed (%s); retrying in %.2f s: %s", kind.value, pause, exc)
            time.sleep(pause)
            delay *= 2


def _attempt(
    driver: Driver, database: str | None, mode: str, work: Callable[[Any], T], timeout: float | None
) -> T:
    with (
        driver.session(database=database, default_access_mode=mode) as session,
        session.begin_transaction(timeout=timeout) as tx,
    ):
        result = work(tx)
        tx.commit()
        return result
