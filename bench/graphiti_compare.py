"""worldstate beside Graphiti on the same facts: search latency, result overlap, superseded
results, RSS (issue 17).

For each size (20 owners x 200 people x 10 facts, and the same at 5x and 25x people per
owner), two fresh local Neo4j 5.26 are started, one per system (both use the `Entity`
label, so they cannot share one), and loaded with the same world (bench/world.py):
ours through the committer, Graphiti through `add_nodes_and_edges_bulk` without an LLM
(bench/graphiti_side.py). Each system then answers in a process of its own:

* ours: `api.chat.search.search` (limit 10) and prefetch (`api.chat.prefetch.block.build`);
* Graphiti: `graphiti_core.search.search.search` with `EDGE_HYBRID_SEARCH_RRF` (limit 10).

Query embedding is EXCLUDED on both sides: every question is embedded beforehand by our
local model; Graphiti gets it as `query_vector`, ours from an embedder that returns it.
After a warm-up, the same questions run interleaved, A B A B (ours, Graphiti, prefetch,
then each side's `RETURN 1` floor), each timed inside its own process. Printed per size:
p50/p95/p99, ratios to our floor and ours to Graphiti, the top-10 overlap, the share of
results that are superseded facts, each process's and each Neo4j's RSS, load times.

    .venv/bin/python bench/graphiti_compare.py [--sizes 1,5,25] [--queries 300] [--reuse]

The questions take the owners in turn, so the warm-up asks every owner (twice with the
default 40 and 20 owners): each owner's first search, which fills our per-owner vector
cache (graph/read/vectors.py), is printed apart and left out of the figures. Each size's
stores stay in `--data` after the run (with its load figures in `loaded-<size>.json`);
`--reuse` measures them again without loading.

Needs `pip install -e '.[bench]'` (graphiti-core) and Java 17 for the local Neo4j.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing as mp
import os
import shutil
import sys
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import p, rss_mb
from bench.world import FixedEmbedder, Person, Pool, load_ours, people
from bench.world import questions as make_questions
from graph.driver import connect
from graph.embedding import LocalEmbedder, fact_text
from graph.local.server import LocalNeo4j, start, stop
from graph.schema import ensure_schema
from graph.time import utcnow

OWNERS = 20
PEOPLE = 200


def serve_ours(conn: Connection, uri: str, vectors: dict[str, list[float]]) -> None:
    """Our side, in a process of its own: ("search", owner, q) -> (ms, [(text,
    superseded)]); ("prefetch", owner, q) -> (ms, items); ("floor",); ("rss",); ("stop",)."""
    from api.chat.prefetch.block import build
    from api.chat.search import search
    from api.http.settings import Settings
    from graph.read.reader import Reader
    from graph.read.vectors import VectorCache
    from graph.scope import Scope
    from graph.time import AsOf

    settings = Settings()  # WORLDSTATE_SEARCH_CACHE_ROWS sizes the cache, as for the API
    driver = connect(uri)
    cache = VectorCache(settings.search_cache_rows, settings.search_cache_owner_rows)
    reader = Reader(driver, vectors=cache)  # as the API builds it (api/http/app.py)
    embedder = FixedEmbedder(vectors)
    while True:
        command = conn.recv()
        if command[0] == "stop":
            break
        began = time.perf_counter()
        if command[0] == "search":
            now = AsOf.at()
            found = search(reader, embedder, Scope(command[1]), command[2], now, 10)
            ms = (time.perf_counter() - began) * 1000
            out = []
            for item in found.items:
                fact = item.fact
                text = fact_text(item.entity.name, fact.attribute, fact.value)
                over = fact.status != "active" or fact.valid_to <= now.valid_at
                out.append((text, over or fact.retracted_at <= now.known_at))
            conn.send((ms, out))
        elif command[0] == "prefetch":
            block = build(reader, command[1], "bench", command[2], utcnow(), 2000, 40)
            conn.send(((time.perf_counter() - began) * 1000, len(block.items)))
        elif command[0] == "floor":
            reader.ping()
            conn.send((time.perf_counter() - began) * 1000)
        elif command[0] == "rss":
            conn.send(rss_mb(os.getpid()))
    driver.close()
    conn.send("stopped")


def side(target: Any, uri: str, vectors: dict[str, list[float]]) -> tuple[Any, Connection]:
    """Start `target(conn, uri, vectors)` in a spawned process; return it and our end."""
    ctx = mp.get_context("spawn")
    ours, theirs = ctx.Pipe()
    proc = ctx.Process(target=target, args=(theirs, uri, vectors), daemon=True)
    proc.start()
    return proc, ours


def ask(conn: Connection, *command: Any) -> Any:
    """Send one command to a side and wait for its answer."""
    conn.send(command)
    return conn.recv()


def fresh(root: Path, name: str, heap: str, page_cache_mb: int, keep: bool) -> LocalNeo4j:
    """A Neo4j in the data dir `root/name`: emptied first unless `keep`."""
    if not keep:
        shutil.rmtree(root / name, ignore_errors=True)
    return start(root / name, heap=heap, page_cache_mb=page_cache_mb, detach=True)


def round_robin(worlds: dict[str, Sequence[Person]], count: int) -> list[tuple[str, str]]:
    """`count` (owner, question) pairs taking the owners in turn, so any run of
    len(worlds) of them (the warm-up first) asks every owner once."""
    per = count // len(worlds) + 1
    asked = [
        [(owner, q) for q, _, _ in make_questions(persons, per, f"q{k}")]
        for k, (owner, persons) in enumerate(worlds.items())
    ]
    return [pair for turn in zip(*asked, strict=True) for pair in turn][:count]


def measure_size(scale: int, args: Any, pool: Pool, qvec: LocalEmbedder) -> dict[str, Any]:
    """Load both systems at `scale`, run the interleaved queries, return the figures."""
    root = Path(args.data)
    saved = root / f"loaded-{scale}.json"
    reuse = args.reuse and saved.exists()  # both stores loaded at this scale before
    ours_db = fresh(root, "ours", args.heap, args.page_cache_mb, reuse)
    theirs_db = fresh(root, "graphiti", args.heap, args.page_cache_mb, reuse)
    try:
        worlds = {
            f"s{scale}-o{k}": people(f"o{k}", args.people * scale) for k in range(args.owners)
        }
        if reuse:
            loaded = json.loads(saved.read_text()) | {"reused": True}
        else:
            saved.unlink(missing_ok=True)
            loaded = load_both(ours_db, theirs_db, worlds, pool)
            saved.write_text(json.dumps(loaded))
        asked = round_robin(worlds, args.queries + args.warmup)
        vectors = dict(zip([q for _, q in asked], qvec.embed([q for _, q in asked]), strict=True))
        return interleave(ours_db, theirs_db, asked, vectors, args) | loaded | {"scale": scale}
    finally:
        stop(ours_db, timeout_s=60)
        stop(theirs_db, timeout_s=60)


def load_both(
    ours_db: LocalNeo4j,
    theirs_db: LocalNeo4j,
    worlds: dict[str, Sequence[Person]],
    pool: Pool,
) -> dict[str, Any]:
    """Load `worlds` into both empty stores; return the counts and load times."""
    driver = connect(ours_db.uri)
    ensure_schema(driver)
    began = time.perf_counter()
    for o, w in worlds.items():
        load_ours(driver, o, w, pool)
    assertions = sum(
        len(p.facts) + sum(f.old is not None for f in p.facts) for w in worlds.values() for p in w
    )
    ours_load = time.perf_counter() - began
    driver.execute_query("CALL db.awaitIndexes(3600)")
    ours_rows = driver.execute_query("MATCH (f:Fact) RETURN count(f) AS n").records[0]["n"]
    driver.close()
    from bench import graphiti_side

    async def load_theirs() -> tuple[int, int]:
        built = graphiti_side.clients(theirs_db.uri)
        await built.driver.build_indices_and_constraints()
        counts = [await graphiti_side.load(built, o, w, pool) for o, w in worlds.items()]
        await built.driver.close()
        return sum(c[0] for c in counts), sum(c[1] for c in counts)

    began = time.perf_counter()
    nodes, edges = asyncio.run(load_theirs())
    theirs_load = time.perf_counter() - began
    return {
        "assertions": assertions,
        "ours_rows": ours_rows,
        "ours_load_s": ours_load,
        "theirs_nodes": nodes,
        "theirs_edges": edges,
        "theirs_load_s": theirs_load,
        "load_avg_at_load": os.getloadavg()[0],
    }


def interleave(
    ours_db: LocalNeo4j,
    theirs_db: LocalNeo4j,
    asked: list[tuple[str, str]],
    vectors: dict[str, list[float]],
    args: Any,
) -> dict[str, Any]:
    """Warm both sides up, then run every question on each in turn (A B A B)."""
    from bench import graphiti_side

    a_proc, a = side(serve_ours, ours_db.uri, vectors)
    b_proc, b = side(graphiti_side.serve, theirs_db.uri, vectors)
    times: dict[str, list[float]] = {
        k: [] for k in ("ours", "prefetch", "theirs", "floor", "gfloor")
    }
    cold: dict[str, list[float]] = {"ours": [], "theirs": []}
    overlap: list[float] = []
    superseded = {"ours": 0, "theirs": 0, "ours_n": 0, "theirs_n": 0}
    examples = []
    for i, (owner, q) in enumerate(asked):
        (ms_a, got_a), (ms_b, got_b) = ask(a, "search", owner, q), ask(b, "search", owner, q)
        ms_p, _ = ask(a, "prefetch", owner, q)
        floor, gfloor = ask(a, "floor"), ask(b, "floor")
        if i < args.warmup:
            if i < args.owners:  # each owner's first search (round_robin: one each)
                cold["ours"].append(ms_a)
                cold["theirs"].append(ms_b)
            continue
        for key, value in (("ours", ms_a), ("theirs", ms_b), ("prefetch", ms_p)):
            times[key].append(value)
        times["floor"].append(floor)
        times["gfloor"].append(gfloor)
        texts_a, texts_b = {t for t, _ in got_a}, {t for t, _ in got_b}
        overlap.append(len(texts_a & texts_b) / 10)
        superseded["ours"] += sum(s for _, s in got_a)
        superseded["theirs"] += sum(s for _, s in got_b)
        superseded["ours_n"] += len(got_a)
        superseded["theirs_n"] += len(got_b)
        if len(examples) < 3 and i % 97 == 0:
            examples.append((q, [t for t, _ in got_a[:3]], [(t, s) for t, s in got_b[:3]]))
    rss = {"ours_proc": ask(a, "rss"), "theirs_proc": ask(b, "rss")}
    rss["ours_neo4j"], rss["theirs_neo4j"] = rss_mb(ours_db.pid), rss_mb(theirs_db.pid)
    for conn in (a, b):
        ask(conn, "stop")
    a_proc.join(30)
    b_proc.join(30)
    return {
        "times": times,
        "cold": cold,
        "overlap": overlap,
        "superseded": superseded,
        "rss": rss,
        "examples": examples,
    }


def report(r: dict[str, Any], args: Any) -> None:
    """Print one size's tables."""
    t, floor = r["times"], p(r["times"]["floor"], 0.5)
    load = os.getloadavg()
    print(
        f"\n## size {r['scale']}x: {args.owners} owners x {args.people * r['scale']} people "
        f"x 10 facts (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})"
    )
    print(
        f"ours: {r['assertions']} assertions -> {r['ours_rows']} rows in "
        f"{r['ours_load_s']:.0f} s; Graphiti: {r['theirs_nodes']} nodes, "
        f"{r['theirs_edges']} edges in {r['theirs_load_s']:.0f} s"
    )
    if r.get("reused"):
        print("(stores loaded by an earlier run at this size, measured again; load figures theirs)")
    print(f"load average at the end of the load: {r.get('load_avg_at_load', float('nan')):.1f}")
    print(f"{len(t['ours'])} queries per series, embedding excluded on both sides\n")
    print("| series | p50 ms | p95 ms | p99 ms | p50 / floor | p99 / floor |")
    print("|---|---|---|---|---|---|")
    names = {
        "floor": "RETURN 1 (ours)",
        "gfloor": "RETURN 1 (Graphiti's driver)",
        "ours": "worldstate search",
        "prefetch": "worldstate prefetch",
        "theirs": "Graphiti EDGE_HYBRID_SEARCH_RRF",
    }
    for key in ("floor", "gfloor", "ours", "prefetch", "theirs"):
        v = t[key]
        print(
            f"| {names[key]} | {p(v, 0.5):.1f} | {p(v, 0.95):.1f} | {p(v, 0.99):.1f} | "
            f"{p(v, 0.5) / floor:.1f} | {p(v, 0.99) / floor:.1f} |"
        )
    cold = r["cold"]
    print(
        f"\neach owner's first search (in the warm-up, {len(cold['ours'])} owners): ours p50 "
        f"{p(cold['ours'], 0.5):.0f} ms, max {max(cold['ours']):.0f} ms (its vector cache "
        f"fills); Graphiti p50 {p(cold['theirs'], 0.5):.0f} ms, max {max(cold['theirs']):.0f} ms"
    )
    s = r["superseded"]
    print(
        f"\nGraphiti / ours: p50 {p(t['theirs'], 0.5) / p(t['ours'], 0.5):.1f}x, "
        f"p99 {p(t['theirs'], 0.99) / p(t['ours'], 0.99):.1f}x"
    )
    print(f"top-10 overlap (same fact texts): mean {sum(r['overlap']) / len(r['overlap']):.0%}")
    print(
        f"superseded facts among results: ours {s['ours']}/{s['ours_n']}, "
        f"Graphiti {s['theirs']}/{s['theirs_n']} ({s['theirs'] / max(s['theirs_n'], 1):.0%})"
    )
    rss = r["rss"]
    print(
        f"RSS MiB: our process {rss['ours_proc']:.0f}, its Neo4j {rss['ours_neo4j']:.0f}; "
        f"Graphiti's process {rss['theirs_proc']:.0f}, its Neo4j {rss['theirs_neo4j']:.0f}"
    )
    for q, ours, theirs in r["examples"]:
        shown = [t + (" [superseded]" if s else "") for t, s in theirs]
        print(f"- {q!r}: ours {ours}; Graphiti {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,5,25")
    parser.add_argument("--owners", type=int, default=OWNERS)
    parser.add_argument("--people", type=int, default=PEOPLE, help="people per owner at 1x")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--data", default=str(Path.home() / ".cache/worldstate/bench/compare"))
    parser.add_argument("--cache", default=str(Path.home() / ".cache/worldstate/bench"))
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="measure again on the stores a run left loaded at that size (no new load)",
    )
    parser.add_argument("--heap", default="1g")
    parser.add_argument("--page-cache-mb", type=int, default=1024)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    logging.getLogger("neo4j").setLevel(logging.ERROR)  # Graphiti's queries name absent keys
    pool = Pool(Path(args.cache))
    qvec = LocalEmbedder()
    qvec.warm()
    for scale in (int(s) for s in args.sizes.split(",")):
        report(measure_size(scale, args, pool, qvec), args)


if __name__ == "__main__":
    main()
