"""Knowledge documents in the committer (CONTRACT §2, §14): versions of a group's document
written by several members concurrently get strictly increasing times, exactly one current
version, and every version is linked to the commit that made it (CONTRACT §8)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

from neo4j import Driver

from committer.apply import Committer
from committer.holders import Author
from graph.read.reader import Reader


def test_members_writing_one_group_document_concurrently(neo4j_driver: Driver, owner: str) -> None:
    """Four members each write the same group document five times at once: 20 versions,
    numbered 1-20 in the order of their strictly increasing `recorded_at`, one current, each
    version WROTE by a commit of its author's whose cause is the version's `cause`."""
    committer = Committer(neo4j_driver)
    members = [f"{owner}-{i}" for i in range(4)]
    for m in members:
        committer.create_token(m, ["read", "write", "curate"])
    group = committer.create_group(members[0], "team").id
    for m in members[1:]:
        committer.add_member(members[0], group, m)

    def write(member: str) -> None:
        for i in range(5):
            Committer(neo4j_driver).put_document(
                Author(member), "team/plan", "The plan", f"{member} edit {i}", group_id=group
            )

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, members))
    rows = Reader(neo4j_driver).run_query(
        "MATCH (k:KnowledgeVersion {holder: $h, name: 'team/plan'}) "
        "OPTIONAL MATCH (c:Event {kind: 'commit'})-[w:WROTE]->(k) "
        "RETURN k.version AS v, k.recorded_at AS t, k.retracted_at AS r, k.author AS author, "
        "k.cause AS cause, w.cause AS linked, c.owner AS committed_by ORDER BY v",
        h=f"group:{group}",
    )
    assert [r["v"] for r in rows] == list(range(1, 21))
    times = [r["t"] for r in rows]
    assert all(a < b for a, b in pairwise(times))
    assert [r["r"] for r in rows[:-1]] == times[1:]  # each retracted when the next came
    assert sum(1 for r in rows if r["r"].year == 9999) == 1
    assert all(r["linked"] == r["cause"] and r["committed_by"] == r["author"] for r in rows)
