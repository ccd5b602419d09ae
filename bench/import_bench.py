"""Import benchmark (issue 12): turns per second from `POST /v1/runs` to `done`, with
episodes, and where the time goes.

Posts every session of LoCoMo-format conversations (curator/locomo.py) as a run to the app
served in this process (the real routes, the real committer with the configured embedder,
the redaction of secrets), then drains the curator in this process and times it. The
curator's time is split into: the extractors and the risk policy (`review`), the embedder
(one call per run for its messages, one for the rows of its commit: every call and every
text counted), and the rest of the committing transaction (Neo4j, the rules, the trail).
Floors measured in the same run: a `RETURN 1` round trip, and the embedder over the same
turns in one batch (an import that embeds every turn cannot be faster).

On a shared machine wall time follows the load, so the bench also prints the load average
and the CPU seconds the import cost: this process's (API, curator, embedder) and, when the
Neo4j is a local one (`worldstate neo4j start`, found through `WORLDSTATE_DATA_DIR`, or
`--neo4j-pid`), Neo4j's, with both processes' resident and peak resident memory.

`--export DIR` writes each file's owner export (graph/read/export.py) to
`DIR/<file stem>.jsonl`; `bench/import_same.py` compares two such exports apart from ids,
owners and times (an import made by other code must write the same).

Usage (NEO4J_URI: give it a Neo4j of its own):

    NEO4J_URI=bolt://127.0.0.1:PORT .venv/bin/python bench/import_bench.py FILE.json [...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastapi.testclient import TestClient

from api.http.app import create_app
from api.http.settings import Settings
from bench.measure import cpu_seconds, p, peak_rss_mb, rss_mb, timed
from committer.apply import Committer
from curator import worker as worker_module
from curator.locomo import load_locomo
from graph.driver import connect
from graph.embedding import Embedder
from graph.local.server import Neo4jLocalSettings, find_running
from graph.read.export import export_lines
from graph.read.reader import Reader


class Timed:
    """An embedder that counts its calls, texts and seconds (it wraps the app's own)."""

    def __init__(self, inner: Embedder):
        self.inner = inner
        self.model = inner.model
        self.dimensions = inner.dimensions
        self.calls = 0
        self.texts = 0
        self.seconds = 0.0

    def warm(self) -> None:
        self.inner.warm()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        began = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - began
            self.calls += 1
            self.texts += len(texts)


def main() -> None:
    """Import, time, print."""
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--export", type=Path, help="write each file's owner export here")
    ap.add_argument("--neo4j-pid", type=int, help="Neo4j's process (default: the local one)")
    args = ap.parse_args()
    neo4j_pid = args.neo4j_pid or _local_neo4j_pid()
    settings = Settings(curator_in_process=False)
    driver = connect(os.environ["NEO4J_URI"])
    app = create_app(settings, driver)
    review_seconds = [0.0]
    original = worker_module.review_run

    def review(*a: Any, **kw: Any) -> Any:
        began = time.perf_counter()
        try:
            return original(*a, **kw)
        finally:
            review_seconds[0] += time.perf_counter() - began

    worker_module.review_run = review  # type: ignore[assignment]
    with TestClient(app) as client:
        embedder = app.state.embedder
        if embedder is None:
            raise SystemExit("no embedder configured: this bench measures the embedding too")
        timed_embedder = Timed(embedder)
        app.state.committer._writer._embedder = timed_embedder  # the committer's only
        floor = timed(Reader(driver).ping, 200, warmups=20)
        total_turns = 0
        runs_done = 0
        post_s = curate_s = 0.0
        texts: list[str] = []
        load_before = os.getloadavg()
        cpu_self = cpu_neo4j = 0.0
        for path in args.files:
            owner = f"bench-import-{uuid.uuid4().hex[:8]}"
            secret, _ = Committer(driver).create_token(owner, ["write", "read"])
            headers = {"Authorization": f"Bearer {secret}"}
            runs = load_locomo(path, f"{path.stem}-{owner[-8:]}")
            turns = sum(len(r["messages"]) for r in runs)
            texts += [m["text"] for r in runs for m in r["messages"]]
            cpu_began = cpu_seconds(os.getpid()), cpu_seconds(neo4j_pid)
            began = time.perf_counter()
            for run in runs:
                assert client.post("/v1/runs", json=run, headers=headers).status_code == 202
            posted = time.perf_counter()
            runs_done += app.state.curator.drain()
            finished = time.perf_counter()
            cpu_self += cpu_seconds(os.getpid()) - cpu_began[0]
            cpu_neo4j += cpu_seconds(neo4j_pid) - cpu_began[1]
            if args.export is not None:
                args.export.mkdir(parents=True, exist_ok=True)
                lines = export_lines(Reader(driver), owner)
                (args.export / f"{path.stem}.jsonl").write_text("\n".join(lines) + "\n")
            post_s += posted - began
            curate_s += finished - posted
            total_turns += turns
            print(
                f"{path.name}: {turns} turns in {len(runs)} runs; post {posted - began:.1f} s, "
                f"curate {finished - posted:.1f} s: {turns / (finished - began):.1f} turns/s"
            )
        elapsed = post_s + curate_s
        load_after = os.getloadavg()
        apply_s = curate_s - review_seconds[0] - timed_embedder.seconds
        embedder.embed(texts[:32])
        began, cpu_began = time.perf_counter(), cpu_seconds(os.getpid())
        embedder.embed(texts)
        batch_s = time.perf_counter() - began
        batch_cpu = cpu_seconds(os.getpid()) - cpu_began
    print()
    print(
        f"import: {total_turns} turns, {runs_done} runs in {elapsed:.1f} s = "
        f"{total_turns / elapsed:.1f} turns/s (target >= 100)"
    )
    rows = [
        ("POST /v1/runs (validate, redact, queue)", post_s),
        ("curator: extractors and risk policy", review_seconds[0]),
        (
            f"embedder: {timed_embedder.calls} calls, {timed_embedder.texts} texts",
            timed_embedder.seconds,
        ),
        ("committing transaction less the embedder (Neo4j, rules, trail)", apply_s),
    ]
    for label, seconds in rows:
        print(f"  {label:66} {seconds:7.1f} s  {100 * seconds / elapsed:5.1f} %")
    print(
        f"floor: {embedder.model} embeds the {len(texts)} turns in one batch in {batch_s:.1f} s "
        f"= {len(texts) / batch_s:.0f} turns/s ({1000 * batch_cpu / len(texts):.1f} CPU ms a turn)"
    )
    print(
        f"floor: RETURN 1 p50 {statistics.median(floor):.2f} ms, p99 {p(floor, 0.99):.2f} ms; "
        f"runs: {runs_done}, {elapsed / max(runs_done, 1) * 1000:.0f} ms per run"
    )
    print(
        f"CPU a turn: bench process {1000 * cpu_self / total_turns:.1f} ms, "
        + (
            f"Neo4j {1000 * cpu_neo4j / total_turns:.1f} ms"
            if neo4j_pid
            else "Neo4j not measured (not local: --neo4j-pid)"
        )
    )
    print(
        f"RSS: bench process (API, curator, embedder) {rss_mb(os.getpid()):.0f} MiB, "
        f"peak {peak_rss_mb(os.getpid()):.0f} MiB"
        + (
            f"; Neo4j {rss_mb(neo4j_pid):.0f} MiB, peak {peak_rss_mb(neo4j_pid):.0f} MiB"
            if neo4j_pid
            else ""
        )
    )
    print(
        "load average (1, 5, 15 min): before "
        + " ".join(f"{x:.1f}" for x in load_before)
        + ", after "
        + " ".join(f"{x:.1f}" for x in load_after)
    )
    driver.close()


def _local_neo4j_pid() -> int | None:
    """The JVM of the local Neo4j in `WORLDSTATE_DATA_DIR` (or the default), if it runs."""
    running = find_running(Neo4jLocalSettings().data_dir)
    if running is None or not os.environ["NEO4J_URI"].endswith(f":{running.port}"):
        return None
    return running.pid


if __name__ == "__main__":
    main()
