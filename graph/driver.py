"""The one place a neo4j driver is built (a narrow driver seam, STYLE)."""

from __future__ import annotations

from neo4j import Driver, GraphDatabase


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
