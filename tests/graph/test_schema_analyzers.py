"""Start-up's schema on an existing store (graph/schema.py): a full-text index whose analyzer
changed is made again (FULLTEXT_ANALYZERS: `episode_text` moved from `standard-folding` to
`english`, stems), only what is missing is created, and start-ups racing each other all
succeed.

On a Neo4j of the session's own (`own_routed`): the test drops and creates a shared index."""

from __future__ import annotations

import threading

import pytest
from neo4j import Driver

from graph import schema
from graph.schema import (
    _STATEMENT_NAME,
    FULLTEXT_ANALYZER,
    FULLTEXT_ANALYZERS,
    SHOW_CONSTRAINT_NAMES,
    SHOW_INDEX_NAMES,
    STATEMENTS,
    ensure_schema,
)
from tests.graph.test_transactions import deadlocked_result

OLD = (
    "CREATE FULLTEXT INDEX episode_text IF NOT EXISTS "
    "FOR (ep:Episode) ON EACH [ep.search_text, ep.owner] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding'}}"
)


def analyzer(driver: Driver) -> str:
    """The analyzer `episode_text` has now."""
    rows = driver.execute_query(FULLTEXT_ANALYZER, names=["episode_text"]).records
    return str(rows[0]["analyzer"])


def test_an_old_store_gets_the_stemming_index_with_its_episodes(own_routed: Driver) -> None:
    """A store made when `episode_text` folded without stemming: start-up drops it and
    creates it with `english`; the episodes already written are found by a stem of a word
    they hold ("research" finds "researching"), which the old index could not do; a second
    start-up leaves it alone."""
    driver = own_routed
    driver.execute_query("DROP INDEX episode_text IF EXISTS")
    driver.execute_query(OLD)
    driver.execute_query("CALL db.awaitIndexes(60)")
    driver.execute_query(
        "CREATE (:Episode {id: 'epi_schema_1', owner: 'o-schema', "
        "search_text: 'Caroline: researching adoption agencies'})"
    )
    find = (
        "CALL db.index.fulltext.queryNodes('episode_text', $q) YIELD node "
        "RETURN collect(node.id) AS ids"
    )
    q = '+search_text:research +owner:"o-schema"'
    assert driver.execute_query(find, q=q).records[0]["ids"] == []
    assert analyzer(driver) == "standard-folding"

    ensure_schema(driver)
    assert analyzer(driver) == FULLTEXT_ANALYZERS["episode_text"] == "english"
    assert driver.execute_query(find, q=q).records[0]["ids"] == ["epi_schema_1"]

    ensure_schema(driver)  # nothing to do
    assert analyzer(driver) == "english"
    assert driver.execute_query(find, q=q).records[0]["ids"] == ["epi_schema_1"]
    driver.execute_query("MATCH (ep:Episode {owner: 'o-schema'}) DETACH DELETE ep")


def test_start_up_creates_what_is_missing_and_only_that(own_routed: Driver) -> None:
    """`ensure_schema` looks at the names it finds (one SHOW each for indexes and
    constraints) and runs only the statements whose index or constraint is missing: a
    dropped index and a dropped constraint come back; every statement names what it makes."""
    driver = own_routed
    named = [_STATEMENT_NAME.match(s) for s in STATEMENTS]
    assert all(named), [s for s, m in zip(STATEMENTS, named, strict=True) if m is None]
    index = next(m.group(1) for m in named if m and " INDEX " in m.group(0))
    constraint = next(m.group(1) for m in named if m and "CONSTRAINT" in m.group(0))
    driver.execute_query(f"DROP INDEX {index} IF EXISTS")
    driver.execute_query(f"DROP CONSTRAINT {constraint} IF EXISTS")

    def names() -> set[str]:
        return {
            r["name"]
            for q in (SHOW_INDEX_NAMES, SHOW_CONSTRAINT_NAMES)
            for r in driver.execute_query(q).records
        }

    assert index not in names() and constraint not in names()
    ensure_schema(driver)
    assert {index, constraint} <= names()
    assert {m.group(1) for m in named if m} <= names()


def test_processes_starting_together_make_the_schema_once_without_failing(
    own_routed: Driver,
) -> None:
    """Four start-ups at once on a store without a schema (the API, curator workers and
    `serve --workers` start together): each sees the names missing and creates them, the
    losers of each race get EquivalentSchemaRuleAlreadyExists, and none of them fails.
    Three rounds, each from an empty schema; before the fix every round had failures."""
    driver = own_routed
    failures: list[str] = []

    def start_up() -> None:
        try:
            ensure_schema(driver)
        except Exception as exc:  # the test collects every failure to show it
            failures.append(repr(exc)[:200])

    for _ in range(3):
        for r in driver.execute_query("SHOW CONSTRAINTS YIELD name").records:
            driver.execute_query(f"DROP CONSTRAINT {r['name']}")
        for r in driver.execute_query(
            "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"
        ).records:
            driver.execute_query(f"DROP INDEX {r['name']} IF EXISTS")
        threads = [threading.Thread(target=start_up) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert failures == []
        made = {
            r["name"]
            for q in (SHOW_INDEX_NAMES, SHOW_CONSTRAINT_NAMES)
            for r in driver.execute_query(q).records
        }
        assert {m.group(1) for m in map(_STATEMENT_NAME.match, STATEMENTS) if m} <= made


def test_a_start_up_that_lost_a_race_makes_the_schema_again(
    own_routed: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in CI: one of four racing start-ups failed with ResultFailedError (a deadlock
    between their schema statements, seen through another result of the transaction).
    The attempt that loses such a race now runs again from the top, and the schema is
    whole; a failure that is not contention is raised at once."""
    calls: list[str] = []
    real = schema._create

    def racing(driver: Driver, statement: str, database: str | None, **params: object) -> None:
        calls.append(statement)
        if len(calls) == 2:
            raise deadlocked_result()
        real(driver, statement, database, **params)

    for r in own_routed.execute_query(
        "SHOW INDEXES YIELD name, type WHERE type = 'FULLTEXT' RETURN name"
    ).records:
        own_routed.execute_query(f"DROP INDEX {r['name']} IF EXISTS")
    monkeypatch.setattr(schema, "_create", racing)
    ensure_schema(own_routed)
    names = {r["name"] for r in own_routed.execute_query(SHOW_INDEX_NAMES).records}
    assert set(FULLTEXT_ANALYZERS) <= names
    assert len(calls) > 2

    def broken(driver: Driver, statement: str, database: str | None, **params: object) -> None:
        raise ValueError("a bug")

    monkeypatch.setattr(schema, "_create", broken)
    for r in own_routed.execute_query(
        "SHOW INDEXES YIELD name, type WHERE type = 'FULLTEXT' RETURN name"
    ).records:
        own_routed.execute_query(f"DROP INDEX {r['name']} IF EXISTS")
    with pytest.raises(ValueError, match="a bug"):
        ensure_schema(own_routed)
    monkeypatch.undo()
    ensure_schema(own_routed)
