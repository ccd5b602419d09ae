"""Acknowledged writes survive Neo4j being killed (CONTRACT §15 "Nothing acknowledged is
lost"; issue 13 chaos table, first row, and durability after kill -9).

Writes go through a real `worldstate serve` over the fault tests' own Neo4j, which is
killed with SIGKILL and started again on its data directory and port. Every fact a
201 acknowledged is then found exactly once; a refused write is a 503, never another 5xx.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter

import httpx
import pytest

from tests.faults.harness import OwnNeo4j, Serve, token, wait_for

pytestmark = pytest.mark.slow


def stored_values(store: OwnNeo4j, owner: str) -> Counter[str]:
    """Current `likes` rows of the owner per value (a duplicate shows as a count of 2)."""
    with store.driver() as driver:
        records, _, _ = driver.execute_query(
            "MATCH (f:Fact) WHERE f.owner = $owner AND f.attribute = 'likes' "
            "AND f.retracted_at > datetime('9000-01-01T00:00:00Z') RETURN f.value AS v",
            owner=owner,
        )
    return Counter(r["v"] for r in records)


def test_acknowledged_writes_survive_kill_9(faulty_serve: Serve, restarted: OwnNeo4j) -> None:
    """40 facts acknowledged, Neo4j SIGKILLed (no shutdown, no checkpoint) and started
    again: all 40 are there, each once, and the API serves them without a restart."""
    owner = f"owner-{uuid.uuid4().hex}"
    with faulty_serve.client(token(restarted.uri, owner), timeout=120) as client:
        ana = client.post("/v1/entities", json={"name": "Ana", "kind": "person"}).json()
        for i in range(40):
            r = client.post(
                f"/v1/entities/{ana['id']}/facts", json={"attribute": "likes", "value": f"v{i}"}
            )
            assert r.status_code == 201, r.text
        restarted.kill()
        restarted.start()
        assert stored_values(restarted, owner) == Counter({f"v{i}": 1 for i in range(40)})
        wait_for(lambda: client.get("/v1/entities").status_code == 200, 60, "the API to read again")
        facts = client.get(f"/v1/entities/{ana['id']}/facts").json()["items"]
    assert sorted(f["value"] for f in facts) == sorted(f"v{i}" for i in range(40))


def test_knowledge_and_state_survive_kill_9(faulty_serve: Serve, restarted: OwnNeo4j) -> None:
    """Issue 16: each document edit and state write is its own transaction and survives a
    restart. Two versions of a document and a state value written with an idempotency key,
    Neo4j SIGKILLed and started again: both versions read, the value reads, and the write
    retried with its key after the crash replays (applied once, version unchanged)."""
    owner = f"owner-{uuid.uuid4().hex}"
    doc, state = "/v1/knowledge/runbooks/restart", "/v1/state/nightly/cursor"
    retry = {"Idempotency-Key": "night-7", "If-Match": '"1"'}
    with faulty_serve.client(token(restarted.uri, owner), timeout=120) as client:
        v1 = client.put(doc, json={"body": "first"}).json()["document"]
        assert client.put(doc, json={"body": "second"}).status_code == 200
        assert client.put(state, json={"value": {"page": 1}}).status_code == 201
        applied = client.put(state, json={"value": {"page": 2}}, headers=retry)
        assert applied.status_code == 200 and applied.json()["version"] == 2
        restarted.kill()
        restarted.start()
        wait_for(lambda: client.get(state).status_code == 200, 60, "the API to read again")
        assert client.get(doc).json()["body"] == "second"
        assert client.get(doc, params={"known_at": v1["recorded_at"]}).json()["body"] == "first"
        assert [v["version"] for v in client.get(doc + "/versions").json()["items"]] == [1, 2]
        again = client.put(state, json={"value": {"page": 2}}, headers=retry)
        assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
        now = client.get(state)
    assert (now.json()["value"], now.json()["version"], now.headers["etag"]) == (
        {"page": 2},
        2,
        '"2"',
    )


def test_four_writers_while_neo4j_is_killed_twice(  # noqa: PLR0915 - one scenario, in order
    faulty_serve: Serve, restarted: OwnNeo4j
) -> None:
    """4 writer threads assert facts for at least 20 s (5 s of acknowledged writes before
    each kill and after the last restart) while Neo4j is SIGKILLed twice and started
    again: every acknowledged write is present, none twice, and every refusal is a 503.
    Prints the chaos table's row."""
    owner = f"owner-{uuid.uuid4().hex}"
    secret = token(restarted.uri, owner)
    with faulty_serve.client(secret) as client:
        entities = [
            client.post("/v1/entities", json={"name": f"E{i}", "kind": "project"}).json()["id"]
            for i in range(4)
        ]
    acked: list[str] = []
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    done = threading.Event()

    def writer(k: int) -> None:
        with httpx.Client(
            base_url=faulty_serve.url, headers={"Authorization": f"Bearer {secret}"}, timeout=120
        ) as c:
            i = 0
            while not done.is_set():
                value = f"w{k}-{i}"
                i += 1
                try:
                    r = c.post(
                        f"/v1/entities/{entities[k]}/facts",
                        json={"attribute": "likes", "value": value},
                    )
                    kind = str(r.status_code)
                except httpx.HTTPError as exc:
                    kind = type(exc).__name__
                with lock:
                    outcomes[kind] += 1
                    if kind == "201":
                        acked.append(value)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    began = time.monotonic()
    for t in threads:
        t.start()
    restarts = []

    def acked_now() -> int:
        with lock:
            return len(acked)

    try:
        for _ in range(2):
            # Writes flow for 5 s (acknowledged ones included), then Neo4j is killed.
            seen = acked_now()
            wait_for(lambda seen=seen: acked_now() > seen, 180, "writes to be acknowledged")
            time.sleep(5)
            restarted.kill()
            restarts.append(restarted.start())
        seen = acked_now()
        wait_for(lambda: acked_now() > seen, 180, "writes after the second restart")
        time.sleep(max(5.0, 20 - (time.monotonic() - began)))
    finally:
        done.set()
        for t in threads:
            t.join(30)
    elapsed = time.monotonic() - began
    stored = stored_values(restarted, owner)
    present = sum(1 for v in acked if stored[v] >= 1)
    duplicates = sum(1 for n in stored.values() if n > 1)
    unacked_present = sum(1 for v in stored if v not in set(acked))
    other_5xx = sum(n for k, n in outcomes.items() if k.startswith("5") and k != "503")
    print(
        f"\n4 writers x {elapsed:.0f} s, Neo4j SIGKILLed twice (restarts took "
        f"{', '.join(f'{s:.0f} s' for s in restarts)}): attempts {sum(outcomes.values())}, "
        f"outcomes {dict(outcomes)}; acknowledged {len(acked)}, present "
        f"{present}/{len(acked)} ({100 * present / max(len(acked), 1):.1f} %), duplicates "
        f"{duplicates}, 5xx other than 503: {other_5xx}, written but not acknowledged "
        f"{unacked_present}"
    )
    assert acked and present == len(acked)
    assert duplicates == 0
    assert other_5xx == 0
    assert outcomes["503"] > 0  # the outage was seen
