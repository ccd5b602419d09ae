"""Store benchmark: as-of reads and commit throughput on a synthetic 1M-row store (issue 2).

Prints a table of median and p99 latencies (ms) and rows/s, each beside a floor measured
in the same run: a `RETURN 1` round trip for reads, a raw batched `UNWIND ... CREATE`
for writes. Ratios, not absolute times, are what to compare. RSS of this process and of
the Neo4j JVM are printed too.

Usage (uses NEO4J_URI, else starts a local Neo4j in a temporary directory):

    .venv/bin/python bench/store_bench.py [--entities 10000] [--deep 100] [--samples 400]

The synthetic store is what the committer itself would leave behind: shallow entities
whose 30 attributes were each superseded once (an original retracted row, a superseded
remainder and an active row: 90 rows), and deep entities whose `location` went through
1,000 values (a retracted original and a superseded remainder per version: ~2,000 rows).
10,000 entities (100 deep, 100 with a single 1-version attribute for comparison) give
about 1.07 million rows.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from neo4j import Driver

from bench.measure import p, rss_mb, timed
from committer.apply import Committer
from committer.proposals import Assertion
from graph.driver import connect
from graph.read.reader import Reader
from graph.schema import ensure_schema
from graph.time import FAR_FUTURE, AsOf
from graph.write.writer import Writer

T0 = datetime(2020, 1, 1, tzinfo=UTC)
R0 = datetime(2024, 1, 1, tzinfo=UTC)
SHALLOW_ATTRS = 30
DEEP_VERSIONS = 1000


def row(
    owner: str,
    entity: str,
    attribute: str,
    value: str,
    vf: datetime,
    vt: datetime,
    rec: datetime,
    ret: datetime,
    status: str,
) -> dict[str, object]:
    """One synthetic fact row, with every stored field."""
    return {
        "id": f"fct_{uuid.uuid4().hex[:24]}",
        "owner": owner,
        "entity_id": entity,
        "attribute": attribute,
        "value": value,
        "value_norm": f"s:{value.lower()}",
        "cardinality": "one",
        "valid_from": vf,
        "valid_to": vt,
        "recorded_at": rec,
        "retracted_at": ret,
        "status": status,
        "source": "user_edit",
        "confidence": 1.0,
    }


def entity_rows(
    owner: str, entity: str, deep: bool, single: bool = False
) -> Iterator[dict[str, object]]:
    """The rows the committer leaves for one entity (see the module docstring)."""
    if single:
        yield row(owner, entity, "location", "city-0", T0, FAR_FUTURE, R0, FAR_FUTURE, "active")
        return
    if deep:
        day = timedelta(days=1)
        for i in range(DEEP_VERSIONS):
            vf, rec = T0 + i * day, R0 + timedelta(seconds=i)
            last = i == DEEP_VERSIONS - 1
            nxt = R0 + timedelta(seconds=i + 1)
            yield row(
                owner,
                entity,
                "location",
                f"city-{i}",
                vf,
                FAR_FUTURE,
                rec,
                FAR_FUTURE if last else nxt,
                "active",
            )
            if not last:
                yield row(
                    owner,
                    entity,
                    "location",
                    f"city-{i}",
                    vf,
                    vf + day,
                    nxt,
                    FAR_FUTURE,
                    "superseded",
                )
        return
    for a in range(SHALLOW_ATTRS):
        attr = f"attr_{a}"
        change = T0 + timedelta(days=200 + a)
        rec1, rec2 = R0 + timedelta(hours=a), R0 + timedelta(days=30, hours=a)
        yield row(owner, entity, attr, "old", T0, FAR_FUTURE, rec1, rec2, "active")
        yield row(owner, entity, attr, "old", T0, change, rec2, FAR_FUTURE, "superseded")
        yield row(owner, entity, attr, "new", change, FAR_FUTURE, rec2, FAR_FUTURE, "active")


LOAD = """
UNWIND $rows AS r
CREATE (f:Fact)
SET f.id = r.id, f.owner = r.owner, f.entity_id = r.entity_id, f.attribute = r.attribute,
    f.value = r.value, f.value_norm = r.value_norm, f.cardinality = r.cardinality,
    f.valid_from = r.valid_from, f.valid_to = r.valid_to, f.recorded_at = r.recorded_at,
    f.retracted_at = r.retracted_at, f.status = r.status, f.source = r.source,
    f.confidence = r.confidence
"""


def load(driver: Driver, owner: str, entities: list[str], deep: set[str], single: set[str]) -> int:
    """Bulk-load the synthetic store; return the number of fact rows written."""
    committer = Committer(driver)
    committer.ensure_owner(owner)
    driver.execute_query(
        "UNWIND $ids AS id CREATE (e:Entity {id: id, owner: $owner, name: id, kind: 'thing', "
        "aliases: [], search_names: [id], archived: false, created_at: $t})",
        ids=entities,
        owner=owner,
        t=R0,
    )
    total, batch = 0, []
    for entity in entities:
        for r in entity_rows(owner, entity, entity in deep, entity in single):
            batch.append(r)
            if len(batch) >= 20_000:
                driver.execute_query(LOAD, rows=batch)
                total, batch = total + len(batch), []
    if batch:
        driver.execute_query(LOAD, rows=batch)
        total += len(batch)
    return total


WARMUPS = 20
"""Unmeasured calls before each measured series."""


@contextmanager
def neo4j() -> Iterator[tuple[Driver, int | None]]:
    """A driver to NEO4J_URI, else to a local Neo4j started for this run (and its pid)."""
    uri = os.environ.get("NEO4J_URI")
    if uri:
        driver = connect(uri, os.environ.get("NEO4J_USER"), os.environ.get("NEO4J_PASSWORD"))
        yield driver, None
        driver.close()
        return
    from graph.local.server import start, stop

    with tempfile.TemporaryDirectory() as tmp:
        local = start(Path(tmp) / "neo4j", heap="4g", page_cache_mb=2048, detach=False)
        driver = connect(local.uri)
        try:
            yield driver, local.pid
        finally:
            driver.close()
            stop(local)


def main() -> None:
    """Build the store, measure, print the table (stdout is line-buffered)."""
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entities", type=int, default=10_000)
    ap.add_argument("--deep", type=int, default=100)
    ap.add_argument("--samples", type=int, default=400)
    ap.add_argument("--commits", type=int, default=2000)
    args = ap.parse_args()
    rng = random.Random(7)
    with neo4j() as (driver, jvm_pid):
        ensure_schema(driver)
        owner = f"bench-{uuid.uuid4().hex[:8]}"
        entities = [f"ent_b{owner[-8:]}{i:06d}" for i in range(args.entities)]
        deep = set(entities[: args.deep])
        single = set(entities[args.deep : 2 * args.deep])
        shallow = entities[2 * args.deep :]
        started = time.perf_counter()
        rows = load(driver, owner, entities, deep, single)
        print(
            f"loaded {rows:,} fact rows for {len(entities):,} entities "
            f"({len(deep)} with one {DEEP_VERSIONS}-version attribute, {len(single)} with "
            f"one 1-version attribute, the rest with {SHALLOW_ATTRS} attributes) "
            f"in {time.perf_counter() - started:.0f} s"
        )
        driver.execute_query("CALL db.awaitIndexes(600)")

        reader = Reader(driver)
        now = datetime.now(UTC)
        past = AsOf(T0 + timedelta(days=210), R0 + timedelta(days=10))
        table: list[tuple[str, float, float, str]] = []

        def read_row(name: str, fn: Callable[[], object], floor_p50: float) -> float:
            lat = timed(fn, args.samples, WARMUPS)
            med = statistics.median(lat)
            table.append((name, med, p(lat, 0.99), f"{med / floor_p50:.1f}x floor"))
            return med

        # The floor is sampled twice, before and after the reads, and pooled: right after the
        # bulk load Neo4j is still busy in the background, which would flatter the ratios.
        floor = timed(reader.ping, args.samples, WARMUPS)
        warm = [
            timed(lambda: reader.facts(owner, rng.choice(shallow), AsOf.at()), 1, WARMUPS)[0]
            for _ in range(200)
        ]
        floor += timed(reader.ping, args.samples, WARMUPS)
        floor_p50 = statistics.median(floor)
        del warm
        table.append(("RETURN 1 round trip (floor)", floor_p50, p(floor, 0.99), "1.0x floor"))
        cur = read_row(
            "current facts of an entity (30 attributes, 90 rows)",
            lambda: reader.facts(owner, rng.choice(shallow), AsOf.at()),
            floor_p50,
        )
        asof = read_row(
            "same, as of a past (valid_at, known_at)",
            lambda: reader.facts(owner, rng.choice(shallow), past),
            floor_p50,
        )
        one_v = read_row(
            "current read, one attribute with 1 version",
            lambda: reader.facts(owner, rng.choice(sorted(single)), AsOf.at()),
            floor_p50,
        )
        deep_v = read_row(
            "current read, one attribute with 1,000 versions",
            lambda: reader.facts(owner, rng.choice(sorted(deep)), AsOf.at()),
            floor_p50,
        )
        read_row(
            "history of a 1,000-version attribute (~2,000 rows)",
            lambda: reader.history(owner, rng.choice(sorted(deep)), "location"),
            floor_p50,
        )

        # Writes: raw floor vs the committer, in batches of 500 assertions per transaction.
        committer, writer = Committer(driver), Writer(driver)
        batch = 500
        raw_rows = [
            {
                "id": f"fct_{uuid.uuid4().hex[:24]}",
                "entity_id": rng.choice(shallow),
                "attribute": "raw",
                "value": "x",
                "value_norm": "s:x",
                "cardinality": "many",
                "valid_from": now,
            }
            for _ in range(args.commits)
        ]
        started = time.perf_counter()
        for i in range(0, len(raw_rows), batch):
            writer.transaction(lambda w, c=raw_rows[i : i + batch]: w.raw_create(owner, c, now))
        raw_rate = len(raw_rows) / (time.perf_counter() - started)

        def commit_rate(make: Callable[[int], Assertion]) -> float:
            items = [make(i) for i in range(args.commits)]
            started = time.perf_counter()
            for i in range(0, len(items), batch):
                committer.assert_facts(owner, items[i : i + batch])
            return len(items) / (time.perf_counter() - started)

        new_rate = commit_rate(
            lambda i: Assertion(
                entity_id=shallow[i % len(shallow)],
                attribute=f"new_{i // len(shallow)}",
                value=f"v{i}",
                cardinality="one",
            )
        )
        sup_rate = commit_rate(
            lambda i: Assertion(
                entity_id=shallow[i % len(shallow)],
                attribute=f"attr_{i % SHALLOW_ATTRS}",
                value=f"newer-{i}",
                cardinality="one",
            )
        )
        deep_rate = commit_rate(
            lambda i: Assertion(
                entity_id=sorted(deep)[i % len(deep)],
                attribute="location",
                value=f"moved-{i}",
                cardinality="one",
            )
        )
        single = timed(
            lambda: committer.assert_fact(
                owner,
                Assertion(
                    entity_id=rng.choice(shallow),
                    attribute="single",
                    value=str(rng.random()),
                    cardinality="one",
                ),
            ),
            200,
            WARMUPS,
        )

        print()
        print(f"{'measure':58} {'p50 ms':>8} {'p99 ms':>8}  vs floor")
        for name, med, p99, ratio in table:
            print(f"{name:58} {med:8.2f} {p99:8.2f}  {ratio}")
        print(
            f"{'one assertion per transaction (latency)':58} "
            f"{statistics.median(single):8.2f} {p(single, 0.99):8.2f}"
        )
        print()
        print(f"{'writes (batches of 500 per transaction)':58} {'rows/s':>8}  vs floor")
        print(f"{'raw UNWIND ... CREATE (floor)':58} {raw_rate:8.0f}  100%")
        for name, rate in (
            ("commit new facts", new_rate),
            ("commit supersedes", sup_rate),
            ("commit supersedes of 1,000-version attributes", deep_rate),
        ):
            print(f"{name:58} {rate:8.0f}  {100 * rate / raw_rate:.0f}%")
        print()
        print(
            f"targets: as-of p50 / current p50 = {asof / cur:.2f} (<= 2.0); "
            f"1,000-version / 1-version current p50 = {deep_v / one_v:.2f} (<= 1.5); "
            f"new-fact commits = {100 * new_rate / raw_rate:.0f}% of raw (>= 25%)"
        )
        print(
            f"RSS: bench process {rss_mb(os.getpid()):.0f} MiB"
            + (f", Neo4j JVM {rss_mb(jvm_pid):.0f} MiB" if jvm_pid else "")
        )


if __name__ == "__main__":
    main()
