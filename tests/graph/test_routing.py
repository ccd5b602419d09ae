"""worldstate on a cluster URI: `neo4j://` routing and bookmarks (graph/bookmarks.py).

Neo4j Community serves `neo4j://` as a one-member cluster (it answers the driver's
routing request with itself), so the routing and bookmark code runs here exactly as on
Enterprise; only the waiting is never needed, since one server has applied every
transaction it committed. To show that a read with a bookmark waits for that write, a
test asks for the bookmark of the transaction *after* the last one (Neo4j 5's bookmark
is base64 of PackStream: the database's 16-byte id, the transaction id, a list), which no
member has seen until the next write commits.
"""

from __future__ import annotations

import base64
import struct
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from neo4j import Driver
from neo4j.exceptions import ClientError

from committer.apply import Committer
from committer.proposals import Assertion
from graph.bookmarks import causal
from graph.driver import connect
from graph.read.reader import Reader
from graph.time import AsOf, utcnow
from tests.conftest import Neo4jServer

_HEAD = b"\x91\xcc\x10"  # Neo4j 5: a list marker, then 16 bytes (the database id)
_INT = {0xC8: ">b", 0xC9: ">h", 0xCA: ">i", 0xCB: ">q"}


def _parts(bookmark: str) -> tuple[bytes, int, bytes]:
    prefix, _, body = bookmark.partition(":")
    raw = base64.b64decode(body + "=" * (-len(body) % 4))
    assert prefix == "FB" and raw.startswith(_HEAD), f"unknown bookmark format {bookmark!r}"
    at = len(_HEAD) + 16
    marker = raw[at]
    if marker < 0x80:  # PackStream tiny int
        return raw[:at], marker, raw[at + 1 :]
    fmt = _INT[marker]
    end = at + 1 + struct.calcsize(fmt)
    return raw[:at], struct.unpack(fmt, raw[at + 1 : end])[0], raw[end:]


def tx_of(bookmark: str) -> int:
    """The transaction id a Neo4j 5 bookmark names (test-only reading of its format)."""
    return _parts(bookmark)[1]


def next_bookmark(bookmark: str) -> str:
    """Return the bookmark of the transaction after the one `bookmark` names (test-only:
    it reads Neo4j 5's bookmark format; a server that changes it fails here, loudly)."""
    head, tx, tail = _parts(bookmark)
    nxt = tx + 1
    if nxt < 0x80:
        packed = bytes([nxt])
    else:
        marker, fmt = next(
            (m, f) for m, f in _INT.items() if nxt < 2 ** (8 * struct.calcsize(f) - 1)
        )
        packed = bytes([marker]) + struct.pack(fmt, nxt)
    return "FB:" + base64.b64encode(head + packed + tail).decode().rstrip("=")


def routing_uri(uri: str) -> str:
    """The `neo4j://` (routing) form of a `bolt://` URI."""
    scheme, _, rest = uri.partition("://")
    return "neo4j://" + rest if scheme in ("bolt", "neo4j") else uri


@pytest.fixture(scope="module")
def routed(neo4j_server: Neo4jServer) -> Iterator[Driver]:
    """A driver to the session's Neo4j through a `neo4j://` URI."""
    user, password = neo4j_server.auth if neo4j_server.auth else (None, None)
    with connect(routing_uri(neo4j_server.uri), user, password) as driver:
        driver.verify_connectivity()
        yield driver


def test_a_routing_uri_works_unchanged(routed: Driver, owner: str) -> None:
    """Through `neo4j://`, the committer writes (routed to the leader), the reader reads
    (routed to a reader) and a write through the reader is refused by Neo4j."""
    committer = Committer(routed)
    ana = committer.create_entity(owner, name="Ana", kind="person")
    committer.assert_fact(owner, Assertion(entity_id=ana.id, attribute="city", value="Porto"))
    reader = Reader(routed)
    assert [f.value for f in reader.facts(owner, ana.id, AsOf.at())] == ["Porto"]
    with pytest.raises(ClientError) as err:
        reader.run_query("CREATE (n:Intruder {owner: $owner})", owner=owner)
    assert "AccessMode" in (err.value.code or "")


def test_a_read_after_a_write_in_one_process_carries_its_bookmark(
    routed: Driver, owner: str
) -> None:
    """The committer's commit leaves its bookmark in the driver's bookmark manager, which
    every reader session shares: a read after it waits for it on any member."""
    committer = Committer(routed)
    with causal() as unit:
        ana = committer.create_entity(owner, name="Ana", kind="person")
    assert unit.written
    assert set(unit.written) <= set(routed.execute_query_bookmark_manager.get_bookmarks())
    assert Reader(routed).entity(owner, ana.id).name == "Ana"


def wait_alive(thread: threading.Thread, seconds: float) -> bool:
    """Wait up to `seconds` for `thread`; True when it is still running."""
    thread.join(seconds)
    return thread.is_alive()


def warm_tokens(driver: Driver, owner: str) -> None:
    """Commit once the shapes a test then commits: Neo4j creates a new label, property
    key or relationship type in transactions of its own, which would take the
    transaction ids the test counts on."""
    committer = Committer(driver)
    committer.create_token(owner + "-warm", ("read", "write"))
    warm = committer.create_entity(owner + "-warm", name="Warm", kind="person")
    committer.assert_fact(
        owner + "-warm", Assertion(entity_id=warm.id, attribute="city", value="X")
    )


@pytest.mark.slow
def test_a_read_with_a_bookmark_waits_for_that_write(own_routed: Driver, owner: str) -> None:
    """A read begun with the bookmark of a write not yet applied is held until the write
    commits, and then sees it (the read asks about a moment after the write, a minute
    ahead: begun before the write, "now" would be before it on the time axis)."""
    warm_tokens(own_routed, owner)
    committer = Committer(own_routed)
    with causal() as unit:
        ana = committer.create_entity(owner, name="Ana", kind="person")
    [last] = unit.written
    ahead = next_bookmark(last)
    seen: list[Any] = []

    def read() -> None:
        with causal([ahead]):
            ahead_of_it = utcnow() + timedelta(minutes=1)
            later = AsOf.at(valid_at=ahead_of_it, known_at=ahead_of_it)
            seen.append([f.value for f in Reader(own_routed).facts(owner, ana.id, later)])

    reading = threading.Thread(target=read)
    reading.start()
    assert wait_alive(reading, 1.5), "the read did not wait for the bookmark"
    with causal() as wrote:
        committer.assert_fact(owner, Assertion(entity_id=ana.id, attribute="city", value="Porto"))
    assert [tx_of(b) for b in wrote.written] == [tx_of(ahead)]
    assert not wait_alive(reading, 20)
    assert seen == [["Porto"]]
