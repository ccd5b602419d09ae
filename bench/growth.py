"""How cost grows with the store (issue 17): one owner at 10^2 ... 10^6 facts beside 100
other owners, and commits at history depth 1, 10, 100 and 1,000.

Run it against a Neo4j of its own, never a shared one (it writes millions of rows):

    WORLDSTATE_DATA_DIR=/work/scratch/growth/neo4j worldstate neo4j start   # prints the URI
    .venv/bin/python bench/growth.py --data-dir /work/scratch/growth/neo4j [--max 1000000]

The store (bench/world_bulk.py): people with ten facts each (bench/world.py ATTRIBUTES, a
fifth of the one-cardinality facts superseded once, so ~13.2 rows a person), written in
bulk in the committer's exact stored shape (checked at the start against people loaded
through the committer), each row with a vector: the local model's vector of a pool text
("<first name> <attribute> <value>", 3,200 texts embedded once) plus small noise, so the
vector index holds real neighbourhoods. 100 other owners hold 1,000 facts each. The
measured owner grows by appending people, 10^2 -> 10^6 facts; after each step and a
warm-up, five calls run interleaved in a shuffled order each round:

* floor: `RETURN 1` in a READ transaction (Reader.ping);
* prefetch: the block for "How is <name> doing?" (api.chat.prefetch.block.build);
* search: api.chat.search.search, limit 10, on a reader with the API's default vector
  cache; query vectors embedded beforehand (embedding time EXCLUDED);
* history: one attribute of one person (Reader.history: 1 or 2 rows);
* as-of read: one person's facts at a past valid time (Reader.facts).

Then commit latency at history depth d (1, 10, 100, 1,000): people whose `location`
already holds d versions (built through the committer) each take one more value, one
commit each, timed; beside it the history read of that attribute (d rows).

Each finished step is saved in `--json` (the run resumes from it: steps done are not
measured again, the store keeps what was loaded). The tables (p50/p99, ratios to the
floor p50 of the same step, load average, RSS of this process and of Neo4j) are printed
and written to `--out`; the log-log plot to the same name with `.png`. `--remeasure N`
measures step N again on the store as it is (the first figures stay, marked "earlier", as
hollow markers in the plot); free-text `remarks` in the JSON (what happened to the store
between runs) are written under the note.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from neo4j.exceptions import ClientError

from bench.measure import p, rss_mb
from bench.world import ATTRIBUTES, T1, FixedEmbedder, Pool, PoolEmbedder, questions
from bench.world_bulk import check_shape, load_bulk, unique_people
from committer.apply import Committer
from committer.proposals import Assertion
from graph.driver import connect
from graph.embedding import LocalEmbedder
from graph.read.reader import Reader
from graph.read.vectors import VectorCache
from graph.schema import ensure_schema
from graph.scope import Scope
from graph.time import AsOf, utcnow

STEPS = (100, 1_000, 10_000, 100_000, 1_000_000)
DEPTHS = {1: (200, 1), 10: (200, 1), 100: (40, 5), 1_000: (20, 10)}
"""History depth -> (people, commits each): 200 commits at every depth."""
CITIES = ATTRIBUTES["location"][1]
PAST = datetime(2023, 6, 1, tzinfo=UTC)
"""The as-of read's valid time: before the changed facts changed (bench/world.py T1)."""
OPS = ("floor", "prefetch", "search", "history", "as-of read")
OWNER = "growth-owner"
PEOPLE = "MATCH (e:Entity {owner: $owner}) WHERE e.id <> $self_id RETURN e.id AS id, e.name AS name"
"""READ (bench only). $owner, $self_id -> id, name of every person of the owner."""


def people_of(driver: Any, owner: str) -> dict[str, str]:
    """The owner's people already loaded: name -> entity id (the owner's own entity aside)."""
    found = driver.execute_query(
        "MATCH (o:Owner {id: $owner}) RETURN o.self_entity_id AS s", owner=owner
    ).records
    if not found:
        return {}
    rows = driver.execute_query(PEOPLE, owner=owner, self_id=found[0]["s"]).records
    return {r["name"]: r["id"] for r in rows}


INDEXES = "SHOW INDEXES YIELD name, state, populationPercent RETURN name, state, populationPercent"
"""READ (bench only). -> name, state, populationPercent of every index."""


def await_indexes(driver: Any, poll_s: float = 15.0) -> None:
    """Wait until every index is ONLINE, printing the progress of those populating.

    Polls instead of `CALL db.awaitIndexes(...)`: that call runs in one transaction, and
    the local Neo4j ends any transaction after 5 minutes (graph/local/launcher), shorter
    than a million-row vector index takes to populate on two shared cores.

    Raises:
        RuntimeError: an index FAILED.
    """
    while True:
        rows = driver.execute_query(INDEXES).records
        failed = [r["name"] for r in rows if r["state"] == "FAILED"]
        if failed:
            raise RuntimeError(f"index population failed: {failed}")
        pending = {r["name"]: r["populationPercent"] for r in rows if r["state"] != "ONLINE"}
        if not pending:
            return
        shown = ", ".join(f"{k} {v:.0f}%" for k, v in pending.items())
        print(f"{utcnow():%H:%M:%S} populating: {shown}")
        time.sleep(poll_s)


OLD_CODE = "before 69c7397"
"""The code of steps saved without a version: measured before main's commit 69c7397
(full-text search reads Lucene's best hits first, not every hit of the owner)."""


def code_version() -> str:
    """The short git commit that last changed api/ or graph/ in this checkout (the code
    the reads run), with "+" when those have uncommitted changes."""
    here = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "-C", str(here), "log", "-1", "--format=%h", "--", "api", "graph"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--", "api", "graph"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")


def make_schema(driver: Any) -> None:
    """`ensure_schema`, letting its 300 s wait for the indexes run out: a million-row
    vector index takes longer to populate; `await_indexes` then waits for it."""
    try:
        ensure_schema(driver)
    except ClientError as e:
        if not any(w in str(e).lower() for w in ("awaitindexes", "online", "time")):
            raise
        print(f"{utcnow():%H:%M:%S} indexes still populating after ensure_schema's wait")


def measure_reads(
    readers: dict[str, Reader], ids: dict[str, str], asked: list, vectors: dict, args: Any
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Run the five calls interleaved; return their latencies in ms (warm-up dropped)."""
    from api.chat.prefetch.block import build
    from api.chat.search import search

    embedder = FixedEmbedder(vectors)
    rng = random.Random(len(ids))
    times: dict[str, list[float]] = {op: [] for op in OPS}
    rows: dict[str, int] = {op: 0 for op in OPS[1:]}
    reader = readers["plain"]
    for i, (question, name, attribute) in enumerate(asked):
        entity = ids[name]
        order = list(OPS)
        rng.shuffle(order)  # no call always runs right after another
        for op in order:
            began = time.perf_counter()
            if op == "floor":
                reader.ping()
            elif op == "prefetch":
                message = f"How is {name} doing?"
                block = build(readers["prefetch"], OWNER, "bench", message, utcnow(), 2000, 40)
                rows["prefetch"] += len(block.items)
            elif op == "search":
                found = search(readers["search"], embedder, Scope(OWNER), question, AsOf.at(), 10)
                rows["search"] += len(found.items)
            elif op == "history":
                rows["history"] += len(reader.history(OWNER, entity, attribute))
            else:
                rows["as-of read"] += len(reader.facts(OWNER, entity, AsOf.at(valid_at=PAST)))
            if i >= args.warmup:
                times[op].append((time.perf_counter() - began) * 1000)
    return times, rows


class Profiling(Reader):
    """A Reader that runs every query under PROFILE and adds up its db hits (`hits`).
    Procedure calls (the full-text and vector indexes) count as their rows only."""

    hits = 0

    def _rows(self, query: str, **params: Any) -> list[Any]:
        head, _, rest = query.partition("\n")
        profiled = f"{head}\nPROFILE {rest}" if head.startswith("CYPHER") else f"PROFILE {query}"

        def work(tx: Any) -> list[Any]:
            result = tx.run(profiled, params)
            rows = list(result)
            Profiling.hits += _hits(result.consume().profile or {})
            return rows

        return self._read(work)


def _hits(plan: dict[str, Any]) -> int:
    return int(plan.get("dbHits", 0)) + sum(_hits(c) for c in plan.get("children", []))


def profile_step(driver: Any, ids: dict[str, str], asked: list, vectors: dict) -> dict[str, float]:
    """Mean db hits of one call of each read (over the first 5 questions)."""
    from api.chat.prefetch.block import build
    from api.chat.search import search

    reader = Profiling(driver)
    calls = {
        "floor": lambda q, n, a: reader.ping(),
        "prefetch": lambda q, n, a: build(
            reader, OWNER, "bench", f"How is {n} doing?", utcnow(), 2000, 40
        ),
        "search": lambda q, n, a: search(
            reader, FixedEmbedder(vectors), Scope(OWNER), q, AsOf.at(), 10
        ),
        "history": lambda q, n, a: reader.history(OWNER, ids[n], a),
        "as-of read": lambda q, n, a: reader.facts(OWNER, ids[n], AsOf.at(valid_at=PAST)),
    }
    out = {}
    for op, call in calls.items():
        Profiling.hits = 0
        for question, name, attribute in asked[:5]:
            call(question, name, attribute)
        out[op] = Profiling.hits / 5
    return out


def measure_depth(driver: Any, pool: Pool, reader: Reader, depth: int) -> dict[str, Any]:
    """Commit latency and history read at one history depth (see the module docstring):
    `DEPTHS[depth]` = (people, commits each); with several commits a person the depth
    drifts by at most that many versions."""
    count, each = DEPTHS[depth]
    committer = Committer(driver, None, PoolEmbedder(pool))
    owner = f"growth-depth-{depth}-{utcnow():%H%M%S}"  # fresh: a resumed run builds anew
    persons = unique_people(owner, 0, count, changed=0.0)
    ids = load_bulk(driver, owner, persons, pool)
    start_at = T1 + timedelta(days=1)  # after the person's own `location` (from T0)
    built = [
        Assertion(
            entity_id=e,
            attribute="location",
            value=CITIES[k % len(CITIES)],
            valid_from=start_at + timedelta(days=k),
        )
        for e in ids
        for k in range(depth - 1)
    ]  # with the person's own `location`, `depth` versions
    began = time.perf_counter()
    for lo in range(0, len(built), 1000):
        committer.assert_facts(owner, built[lo : lo + 1000])
    built_s = time.perf_counter() - began
    rows = len(reader.history(owner, ids[0], "location"))
    profiling = Profiling(driver)
    Profiling.hits = 0
    for e in ids[:5]:
        profiling.history(owner, e, "location")
    hits = Profiling.hits / 5
    commits, reads, floor = [], [], []
    current = {
        e: CITIES[(depth - 2) % len(CITIES)] if depth > 1 else pe.facts[0].value
        for e, pe in zip(ids, persons, strict=True)
    }
    for j in range(each):
        for e in ids:
            began = time.perf_counter()
            reader.ping()
            floor.append((time.perf_counter() - began) * 1000)
            value = next(c for c in CITIES[j % 2 :] if c != current[e])
            current[e] = value
            one = Assertion(entity_id=e, attribute="location", value=value)
            began = time.perf_counter()
            committer.assert_fact(owner, one)
            commits.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            reader.history(owner, e, "location")
            reads.append((time.perf_counter() - began) * 1000)
    return {
        "floor": floor,
        "commit": commits,
        "history read": reads,
        "rows": rows,
        "db_hits": hits,
        "built_s": built_s,
        "built": len(built),
    }


def table(results: dict[str, Any]) -> list[str]:
    """The two Markdown tables of `results` (the saved JSON)."""
    lines = [
        "| owner's facts (code) | call | n | p50 ms | p99 ms | p50 / floor p50 | p99 / floor p50 "
        "| rows per call | db hits per call | load avg | RSS bench / Neo4j MiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    earlier = results.get("earlier", {})
    shown = [(k, results["steps"][k], "") for k in results["steps"]]
    shown += [(k, earlier[k], " (earlier)") for k in earlier]
    for size, step, mark in sorted(shown, key=lambda s: (int(s[0]), s[2] == "")):
        floor = p(step["times"]["floor"], 0.5)
        for op in OPS:
            v = step["times"][op]
            per = f"{step['rows'][op] / step['calls']:.1f}" if op in step["rows"] else ""
            lines.append(
                f"| {int(size):,}{mark} ({step.get('code', OLD_CODE)}) | {op} | {len(v)} | "
                f"{p(v, 0.5):.1f} | {p(v, 0.99):.1f} | "
                f"{p(v, 0.5) / floor:.1f} | {p(v, 0.99) / floor:.1f} | {per} | "
                f"{step.get('db_hits', {}).get(op, float('nan')):,.0f} | "
                f"{step['load']:.1f} | {step['rss'][0]:.0f} / {step['rss'][1]:.0f} |"
            )
    lines += [
        "",
        "| history depth | rows returned | n | floor p50 ms | commit p50 ms | commit p99 ms "
        "| commit p50 / floor | history read p50 ms | history read p99 ms "
        "| history db hits | load avg |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for depth in sorted(results["depths"], key=int):
        d = results["depths"][depth]
        floor = p(d["floor"], 0.5)
        lines.append(
            f"| {int(depth):,} | {d['rows']} | {len(d['commit'])} | {floor:.1f} | "
            f"{p(d['commit'], 0.5):.1f} | {p(d['commit'], 0.99):.1f} | "
            f"{p(d['commit'], 0.5) / floor:.1f} | {p(d['history read'], 0.5):.1f} | "
            f"{p(d['history read'], 0.99):.1f} | {d.get('db_hits', float('nan')):,.0f} | "
            f"{d['load']:.1f} |"
        )
    return lines


def plot(results: dict[str, Any], path: Path) -> None:
    """Log-log: p50 (line) and p99 (dotted) per call against the owner's facts, as
    multiples of the same step's floor p50; commit and history read against depth."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, mid, right) = plt.subplots(1, 3, figsize=(17, 5.2))
    sizes = sorted(results["steps"], key=int)
    xs = [int(s) for s in sizes]
    for k, op in enumerate(OPS):
        colour = f"C{k}"
        p50 = [p(results["steps"][s]["times"][op], 0.5) for s in sizes]
        p99 = [p(results["steps"][s]["times"][op], 0.99) for s in sizes]
        left.plot(xs, p50, marker="o", color=colour, label=f"{op} p50")
        left.plot(xs, p99, linestyle=":", color=colour, label=f"{op} p99")
        floors = [p(results["steps"][s]["times"]["floor"], 0.5) for s in sizes]
        ratios = [a / f for a, f in zip(p50, floors, strict=True)]
        mid.plot(xs, ratios, marker="o", color=colour, label=op)
        for s, step in results.get("earlier", {}).items():  # re-measured since: hollow
            at50 = p(step["times"][op], 0.5)
            left.plot([int(s)], [at50], marker="o", mfc="none", color=colour, linestyle="")
            floor50 = p(step["times"]["floor"], 0.5)
            mid.plot([int(s)], [at50 / floor50], marker="o", mfc="none", color=colour)
        if op in ("prefetch", "as-of read") and 1_000 in xs:  # the target: within 1.5x
            at = ratios[xs.index(1_000)]
            mid.fill_between([1_000, max(xs)], at / 1.5, at * 1.5, color=colour, alpha=0.08)
    for ax, title, ylabel in (
        (left, "Reads as one owner grows (100 other owners)", "latency, ms"),
        (mid, "Same, p50 as a multiple of the RETURN 1 floor p50", "p50 / floor p50"),
    ):
        ax.set(xscale="log", yscale="log", xlabel="facts of the measured owner", ylabel=ylabel)
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=7, ncol=2)
    title = "shaded: 1.5x band around 10^3"
    if results.get("earlier"):
        title += "\nhollow: a step's first measurement\n(measured again since)"
    mid.legend(fontsize=8, title=title, title_fontsize=8)
    depths = sorted(results["depths"], key=int)
    ds = [int(d) for d in depths]
    for op in ("commit", "history read", "floor"):
        right.plot(
            ds, [p(results["depths"][d][op], 0.5) for d in depths], marker="o", label=f"{op} p50"
        )
    if ds:
        base = p(results["depths"][depths[0]]["history read"], 0.5)
        right.plot(
            ds,
            [base * d / ds[0] for d in ds],
            linestyle=":",
            color="grey",
            label="linear in rows returned",
        )
    right.set(
        xscale="log" if ds else "linear",
        yscale="log" if ds else "linear",
        xlabel="history depth (versions = rows the history returns)",
        ylabel="latency, ms",
    )
    right.set_title("Commits and history reads by depth", fontsize=10)
    right.grid(True, which="both", alpha=0.3)
    if ds:
        right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def save(results: dict[str, Any], args: Any) -> None:
    """Write the JSON, the tables and the plot."""
    Path(args.json).write_text(json.dumps(results))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = table(results)
    steps = ", ".join(f"{int(k):,}" for k in sorted(results["steps"], key=int))
    note = (
        f"Steps run: {steps} facts of the measured owner (~13.2 rows a person), 100 other "
        "owners x 1,000 facts. Rows bulk-loaded in the committer's stored shape (bench/"
        f"world_bulk.py; {results.get('shape', 0)} rows compared equal to committer-loaded "
        "ones), vectors = the local model's vectors of 3,200 pool texts plus noise. Calls "
        "interleaved in shuffled rounds; n samples after 30 warm-up rounds; ratios to the "
        "same step's RETURN 1 p50. Search: the API's reader (default vector cache: owners "
        "up to 20,000 rows), query embedding excluded. db hits: PROFILE of 5 calls, mean "
        "(procedure calls count their rows only). Load average: 1-minute, at the end of "
        "the step (2 cores shared by 4 helpers). Past 12,000 facts a person's name can "
        "hold another's whole name (bench/world_bulk.py: 'Luca Ortega Neka' holds 'Luca "
        "Ortega'); prefetch then rightly reads both people: hence its rows and db hits "
        "per call doubling at 100,000 (about 200 db hits per mentioned person at every "
        "size). Code: beside each size, the commit that last changed api/ or graph/ when "
        f"the step was measured ('{OLD_CODE}': before main bounded the full-text reads, "
        "which then read every hit of the owner holding one of the words); '(earlier)': "
        "the same step as first measured, before it was measured again on the same store."
    )
    remarks = [line for r in results.get("remarks", []) for line in ("", r)]
    head = [__doc__.splitlines()[0].strip(), "", note, *remarks, ""]
    out.write_text("\n".join([*head, *lines]) + "\n")
    print("\n".join(lines))
    plot(results, out.with_suffix(".png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True, help="WORLDSTATE_DATA_DIR of its Neo4j")
    parser.add_argument("--max", type=int, default=STEPS[-1])
    parser.add_argument("--others", type=int, default=100)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--no-depths", action="store_true")
    parser.add_argument(
        "--rebuild-above",
        type=int,
        default=10**9,
        help="drop the vector index while a step adds at least this many facts, then rebuild it",
    )
    parser.add_argument(
        "--remeasure",
        type=int,
        action="append",
        default=[],
        help="measure this finished step again on the store as it is (its figures so far "
        "are kept under 'earlier' in the JSON and shown marked)",
    )
    parser.add_argument("--cache", default=str(Path.home() / ".cache/worldstate/bench"))
    results_dir = Path(__file__).parent / "results"
    parser.add_argument("--out", default=str(results_dir / "growth.md"))
    parser.add_argument("--json", default="/tmp/growth.json")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    local = json.loads((Path(args.data_dir) / "worldstate-neo4j.json").read_text())
    pool = Pool(Path(args.cache))
    driver = connect(local["uri"])
    make_schema(driver)
    await_indexes(driver)
    results: dict[str, Any] = {"steps": {}, "depths": {}}
    if Path(args.json).exists():
        results = json.loads(Path(args.json).read_text())
    for size in args.remeasure:
        moved = results["steps"].pop(str(size), None)
        if moved is not None:
            results.setdefault("earlier", {})[str(size)] = moved
    if not results.get("shape"):
        results["shape"] = check_shape(driver, pool, "growth")
        print(f"bulk rows = committer rows ({results['shape']} rows compared)")
    began = time.perf_counter()
    for k in range(args.others):
        owner = f"growth-other-{k:03d}"
        if not people_of(driver, owner):
            load_bulk(driver, owner, unique_people(owner, 0, 100), pool)
    print(f"{args.others} other owners x 1,000 facts ready ({time.perf_counter() - began:.0f} s)")
    readers = {
        "plain": Reader(driver),
        "prefetch": Reader(driver, retry=False),
        "search": Reader(driver, vectors=VectorCache()),
    }
    for size in (s for s in STEPS if s <= args.max):
        if str(size) in results["steps"]:
            continue
        began = time.perf_counter()
        have = people_of(driver, OWNER)
        persons = unique_people(OWNER, len(have), size // 10 - len(have))
        rebuild = len(persons) * 10 >= args.rebuild_above
        if rebuild:  # bulk population beats a million single HNSW inserts (say so)
            driver.execute_query("DROP INDEX fact_embedding IF EXISTS")
        load_bulk(driver, OWNER, persons, pool)
        if rebuild:
            make_schema(driver)
        await_indexes(driver)
        loaded = time.perf_counter() - began
        ids = people_of(driver, OWNER)
        named = unique_people(OWNER, 0, size // 10)
        asked = questions(named, args.queries + args.warmup, f"q{size}")
        texts = [q for q, _, _ in asked]
        vectors = dict(zip(texts, LocalEmbedder().embed(texts), strict=True))
        times, rows = measure_reads(readers, ids, asked, vectors, args)
        hits = profile_step(driver, ids, asked, vectors)
        results["steps"][str(size)] = {
            "times": times,
            "rows": rows,
            "db_hits": hits,
            "calls": len(asked),
            "load": os.getloadavg()[0],
            "rss": [rss_mb(os.getpid()), rss_mb(local["pid"])],
            "loaded_s": loaded,
            "vector_index_rebuilt": rebuild,
            "finished": utcnow().isoformat(),
            "code": code_version(),
        }
        print(f"{size:,} facts: {len(ids):,} people loaded in {loaded:.0f} s")
        save(results, args)
    for depth in DEPTHS:
        if args.no_depths or str(depth) in results["depths"]:
            continue
        got = measure_depth(driver, pool, readers["plain"], depth)
        results["depths"][str(depth)] = got | {"load": os.getloadavg()[0]}
        print(f"depth {depth:,} done")
        save(results, args)
    save(results, args)
    driver.close()


if __name__ == "__main__":
    main()
