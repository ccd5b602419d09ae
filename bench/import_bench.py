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
from bench.measure import p, rss_mb, timed
from committer.apply import Committer
from curator import worker as worker_module
from curator.locomo import load_locomo
from graph.driver import connect
from graph.embedding import Embedder
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
    args = ap.parse_args()
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
        for path in args.files:
            owner = f"bench-import-{uuid.uuid4().hex[:8]}"
            secret, _ = Committer(driver).create_token(owner, ["write", "read"])
            headers = {"Authorization": f"Bearer {secret}"}
            runs = load_locomo(path, f"{path.stem}-{owner[-8:]}")
            turns = sum(len(r["messages"]) for r in runs)
            texts += [m["text"] for r in runs for m in r["messages"]]
            began = time.perf_counter()
            for run in runs:
                assert client.post("/v1/runs", json=run, headers=headers).status_code == 202
            posted = time.perf_counter()
            runs_done += app.state.curator.drain()
            finished = time.perf_counter()
            post_s += posted - began
            curate_s += finished - posted
            total_turns += turns
            print(
                f"{path.name}: {turns} turns in {len(runs)} runs; post {posted - began:.1f} s, "
                f"curate {finished - posted:.1f} s: {turns / (finished - began):.1f} turns/s"
            )
        elapsed = post_s + curate_s
        apply_s = curate_s - review_seconds[0] - timed_embedder.seconds
        embedder.embed(texts[:32])
        began = time.perf_counter()
        embedder.embed(texts)
        batch_s = time.perf_counter() - began
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
        f"= {len(texts) / batch_s:.0f} turns/s"
    )
    print(
        f"floor: RETURN 1 p50 {statistics.median(floor):.2f} ms, p99 {p(floor, 0.99):.2f} ms; "
        f"runs: {runs_done}, {elapsed / max(runs_done, 1) * 1000:.0f} ms per run"
    )
    print(f"RSS: bench process (API, curator, embedder) {rss_mb(os.getpid()):.0f} MiB")
    driver.close()


if __name__ == "__main__":
    main()
