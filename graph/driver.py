"""The narrow driver seam (STYLE): the one place a neo4j driver is built, and the one place
its failures become the graph exception root (graph/errors.py)."""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import Driver, GraphDatabase

from graph.store_errors import store_errors

__all__ = ["StoreTimeouts", "connect", "store_errors"]


@dataclass(frozen=True, slots=True)
class StoreTimeouts:
    """How long the driver waits for the store, in seconds (CONTRACT §15: a request answers
    503 within 2 s of the store being unreachable). From `Settings` (api/http/settings.py).

    Attributes:
        connect_s: to open a TCP connection and finish the Bolt handshake
            (`WORLDSTATE_NEO4J_CONNECT_TIMEOUT_SECONDS`).
        acquire_s: to get a connection from the pool, a new one included
            (`WORLDSTATE_NEO4J_ACQUIRE_TIMEOUT_SECONDS`); at least `connect_s`.
        retry_s: the driver's own managed transactions (`driver.execute_query`, used
            by schema set-up and scripts) stop retrying after this long
            (`WORLDSTATE_NEO4J_RETRY_SECONDS`; reads and commits retry in
            graph/transactions.py under the same budget).
    """

    connect_s: float = 1.0
    acquire_s: float = 1.0
    retry_s: float = 1.0


def connect(
    uri: str,
    user: str | None = None,
    password: str | None = None,
    timeouts: StoreTimeouts | None = None,
) -> Driver:
    """Return a driver for `uri` (bolt:// or neo4j://).

    Args:
        uri: the Bolt URI.
        user: user name, or None when the server runs without auth (the embedded local one).
        password: the password for `user`.
        timeouts: connect, acquisition and retry bounds; `StoreTimeouts()` when None.

    Server notifications (e.g. "property key does not exist" on an empty store) are
    switched off: they are advice for humans writing queries, not runtime events. A
    pooled connection idle for a second is checked before use, so one the server dropped
    while it was down is replaced rather than failing a request (the driver reconnects
    by itself when the server returns).
    """
    bounds = timeouts or StoreTimeouts()
    auth = (user, password or "") if user else None
    return GraphDatabase.driver(
        uri,
        auth=auth,
        notifications_min_severity="OFF",
        connection_timeout=bounds.connect_s,
        connection_acquisition_timeout=max(bounds.acquire_s, bounds.connect_s),
        max_transaction_retry_time=bounds.retry_s,
        liveness_check_timeout=1.0,
    )
