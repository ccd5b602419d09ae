"""The read side cannot write, and the as-of reads seek on indexes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import Driver
from neo4j.exceptions import ClientError

from graph.cypher import fact_rows as fr
from graph.cypher import facts as fc
from graph.errors import QueryTimedOut, StoreUnavailable
from graph.read.reader import Reader
from graph.schema import ensure_schema
from graph.time import FAR_FUTURE


def test_a_write_through_the_reader_fails(neo4j_driver: Driver, owner: str) -> None:
    """Reader runs READ transactions: Neo4j itself refuses a CREATE inside one."""
    reader = Reader(neo4j_driver)
    with pytest.raises(ClientError) as err:
        reader.run_query("CREATE (n:Intruder {owner: $owner}) RETURN n", owner=owner)
    assert "AccessMode" in (err.value.code or "")
    rows, _, _ = neo4j_driver.execute_query(
        "MATCH (n:Intruder {owner: $owner}) RETURN count(n) AS n", owner=owner
    )
    assert rows[0]["n"] == 0


SLOW = "UNWIND range(1, $n) AS x WITH x WHERE x % 7 = 3 RETURN count(x) AS n"
"""Hundreds of millions of rows: seconds of work, far past a 200 ms timeout."""


def test_a_read_past_its_timeout_is_query_timed_out(neo4j_driver: Driver) -> None:
    """A transaction Neo4j ends at the reader's timeout is `QueryTimedOut` (a
    `StoreUnavailable`), alone or in a snapshot; prefetch replans on it."""
    reader = Reader(neo4j_driver, retry=False, timeout=0.2)
    with pytest.raises(QueryTimedOut):
        reader.run_query(SLOW, n=400_000_000)
    with pytest.raises(QueryTimedOut), reader.snapshot() as snap:
        snap.run_query(SLOW, n=400_000_000)
    assert issubclass(QueryTimedOut, StoreUnavailable)
    assert reader.run_query("RETURN 1 AS one") == [{"one": 1}]


def _operators(plan: Any) -> list[tuple[str, str]]:
    out = [(plan.get("operatorType", ""), str(plan.get("args", {}).get("Details", "")))]
    for child in plan.get("children", []):
        out.extend(_operators(child))
    return out


@pytest.mark.parametrize(
    ("query", "index"),
    [
        (fc.FACTS_CURRENT, "Fact(entity_id, retracted_at, valid_to)"),
        (fc.FACTS_AS_OF, "Fact(entity_id, retracted_at, valid_to)"),
        (fr.CURRENT_ROWS_MANY, "Fact(entity_id, attribute, retracted_at, valid_to)"),
        (fc.OWNER_ATTRIBUTE_AS_OF, "Fact(owner, attribute, retracted_at)"),
    ],
)
def test_as_of_reads_seek_on_an_index(neo4j_driver: Driver, query: str, index: str) -> None:
    """EXPLAIN shows a seek on the intended range index (by its properties), not a scan."""
    ensure_schema(neo4j_driver)
    now = datetime.now(UTC)
    params = {
        "owner": "o",
        "entity_ids": ["e"],
        "attributes": ["x"],
        "valid_at": now,
        "known_at": now,
        "far": FAR_FUTURE,
        "limit": 5,
        "pairs": [{"entity_id": "e", "attribute": "location", "since": now}],
    }
    with neo4j_driver.session() as session:
        plan = session.run("EXPLAIN " + query, params).consume().plan
    ops = _operators(plan)
    seeks = [(op, details) for op, details in ops if "IndexSeek" in op]
    assert seeks and any(index in details for _, details in seeks), ops
    assert not any("NodeByLabelScan" in op or "AllNodesScan" in op for op, _ in ops), ops
