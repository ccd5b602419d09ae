"""Prefetch's reads (graph/read/prefetch.py): its one-query scope is `Reader.scope`."""

from __future__ import annotations

import pytest
from neo4j import Driver

from committer.apply import Committer
from graph.read.reader import Reader
from graph.time import FAR_FUTURE, utcnow


@pytest.mark.parametrize(
    ("profile", "chat"),
    [
        (None, None),
        (None, ("none", [], [])),
        (("restricted", ["work"], ["integration"]), None),
        (("restricted", ["work"], ["user_stated"]), ("full", [], [])),
        (("none", [], []), ("restricted", ["place", "general"], ["integration", "user_edit"])),
    ],
)
def test_prefetch_scope_is_reader_scope(
    neo4j_driver: Driver,
    owner: str,
    profile: tuple[str, list[str], list[str]] | None,
    chat: tuple[str, list[str], list[str]] | None,
) -> None:
    """For every way memory access can be set, and with an entity shared through a group,
    `prefetch_scope` (one query) resolves what `Reader.scope` (two) does."""
    committer = Committer(neo4j_driver)
    committer.ensure_owner(owner)
    for chat_id, setting in ((None, profile), ("c", chat)):
        if setting is not None:
            committer.set_memory_access(owner, chat_id, *setting)
    neo4j_driver.execute_query(
        """
        CREATE (:Membership {member: $owner, group_id: $group, joined_at: $t, left_at: $far})
        CREATE (:Share {group_id: $group, entity_id: 'shared-1', owner: 'someone-else',
                        shared_at: $t, unshared_at: $far})
        """,
        owner=owner,
        group=owner + "-g",
        t=utcnow(),
        far=FAR_FUTURE,
    )
    reader, now = Reader(neo4j_driver), utcnow()
    with reader.snapshot() as snap:
        mine = snap.prefetch_scope(owner, "c", now)
    assert mine == reader.scope(owner, "c", now)
    assert mine.shared == ("shared-1",)
