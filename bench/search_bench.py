"""Search benchmark: what the local embedder costs, and the vector index's over-fetch
against the exact ranking of the caller's rows, in a store crowded by other owners.

Prints medians and p99s (ms) beside a floor measured in the same run (a `RETURN 1` round
trip for reads; a commit without an embedder for writes), the embedder's load time and
the RSS of this process once the model is loaded.

Usage (uses NEO4J_URI, else starts a local Neo4j in a temporary directory):

    .venv/bin/python bench/search_bench.py [--owners 50] [--rows 1000] [--big 5000]
        [--episodes 0] [--small-episodes 100]

The store: `--owners` other owners with `--rows` rows each (the crowd), one caller with 100
rows and one with `--big` rows; with `--episodes`, every crowd owner and the big caller also
hold that many episodes (what was said, CONTRACT §12: the shared vector index of episodes is
then crowded too) and the small caller `--small-episodes`. Rows are "<name> <attribute>
<value>" texts; to load tens of thousands of rows quickly, the real model embeds a pool of
400 distinct texts and each row takes a pool vector plus small noise (so no two are equal:
HNSW degrades on
duplicates). Queries are 30 questions embedded by the real model.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from neo4j import Driver

from api.chat.search import search
from bench.measure import p, timed
from bench.search_store import NAMES, REUSE, load_episodes, load_owner
from committer.apply import Committer
from committer.proposals import Assertion, Provenance
from graph.cypher import episodes as pc
from graph.cypher import search as sc
from graph.driver import connect
from graph.embedding import LocalEmbedder, fact_text
from graph.read.reader import Reader
from graph.schema import ensure_schema
from graph.scope import Scope, params
from graph.time import AsOf

FACTS = [
    ("location", ["Porto", "Lisbon", "Berlin", "Kyoto", "Lima", "Oslo", "Accra"]),
    ("occupation", ["nurse", "carpenter", "teacher", "pilot", "chef", "lawyer"]),
    ("likes", ["jazz music", "hiking", "chess", "sourdough baking", "cycling"]),
    ("employer", ["Acme", "the city hospital", "a bakery", "the university"]),
    ("pet", ["a cat called Miso", "a dog called Rex", "two goldfish"]),
    ("favorite", ["green tea", "pistachio ice cream", "old films"]),
]
QUESTIONS = [
    "where does {n} live",
    "what is {n}'s job",
    "what does {n} enjoy",
    "who does {n} work for",
    "does {n} have a pet",
    "what is {n}'s favourite drink",
]


class Cached:
    """The local embedder with the bench's questions embedded beforehand: the search's store
    part timed apart from the model (whose cost on a shared machine swamps it)."""

    model = LocalEmbedder.model
    dimensions = LocalEmbedder.dimensions

    def __init__(self, inner: LocalEmbedder, vectors: dict[str, list[float]]):
        self.inner, self.vectors = inner, vectors

    def warm(self) -> None:
        self.inner.warm()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vectors[t] if t in self.vectors else self.inner.embed([t])[0] for t in texts]


WARMUPS = 5
"""Unmeasured calls before each measured series."""


@contextmanager
def neo4j() -> Iterator[Driver]:
    """A driver to NEO4J_URI, else to a local Neo4j started for this run."""
    uri = os.environ.get("NEO4J_URI")
    if uri:
        driver = connect(uri, os.environ.get("NEO4J_USER"), os.environ.get("NEO4J_PASSWORD"))
        yield driver
        driver.close()
        return
    from graph.local.server import start, stop

    with tempfile.TemporaryDirectory() as tmp:
        local = start(Path(tmp) / "neo4j", heap="2g", page_cache_mb=1024, detach=False)
        driver = connect(local.uri)
        try:
            yield driver
        finally:
            driver.close()
            stop(local)


def main() -> None:
    """Load, measure, print."""
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--owners", type=int, default=50)
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--big", type=int, default=5000)
    ap.add_argument("--samples", type=int, default=60)
    ap.add_argument("--episodes", type=int, default=0)
    ap.add_argument("--small-episodes", type=int, default=100)
    ap.add_argument(
        "--reuse", action="store_true", help="measure the callers an earlier run loaded"
    )
    args = ap.parse_args()
    rng = random.Random(7)

    embedder = LocalEmbedder()
    started = time.perf_counter()
    embedder.warm()
    print(
        f"embedder: loaded in {time.perf_counter() - started:.1f} s; process RSS "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )
    texts = [fact_text(n, a, v) for n in NAMES for a, vs in FACTS for v in vs][:400]
    one = timed(lambda: embedder.embed(["where does Ana live"]), args.samples, WARMUPS)
    started = time.perf_counter()
    vectors = embedder.embed(texts)
    per_text = (time.perf_counter() - started) * 1000 / len(texts)
    print(
        f"embed one query: median {statistics.median(one):.1f} ms, p99 {p(one, 0.99):.1f} ms; "
        f"batch of {len(texts)}: {per_text:.2f} ms per text"
    )
    pool = list(zip(texts, vectors, strict=True))
    said = [
        f"{n}: " + s.format(v=v)
        for n in NAMES
        for s in ("I just got back from {v}.", "Honestly {v} is all I think about lately.")
        for _, vs in FACTS
        for v in vs
    ][:400]
    said_pool = list(zip(said, embedder.embed(said), strict=True))
    questions = [q.format(n=n) for q in QUESTIONS for n in NAMES[:5]]
    qvecs = embedder.embed(questions)
    cached = Cached(embedder, dict(zip(questions, qvecs, strict=True)))

    with neo4j() as driver:
        ensure_schema(driver)
        started = time.perf_counter()
        found = driver.execute_query(REUSE).records if args.reuse else []
        for _ in range(0 if found else args.owners):
            crowd = f"bench-crowd-{uuid.uuid4().hex[:8]}"
            load_owner(driver, crowd, args.rows, pool, rng)
            load_episodes(driver, crowd, args.episodes, said_pool, rng)
        if found:
            small, big = found[0]["small"], found[0]["big"]
            print(f"store: reused (callers {small}, {big})")
        else:
            small = f"bench-small-{uuid.uuid4().hex[:8]}"
            big = f"bench-big-{uuid.uuid4().hex[:8]}"
            load_owner(driver, small, 100, pool, rng)
            load_owner(driver, big, args.big, pool, rng)
        if args.episodes and not found:
            load_episodes(driver, small, args.small_episodes, said_pool, rng)
            load_episodes(driver, big, args.episodes, said_pool, rng)
        driver.execute_query("CALL db.awaitIndexes(600)")
        print(
            "store: reused"
            if found
            else f"store: {args.owners} owners x {args.rows} rows (+ {args.episodes} episodes) + "
            f"callers of 100 rows ({args.small_episodes if args.episodes else 0} episodes) and "
            f"{args.big} rows, loaded in {time.perf_counter() - started:.0f} s"
        )

        reader = Reader(driver)
        now = AsOf.at()
        floor = timed(reader.ping, args.samples, WARMUPS)
        table = [("floor: RETURN 1", floor)]

        def raw(query: str, owner: str, **extra: object) -> Callable[[], object]:
            i = iter(range(10**9))

            def run() -> object:
                v = qvecs[next(i) % len(qvecs)]
                return reader.run_query(
                    query,
                    vector=v,
                    model=LocalEmbedder.model,
                    valid_at=now.valid_at,
                    known_at=now.known_at,
                    **params(Scope(owner)),
                    **extra,
                )

            return run

        for owner, label in ((small, "100-row caller"), (big, f"{args.big}-row caller")):
            for k in (100, 1000):
                table.append(
                    (
                        f"{label}: index top-{k} then filter",
                        timed(raw(sc.SEMANTIC_NEAREST, owner, k=k), args.samples, WARMUPS),
                    )
                )
            table.append(
                (
                    f"{label}: exact ranking of own rows",
                    timed(raw(sc.SEMANTIC_EXACT, owner, k=20), args.samples, WARMUPS),
                )
            )
            table.append(
                (
                    f"{label}: own rows ranked exactly under a cap (SEMANTIC_SMALL)",
                    timed(raw(sc.SEMANTIC_SMALL, owner, k=20, cap=4000), args.samples, WARMUPS),
                )
            )
            if args.episodes:
                for k in (100, 1000):
                    table.append(
                        (
                            f"{label}: episodes, index top-{k} then filter",
                            timed(
                                raw(pc.EPISODES_NEAREST, owner, k=20, ann=k),
                                args.samples,
                                WARMUPS,
                            ),
                        )
                    )
                table.append(
                    (
                        f"{label}: episodes ranked exactly under a cap (EPISODES_EXACT)",
                        timed(raw(pc.EPISODES_EXACT, owner, k=20, cap=4000), args.samples, WARMUPS),
                    )
                )
            hits = [len(r) for r in (raw(sc.SEMANTIC_NEAREST, owner, k=100)() for _ in range(30))]
            print(
                f"{label}: rows of the caller among the index's top 100: median "
                f"{statistics.median(hits):.0f} (needs 20 for the index path)"
            )
            words = iter(range(10**9))
            table.append(
                (
                    f"{label}: full-text",
                    timed(
                        lambda o=owner, w=words: reader.fulltext(
                            Scope(o), questions[next(w) % 30], now, 20
                        ),
                        args.samples,
                        WARMUPS,
                    ),
                )
            )

            def before(o: str = owner, w: Iterator[int] = words) -> object:
                """The search before episodes (main at 04c1a28), its store part (the query
                embedded beforehand): the index's over-fetch, then the exact fallback,
                and full-text, facts only, in one READ transaction."""
                i = next(w) % 30
                with reader.snapshot() as snap:
                    snap.fulltext(Scope(o), questions[i], now, 20)
                    return snap.semantic(
                        Scope(o), qvecs[i], LocalEmbedder.model, now, 20, exact_cap=0
                    )

            def after(o: str = owner, w: Iterator[int] = words) -> object:
                """Today's search core less the embedder (the query embedded beforehand):
                the four lists in one READ transaction, and the fusion."""
                i = next(w) % 30
                return search(reader, cached, Scope(o), questions[i], now, 10)

            table.append(
                (
                    f"{label}: search before episodes, store part (facts only)",
                    timed(before, args.samples, WARMUPS),
                )
            )
            table.append(
                (
                    f"{label}: search now, store part + fusion (facts + episodes)",
                    timed(after, args.samples, WARMUPS),
                )
            )
            table.append(
                (
                    f"{label}: GET /v1/search core (embed + every list + fuse)",
                    timed(
                        lambda o=owner, w=words: search(
                            reader, embedder, Scope(o), questions[next(w) % 30], now, 10
                        ),
                        args.samples,
                        WARMUPS,
                    ),
                )
            )

        committer_plain, committer_embed = Committer(driver), Committer(driver, embedder=embedder)
        owner = f"bench-commit-{uuid.uuid4().hex[:8]}"
        entity = committer_plain.create_entity(owner, "Ana", "person").id
        n = iter(range(10**9))

        def commit(c: Committer) -> Callable[[], object]:
            return lambda: c.assert_fact(
                owner,
                Assertion(
                    entity_id=entity,
                    attribute="likes",
                    value=f"jazz record number {next(n)}",
                    provenance=Provenance(source="user_edit"),
                ),
            )

        table.append(
            (
                "commit one fact, no embedder (write floor)",
                timed(commit(committer_plain), args.samples, WARMUPS),
            )
        )
        table.append(
            (
                "commit one fact, embedded in its transaction",
                timed(commit(committer_embed), args.samples, WARMUPS),
            )
        )

    print(f"\n{'what':62} {'median ms':>10} {'p99 ms':>8}")
    for label, values in table:
        print(f"{label:62} {statistics.median(values):10.2f} {p(values, 0.99):8.2f}")
    print(f"process RSS (max): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
