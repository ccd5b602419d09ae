"""The one place the driver's failures become worldstate's (STYLE: one exception root).

`graph.read.reader`, `graph.write.writer` and `graph.transactions` translate every
driver error through `translate`, so a store that cannot be reached is `StoreUnavailable`
on every path, a transaction Neo4j ended at its timeout is `QueryTimedOut` on every path,
and `api/http/errors.py` maps both to 503 (CONTRACT §9, §15). A leaf: it imports only the
driver, `graph.errors` and `graph.bookmarks` (itself a leaf).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum

from neo4j.exceptions import (
    ClientError,
    ConnectionAcquisitionTimeoutError,
    IncompleteCommit,
    ResultFailedError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graph.bookmarks import current
from graph.errors import InvalidBookmark, QueryTimedOut, StoreUnavailable, WorldstateError


class Failure(Enum):
    """How a failed attempt may be retried (graph/transactions.py)."""

    UNREACHABLE = "unreachable"
    """The store did not answer (refused, reset, timed out, still starting): retried
    within the short outage budget only."""
    CONTENTION = "contention"
    """A transient conflict between transactions (a deadlock, a lock wait ended): retried
    within the longer contention budget."""
    FINAL = "final"
    """Not retried: the outcome is known (a bad query, a timeout) or unknowable (a commit
    whose answer was lost: running it again could write twice)."""


def classify(exc: BaseException) -> Failure:
    """Say whether, and within which budget, an attempt that raised `exc` may run again.

    Args:
        exc: what the attempt raised.

    Returns:
        The `Failure` kind.
    """
    if isinstance(exc, IncompleteCommit):
        return Failure.FINAL
    if isinstance(exc, ResultFailedError) and exc.__cause__ is not None:
        # a result read after its transaction failed: the failure itself decides (a
        # deadlock seen first by another result of the same transaction, say)
        return classify(exc.__cause__)
    if isinstance(
        exc, (ServiceUnavailable, SessionExpired, OSError, ConnectionAcquisitionTimeoutError)
    ):  # no pooled connection came free in time: the store is too slow to answer (load)
        return Failure.UNREACHABLE
    if isinstance(exc, TransientError):
        code = exc.code or ""
        if "DatabaseUnavailable" in code or "General" in code:
            return Failure.UNREACHABLE
        return Failure.CONTENTION
    return Failure.FINAL


def translate(exc: BaseException) -> BaseException:
    """Return the worldstate error a driver failure stands for, or `exc` itself.

    Unreachable, reset or still-starting store, a lost commit answer, or a transient
    failure that outlived its retries -> `StoreUnavailable`; a transaction past its
    timeout (`Neo.ClientError.Transaction.TransactionTimedOut*`) -> `QueryTimedOut`; a
    bookmark Neo4j cannot parse -> `InvalidBookmark` naming where it came from
    (graph/bookmarks.py); anything else (a bug in a query, a constraint violation) passes unchanged.

    Args:
        exc: what the driver (or a socket) raised.
    """
    if isinstance(exc, WorldstateError):
        return exc
    if isinstance(exc, ClientError) and "TransactionTimedOut" in (exc.code or ""):
        return QueryTimedOut(str(exc))
    if isinstance(exc, ClientError) and "InvalidBookmark" in (exc.code or ""):
        unit = current()
        return InvalidBookmark(unit.source if unit else "bookmark")
    if isinstance(
        exc,
        (
            ServiceUnavailable,
            SessionExpired,
            OSError,
            TransientError,
            ConnectionAcquisitionTimeoutError,
        ),
    ):
        return StoreUnavailable(str(exc))
    return exc


@contextmanager
def store_errors() -> Iterator[None]:
    """Translate what the block raises with `translate` (the cause is kept as `__cause__`)."""
    try:
        yield
    except Exception as exc:
        mapped = translate(exc)
        if mapped is exc:
            raise
        raise mapped from exc
