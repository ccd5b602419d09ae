"""Prefetch benchmark (issue 4, CONTRACT §6): latency, round trips and RSS of a turn's push.

Store: 100 owners x 2,000 entities x 20 current facts (14 attributes, 6 relationships),
with histories (`location`, `occupation` and `employer` of every entity were superseded
once: a retracted original, a superseded remainder and the active row, as the committer
leaves them), about 5.2 million fact rows; each owner's own entity has preferences,
events and relationships too. Messages name 0 to 5 of an owner's entities.

Prints a table: prefetch p50/p99 beside a `RETURN 1` round trip measured in the same run
(in a READ transaction, the same way prefetch runs), ratios, round trips per prefetch
(Bolt requests counted from the driver's log), the size of the block for 5 entities, the
first prefetch after idle, the planning time of the query, and RSS of this process and
of the Neo4j JVM. Targets: p99 <= 10x the round trip, p50 <= 25 ms, block < 2,000 chars.

The store is loaded in bulk with parameterized `UNWIND` batches, NOT through the
committer: the committer applies §2.1's rules to each assertion under its owner's lock
(a few hundred assertions a second), so 5 million rows would take hours; prefetch only
reads, so the bench writes directly the rows the committer would have left (same fields,
same time encoding, OBJECT edges for relationships). The store lives in `--data-dir` and
is reused by later runs (a `BenchMeta` node records what was loaded).

Usage:

    .venv/bin/python bench/prefetch_bench.py [--data-dir /tmp/neo4j-prefetch-bench]
        [--owners 100] [--entities 2000] [--samples 1000] [--heap 2g] [--page-cache-mb 4096]
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastapi.testclient import TestClient
from neo4j import Driver

from api.chat.prefetch import block as prefetch
from api.http.app import create_app
from api.http.settings import Settings
from bench.measure import p, rss_mb, timed
from bench.prefetch_store import EPISODES_META, META, load, load_episodes
from committer.apply import Committer
from graph.cypher.prefetch import PREFETCH
from graph.driver import connect
from graph.local.server import Neo4jLocalSettings, find_running, start, stop
from graph.read.reader import Reader
from graph.schema import ensure_schema
from graph.time import utcnow

# --- measuring ---------------------------------------------------------------------------


class BoltCounter(logging.Handler):
    """Counts the Bolt requests the driver sends (its DEBUG log lines `C: <MESSAGE>`)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.sent: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        at = text.find("C: ")
        if at >= 0:
            name = text[at + 3 :].split(" ", 1)[0]
            self.sent[name] = self.sent.get(name, 0) + 1


def messages(
    rng: random.Random, names: dict[str, list[str]], owners: list[str], n: int
) -> Iterator[tuple[str, int, str]]:
    """(owner, number of entities named, message): 0 to 5 names, some possessive."""
    fillers = (
        "Had lunch with {}.",
        "What did {} say about the plan?",
        "Remind me about {}'s",
        "Ask {} tomorrow.",
        "How is {} doing?",
    )
    for _ in range(n):
        owner = rng.choice(owners)
        k = rng.randint(0, 5)
        chosen = rng.sample(names[owner], k)
        parts = [rng.choice(fillers).format(x) for x in chosen] or ["How was your weekend?"]
        yield owner, k, " ".join(parts) + " Let's plan the week."


def main() -> None:
    """Load (once), measure, print the table."""
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/neo4j-prefetch-bench"))
    ap.add_argument("--owners", type=int, default=100)
    ap.add_argument("--entities", type=int, default=2000)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--heap", default="2g")
    ap.add_argument("--page-cache-mb", type=int, default=4096)
    ap.add_argument("--idle-seconds", type=float, default=20.0)
    ap.add_argument("--stop", action="store_true", help="stop the bench Neo4j at the end")
    ap.add_argument("--load-only", action="store_true", help="load the store, measure nothing")
    ap.add_argument(
        "--episodes", type=int, default=0, help="episodes per owner (issue 12), loaded once"
    )
    args = ap.parse_args()

    local = find_running(args.data_dir) or start(
        args.data_dir,
        heap=args.heap,
        page_cache_mb=args.page_cache_mb,
        cache_dir=Neo4jLocalSettings().neo4j_cache,
        detach=True,
        timeout_s=600,
    )
    driver = connect(local.uri)
    try:
        meta = driver.execute_query(META).records
        if not meta or (meta[0]["owners"], meta[0]["entities"]) != (args.owners, args.entities):
            if meta:
                raise SystemExit(f"{args.data_dir} holds another store: remove it first")
            print(f"loading {args.owners} owners x {args.entities} entities (bulk UNWIND) ...")
            began = time.perf_counter()
            load(driver, args.owners, args.entities)
            print(f"loaded in {time.perf_counter() - began:.0f} s")
        said = driver.execute_query(EPISODES_META).records
        if args.episodes and not said:
            print(f"loading {args.episodes} episodes per owner ...")
            began = time.perf_counter()
            load_episodes(driver, args.owners, args.episodes)
            print(f"loaded in {time.perf_counter() - began:.0f} s")
        began = time.perf_counter()
        ensure_schema(driver)
        driver.execute_query("CALL db.awaitIndexes(3600)")
        print(f"schema online in {time.perf_counter() - began:.0f} s")
        if not args.load_only:
            measure(driver, local.pid, args)
    finally:
        driver.close()
        if args.stop:
            stop(local)


def measure(driver: Driver, jvm_pid: int, args: argparse.Namespace) -> None:
    """Everything the table shows."""
    rng = random.Random(11)
    owners = [f"bench-{i:03d}" for i in range(args.owners)]
    rows = driver.execute_query(
        "UNWIND $owners AS o MATCH (e:Entity) WHERE e.owner = o AND e.id <> 'x' "
        "RETURN o AS owner, collect(e.name) AS names",
        owners=owners,
    ).records
    names = {r["owner"]: [n for n in r["names"] if not n.startswith("Owner ")] for r in rows}
    counts = driver.execute_query("MATCH (f:Fact) RETURN count(f) AS n").records[0]["n"]
    print(f"store: {counts:,} fact rows; warming the page cache ...")
    driver.execute_query("MATCH (f:Fact) RETURN count(f.valid_to) AS n")
    driver.execute_query("MATCH (e:Entity) RETURN count(e.search_names) AS n")

    # Planning cost (why the warm-up and `replan=skip`): EXPLAIN of a text never seen.
    planning = timed(lambda: driver.execute_query(f"EXPLAIN {PREFETCH} // {random.random()}"), 3)

    reader = Reader(driver, retry=False, timeout=None)
    at = utcnow

    def ping() -> None:
        with reader.snapshot() as snap:
            snap.ping()

    def one(owner: str, message: str) -> prefetch.Prefetch:
        return prefetch.build(reader, owner, "bench", message, at(), 2000, 40)

    for owner, _, message in messages(rng, names, owners, 300):  # warm: JIT, plan, cache
        one(owner, message)
    floor = timed(ping, args.samples // 2)
    lat: dict[int, list[float]] = {k: [] for k in range(6)}
    sizes: list[int] = []
    for owner, k, message in messages(rng, names, owners, args.samples):
        began = time.perf_counter()
        out = one(owner, message)
        lat[k].append((time.perf_counter() - began) * 1000)
        if k == 5:
            sizes.append(len(out.block))
    floor += timed(ping, args.samples // 2)
    every = [x for xs in lat.values() for x in xs]

    # The section "From earlier conversations" (issue 12): each turn with and without it,
    # interleaved (the order alternating), so the machine's load weighs on both alike.
    words_of = prefetch.recall.recall_words
    paired: dict[bool, list[float]] = {True: [], False: []}
    for i, (owner, _, message) in enumerate(messages(random.Random(11), names, owners, 400)):
        for section in (True, False) if i % 2 else (False, True):
            prefetch.recall.recall_words = words_of if section else lambda m: []  # type: ignore[assignment]
            paired[section].append(timed(lambda o=owner, m=message: one(o, m), 1)[0])
    prefetch.recall.recall_words = words_of  # type: ignore[assignment]
    without = paired[False]
    said_lines = sum(
        1
        for owner, _, message in messages(random.Random(13), names, owners, 200)
        for i in one(owner, message).items
        if i["kind"] == "episode"
    )

    # Round trips: Bolt requests per prefetch, from the driver's own log.
    counter = BoltCounter()
    bolt = logging.getLogger("neo4j")
    bolt.addHandler(counter)
    bolt.setLevel(logging.DEBUG)
    sample = list(messages(rng, names, owners, 20))
    for owner, _, message in sample:
        one(owner, message)
    bolt.removeHandler(counter)
    bolt.setLevel(logging.WARNING)
    per = {name: n / len(sample) for name, n in sorted(counter.sent.items())}

    # PROFILE of one 5-entity prefetch: db hits and server time.
    owner = owners[0]
    message = next(m for o, k, m in messages(rng, names, [owner], 100) if k == 5)
    profile = profile_once(reader, owner, message)

    # Over HTTP, and the first prefetch after idle (the warmer keeps it warm).
    settings = Settings(curator_in_process=False, prefetch_keepalive_seconds=5.0)
    app = create_app(settings, driver)
    secrets = {o: Committer(driver).create_token(o, ("read",))[0] for o in owners[:10]}
    http: list[float] = []
    idle: list[tuple[float, bool]] = []
    with TestClient(app) as client:

        def post(o: str, msg: str) -> dict[str, Any]:
            r = client.post(
                "/v1/prefetch",
                json={"chat_id": "bench", "message": msg},
                headers={"Authorization": f"Bearer {secrets[o]}"},
            )
            return r.json()  # type: ignore[no-any-return]

        for o, _, msg in messages(rng, names, owners[:10], 50):
            post(o, msg)
        degraded_http = 0
        for o, _, msg in messages(rng, names, owners[:10], 300):
            began = time.perf_counter()
            degraded_http += post(o, msg)["degraded"]
            http.append((time.perf_counter() - began) * 1000)
        for o, _, msg in messages(rng, names, owners[:10], 3):
            time.sleep(args.idle_seconds)
            began = time.perf_counter()
            degraded = post(o, msg)["degraded"]
            idle.append(((time.perf_counter() - began) * 1000, degraded))

    f50, f99 = statistics.median(floor), p(floor, 0.99)
    a50, a99 = statistics.median(every), p(every, 0.99)
    print()
    print(f"{'measure':52} {'p50 ms':>8} {'p99 ms':>8} {'p50/floor':>10} {'p99/floor':>10}")
    print(
        f"{'RETURN 1 in a READ transaction (floor)':52} {f50:8.2f} {f99:8.2f} "
        f"{1:10.1f} {f99 / f50:10.1f}"
    )
    print(
        f"{'prefetch, 0-5 entities named (build)':52} {a50:8.2f} {a99:8.2f} "
        f"{a50 / f50:10.1f} {a99 / f50:10.1f}"
    )
    for label, xs in (
        ("  400 turns with the section, interleaved", paired[True]),
        ("  the same turns without it", without),
    ):
        x50, x99 = statistics.median(xs), p(xs, 0.99)
        print(f"{label:52} {x50:8.2f} {x99:8.2f} {x50 / f50:10.1f} {x99 / f50:10.1f}")
    print(f"  ({said_lines / 200:.2f} snippets of earlier conversations per turn)")
    for k in range(6):
        xs = lat[k]
        print(
            f"{f'  {k} entities named ({len(xs)} samples)':52} {statistics.median(xs):8.2f} "
            f"{p(xs, 0.99):8.2f} {statistics.median(xs) / f50:10.1f} {p(xs, 0.99) / f50:10.1f}"
        )
    h50, h99 = statistics.median(http), p(http, 0.99)
    print(
        f"{'POST /v1/prefetch (in-process HTTP client)':52} {h50:8.2f} {h99:8.2f} "
        f"{h50 / f50:10.1f} {h99 / f50:10.1f}  ({degraded_http} of {len(http)} degraded)"
    )
    print()
    print(
        f"targets: p99 {a99:.2f} ms <= 10 x floor p50 {f50:.2f} ms = {10 * f50:.2f} ms: "
        f"{'met' if a99 <= 10 * f50 else 'MISSED'} (p99 / floor p99 = {a99 / f99:.1f}); "
        f"p50 {a50:.2f} ms <= 25 ms: {'met' if a50 <= 25 else 'MISSED'}; "
        f"block for 5 entities {statistics.median(sizes):.0f} chars median, "
        f"{max(sizes)} max (<= 2,000: {'met' if max(sizes) <= 2000 else 'MISSED'})"
    )
    print(f"Bolt requests per prefetch: {per} (queries = RUN)")
    print(f"PROFILE of one 5-entity PREFETCH: {profile}")
    print(
        f"planning PREFETCH from scratch: {statistics.median(planning):.0f} ms "
        "(done once by the warm-up; `replan=skip` keeps it)"
    )
    print(
        "first prefetch after "
        + f"{args.idle_seconds:.0f} s idle: "
        + ", ".join(f"{ms:.1f} ms{' DEGRADED' if d else ''}" for ms, d in idle)
    )
    print(
        f"RSS: bench process {rss_mb(os.getpid()):.0f} MiB, Neo4j JVM {rss_mb(jvm_pid):.0f} "
        f"MiB (heap {args.heap}, page cache {args.page_cache_mb} MiB)"
    )


def profile_once(reader: Reader, owner: str, message: str) -> str:
    """PROFILE the PREFETCH query of one message; summarize db hits and server time."""
    from api.chat.prefetch.mentions import mention_keys
    from graph.cypher import prefetch as pc
    from graph.read.episodes import episode_lucene
    from graph.read.prefetch import SAID_SCAN, lucene_queries
    from graph.scope import Scope, params

    keys = mention_keys(message)
    now = utcnow()
    limits = prefetch.LIMITS
    with reader._driver.session(default_access_mode="READ") as session:
        result = session.run(
            "PROFILE " + pc.PREFETCH.replace("CYPHER replan=skip", ""),
            {
                "scope": params(Scope(owner)),
                "owner": owner,
                "mentions": {
                    "lucene": lucene_queries(owner, sorted(keys)),
                    "positions": keys,
                    "attribute_order": prefetch.ATTRIBUTE_ORDER,
                },
                "valid_at": now,
                "known_at": now,
                "max_entities": limits.entities,
                "max_facts": limits.facts,
                "max_rows": limits.rows,
                "max_neighbours": limits.neighbours,
                "max_expand": limits.expand,
                "max_preferences": limits.preferences,
                "max_events": limits.events,
                "preference_attributes": list(prefetch.PREFERENCE_ATTRIBUTES),
                "event_attribute": prefetch.EVENT_ATTRIBUTE,
                "recall": {
                    "lucene": [
                        q
                        for q in [
                            episode_lucene(" ".join(prefetch.recall.recall_words(message)), owner)
                        ]
                        if q
                    ]
                },
                "max_said": limits.said,
                "said_scan": limits.said * SAID_SCAN,
                "said_chars": limits.said_chars,
            },
        )
        result.data()
        summary = result.consume()

    hits: list[tuple[int, str]] = []

    def walk(plan: Any) -> None:
        hits.append((plan.get("dbHits", 0), plan["operatorType"].split("@")[0]))
        for child in plan.get("children", []):
            walk(child)

    walk(summary.profile)
    top = sorted(hits, reverse=True)[:4]
    return (
        f"{sum(h for h, _ in hits):,} db hits (top: "
        + ", ".join(f"{op} {h}" for h, op in top)
        + f"), server {summary.result_available_after} + {summary.result_consumed_after} ms"
    )


if __name__ == "__main__":
    main()
