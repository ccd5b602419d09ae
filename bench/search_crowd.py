"""Search for small and large owners in a crowded store, beside a `RETURN 1` floor (issue 17).

The store holds `--crowd` owners of `--crowd-people` people each, `--small` owners of 200
people and one owner of `--large` people (ten facts a person, a fifth of the
one-cardinality ones superseded once: bench/world.py), all loaded through the committer
with vectors from the local model's pool. The vector index is shared by all of them.
With `--episodes N` every owner also holds N episodes, what was said (issue 12: episodes
multiply the vectors in the shared indexes), written with the committer's own write
primitives (graph/write/episodes.py) 500 to a transaction: sentences about the owner's
people and their facts, each with the pool vector of the fact it names plus noise.

For questions about the small and the large owners, each round runs, interleaved: the
floor (`Reader.ping`, a `RETURN 1` READ transaction), `api.chat.search.search` (limit 10)
on a reader without the vector cache (an owner with fewer than `EXACT_CAP` rows ranked
exactly in Cypher, a larger one by the index with its exact fallback), the same on a
reader with the cache (graph/read/vectors.py, what the API builds: it holds fact rows'
and episodes' vectors), and prefetch. Query embedding is EXCLUDED (questions are embedded
beforehand). Printed: p50/p95/p99 in ms and p50 and p99 as multiples of the floor's p50,
the path each semantic list took (facts', episodes'), the top-10 agreement of the two
searches, and the RSS of this process (before and after the cache filled) and of Neo4j.
With `--ab`, each round also runs the cached search with its four candidate lists and the
cache's key read one query each, and prefetch with its view, pointer documents and groups
read one query each (`ListByList`, the A: main before `Reader.recall` and
`Reader.prefetch_turn`), A and B in alternating order, and prints how many of the two's
answers were identical (search: ids and scores; prefetch: block and items).

    .venv/bin/python bench/search_crowd.py --uri bolt://127.0.0.1:PORT --load [--episodes 500]
    .venv/bin/python bench/search_crowd.py --uri bolt://127.0.0.1:PORT --neo4j-pid PID

Use a Neo4j of your own (`WORLDSTATE_DATA_DIR=... worldstate neo4j start`), never a
shared one: `--load` writes tens of thousands of rows.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.chat.prefetch.block import build
from api.chat.search import candidates, search
from bench.measure import p, rss_mb
from bench.world import FixedEmbedder, Pool, chunks, load_ours, people, pool_key, questions
from graph.driver import connect
from graph.embedding import LocalEmbedder, fact_text
from graph.read.prefetch import PrefetchLimits
from graph.read.reader import Reader
from graph.read.recall import Recalled
from graph.read.turn import Turn
from graph.read.vectors import VectorCache
from graph.records import MemoryAccess
from graph.schema import ensure_schema
from graph.scope import Reach, Scope
from graph.time import AsOf, utcnow
from graph.write.writer import Writer

T = TypeVar("T")

SAID = (
    "Caught up with {name} today, and we talked about the {value} thing.",
    "{name} told me about {value} over lunch; I had no idea.",
    "Remind me to ask {name} how {value} is going.",
    "We spent the evening with {name}, mostly on {value}.",
)
"""What the owners said: sentences naming one of their people and a value of that person's
facts, so questions about people find episodes as well as facts."""


class ListByList(Reader):
    """A reader that reads search's four candidate lists one query each, as main did before
    `Reader.recall` read them in one, and prefetch's view, pointer documents and groups one
    query each, as main did before `Reader.prefetch_turn` (the A of `--ab`; same
    answers, more round trips)."""

    def recall(
        self,
        scope: Scope,
        text: str,
        as_of: AsOf,
        k: int,
        vector: list[float] | None = None,
        model: str | None = None,
    ) -> Recalled:
        """The four lists, one query each (fact rows' and episodes' full-text, then both
        semantic lists)."""
        fact_text = self.fulltext(scope, text, as_of, k, vector, model)
        said_text = self.episode_fulltext(scope, text, as_of, k, vector, model)
        if vector is None or model is None:
            return Recalled([], fact_text, [], said_text)
        (fact_near, _), (said_near, _) = self.nearest(scope, vector, model, as_of, k)
        return Recalled(fact_near, fact_text, said_near, said_text)

    def reach(self, owner: str, access: MemoryAccess | None = None) -> Reach:
        """The owner's groups read on their own, as before `prefetch_scope` read them."""
        self._groups.clear()
        return super().reach(owner, access)

    def prefetch_turn(
        self,
        scope: Scope,
        positions: Mapping[str, int],
        as_of: AsOf,
        *,
        preference_attributes: Sequence[str],
        event_attribute: str,
        attribute_order: Mapping[str, int],
        limits: PrefetchLimits,
        recall: Sequence[str] = (),
        message: str,
        reach: Reach | None = None,
    ) -> Turn:
        """The view and the pointer's documents, one query each (as before)."""
        view = self.prefetch_view(
            scope,
            positions,
            as_of,
            preference_attributes=preference_attributes,
            event_attribute=event_attribute,
            attribute_order=attribute_order,
            limits=limits,
            recall=recall,
        )
        pointers = [] if reach is None else self.pointers(reach, message)
        return Turn(view, pointers)


def owners(args: Any) -> dict[str, int]:
    """Every owner of the store and its number of people; targets first."""
    out = {f"small-{k}": 200 for k in range(args.small)} | {"large-0": args.large}
    return out | {f"crowd-{k}": args.crowd_people for k in range(args.crowd)}


def load(driver: Any, args: Any, pool: Pool) -> None:
    """Load every owner through the committer (skipping owners already there)."""
    have = {r["id"] for r in driver.execute_query("MATCH (o:Owner) RETURN o.id AS id").records}
    began = time.perf_counter()
    for owner, count in owners(args).items():
        if owner not in have:
            load_ours(driver, owner, people(owner, count), pool)
    if args.episodes:
        load_episodes(driver, args, pool)
    driver.execute_query("CALL db.awaitIndexes(3600)")
    rows = driver.execute_query("MATCH (f:Fact) RETURN count(f) AS n").records[0]["n"]
    said = driver.execute_query("MATCH (e:Episode) RETURN count(e) AS n").records[0]["n"]
    print(f"loaded in {time.perf_counter() - began:.0f} s; {rows} fact rows, {said} episodes")


def load_episodes(driver: Any, args: Any, pool: Pool) -> None:
    """Give every owner `args.episodes` episodes (skipping owners that have some)."""
    have = {
        r["owner"]
        for r in driver.execute_query("MATCH (e:Episode) RETURN DISTINCT e.owner AS owner").records
    }
    writer = Writer(driver)
    said_at = utcnow()
    for owner, count in owners(args).items():
        if owner in have:
            continue
        persons, rng = people(owner, count), random.Random(owner)
        made = []
        for i in range(args.episodes):
            person = rng.choice(persons)
            fact = rng.choice(person.facts)
            text = rng.choice(SAID).format(name=person.name, value=fact.value)
            key = pool_key(fact_text(person.name, fact.attribute, fact.value))
            made.append(
                {
                    "id": f"ep-{owner}-{i}",
                    "chat_id": f"chat-{i % 7}",
                    "run_id": f"run-{owner}-{i // 20}",
                    "message_id": f"m-{i}",
                    "seq": i % 20,
                    "part": "own",
                    "surface": "chat",
                    "role": "user",
                    "speaker_id": None,
                    "text": text,
                    "said_at": said_at,
                    "source": "user_stated",
                    "search_text": text,
                    "embedding": pool.vector(text, key),
                }
            )
        for part in chunks(made, 500):

            def work(w: Any, part: Any = part, owner: str = owner) -> None:
                t = w.begin_commit(owner, utcnow())
                w.create_episodes(owner, list(part), t, LocalEmbedder.model)

            writer.transaction(work)


def measure(driver: Any, args: Any) -> None:
    """Interleave floor, search without and with the cache, and prefetch; print tables."""
    cache = VectorCache()
    plain, cached = Reader(driver), Reader(driver, vectors=cache)
    before = ListByList(driver, vectors=cache) if args.ab else None
    targets = {"small": [f"small-{k}" for k in range(args.small)], "large": ["large-0"]}
    asked: list[tuple[str, str, str]] = []
    per = args.queries + args.warmup
    for kind, names in targets.items():
        for i in range(per):
            owner = names[i % len(names)]
            q = questions(people(owner, owners(args)[owner]), 1, f"{owner}-{i}")[0][0]
            asked.append((kind, owner, q))
    local = LocalEmbedder()
    texts = sorted({q for _, _, q in asked})
    embedder = FixedEmbedder(dict(zip(texts, local.embed(texts), strict=True)))
    rss_before = rss_mb(os.getpid())
    times: dict[str, list[float]] = {}
    paths: Counter[str] = Counter()
    agree: dict[str, list[float]] = {"small": [], "large": []}
    episodes: dict[str, list[int]] = {"small": [], "large": []}
    identical: dict[str, list[bool]] = {"small": [], "large": []}
    blocks: dict[str, list[bool]] = {"small": [], "large": []}
    for i in range(per):
        for kind, owner, q in asked[i::per]:
            now = AsOf.at()
            floor, _ = clocked(plain.ping)
            ask = partial(search, embedder=embedder, scope=Scope(owner), q=q, as_of=now, limit=10)
            ms_plain, a = clocked(partial(ask, plain))
            order = [cached, before] if i % 2 == 0 else [before, cached]  # A B, then B A
            ran = {id(r): clocked(partial(ask, r)) for r in order if r is not None}
            ms_cached, b = ran[id(cached)]
            ms_before, c = ran.get(id(before), (0.0, b))
            at = utcnow()
            turn = partial(build, owner=owner, chat_id="bench", message=q, at=at)
            turn = partial(turn, max_chars=2000, max_items=40)
            pushed = {
                id(r): clocked(partial(turn, r))
                for r in ([plain, before] if i % 2 == 0 else [before, plain])
                if r is not None
            }
            ms_prefetch, pushed_b = pushed[id(plain)]
            ms_prefetch_a, pushed_a = pushed.get(id(before), (0.0, pushed_b))
            if i < args.warmup:
                continue
            identical[kind].append(
                [(f.id, f.score) for f in c.items] == [(f.id, f.score) for f in b.items]
            )
            blocks[kind].append(pushed_a == pushed_b)
            for name, ms in (
                ("floor", floor),
                ("search, no cache", ms_plain),
                ("search, cache", ms_cached),
                ("search, cache, list by list (A)", ms_before),
                ("prefetch", ms_prefetch),
                ("prefetch, query by query (A)", ms_prefetch_a),
            ):
                if before is not None or "(A)" not in name:
                    times.setdefault(f"{kind}|{name}", []).append(ms)
            ids_a, ids_b = {item_id(f) for f in a.items}, {item_id(f) for f in b.items}
            episodes[kind].append(sum(f.kind == "episode" for f in b.items))
            agree[kind].append(len(ids_a & ids_b) / max(len(ids_a), 1))
            if i % 10 == 0:
                vector = embedder.embed([q])[0]
                n = candidates(10)
                for name, reader in (("no cache", plain), ("cache", cached)):
                    path = reader.semantic(Scope(owner), vector, embedder.model, now, n)[1]
                    paths[f"{kind}|{name}->{path}"] += 1
                    said = reader.episode_semantic(Scope(owner), vector, embedder.model, now, n)
                    paths[f"{kind}|{name}, episodes->{said[1]}"] += 1
    report(times, paths, agree, args, rss_before)
    if before is not None:
        report_ab(identical, blocks)
    for kind, counts in episodes.items():
        print(
            f"episodes among the top 10, {kind}: {sum(counts) / max(len(counts), 1):.2f} a search"
        )


def report_ab(identical: dict[str, list[bool]], blocks: dict[str, list[bool]]) -> None:
    """Print how many of the A/B pairs answered the same."""
    for kind, same in identical.items():
        print(f"searches identical (ids and scores), A vs B, {kind}: {sum(same)}/{len(same)}")
    for kind, same in blocks.items():
        print(f"prefetches identical (block and items), A vs B, {kind}: {sum(same)}/{len(same)}")


def clocked(fn: Callable[[], T]) -> tuple[float, T]:
    """(milliseconds `fn` took, what it returned)."""
    began = time.perf_counter()
    out = fn()
    return (time.perf_counter() - began) * 1000, out


def item_id(found: Any) -> str:
    """A search item's id, whatever its kind (fact, entity or episode)."""
    record = found.fact or found.episode or found.entity
    return f"{found.kind}:{record.id}"


def report(
    times: dict[str, list[float]],
    paths: Counter[str],
    agree: dict[str, list[float]],
    args: Any,
    rss_before: float,
) -> None:
    """Print the tables."""
    print(f"\n{args.queries} measured rounds per owner kind after {args.warmup} warm-up rounds")
    print("| owner | measure | p50 ms | p95 ms | p99 ms | p50 x floor | p99 x floor p50 |")
    print("|---|---|---|---|---|---|---|")
    for key, values in times.items():
        kind, name = key.split("|")
        floor = p(times[f"{kind}|floor"], 0.5)
        print(
            f"| {kind} | {name} | {p(values, 0.5):.2f} | {p(values, 0.95):.2f} | "
            f"{p(values, 0.99):.2f} | {p(values, 0.5) / floor:.1f} | "
            f"{p(values, 0.99) / floor:.1f} |"
        )
    print("\nsemantic list's path (sampled every 10th round):", dict(sorted(paths.items())))
    for kind, values in agree.items():
        print(f"top-10 agreement, no cache vs cache, {kind}: {sum(values) / len(values):.3f}")
    print(f"RSS of this process: {rss_before:.0f} MiB before, {rss_mb(os.getpid()):.0f} after")
    if args.neo4j_pid:
        print(f"RSS of Neo4j: {rss_mb(args.neo4j_pid):.0f} MiB")


def main() -> None:
    """Parse the arguments; load or measure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uri", required=True, help="a Neo4j of your own")
    parser.add_argument("--load", action="store_true", help="load the world first")
    parser.add_argument("--crowd", type=int, default=100)
    parser.add_argument("--crowd-people", type=int, default=40)
    parser.add_argument("--small", type=int, default=4)
    parser.add_argument("--large", type=int, default=1000)
    parser.add_argument("--episodes", type=int, default=0, help="episodes per owner (issue 12)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--cache", default="bench/results/cache", help="pool vectors dir")
    parser.add_argument("--neo4j-pid", type=int, default=0)
    parser.add_argument(
        "--ab", action="store_true", help="also time search with its lists read one by one (A)"
    )
    args = parser.parse_args()
    driver = connect(args.uri)
    try:
        ensure_schema(driver)  # this version's indexes (episodes' too), on a store loaded before
        if args.load:
            load(driver, args, Pool(Path(args.cache)))
        measure(driver, args)
    finally:
        driver.close()


if __name__ == "__main__":
    main()
