"""The narrow driver seam (STYLE): the one place a neo4j driver is built, and the one place
its failures become the graph exception root (graph/errors.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import ClientError, ServiceUnavailable, SessionExpired

from graph.errors import QueryTimedOut, StoreUnavailable


def connect(uri: str, user: str | None = None, password: str | None = None) -> Driver:
    """Return a driver for `uri` (bolt:// or neo4j://).

    Args:
        uri: the Bolt URI.
        user: user name, or None when the server runs without auth (the embedded local one).
        password: the password for `user`.

    Server notifications (e.g. "property key does not exist" on an empty store) are
    switched off: they are advice for humans writing queries, not runtime events.
    """
    auth = (user, password or "") if user else None
    return GraphDatabase.driver(uri, auth=auth, notifications_min_severity="OFF")


@contextmanager
def store_errors() -> Iterator[None]:
    """Translate the driver's failures, for reads and writes alike.

    Unreachable store -> `StoreUnavailable` (503, CONTRACT §9); a transaction past its
    timeout -> `QueryTimedOut` (a `StoreUnavailable`); any other error passes unchanged.
    """
    try:
        yield
    except (ServiceUnavailable, SessionExpired, OSError) as exc:
        raise StoreUnavailable(str(exc)) from exc
    except ClientError as exc:
        if "TransactionTimedOut" in (exc.code or ""):
            raise QueryTimedOut(str(exc)) from exc
        raise
