"""How cost grows with the store (issue 17): one owner at 10^2 ... 10^6 facts beside 100
other owners, and commits at history depth 1, 10, 100 and 1,000.

The store is a fresh local Neo4j 5.26, loaded through the committer (bench/world.py:
people with ten facts each, a fifth of the one-cardinality ones changed once, vectors of
our local model). 100 other owners hold 1,000 facts each. The measured owner grows step
by step to 10^2, 10^3, 10^4, 10^5 and 10^6 facts; after each step, after a warm-up, the
same five calls run interleaved, `--queries` times each:

* floor: `RETURN 1` in a READ transaction (Reader.ping);
* prefetch: the block for a message naming one of the owner's people;
* search: `api.chat.search.search`, limit 10, the query's vector embedded beforehand;
* history: every row of one attribute of one person (Reader.history);
* as-of read: one person's facts at a past valid time (Reader.facts).

Then commit latency at history depth d (1, 10, 100, 1,000): 20 people whose `location`
already went through d-1 values each take one more value, one commit each, timed; and
the history read of that attribute at that depth.

Prints both tables with p50/p99, ratios to the floor and the load average, writes them
to `--out` (default bench/results/growth.txt) and draws bench/results/growth.png (log-log).

    .venv/bin/python bench/growth.py [--max 1000000] [--queries 200]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import p
from bench.world import FixedEmbedder, Pool, PoolEmbedder, load_ours, people, questions
from committer.apply import Committer
from committer.proposals import Assertion
from graph.driver import connect
from graph.embedding import LocalEmbedder
from graph.local.server import start, stop
from graph.read.reader import Reader
from graph.schema import ensure_schema
from graph.scope import Scope
from graph.time import AsOf, utcnow

STEPS = (100, 1_000, 10_000, 100_000, 1_000_000)
DEPTHS = (1, 10, 100, 1_000)
DEPTH_PEOPLE = 20
PAST = datetime(2023, 6, 1, tzinfo=UTC)
"""The as-of read's valid time: before the changed facts changed (bench/world.py T1)."""
OPS = ("floor", "prefetch", "search", "history", "as-of read")


def measure_reads(
    reader: Reader,
    prefetch_reader: Reader,
    owner: str,
    persons: list[Any],
    ids: list[str],
    vectors: dict[str, list[float]],
    asked: list[tuple[str, str, str]],
    args: Any,
) -> dict[str, list[float]]:
    """Run the five calls interleaved; return their latencies in ms (warm-up dropped)."""
    from api.chat.prefetch.block import build
    from api.chat.search import search

    embedder = FixedEmbedder(vectors)
    rng = random.Random(owner)
    by_name: dict[str, int] = {}
    for i, pe in enumerate(persons[: len(ids)]):
        by_name.setdefault(pe.name, i)
    times: dict[str, list[float]] = {op: [] for op in OPS}
    for i, (question, name, attribute) in enumerate(asked):
        entity = ids[by_name[name]]
        order = list(OPS)
        rng.shuffle(order)  # no call always runs right after another
        for op in order:
            began = time.perf_counter()
            if op == "floor":
                reader.ping()
            elif op == "prefetch":
                message = f"How is {name} doing?"
                build(prefetch_reader, owner, "bench", message, utcnow(), 2000, 40)
            elif op == "search":
                search(reader, embedder, Scope(owner), question, AsOf.at(), 10)
            elif op == "history":
                reader.history(owner, entity, attribute)
            else:
                reader.facts(owner, entity, AsOf.at(valid_at=PAST))
            if i >= args.warmup:
                times[op].append((time.perf_counter() - began) * 1000)
    return times


def measure_depths(driver: Any, pool: Pool, reader: Reader) -> dict[int, dict[str, list[float]]]:
    """Commit latency and history read at each depth of `DEPTHS`."""
    committer = Committer(driver, None, PoolEmbedder(pool))
    values = ("Porto", "Lisbon", "Berlin", "Kyoto", "Lima", "Oslo", "Accra", "Denver")
    out: dict[int, dict[str, list[float]]] = {}
    for depth in DEPTHS:
        owner = f"growth-depth-{depth}"
        ids = load_ours(driver, owner, people(owner, DEPTH_PEOPLE, changed=0.0), pool)
        start_at = datetime(2000, 1, 1, tzinfo=UTC)
        built = [
            Assertion(
                entity_id=e,
                attribute="location",
                value=values[k % 8] + (f" {k}" if k >= 8 else ""),
                valid_from=start_at + timedelta(days=k),
            )
            for e in ids
            for k in range(depth - 1)
        ]
        for lo in range(0, len(built), 1000):
            committer.assert_facts(owner, built[lo : lo + 1000])
        commits, reads = [], []
        for e in ids:
            one = Assertion(entity_id=e, attribute="location", value="Reykjavik")
            began = time.perf_counter()
            committer.assert_fact(owner, one)
            commits.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            reader.history(owner, e, "location")
            reads.append((time.perf_counter() - began) * 1000)
        rows = len(reader.history(owner, ids[0], "location"))
        out[depth] = {"commit": commits, "history read": reads, "rows": [rows]}
    return out


def table(lines: list[str], size: int, times: dict[str, list[float]]) -> None:
    """Append one size's rows to `lines`."""
    floor = p(times["floor"], 0.5)
    for op in OPS:
        v = times[op]
        lines.append(
            f"| {size:,} | {op} | {p(v, 0.5):.1f} | {p(v, 0.99):.1f} | "
            f"{p(v, 0.5) / floor:.1f} | {p(v, 0.99) / floor:.1f} |"
        )


def plot(results: dict[int, dict[str, list[float]]], depths: dict[int, Any], path: Path) -> None:
    """Draw the log-log plot: p50 per call against the owner's facts; commit and history
    read against history depth."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
    sizes = sorted(results)
    for op in OPS:
        left.plot(sizes, [p(results[s][op], 0.5) for s in sizes], marker="o", label=op)
    left.set(
        xscale="log",
        yscale="log",
        xlabel="facts of the measured owner (100 other owners)",
        ylabel="p50 latency, ms",
        title="Reads as one owner grows",
    )
    left.grid(True, which="both", alpha=0.3)
    left.legend()
    ds = sorted(depths)
    for op in ("commit", "history read"):
        right.plot(ds, [p(depths[d][op], 0.5) for d in ds], marker="o", label=op)
    right.plot(
        ds,
        [depths[d]["rows"][0] for d in ds],
        linestyle=":",
        color="grey",
        label="rows the history returns (count)",
    )
    right.set(
        xscale="log",
        yscale="log",
        xlabel="history depth (versions of one attribute)",
        ylabel="p50 latency, ms (rows: count)",
        title="Commits and history by depth",
    )
    right.grid(True, which="both", alpha=0.3)
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=STEPS[-1])
    parser.add_argument("--others", type=int, default=100)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--data", default=str(Path.home() / ".cache/worldstate/bench/growth"))
    parser.add_argument("--cache", default=str(Path.home() / ".cache/worldstate/bench"))
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "growth.txt"))
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    pool = Pool(Path(args.cache))
    qvec = LocalEmbedder()
    shutil.rmtree(args.data, ignore_errors=True)
    db = start(Path(args.data), heap="2g", page_cache_mb=2048, detach=True)
    lines: list[str] = []
    try:
        driver = connect(db.uri)
        ensure_schema(driver)
        began = time.perf_counter()
        for k in range(args.others):
            load_ours(driver, f"growth-other-{k}", people(f"other-{k}", 100), pool)
        took = time.perf_counter() - began
        print(f"{args.others} other owners x 1,000 facts loaded in {took:.0f} s")
        reader = Reader(driver)
        prefetch_reader = Reader(driver, retry=False)
        owner, persons, ids = "growth-owner", people("growth-owner", args.max // 10), []
        results: dict[int, dict[str, list[float]]] = {}
        for size in (s for s in STEPS if s <= args.max):
            began = time.perf_counter()
            ids += load_ours(driver, owner, persons[len(ids) : size // 10], pool)
            driver.execute_query("CALL db.awaitIndexes(3600)")
            loaded = time.perf_counter() - began
            asked = questions(persons[: size // 10], args.queries + args.warmup, f"q{size}")
            vectors = dict(
                zip([q for q, _, _ in asked], qvec.embed([q for q, _, _ in asked]), strict=True)
            )
            results[size] = measure_reads(
                reader, prefetch_reader, owner, persons, ids, vectors, asked, args
            )
            load = os.getloadavg()
            print(f"{size:,} facts (loaded in {loaded:.0f} s), load average {load[0]:.1f}")
            step = [f"\n{size:,} facts, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"]
            table(step, size, results[size])
            print("\n".join(step))
            lines += step
        depths = measure_depths(driver, pool, reader)
        floor = p([x for r in results.values() for x in r["floor"]], 0.5)
        load = os.getloadavg()
        lines.append(f"\nhistory depth (floor p50 {floor:.1f} ms; load average {load[0]:.1f})")
        lines.append(
            "| depth | rows returned | commit p50 ms | commit p99 ms | history read p50 ms |"
        )
        lines.append("|---|---|---|---|---|")
        for d, v in depths.items():
            lines.append(
                f"| {d:,} | {v['rows'][0]} | {p(v['commit'], 0.5):.1f} | "
                f"{p(v['commit'], 0.99):.1f} | {p(v['history read'], 0.5):.1f} |"
            )
        print("\n".join(lines[-(len(depths) + 3) :]))
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        header = [
            "| facts | call | p50 ms | p99 ms | p50 / floor | p99 / floor |",
            "|---|---|---|---|---|---|",
        ]
        out.write_text("\n".join([__doc__.splitlines()[0], *header, *lines]) + "\n")
        plot(results, depths, out.with_suffix(".png"))
        driver.close()
    finally:
        stop(db, timeout_s=120)


if __name__ == "__main__":
    main()
