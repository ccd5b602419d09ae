"""Causal consistency on a Neo4j cluster: which writes a transaction must see.

A cluster (Neo4j Enterprise or Aura behind a `neo4j://` URI) writes on the leader of the
database and may serve reads from any member, which applies the leader's transactions
a little later. A *bookmark* names a committed transaction; a transaction begun with
bookmarks is held by the member serving it until that member has applied them.

Two rules make worldstate read its own writes there:

* **In one process**, every session this package opens (`session`) shares one bookmark
  manager: the driver's own (`Driver.execute_query_bookmark_manager`, built once with the
  driver by `GraphDatabase.bookmark_manager()`; schema set-up through `execute_query`
  shares it too). A read after a write in the same process, by any reader, the
  committer or the curator, therefore waits for that write wherever it is served.
* **Across processes** (API replicas, `serve --workers N`, a client switching
  replicas), the caller carries the bookmark: `causal(after)` makes every transaction
  begun inside it wait for `after`, and records in `Causality.written` the bookmarks of
  the writes committed inside it. The API sends them back in a response header and
  reads them from the next request (api/http/bookmarks.py; README "Reading your own
  writes").

On a single server (Community, or `bolt://`) every committed transaction is already
visible, so waiting costs nothing. A leaf of graph: it imports only the driver.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from neo4j import Bookmarks, Driver, Session

__all__ = ["Causality", "causal", "current", "session", "wrote"]


@dataclass
class Causality:
    """The bookmarks of one unit of work that may span transactions (an HTTP request).

    Attributes:
        after: bookmarks every transaction begun in the unit waits for (those a client
            sent back); empty for none.
        written: bookmarks of the last write committed in the unit (empty: no write);
            on one database a later bookmark covers every earlier one.
        source: where `after` came from, named in the error when Neo4j cannot parse
            one (`graph.errors.InvalidBookmark`), e.g. a request header's name.
    """

    after: tuple[str, ...] = ()
    written: tuple[str, ...] = field(default=())
    source: str = "bookmark"


_CURRENT: ContextVar[Causality | None] = ContextVar("worldstate_causality", default=None)


@contextmanager
def causal(after: Iterable[str] = (), source: str = "bookmark") -> Iterator[Causality]:
    """Run the block as one causal unit: its transactions wait for `after`, and its
    writes' bookmarks are collected.

    The unit is a context variable, so it follows the block into the threads its context
    is copied to (FastAPI runs synchronous routes that way; a pool of our own must submit
    with `contextvars.copy_context().run`).

    Args:
        after: bookmarks (opaque strings Neo4j issued) to wait for.
        source: where they came from (`Causality.source`).

    Yields:
        The unit; read `written` after the block's writes.
    """
    unit = Causality(after=tuple(after), source=source)
    token = _CURRENT.set(unit)
    try:
        yield unit
    finally:
        _CURRENT.reset(token)


def current() -> Causality | None:
    """Return the causal unit the caller runs in, or None outside `causal`."""
    return _CURRENT.get()


def session(driver: Driver, database: str | None, mode: str) -> Session:
    """Open a session in access mode `mode` that shares the driver's bookmark manager and
    waits for the current unit's bookmarks.

    Args:
        driver: a connected driver (`neo4j://` routes READ to any member, WRITE to the
            leader; `bolt://` talks to one server).
        database: the Neo4j database, or None for the server's default.
        mode: "READ" or "WRITE" (Neo4j refuses a write in a READ transaction).

    Returns:
        A session; the caller closes it.
    """
    unit = _CURRENT.get()
    extra = Bookmarks.from_raw_values(unit.after) if unit is not None and unit.after else None
    return driver.session(
        database=database,
        default_access_mode=mode,
        bookmark_manager=driver.execute_query_bookmark_manager,
        bookmarks=extra,
    )


def wrote(done: Session) -> None:
    """Record the bookmarks of the write `done` just committed in the current unit (if any).

    Args:
        done: the session whose last transaction was a committed write.
    """
    unit = _CURRENT.get()
    if unit is not None:
        unit.written = tuple(sorted(done.last_bookmarks().raw_values))
