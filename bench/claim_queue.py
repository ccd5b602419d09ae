"""Does the claim lock limit curator throughput? (issue 17)

Every change of a run's status or lease (claim, heartbeat, release, finish) first takes
the write lock of its stripe's `RunQueue` node (graph/cypher/runs.py LOCK_STRIPE) and
holds it to the end of its transaction. With `--stripes 1` every run is put in stripe 0,
which is the single queue lock of before stripes. This script queues the same batch of
runs (many owners, six user messages each) and drains it with 1, 2 and 4 curator worker
*processes*, after an unreported warm-up trial, alternating 16 stripes and 1 and the
worker counts, and reports per trial:

* throughput (runs/s and messages/s, from the first claim to the last run closed);
* the locks' utilization: the time a stripe lock was held (from the LOCK_STRIPE
  statement's return to the commit), summed over all workers, divided by the wall time.
  With one lock, a lock that limits throughput is held close to 100% of the time;
* the wait for it: the LOCK_STRIPE statement's time (p50/p99), beside a `RETURN 1` floor
  measured in the same run.

The workers are real `CuratorWorker`s (curator/worker.py) whose write primitive is timed;
`--embedder none` (default) keeps the per-run work smallest, the lock's worst case;
`--embedder local` embeds every row as production does.

Run it against a Neo4j of your own (workers claim ANY owner's run):

    .venv/bin/python bench/claim_queue.py --uri bolt://127.0.0.1:PORT [--runs 240]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import p, timed
from committer.apply import Committer
from graph.cypher import runs as rc
from graph.driver import connect
from graph.read.reader import Reader
from graph.schema import ensure_schema
from graph.write.base import WriteBase

AT = "2024-03-01T09:00:00+00:00"
CITIES = ("Lisbon", "Porto", "Berlin", "Madrid", "Oslo", "Rome", "Vienna", "Prague")
LINES = (
    "I moved to {city} last month.",
    "I work at {firm} as an engineer.",
    "I love hiking and {music}.",
    "My sister Ana lives in {city2}.",
    "I started learning the {instrument}.",
    "We adopted a dog called {pet}.",
)


def messages(i: int) -> list[dict[str, Any]]:
    """Six user messages with extractable facts, varied by `i`."""
    words = {
        "city": CITIES[i % 8],
        "city2": CITIES[(i + 3) % 8],
        "firm": f"Firm{i % 11}",
        "music": ("jazz", "rock", "opera")[i % 3],
        "instrument": ("piano", "violin", "cello")[i % 3],
        "pet": f"Rex{i % 5}",
    }
    return [
        {"id": f"m{k}", "role": "user", "speaker": None, "text": t.format(**words), "at": AT}
        for k, t in enumerate(LINES)
    ]


def seed(committer: Committer, prefix: str, runs: int, owners: int, stripes: int) -> None:
    """Queue `runs` runs spread over `owners` owners (round robin), in their owners'
    stripes, or all in stripe 0 with `stripes` 1."""
    from graph.write import runs as wr

    real = wr.stripe_of
    if stripes == 1:
        one_stripe()
    for i in range(runs):
        owner = f"{prefix}-o{i % owners}"
        payload = {
            "id": f"r{i}",
            "chat_id": "c1",
            "surface": "bench",
            "observations": [],
            "messages": messages(i),
        }
        committer.submit_run(
            owner, run_id=f"r{i}", chat_id="c1", surface="bench", payload=json.dumps(payload)
        )
    wr.stripe_of = real  # type: ignore[assignment]


def closed(driver: Any, prefix: str) -> int:
    """Runs of this batch no longer queued or being curated."""
    rows, _, _ = driver.execute_query(
        "MATCH (r:Run) WHERE r.owner STARTS WITH $prefix "
        "AND r.status IN ['done', 'failed', 'skipped'] RETURN count(r) AS n",
        prefix=prefix + "-",
    )
    return int(rows[0]["n"])


# --- the worker process --------------------------------------------------------------------


def one_stripe() -> None:
    """Put every run in stripe 0: the single queue lock of before stripes."""
    from graph.write import runs as wr

    wr.stripe_of = lambda owner: 0  # type: ignore[assignment]  # bench: the old single lock


def worker_main(uri: str, out: str, embedder: str, stripes: int) -> None:
    """A curator worker whose LOCK_STRIPE statements and transactions are timed; writes its
    figures to `out` as JSON when SIGTERM stops it."""
    from api.http.settings import Settings
    from curator.worker import CuratorWorker
    from graph.embedding import build_embedder, warm

    os.environ["WORLDSTATE_EMBEDDER"] = embedder
    if stripes == 1:
        one_stripe()
    settings = Settings()
    local = threading.local()
    waits: list[float] = []
    holds: list[float] = []
    runs: list[float] = []
    original = WriteBase._run

    def timed_run(self: WriteBase, query: str, **params: Any) -> list[Any]:
        if query is not rc.LOCK_STRIPE:
            return original(self, query, **params)
        began = time.perf_counter()
        rows = original(self, query, **params)
        local.locked_at = time.perf_counter()
        waits.append(local.locked_at - began)
        return rows

    WriteBase._run = timed_run  # type: ignore[method-assign]  # bench instrumentation
    driver = connect(uri)
    model = build_embedder(settings)
    warm(model)
    committer = Committer(driver, None, model)

    def timing(name: str) -> None:
        method = getattr(committer, name)

        def wrapper(*args: Any, **kw: Any) -> Any:
            local.locked_at = None
            began = time.perf_counter()
            try:
                return method(*args, **kw)
            finally:
                end = time.perf_counter()
                if local.locked_at is not None:
                    holds.append(end - local.locked_at)
                if name == "apply_run":
                    runs.append(end - began)

        setattr(committer, name, wrapper)

    for name in ("claim_run", "apply_run", "heartbeat", "release_run", "close_run"):
        timing(name)
    worker = CuratorWorker(
        committer, poll_seconds=0.05, lease_seconds=60, settings=settings, reader=Reader(driver)
    )
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    print("ready", flush=True)
    sys.stdin.readline()  # "go": the batch is queued
    worker.serve_forever()
    Path(out).write_text(json.dumps({"waits": waits, "holds": holds, "runs": runs}))
    driver.close()


def ceiling(committer: Committer, driver: Any, stripes: int, threads: int, args: Any) -> float:
    """The queue alone: `threads` threads of one process claim and close runs (nothing
    curated) until the batch is done; return runs/s. What the lock(s) let through."""
    prefix = f"cc-{uuid.uuid4().hex[:8]}"
    seed(committer, prefix, args.runs, args.owners, stripes)
    from graph.write import runs as wr

    real = wr.stripe_of
    if stripes == 1:
        one_stripe()

    def loop(name: str) -> None:
        while (run := committer.claim_run(name, 60)) is not None:
            committer.close_run(run, "failed", "ceiling", worker=name)

    began = time.perf_counter()
    pool = [threading.Thread(target=loop, args=(f"t{k}",)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    wall = time.perf_counter() - began
    wr.stripe_of = real  # type: ignore[assignment]
    assert closed(driver, prefix) == args.runs
    return args.runs / wall


# --- the orchestrator ----------------------------------------------------------------------


def trial(
    uri: str, committer: Committer, driver: Any, workers: int, stripes: int, args: Any
) -> dict[str, Any]:
    """Queue one batch (in `stripes` stripes: 16 or 1), drain it with `workers` processes,
    return the figures."""
    prefix = f"cq-{uuid.uuid4().hex[:8]}"
    outs = [Path(f"/tmp/{prefix}-w{k}.json") for k in range(workers)]
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                str(out),
                "--uri",
                uri,
                "--embedder",
                args.embedder,
                "--stripes",
                str(stripes),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for out in outs
    ]
    for proc in procs:  # every worker warm before the batch is queued
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    seed(committer, prefix, args.runs, args.owners, stripes)
    began = time.perf_counter()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    while closed(driver, prefix) < args.runs:
        time.sleep(0.05)
    wall = time.perf_counter() - began
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        proc.wait(timeout=120)
    waits: list[float] = []
    holds: list[float] = []
    runs: list[float] = []
    for out in outs:
        figures = json.loads(out.read_text())
        waits += figures["waits"]
        holds += figures["holds"]
        runs += figures["runs"]
        out.unlink()
    return {
        "workers": workers,
        "stripes": stripes,
        "wall": wall,
        "runs_s": args.runs / wall,
        "utilization": sum(holds) / wall,
        "wait_p50": p(waits, 0.5) * 1000,
        "wait_p99": p(waits, 0.99) * 1000,
        "apply_p50": p(runs, 0.5) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uri", required=True, help="a Neo4j of your own")
    parser.add_argument("--runs", type=int, default=240)
    parser.add_argument("--owners", type=int, default=60)
    parser.add_argument("--embedder", default="none", choices=("none", "local"))
    parser.add_argument(
        "--order",
        default="4x16,4x1,1x16,1x1,2x16,2x1,2x1,2x16,1x1,1x16,4x1,4x16",
        help="trials as WORKERSxSTRIPES",
    )
    parser.add_argument("--stripes", type=int, default=16, help=argparse.SUPPRESS)
    parser.add_argument(
        "--ceiling", type=int, default=0, help="measure the queue alone with this many threads"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker_main(args.uri, args.worker, args.embedder, args.stripes)
        return
    driver = connect(args.uri)
    ensure_schema(driver)
    committer = Committer(driver)
    with driver.session() as session:
        floor = timed(lambda: session.run("RETURN 1").consume(), 300, warmups=30)
    if args.ceiling:
        figures: dict[int, list[float]] = {1: [], 16: []}
        ceiling(committer, driver, 16, args.ceiling, args)  # warm-up
        for stripes in (1, 16, 16, 1, 1, 16):
            figures[stripes].append(ceiling(committer, driver, stripes, args.ceiling, args))
        load = os.getloadavg()
        print(
            f"\nqueue ceiling: {args.ceiling} threads claim and close {args.runs} runs of "
            f"{args.owners} owners, nothing curated; load average {load[0]:.1f}"
        )
        for stripes, values in figures.items():
            shown = ", ".join(f"{v:.0f}" for v in values)
            print(f"- {stripes} stripe(s): {shown} runs/s")
        return
    trial(args.uri, committer, driver, 2, 16, args)  # warm-up: plans, page cache; unreported
    results = []
    for spec in args.order.split(","):
        workers, stripes = (int(x) for x in spec.split("x"))
        results.append(trial(args.uri, committer, driver, workers, stripes, args))
    load = os.getloadavg()
    print(
        f"\nclaim queue: {args.runs} runs x 6 messages over {args.owners} owners, "
        f"embedder {args.embedder}; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    print(f"RETURN 1 floor: p50 {p(floor, 0.5):.2f} ms, p99 {p(floor, 0.99):.2f} ms")
    print(
        "| workers | stripes | runs/s | messages/s | locks held (share of wall) | "
        "lock wait p50 ms | lock wait p99 ms | apply p50 ms |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in sorted(results, key=lambda r: (r["workers"], r["stripes"])):
        print(
            f"| {r['workers']} | {r['stripes']} | {r['runs_s']:.1f} | {r['runs_s'] * 6:.0f} | "
            f"{r['utilization']:.0%} | {r['wait_p50']:.1f} | {r['wait_p99']:.1f} | "
            f"{r['apply_p50']:.0f} |"
        )
    driver.close()


if __name__ == "__main__":
    main()
