"""Episodes in the committer (CONTRACT §4, §12): a run filed twice keeps what was said
once; the curator's hand-over never carries a secret."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from neo4j import Driver

from committer.apply import Committer
from curator.episodes import REDACTED, redact, said_in
from graph.errors import Conflict
from graph.records import RunRecord

AT = "2024-03-10T09:00:00+01:00"


def _lease(driver: Driver, owner: str, run_id: str, worker: str) -> None:
    """Put the run in `curating` under `worker`'s lease, as a claim (or a takeover) does,
    without the shared run queue (other test sessions' runs must not be claimed here)."""
    until = datetime.now(UTC) + timedelta(minutes=5)
    driver.execute_query(
        "MATCH (r:Run {key: $key}) SET r.status = 'curating', r.lease_owner = $worker, "
        "r.lease_until = $until",
        key=f"{owner}/{run_id}",
        worker=worker,
        until=until,
    )


def _episodes(driver: Driver, owner: str) -> list[str]:
    rows = driver.execute_query(
        "MATCH (ep:Episode {owner: $o}) RETURN ep.id AS id ORDER BY id", o=owner
    ).records
    return [r["id"] for r in rows]


def test_a_run_filed_again_after_a_takeover_keeps_each_episode_once(
    neo4j_driver: Driver, owner: str
) -> None:
    """Worker A files a run; its lease is taken over and worker B files it again: B's
    commit writes no second copy (episodes are idempotent on id); A, no longer holding
    the lease, gets Conflict and writes nothing."""
    committer = Committer(neo4j_driver)
    payload = json.dumps(
        {
            "messages": [
                {"id": "m1", "role": "user", "text": "I live in Porto.", "at": AT},
                {"id": "m2", "role": "assistant", "text": "Porto, noted.", "at": AT},
            ]
        }
    )
    run, _ = committer.submit_run(owner, run_id="r1", chat_id="c1", surface=None, payload=payload)
    said = said_in(run)
    _lease(neo4j_driver, owner, "r1", "A")
    committer.apply_run(run, [], worker="A", said=said)
    first = _episodes(neo4j_driver, owner)
    assert len(first) == 2
    _lease(neo4j_driver, owner, "r1", "B")
    committer.apply_run(run, [], worker="B", said=said)
    assert _episodes(neo4j_driver, owner) == first
    with pytest.raises(Conflict):
        committer.apply_run(run, [], worker="A", said=said)
    assert _episodes(neo4j_driver, owner) == first


def test_the_hand_over_is_redacted() -> None:
    """`said_in` gives the committer no credential: a flagged sentence, a value on the next
    line, a card number; the rest of the words stay."""
    messages = [
        "I live in Porto. My PIN is 4821.",
        "my password is\nhunter2x9",
        "Card: 4111 1111 1111 1111, thanks!",
        "Nothing secret here.",
    ]
    payload = json.dumps({"messages": [{"role": "user", "text": t, "at": AT} for t in messages]})
    run = RunRecord("r", "o", "c", None, "curating", payload, 0, 0, 0, None, datetime.now(UTC))
    texts = [s.text for s in said_in(run)]
    assert texts == [
        f"I live in Porto. {REDACTED}",
        f"{REDACTED}\n{REDACTED}",
        REDACTED,
        "Nothing secret here.",
    ]
    assert redact("I forgot my password again.") == "I forgot my password again."
