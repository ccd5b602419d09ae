"""Near-duplicate values of a `many` attribute (CONTRACT §2.1 rule 1, issue 12).

What a person says in chat names one thing several ways: "my own online clothing store",
"my online store", "online clothing store". A statement from chat whose value is a
near-duplicate of a current row that covers it corroborates that row instead of adding
one; REST edits, merges, splits and syncs keep comparing values exactly. Tables of the
pure rules first (no database), then the whole path against a real Neo4j.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import Assertion, EntityRef, Proposal, Provenance, Reviewed
from committer.rules.normalize import near_duplicate, value_key, value_norm
from committer.rules.plan import NewValue, plan_assert
from graph.read.reader import Reader
from graph.time import FAR_FUTURE, AsOf
from tests.committer.test_rules import fact, m


def s(text: str) -> str:
    return value_norm(text, None)


@pytest.mark.parametrize(
    ("norm", "key"),
    [
        (s("My own online clothing STORES"), ("online", "clothing", "store")),
        (s("the UK"), ("uk",)),
        (s("pottery classes"), ("pottery", "class")),
        (s("short stories"), ("short", "story")),
        (value_norm(3, None), None),
        (value_norm(None, "ent_1"), None),
    ],
)
def test_value_key_keeps_the_content_words(norm: str, key: tuple[str, ...] | None) -> None:
    """Function words and plurals go; numbers and relationships have no key."""
    assert value_key(norm) == key


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("my own online clothing store", "online clothing store", True),
        ("my online store", "online clothing store", True),
        ("online clothing store", "my online store", True),
        ("pottery classes", "a pottery class", True),
        ("book club", "local book club", True),
        ("the UK", "UK", True),
        ("dance studio", "second dance studio", False),
        ("dance studio", "new dance studio", False),
        ("5k race", "10k race", False),
        ("tea", "green tea", False),
        ("Harry Potter", "Harry Potter books", False),
        ("hiking", "hiking boots", False),
        ("online store", "store online", False),
        ("jazz", "jazz", True),
    ],
)
def test_near_duplicate_table(a: str, b: str, same: bool) -> None:
    """One thing said two ways is one value; a word that tells two things apart keeps two."""
    assert near_duplicate(s(a), s(b)) is same
    assert near_duplicate(s(b), s(a)) is same


def test_numbers_and_relationships_are_never_near_duplicates() -> None:
    """Only text values can be near-duplicates."""
    assert not near_duplicate(value_norm(1, None), value_norm(1.0, None))
    assert not near_duplicate(value_norm(None, "ent_1"), value_norm(None, "ent_1"))


def _new(value: str, *, near: bool, cardinality: str = "many") -> NewValue:
    return NewValue(value, None, s(value), cardinality, {"source": "user_stated"}, near=near)


@pytest.mark.parametrize(
    ("row", "value", "start", "stop", "near", "effect"),
    [
        # a covering near-duplicate row corroborates a statement from chat
        (("r1", "online clothing store", 1, None, "active"), "my online store", 3, None, True,
         "duplicate"),
        # ... not an exact-only assertion (REST, merge, split, sync)
        (("r1", "online clothing store", 1, None, "active"), "my online store", 3, None, False,
         "created"),
        # ... nor a row that does not cover the statement's window
        (("r1", "online clothing store", 4, None, "active"), "my online store", 3, None, True,
         "created"),
        (("r1", "pottery class", 1, 3, "active"), "pottery classes", 2, None, True, "created"),
        # ... nor a value that names another thing
        (("r1", "dance studio", 1, None, "active"), "second dance studio", 3, None, True,
         "created"),
        # a closed event inside the row's window is covered
        (("r1", "hike", 1, 12, "active"), "the hike", 5, 6, True, "duplicate"),
    ],
)  # fmt: skip
def test_plan_assert_near_duplicates(
    row: tuple[str, str, int, int | None, str],
    value: str,
    start: int,
    stop: int | None,
    near: bool,
    effect: str,
) -> None:
    """Rule 1 for a `many` attribute: a covering row of a near-duplicate value corroborates."""
    plan = plan_assert(_new(value, near=near), m(start), m(stop), [fact(row, "many")])
    assert plan.effect == effect
    assert plan.corroborates == ("r1" if effect == "duplicate" else None)


def test_a_one_attribute_never_takes_a_near_duplicate() -> None:
    """`one` attributes keep supersede semantics: 'Acme' then 'Acme Labs' is a new value."""
    plan = plan_assert(
        _new("online clothing store", near=True, cardinality="one"),
        m(3),
        FAR_FUTURE,
        [fact(("r1", "online store", 1, None, "active"), "one")],
    )
    assert plan.effect == "superseded"


def test_the_earliest_covering_near_duplicate_is_corroborated() -> None:
    """Two covering rows of near-duplicate values: the earlier one, deterministically."""
    rows = [
        fact(("r2", "online clothing store", 2, None, "active"), "many"),
        fact(("r1", "online store shop", 1, None, "active"), "many"),
        fact(("r0", "online clothing store", 2, None, "active"), "many"),
    ]
    plan = plan_assert(_new("my online clothing store", near=True), m(5), FAR_FUTURE, rows)
    assert (plan.effect, plan.corroborates) == ("duplicate", "r0")


# --- against a real Neo4j ---------------------------------------------------------------

SAID = [
    ("m1", "my own online clothing store", datetime(2023, 4, 25, 11, 24, tzinfo=UTC)),
    ("m2", "my online store", datetime(2023, 6, 16, 9, 0, tzinfo=UTC)),
    ("m3", "online clothing store", datetime(2023, 7, 20, 10, 0, tzinfo=UTC)),
]


def _said(value: str, at: datetime, message_id: str, run: str) -> Reviewed:
    proposal = Proposal(
        id=f"p-{run}-{message_id}",
        subject=EntityRef(),
        attribute="works_on",
        value=value,
        valid_from=at,
        type="project",
        provenance=Provenance(
            source="user_stated", evidence=f"I work on {value}", confidence=0.9,
            run_id=run, message_id=message_id,
        ),
    )  # fmt: skip
    return Reviewed(proposal=proposal, action="commit", policy="clear and low-risk")


def _works_on(reader: Reader, owner: str) -> list[tuple[str, int]]:
    me = reader.self_entity_id(owner)
    assert me is not None
    rows = [f for f in reader.facts(owner, me, AsOf.at()) if f.attribute == "works_on"]
    return [(f.value, len(reader.corroborations(owner, f.id))) for f in rows]


def test_three_ways_of_naming_one_store_are_one_row(neo4j_driver: Driver, owner: str) -> None:
    """Said in three chats, the store is one row, corroborated twice (issue 12)."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    for message_id, value, at in SAID:
        committer.file_proposals(owner, None, [_said(value, at, message_id, f"run-{message_id}")])
    assert _works_on(reader, owner) == [("my own online clothing store", 2)]


def test_near_duplicates_in_one_run_are_one_row(neo4j_driver: Driver, owner: str) -> None:
    """Within one transaction, later statements see the row the first one recorded."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    committer.file_proposals(owner, None, [_said(v, at, mid, "run-1") for mid, v, at in SAID])
    assert _works_on(reader, owner) == [("my own online clothing store", 2)]


def test_a_rest_edit_compares_values_exactly(neo4j_driver: Driver, owner: str) -> None:
    """`POST /v1/entities/{id}/facts` (user_edit) asserts its own value beside the other."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    committer.file_proposals(owner, None, [_said("online clothing store", *SAID[0][2:], "m1", "r")])
    me = reader.self_entity_id(owner)
    assert me is not None
    result = committer.assert_fact(
        owner, Assertion(entity_id=me, attribute="works_on", value="my online store")
    )
    assert result.effect == "created"
    assert sorted(v for v, _ in _works_on(reader, owner)) == [
        "my online store", "online clothing store",
    ]  # fmt: skip


def test_another_thing_is_another_row(neo4j_driver: Driver, owner: str) -> None:
    """'second dance studio' beside 'dance studio' is a second row, not a corroboration."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    at = datetime(2023, 5, 1, tzinfo=UTC)
    committer.file_proposals(owner, None, [_said("dance studio", at, "m1", "r1")])
    committer.file_proposals(owner, None, [_said("second dance studio", at, "m2", "r2")])
    assert sorted(_works_on(reader, owner)) == [("dance studio", 0), ("second dance studio", 0)]
