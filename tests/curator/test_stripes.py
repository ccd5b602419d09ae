"""The run queue's stripes (graph/write/runs.py): a claim waits only for claims and closes
in its own stripe, never for another's; runs of every stripe are still claimed exactly
once, and runs queued before stripes existed are claimed as before.

Like tests/curator/test_workers.py, these claim any owner's runs: run them on a Neo4j of
your own (`quiet_queue` first curates what other tests left).
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

from neo4j import Driver

from committer.apply import Committer
from curator.worker import CuratorWorker
from graph.cypher import runs as rc
from graph.read.reader import Reader
from graph.records import run_key
from graph.schema import ensure_schema
from graph.time import utcnow
from graph.write.runs import STRIPES, queue_id, stripe_of
from graph.write.writer import Writer
from tests.curator.test_workers import submit

LEASE = 60.0


def owners_in_stripes(base: str, count: int) -> list[str]:
    """`count` owner ids derived from `base`, each in a stripe of its own."""
    found: dict[int, str] = {}
    i = 0
    while len(found) < count:
        candidate = f"{base}-{i}"
        found.setdefault(stripe_of(candidate), candidate)
        i += 1
    return list(found.values())


def test_an_owners_runs_share_one_stripe_and_owners_spread() -> None:
    """The stripe is a stable hash of the owner; 1,000 owners cover every stripe; stripe
    0 keeps the lock id of the single lock of before."""
    assert stripe_of("ana") == stripe_of("ana") and 0 <= stripe_of("ana") < STRIPES
    assert {stripe_of(f"owner-{i}") for i in range(1000)} == set(range(STRIPES))
    assert queue_id(0) == "runs" and queue_id(3) == "runs-3"


def test_a_held_stripe_does_not_delay_another_stripes_claim(
    committer: Committer, neo4j_driver: Driver, owner: str, quiet_queue: None
) -> None:
    """While one transaction holds stripe A's lock, a claim in stripe B takes B's run at
    once, and a claim in stripe A waits for the lock, then takes A's run."""
    a, b = owners_in_stripes(owner, 2)
    submit(committer, a, "ra", "I love tango number 1.")
    submit(committer, b, "rb", "I love tango number 2.")
    writer = Writer(neo4j_driver)
    claimed: dict[str, Any] = {}

    def claim(stripe: int, name: str) -> None:
        lease = timedelta(seconds=LEASE)
        claimed[name] = writer.transaction(lambda w: w.claim_run(name, utcnow(), lease, 5, stripe))

    with neo4j_driver.session() as session, session.begin_transaction() as held:
        held.run(rc.LOCK_STRIPE, queue=queue_id(stripe_of(a)), worker="holder", t=utcnow())
        other = threading.Thread(target=claim, args=(stripe_of(b), "wb"))
        same = threading.Thread(target=claim, args=(stripe_of(a), "wa"))
        other.start()
        same.start()
        other.join(30)
        assert not other.is_alive(), "a claim in stripe B waited for stripe A's lock"
        same.join(1.0)
        assert same.is_alive(), "a claim in stripe A did not wait for A's lock"
        held.rollback()
    same.join(30)
    assert claimed["wb"].id == "rb" and claimed["wa"].id == "ra"
    for name, run in claimed.items():
        assert committer.close_run(run, "failed", "test", worker=name)


def test_claims_across_stripes_take_each_run_once(
    committer: Committer, reader: Reader, owner: str, quiet_queue: None
) -> None:
    """Eight threads claiming at once take 48 runs of six owners in six stripes, each run
    exactly once."""
    owners = owners_in_stripes(owner, 6)
    for i in range(48):
        submit(committer, owners[i % 6], f"run-{i}", f"I love tango number {i}.")
    claimed: list[tuple[str, str, str]] = []
    lock = threading.Lock()

    def claimer(worker: str) -> None:
        while (run := committer.claim_run(worker, LEASE)) is not None:
            with lock:
                claimed.append((run.owner, run.id, worker))

    threads = [threading.Thread(target=claimer, args=(f"w{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted((o, r) for o, r, _ in claimed) == sorted(
        (owners[i % 6], f"run-{i}") for i in range(48)
    )
    for run_owner, run_id, worker in claimed:
        run = reader.run(run_owner, run_id)
        assert (run.status, run.lease_owner, run.attempts) == ("curating", worker, 1)
        assert committer.close_run(run, "failed", "test", worker=worker)


def test_a_run_queued_before_stripes_is_claimed_in_stripe_zero(
    committer: Committer, reader: Reader, neo4j_driver: Driver, owner: str, quiet_queue: None
) -> None:
    """A queued run without a stripe (from before stripes) joins stripe 0 at start-up and
    is curated."""
    submit(committer, owner, "r-old", "I love tango number 3.")
    neo4j_driver.execute_query(
        "MATCH (r:Run {key: $key}) REMOVE r.stripe", key=run_key(owner, "r-old")
    )
    ensure_schema(neo4j_driver)
    assert reader.run(owner, "r-old").stripe == 0
    assert CuratorWorker(committer).drain() >= 1
    assert reader.run(owner, "r-old").status == "done"
