"""The committer's note commands on the real Neo4j (CONTRACT §13): concurrent writers of one
key are serialized (one current version, a chain of versions with strictly increasing
times), a group's note clock orders members' writes, short-tier notes expire at a brief,
and every change is in the audit trail."""

from __future__ import annotations

import itertools
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from neo4j import Driver

from committer.apply import Committer
from graph.notes import NoteDraft
from graph.read.reader import Reader
from graph.scope import Scope
from graph.time import AsOf, utcnow

pytestmark = pytest.mark.slow


def test_concurrent_writes_of_one_key_leave_one_version_standing(
    neo4j_driver: Driver, owner: str
) -> None:
    """Eight threads replace the note of one key at once: every write lands as its own
    version, at a distinct time, each superseding the one before; one version stands."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    committer.ensure_owner(owner)
    first = committer.write_note(owner, NoteDraft(kind="decision", title="Option zero", key="k"))

    def write(i: int) -> str:
        return committer.write_note(
            owner, NoteDraft(kind="decision", title=f"Option {i}", key="k")
        ).effect

    with ThreadPoolExecutor(8) as pool:
        effects = list(pool.map(write, range(8)))
    assert effects == ["replaced"] * 8
    rows = reader.note_history(Scope(owner), first.note.note_id, utcnow())
    assert [r.version for r in rows] == list(range(1, 10))
    assert [r.row_status for r in rows] == ["superseded"] * 8 + ["active"]
    starts = [r.valid_from for r in rows]
    assert starts == sorted(starts) and len(set(starts)) == 9
    assert all(a.valid_to == b.valid_from for a, b in itertools.pairwise(rows))
    assert {r.first_learned_at for r in rows} == {first.note.first_learned_at}
    assert [n.title for n in reader.notes(Scope(owner), AsOf.at())] == [rows[-1].title]


def test_members_writes_of_a_group_note_are_ordered_by_the_groups_clock(
    neo4j_driver: Driver, owner: str
) -> None:
    """Two members write one group key at once, many times: the versions' times strictly
    increase across members, and one version stands for the group."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    other = owner + "-b"
    committer.ensure_owner(owner)
    committer.ensure_owner(other)
    group = committer.create_group(owner, "org")
    committer.add_member(owner, group.id, other)

    def write(args: tuple[str, int]) -> None:
        who, i = args
        committer.write_note(
            who,
            NoteDraft(
                kind="convention",
                title=f"Option {i} of {'Ann' if who == owner else 'Ben'}",
                key="k",
                group_id=group.id,
            ),
        )

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, [(w, i) for i in range(4) for w in (owner, other)]))
    [note] = reader.notes(Scope(owner), AsOf.at())
    rows = reader.note_history(Scope(other), note.note_id, utcnow())
    times = [r.valid_from for r in rows]
    assert times == sorted(times) and len(set(times)) == len(rows) == 8
    assert {r.owner for r in rows} == {owner, other}
    assert [r.row_status for r in rows].count("active") == 1


def test_short_tier_notes_are_retired_at_the_brief_after_24_hours(
    neo4j_driver: Driver, owner: str
) -> None:
    """A short-tier note older than 24 hours is retired (not deleted) by the next brief;
    a younger one, or a mid-tier one, stays."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    committer.ensure_owner(owner)
    short = committer.write_note(
        owner, NoteDraft(kind="context", title="Parked in bay 4", tier="short")
    )
    committer.write_note(owner, NoteDraft(kind="context", title="Office wifi is slow"))
    assert committer.retire_expired(owner, utcnow() + timedelta(hours=23)) == []
    [done] = committer.retire_expired(owner, utcnow() + timedelta(hours=25))
    assert (done.effect, done.note.note_id, done.note.status) == (
        "retired",
        short.note.note_id,
        "retired",
    )
    later = utcnow() + timedelta(hours=26)
    titles = [n.title for n in reader.notes(Scope(owner), AsOf.at(later, later))]
    assert titles == ["Office wifi is slow"]
    kept = reader.note_history(Scope(owner), short.note.note_id, utcnow() + timedelta(hours=26))
    assert [r.row_status for r in kept] == ["retired"]


def test_every_note_change_is_in_the_audit_trail(neo4j_driver: Driver, owner: str) -> None:
    """Create, replace and retire each record an action and a commit that wrote (and ended)
    the note's rows: WROTE_NOTE and ENDED_NOTE edges to Note rows, one commit per change."""
    committer = Committer(neo4j_driver)
    committer.ensure_owner(owner)
    a = committer.write_note(owner, NoteDraft(kind="decision", title="Price in euros", key="p"))
    committer.write_note(owner, NoteDraft(kind="decision", title="Price in dollars", key="p"))
    committer.retire_note(owner, a.note.note_id, "no pricing any more")
    with neo4j_driver.session() as s:
        edges = s.run(
            "MATCH (c:Event {owner: $o, kind: 'commit'})-[r:WROTE_NOTE|ENDED_NOTE]->(n:Note) "
            "RETURN type(r) AS rel, r.op AS op ORDER BY c.at, rel, op",
            o=owner,
        ).data()
    assert [(e["rel"], e["op"]) for e in edges] == [
        ("WROTE_NOTE", "created"),
        ("ENDED_NOTE", "superseded"),
        ("WROTE_NOTE", "remainder"),
        ("WROTE_NOTE", "replaced"),
        ("ENDED_NOTE", "retired"),
        ("WROTE_NOTE", "retired"),
    ]
    why = Reader(neo4j_driver).note_why(Scope(owner), a.note.note_id)
    assert [e.detail.get("action") for e in why.chain if e.kind == "action"] == [
        "note",
        "note",
        "retire",
    ]


def test_a_project_note_and_a_general_note_of_one_key_live_side_by_side(
    neo4j_driver: Driver,
) -> None:
    """Keys are per scope and project: the same key in a project is another note."""
    owner = f"owner-{uuid.uuid4().hex}"
    committer = Committer(neo4j_driver)
    committer.ensure_owner(owner)
    general = committer.write_note(owner, NoteDraft(kind="convention", title="Use v1", key="api"))
    scoped = committer.write_note(
        owner, NoteDraft(kind="convention", title="Use v2", key="api", project="Atlas")
    )
    assert scoped.effect == "created" and scoped.note.note_id != general.note.note_id
    again = committer.write_note(
        owner, NoteDraft(kind="convention", title="Use v3", key="API", project="atlas")
    )
    assert again.effect == "replaced" and again.note.note_id == scoped.note.note_id
