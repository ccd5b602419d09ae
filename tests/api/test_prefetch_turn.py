"""Prefetch reads its scope (with the owner's groups), then the view and the pointer's
documents in one query (graph/read/turn.py `prefetch_turn`, graph/cypher/turn.py
PREFETCH_TURN), then the notes: three queries in its snapshot instead of five, and the same
block, byte for byte, as those reads one by one."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from neo4j import Driver

from api.chat.prefetch import block, pointer
from api.chat.prefetch import notes as noted
from api.chat.prefetch.mentions import mention_keys
from api.chat.prefetch.recall import recall_words
from graph.cypher import notes as nc
from graph.cypher import prefetch as pc
from graph.cypher.turn import PREFETCH_TURN
from graph.read.reader import Reader
from graph.time import utcnow
from tests.api.conftest import Api
from tests.api.test_groups import group_of

MESSAGES = (
    "Is Ana still in Porto? The release playbook and the billing edge cases, please.",
    "What does Ana like?",
    "Nothing anyone wrote about.",
)


@pytest.fixture(scope="module", autouse=True)
def warm(app: Any) -> None:
    """Plan prefetch's query as `serve` does before it answers (api/chat/prefetch/warm.py)."""
    assert app.state.warmer.warm()


def world(api: Api, other: Api) -> None:
    """Facts, a note, the owner's own document and a group's."""
    ana = api.entity("Ana")["id"]
    for attribute, value in (("location", "Porto"), ("likes", "tea"), ("likes", "billing")):
        api.fact(ana, attribute=attribute, value=value)
    r = api.post("/v1/notes", {"kind": "playbook", "title": "The release playbook", "body": "Tag."})
    assert r.status_code == 201, r.text
    group = group_of(other, api)
    for name, where in (("billing/edge-cases", f"?group={group}"), ("release/playbook", "")):
        r = api.client.put(
            f"/v1/knowledge/{name}{where}",
            json={"description": "Refunds and releases", "body": "Never after 30 days."},
            headers=api.headers,
        )
        assert r.status_code == 200, r.text


def one_by_one(reader: Reader, owner: str, message: str, at: Any) -> block.Prefetch:
    """The block as main composed it before `prefetch_turn`: view, notes, groups and pointer,
    one query each, in one snapshot."""
    with reader.snapshot() as snap:
        scope = snap.prefetch_scope(owner, "c", at)
        snap._groups.clear()  # the reach read on its own, as before
        view = block.read_view(snap, scope, mention_keys(message), at, recall_words(message))
        notes = noted.read(snap, scope, message, at)
        line = pointer.read_pointer(snap, scope, message)
    chars, items = pointer.reserve(line)
    out = block.compose(
        view, at, 2000 - chars, 40 - items, False, recall_words(message), notes=notes,
        message=message,
    )  # fmt: skip
    return pointer.attach(out, line)


def test_one_query_after_the_scope_gives_the_same_block(
    api: Api, other: Api, neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`build` runs PREFETCH_SCOPE, PREFETCH_TURN and PREFETCH_NOTES and nothing else in its
    snapshot, and its block and items equal those of the view, the notes, the groups and
    the pointer read one by one; the block shows a fact, the note and both documents (the
    group's through the groups read with the scope)."""
    world(api, other)
    reader = Reader(neo4j_driver)
    at = utcnow()
    expected = {m: one_by_one(reader, api.owner, m, at) for m in MESSAGES}
    ran: list[str] = []
    rows = Reader._rows

    me = threading.get_ident()

    def recorded(self: Reader, q: str, **params: Any) -> list[Any]:
        if threading.get_ident() == me:  # not another test's app warming up meanwhile
            ran.append(q)
        return rows(self, q, **params)

    monkeypatch.setattr(Reader, "_rows", recorded)
    for message in MESSAGES:
        ran.clear()
        got = block.build(reader, api.owner, "c", message, at, 2000, 40)
        assert ran == [pc.PREFETCH_SCOPE, PREFETCH_TURN, nc.PREFETCH_NOTES]
        assert got == expected[message]
    first = expected[MESSAGES[0]].block
    assert "Porto" in first and "release playbook" in first
    assert first.rstrip("\n").endswith("see knowledge: billing/edge-cases, release/playbook")
