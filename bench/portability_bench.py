"""Backup, restore and owner export at size (issue 13).

Builds two stores in Neo4j instances of its own: a demo-sized one (one owner, 200 facts
asserted through the committer) and one with 1 M fact rows for one owner (1,000 entities,
rows written raw as in bench/store_bench.py). For each: `backup` and `restore`
(neo4j-admin dump/load, graph/local/backup.py) into a fresh data dir, seconds and dump
size. For the 1 M store: `worldstate owner export` as its own process, rows/s and its
peak RSS, beside a floor measured in the same run (the same keyset pages of the fact rows
read in this process, nothing encoded); and the import of that file into a new owner, rows/s.

Usage: .venv/bin/python bench/portability_bench.py [--facts 1000000] [--work DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import rss_mb
from committer.apply import Committer
from committer.proposals import Assertion
from graph.driver import connect
from graph.local.backup import backup, restore
from graph.local.server import Neo4jLocalSettings, start, stop
from graph.schema import ensure_schema
from graph.write.writer import Writer

ROOT = Path(__file__).resolve().parents[1]
HEAP, PAGE_CACHE_MB = "2g", 1024


def launch(home: Path):
    return start(
        home,
        heap=HEAP,
        page_cache_mb=PAGE_CACHE_MB,
        cache_dir=Neo4jLocalSettings().neo4j_cache,
        detach=False,
    )


def dump_and_load(home: Path, work: Path, name: str) -> str:
    dump = work / f"{name}.dump"
    made = backup(home, dump, heap=HEAP, page_cache_mb=PAGE_CACHE_MB)
    fresh = work / f"{name}-restored"
    shutil.rmtree(fresh, ignore_errors=True)
    loaded = restore(fresh, dump, heap=HEAP, page_cache_mb=PAGE_CACHE_MB)
    return (
        f"| {name} | {made.tool_seconds:.1f} | {loaded.tool_seconds:.1f} | "
        f"{made.bytes / 2**20:.1f} |"
    )


def demo(work: Path) -> str:
    home = work / "demo"
    shutil.rmtree(home, ignore_errors=True)
    store = launch(home)
    try:
        with connect(store.uri) as driver:
            ensure_schema(driver)
            committer = Committer(driver)
            e = committer.create_entity("demo", "Ana", "person")
            committer.assert_facts(
                "demo",
                [
                    Assertion(entity_id=e.id, attribute="likes", value=f"v{i}", cardinality="many")
                    for i in range(200)
                ],
            )
    finally:
        stop(store)
    return dump_and_load(home, work, "demo store (200 facts)")


def big(work: Path, facts: int) -> list[str]:
    home = work / "big"
    owner = "bench-1m"
    store = launch(home)
    out = []
    try:
        with connect(store.uri) as driver:
            ensure_schema(driver)
            have = driver.execute_query(
                "MATCH (f:Fact) WHERE f.owner = $owner RETURN count(f) AS n", owner=owner
            ).records[0]["n"]
            if have < facts:
                fill(driver, owner, facts - have)
            began = time.perf_counter()
            with driver.session() as s:
                n = sum(
                    1 for _ in s.run("MATCH (f:Fact) WHERE f.owner = $owner RETURN f", owner=owner)
                )
            floor = n / (time.perf_counter() - began)
            file = work / "big.jsonl"
            env = {
                k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "WORLDSTATE_"))
            }
            env |= {"NEO4J_URI": store.uri, "WORLDSTATE_EMBEDDER": "none"}
            began = time.perf_counter()
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    "from api.cli.main import main; main()",
                    "owner",
                    "export",
                    "--owner",
                    owner,
                    "--out",
                    str(file),
                ],
                cwd=ROOT,
                env=env,
                stderr=subprocess.PIPE,
            )
            peak = 0.0
            while proc.poll() is None:
                with contextlib.suppress(OSError):
                    peak = max(peak, rss_mb(proc.pid))
                time.sleep(0.1)
            seconds = time.perf_counter() - began
            assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
            lines = sum(1 for _ in file.open())
            out.append(
                f"| export, `worldstate owner export` process | {lines:,} lines | "
                f"{lines / seconds:,.0f} lines/s | peak RSS {peak:.0f} MiB |"
            )
            out.append(
                f"| floor: one streaming MATCH of the {n:,} fact rows | | {floor:,.0f} rows/s | |"
            )
            began = time.perf_counter()
            with file.open() as f:
                result = Committer(driver).import_owner(f, f"bench-copy-{uuid.uuid4().hex[:6]}")
            seconds = time.perf_counter() - began
            written = sum(result.nodes.values()) + sum(result.relations.values())
            out.append(
                f"| import into a new owner | {written:,} nodes and links | "
                f"{written / seconds:,.0f} /s | |"
            )
    finally:
        stop(store)
    out.append(dump_and_load(home, work, f"{facts:,} facts (+ its copy)"))
    return out


def fill(driver, owner: str, facts: int) -> None:
    committer = Committer(driver)
    entities = [committer.create_entity(owner, f"E{i}", "project").id for i in range(1000)]
    writer = Writer(driver)
    t0 = datetime(2020, 1, 1, tzinfo=UTC)
    now = datetime.now(UTC)
    batch = 10_000
    for start_at in range(0, facts, batch):
        rows = [
            {
                "id": f"fct_{uuid.uuid4().hex[:24]}",
                "entity_id": random.choice(entities),
                "attribute": f"attr_{i % 30}",
                "value": f"value {i}",
                "value_norm": f"s:value {i}",
                "cardinality": "many",
                "valid_from": t0 + timedelta(minutes=i),
            }
            for i in range(start_at, min(start_at + batch, facts))
        ]
        writer.transaction(lambda w, rows=rows: w.raw_create(owner, rows, now))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/portability-bench"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print("| store | dump s (neo4j-admin) | load s | dump MiB |")
    print("|---|---|---|---|")
    print(demo(args.work))
    rows = big(args.work, args.facts)
    print(rows[-1])
    print()
    print("| what | size | rate | memory |")
    print("|---|---|---|---|")
    for r in rows[:-1]:
        print(r)


if __name__ == "__main__":
    main()
