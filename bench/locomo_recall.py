"""LoCoMo recall benchmark (issue 12): `worldstate eval locomo` over many files, with the
issue's targets checked and floors measured in the same run.

For each file (api/eval/run.py): import into a fresh owner through the API served in this
process, wait until every run is curated, ask every question of categories 1-4 through
search and prefetch, and rank the raw turns by BM25 and dense cosine. Prints each file's
report, the pooled report, then:

* floors: a `RETURN 1` round trip, and the local embedder's throughput over the same turns
  (an import that embeds every turn cannot be faster);
* targets: search recall@10 >= 0.85 and >= the best baseline + 0.10; prefetch finds an
  evidence turn for >= 0.5 of single-hop questions (category 4); import >= 100 turns/s.

Usage (uses NEO4J_URI, else the local Neo4j running in WORLDSTATE_DATA_DIR; give it a
Neo4j of its own, not a shared one):

    NEO4J_URI=bolt://127.0.0.1:PORT .venv/bin/python bench/locomo_recall.py \\
        docs/demo/conversation.json [more LoCoMo-format files] [--k 10] [--details out.jsonl] \\
        [--owners owners.json]

`--owners FILE` reuses an imported store between runs (a ranking change needs no new
import): the first run, when FILE does not exist, imports as usual, keeps the owners and
writes FILE (file name -> owner); a later run against the same Neo4j asks those owners
again and imports only the files FILE does not name. A reused file reports no import
figures, and the import target and the embedder floor are left out when no file was
imported (they measure the import). Delete the store when done.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.cli.store import open_store
from api.eval.baselines import document
from api.eval.locomo import Conversation, read_conversation
from api.eval.report import FileResult, found_share, pooled, report, write_details
from api.eval.run import run
from api.http.settings import Settings
from bench.measure import p, timed
from graph.embedding import build_embedder
from graph.read.reader import Reader

SINGLE_HOP = 4


def floors(conversations: list[Conversation]) -> list[str]:
    """`RETURN 1` latency and the embedder's throughput over every turn of `conversations`
    (those to import: none leaves the embedder out)."""
    settings = Settings()
    with open_store(settings, start_local=False) as driver:
        reader = Reader(driver, settings.neo4j_database)
        ping = timed(reader.ping, 200, warmups=20)
    lines = [f"floor: RETURN 1 p50 {statistics.median(ping):.2f} ms, p99 {p(ping, 0.99):.2f} ms"]
    embedder = build_embedder(settings)
    if embedder is not None and conversations:
        texts = [document(t) for c in conversations for t in c.turns]
        embedder.warm()
        embedder.embed(texts[:32])  # the first call pays for setting up the model's kernels
        began = time.perf_counter()
        embedder.embed(texts)
        seconds = time.perf_counter() - began
        lines.append(
            f"floor: {embedder.model} embeds {len(texts)} turns in {seconds:.1f} s "
            f"({len(texts) / seconds:.0f} turns/s)"
        )
    return lines


def targets(results: list[FileResult]) -> list[str]:
    """The issue's targets, each `met` or `MISSED`, on all files pooled (the import's on
    the files imported in this run: none when every file was reused)."""
    asked = [a for r in results for a in r.asked]
    search = found_share(asked, "search", 10) or 0.0
    baselines = [found_share(asked, s, 10) for s in ("bm25", "dense")]
    best = max((b for b in baselines if b is not None), default=0.0)
    single = found_share(asked, "prefetch", category=SINGLE_HOP)
    imported = [r.imported for r in results if r.imported is not None]
    turns = sum(i.turns for i in imported)
    seconds = sum(i.seconds for i in imported)
    rate = turns / seconds if seconds else 0.0

    checks = [
        (f"search recall@10 {search:.2f} >= 0.85", search >= 0.85),
        (f"search recall@10 {search:.2f} >= best baseline {best:.2f} + 0.10", search >= best + 0.1),
        (f"prefetch single-hop {single or 0:.2f} >= 0.5", (single or 0) >= 0.5),
    ]
    if imported:
        checks.append((f"import {rate:.1f} turns/s >= 100", rate >= 100))
    return [f"target: {what}: {'met' if ok else 'MISSED'}" for what, ok in checks]


def main() -> None:
    """Parse the arguments, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="LoCoMo-format JSON files")
    parser.add_argument("--k", type=int, default=10, help="results per question (1-100)")
    parser.add_argument("--details", type=Path, help="write one JSON line per question here")
    parser.add_argument(
        "--owners", type=Path, help="reuse the owners named in this JSON file, else write it"
    )
    args = parser.parse_args()
    conversations = [read_conversation(f) for f in args.files]
    owners: dict[str, str] = {}
    if args.owners is not None and args.owners.exists():
        owners = json.loads(args.owners.read_text())
    floor = floors([c for c in conversations if c.name not in owners])
    settings = Settings()
    with open_store(settings, start_local=True) as driver:
        results = run(
            driver,
            settings,
            conversations,
            k=args.k,
            keep=args.owners is not None,
            owners=owners,
            say=lambda s: print(s, file=sys.stderr),
        )
    if args.owners is not None:
        args.owners.write_text(json.dumps({r.name: r.owner for r in results}, indent=1) + "\n")
    for result in results:
        print(report(result) + "\n")
    print(pooled(results) + "\n")
    print("\n".join(floor + targets(results)))
    if args.details:
        write_details(results, args.details)


if __name__ == "__main__":
    main()
