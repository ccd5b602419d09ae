"""Concurrent writers to one (entity, attribute) are serialized (CONTRACT §2.1 rule 6).

Eight threads assert eight values of the `one` attribute `location` on one entity at
once, some over overlapping past windows. Afterwards every thread has its result, the
commit times are distinct, current knowledge has no two rows with overlapping valid
windows, and replaying the assertions in commit order through the oracle gives the
same rows: the outcome is some serial order of the eight commits.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import pytest
from neo4j import Driver

from committer.apply import CommitResult, Committer
from committer.proposals import Assertion
from graph.read.reader import Reader
from graph.time import FAR_FUTURE, utcnow
from tests.oracle import Oracle, store_full_key, store_key

pytestmark = pytest.mark.slow

DAY = timedelta(days=1)
CITIES = ["Paris", "Berlin", "Rome", "Oslo", "Lisbon", "Vienna", "Prague", "Madrid"]


def windows(now: datetime) -> list[tuple[datetime | None, datetime | None]]:
    """One window per thread: open and closed, overlapping in the past, one from now."""
    return [
        (now - 100 * DAY, None),
        (now - 80 * DAY, None),
        (now - 90 * DAY, now - 40 * DAY),
        (now - 60 * DAY, now - 50 * DAY),
        (now - 100 * DAY, None),  # equal valid_from: the later commit wins
        (now - 70 * DAY, now - 10 * DAY),
        (None, None),  # the commit time
        (now - 120 * DAY, now - 95 * DAY),
    ]


def _overlapping(rows: list[tuple[datetime, datetime]]) -> list[tuple[int, int]]:
    return [
        (i, j)
        for i, (a0, a1) in enumerate(rows)
        for j, (b0, b1) in enumerate(rows)
        if i < j and a0 < b1 and b0 < a1
    ]


@pytest.mark.parametrize("round_", range(4))
def test_concurrent_assertions_serialize(neo4j_driver: Driver, round_: int) -> None:
    """Eight concurrent assertions of one `one` attribute leave no overlapping current rows."""
    owner = f"concurrency-{uuid.uuid4().hex[:12]}"
    committer = Committer(neo4j_driver)
    reader = Reader(neo4j_driver)
    committer.ensure_owner(owner)
    entity = committer.create_entity(owner, "Ada", "person").id
    now = utcnow()
    spans = windows(now)
    start = threading.Barrier(len(CITIES))

    def write(i: int) -> CommitResult:
        vf, vt = spans[i]
        start.wait(timeout=30)
        return committer.assert_fact(
            owner,
            Assertion(
                entity_id=entity, attribute="location", value=CITIES[i], valid_from=vf, valid_to=vt
            ),
        )

    with ThreadPoolExecutor(max_workers=len(CITIES)) as pool:
        futures = [pool.submit(write, i) for i in range(len(CITIES))]
        results = [f.result(timeout=120) for f in futures]  # every thread got a result

    assert all(r.effect in ("created", "superseded") for r in results)
    times = [r.recorded_at for r in results]
    assert len(set(times)) == len(times), "commit times are distinct"

    current = reader.history(owner, entity, "location")
    assert current, "something is known"
    clashes = _overlapping([(r.valid_from, r.valid_to) for r in current])
    assert clashes == [], [(store_key(current[i]), store_key(current[j])) for i, j in clashes]

    # The outcome is the serial execution in commit order.
    oracle = Oracle()
    for i in sorted(range(len(CITIES)), key=lambda i: times[i]):
        vf, vt = spans[i]
        outcome = oracle.assert_(times[i], entity, "location", CITIES[i], vf, vt, "one")
        assert outcome.effect == results[i].effect
        assert outcome.fact is not None
        assert outcome.fact.key() == store_key(results[i].fact)
    audit = reader.history(owner, entity, "location", include_retracted=True)
    assert Counter(map(store_full_key, audit)) == Counter(
        r.full_key() for r in oracle.history(entity, "location", include_retracted=True)
    )


def test_concurrent_retracts_and_assertions(neo4j_driver: Driver) -> None:
    """A retract, a forget and four assertions racing on one attribute still serialize.

    Seeded: Paris, Berlin, Rome, Oslo, each from 20 days after the previous. The retract
    scraps Berlin (Paris comes back there), the forget ends Oslo, and the assertions
    land inside Rome's window, so no write finds its target gone.
    """
    owner = f"concurrency-{uuid.uuid4().hex[:12]}"
    committer = Committer(neo4j_driver)
    reader = Reader(neo4j_driver)
    committer.ensure_owner(owner)
    entity = committer.create_entity(owner, "Ada", "person").id
    now = utcnow()
    oracle = Oracle()
    for k, city in enumerate(CITIES[:4]):
        since = now - (100 - 20 * k) * DAY
        r = committer.assert_fact(
            owner, Assertion(entity_id=entity, attribute="location", value=city, valid_from=since)
        )
        oracle.assert_(r.recorded_at, entity, "location", city, since, None, "one")
    stored = {str(f.value): f for f in reader.history(owner, entity, "location")}
    modelled = {str(r.value): r for r in oracle.current(entity)}
    assert {k: store_key(f) for k, f in stored.items()} == {k: r.key() for k, r in modelled.items()}
    kinds_by_thread = ["retract", "forget", "assert", "assert", "assert", "assert"]
    inside_rome = [(now - d * DAY, now - (d - 3) * DAY) for d in (58, 54, 49, 44)]
    start = threading.Barrier(6)

    def race(i: int) -> tuple[datetime, Callable[[datetime], object]]:
        start.wait(timeout=30)
        if i == 0:
            done = committer.retract(owner, stored["Berlin"].id)
            return done.recorded_at, lambda t: oracle.retract(t, modelled["Berlin"].id)
        if i == 1:
            gone = committer.forget(owner, stored["Oslo"].id)
            return gone.recorded_at, lambda t: oracle.forget(t, modelled["Oslo"].id)
        city, (vf, vt) = CITIES[2 + i], inside_rome[i - 2]
        said = committer.assert_fact(
            owner,
            Assertion(
                entity_id=entity, attribute="location", value=city, valid_from=vf, valid_to=vt
            ),
        )
        return said.recorded_at, lambda t: oracle.assert_(t, entity, "location", city, vf, vt)

    with ThreadPoolExecutor(max_workers=6) as pool:
        done = [f.result(timeout=120) for f in [pool.submit(race, i) for i in range(6)]]

    current = reader.history(owner, entity, "location")
    clashes = _overlapping([(r.valid_from, r.valid_to) for r in current])
    assert clashes == [], [(store_key(current[i]), store_key(current[j])) for i, j in clashes]
    assert len({t for t, _ in done}) == len(done), "commit times are distinct"
    for t, replay in sorted(done, key=lambda d: d[0]):
        replay(t)
    assert Counter(map(store_key, current)) == Counter(r.key() for r in oracle.current(entity))
    # Scrapping Berlin undoes its whole open claim: Paris comes back over [-80, -60), and,
    # when Oslo was already forgotten, also from the forget on (nothing else covers it).
    # The first part ends where Rome starts: superseded, as Rome left it (CONTRACT §2.1).
    order = sorted((t, k) for (t, _), k in zip(done, kinds_by_thread, strict=True))
    kinds = [kind for _, kind in order]
    paris = [(r.valid_from, r.valid_to, r.status) for r in current if r.value == "Paris"]
    expected = [(now - 100 * DAY, now - 60 * DAY, "superseded")]
    if kinds.index("forget") < kinds.index("retract"):
        forgot_at = next(t for t, k in order if k == "forget")
        expected.append((forgot_at, FAR_FUTURE, "active"))
    assert paris == expected
