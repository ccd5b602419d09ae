"""Start-up's schema on an existing store (graph/schema.py): a full-text index whose analyzer
changed is made again (FULLTEXT_ANALYZERS: `episode_text` moved from `standard-folding` to
`english`, stems), only what is missing is created, and start-ups racing each other all
succeed.

On a Neo4j of the session's own (`own_routed`): the test drops and creates a shared index."""

from __future__ import annotations

import threading

from neo4j import Driver

from graph.schema import (
    _STATEMENT_NAME,
    FULLTEXT_ANALYZER,
    FULLTEXT_ANALYZERS,
    SHOW_CONSTRAINT_NAMES,
    SHOW_INDEX_NAMES,
    STATEMENTS,
    ensure_schema,
)

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
