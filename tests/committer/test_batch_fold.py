"""A row one commit records and folds into a later row of the same commit is never
written (committer/batch.py): no row is recorded and retracted at one instant.

Found by tests/committer/test_merge_model.py in CI: a merge moved two windows of one
value that a row of the survivor bridged, and the first moved window was written and
retracted in the merge's own transaction.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from neo4j import Driver

from committer.apply import Committer
from committer.proposals import Assertion
from graph.read.reader import Reader

FEB, MAY, AUG = (datetime(2026, m, d, tzinfo=UTC) for m, d in ((2, 2), (5, 13), (8, 21)))


def _owner(committer: Committer) -> str:
    owner = f"fold-{uuid.uuid4().hex[:12]}"
    committer.ensure_owner(owner)
    return owner


def _instant_rows(reader: Reader, owner: str, entity_id: str) -> list[str]:
    """Rows of the audit history recorded and retracted at the same instant."""
    return [
        f.id
        for f in reader.history(owner, entity_id, include_retracted=True)
        if f.recorded_at == f.retracted_at
    ]


def test_merge_bridged_windows_leave_no_instant_rows(neo4j_driver: Driver) -> None:
    """The CI case: the survivor's forgotten Rome bridges two of the loser's Rome
    windows; the merge records one row, which stands for both moved rows."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    owner = _owner(committer)
    ada = committer.create_entity(owner, "Ada", "person").id
    king = committer.create_entity(owner, "Ada King", "person").id
    first = committer.assert_fact(
        owner, Assertion(entity_id=ada, attribute="location", value="Rome")
    )
    committer.forget(owner, first.fact.id)
    committer.assert_fact(
        owner, Assertion(entity_id=ada, attribute="location", value="Rome", valid_from=MAY)
    )
    moved = [
        committer.assert_fact(
            owner,
            Assertion(
                entity_id=king, attribute="location", value="Rome", valid_from=start, valid_to=stop
            ),
        )
        for start, stop in ((FEB, MAY), (AUG, None))
    ]

    merge = committer.merge(owner, king, ada)

    assert _instant_rows(reader, owner, ada) == []
    current = reader.history(owner, ada)
    assert [(f.value, f.valid_from, f.status) for f in current] == [("Rome", FEB, "active")]
    why = reader.why(reader.scope(owner), current[0].id)
    chain = {e.id for e in why.chain}
    assert {m.event_id for m in moved} <= chain, "why reaches both moved rows' assertions"
    assert merge.event_id in chain


def test_adjacent_windows_in_one_call_name_the_row_that_stands(neo4j_driver: Driver) -> None:
    """Two adjacent windows of one value asserted in one call: one row is recorded, and
    both results name it (the first id would otherwise be a row nobody can forget)."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    owner = _owner(committer)
    ada = committer.create_entity(owner, "Ada", "person").id
    results = committer.assert_facts(
        owner,
        [
            Assertion(
                entity_id=ada, attribute="location", value="Rome", valid_from=FEB, valid_to=MAY
            ),
            Assertion(
                entity_id=ada, attribute="location", value="Rome", valid_from=MAY, valid_to=AUG
            ),
        ],
    )

    assert _instant_rows(reader, owner, ada) == []
    (row,) = reader.history(owner, ada, include_retracted=True)
    assert (row.valid_from, row.valid_to) == (FEB, AUG)
    assert [r.fact.id for r in results] == [row.id, row.id]
    assert all(row.id not in r.retracted for r in results)
    assert committer.forget(owner, results[0].fact.id).retracted == (row.id,)


def test_a_duplicate_of_a_folded_row_corroborates_the_row_that_stands(
    neo4j_driver: Driver,
) -> None:
    """A duplicate of a row that a later write of the same call folds in: its
    corroboration, and its result, name the row that stands."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    owner = _owner(committer)
    ada = committer.create_entity(owner, "Ada", "person").id
    window = {"valid_from": FEB, "valid_to": MAY}
    results = committer.assert_facts(
        owner,
        [
            Assertion(entity_id=ada, attribute="location", value="Rome", **window),
            Assertion(entity_id=ada, attribute="location", value="Rome", **window),
            Assertion(entity_id=ada, attribute="location", value="Rome", valid_from=MAY),
        ],
    )

    assert _instant_rows(reader, owner, ada) == []
    (row,) = reader.history(owner, ada, include_retracted=True)
    assert [r.effect for r in results] == ["created", "duplicate", "created"]
    assert {r.fact.id for r in results} == {row.id}
    (corroboration,) = reader.corroborations(owner, row.id)
    assert (corroboration["valid_from"], corroboration["valid_to"]) == (FEB, MAY)
