"""Outage benchmark (issue 13): how fast the API answers while Neo4j is gone.

Starts a Neo4j of its own (temporary data dir) and a `worldstate serve` over it
(`NEO4J_URI` set, no embedder, no rate limit), writes a little, then SIGKILLs Neo4j and
times 100 requests of each kind: a prefetch (200 degraded; deadline 150 ms), a read and a
write (503). Floors measured in the same run with the store up: `GET /healthz` (a
`RETURN 1` through the API) and a served prefetch. Prints p50 and max on the client's
clock and on the service's (`Server-Timing`).

Usage: .venv/bin/python bench/outage_bench.py [--n 100]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from bench.measure import p
from committer.apply import Committer
from graph.driver import connect
from graph.local.server import Neo4jLocalSettings, pick_free_port, start, stop
from graph.schema import ensure_schema

ROOT = Path(__file__).resolve().parents[1]
TURN = {"chat_id": "c", "message": "How is Ana doing with the K8s migration?"}


def row(name: str, client: list[float], served: list[float]) -> str:
    return (
        f"| {name} | {len(client)} | {p(client, 0.5):.0f} | {max(client):.0f} | "
        f"{p(served, 0.5):.0f} | {max(served):.0f} |"
    )


def measure(
    c: httpx.Client, n: int, method: str, url: str, body: object, want: int
) -> tuple[list[float], list[float]]:
    client, served = [], []
    for _ in range(n):
        began = time.perf_counter()
        r = c.request(method, url, json=body)
        client.append((time.perf_counter() - began) * 1000)
        assert r.status_code == want, (url, r.status_code, r.text)
        served.append(float(r.headers["server-timing"].split("dur=")[1]))
    return client, served


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="outage-bench-") as tmp:
        store = start(
            Path(tmp) / "neo4j",
            heap="512m",
            page_cache_mb=64,
            cache_dir=Neo4jLocalSettings().neo4j_cache,
            detach=False,
        )
        owner = f"bench-{uuid.uuid4().hex[:8]}"
        with connect(store.uri) as driver:
            ensure_schema(driver)
            secret, _ = Committer(driver).create_token(owner, ["read", "write"])
        port = pick_free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "WORLDSTATE_"))}
        env |= {
            "NEO4J_URI": store.uri,
            "WORLDSTATE_EMBEDDER": "none",
            "WORLDSTATE_RATE_LIMIT_PER_MINUTE": "0",
            "WORLDSTATE_CURATOR_IN_PROCESS": "false",
        }
        log = (Path(tmp) / "serve.log").open("wb")
        serve = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from api.cli.main import main; main()",
                "serve",
                "--port",
                str(port),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                try:
                    if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
            with httpx.Client(
                base_url=url, headers={"Authorization": f"Bearer {secret}"}, timeout=60
            ) as c:
                ana = c.post("/v1/entities", json={"name": "Ana", "kind": "person"}).json()
                facts = f"/v1/entities/{ana['id']}/facts"
                c.post(facts, json={"attribute": "likes", "value": "tea"})
                for _ in range(20):
                    c.post("/v1/prefetch", json=TURN)
                up = {
                    "floor: GET /healthz, store up": measure(
                        c, args.n, "GET", "/healthz", None, 200
                    ),
                    "floor: prefetch, store up": measure(
                        c, args.n, "POST", "/v1/prefetch", TURN, 200
                    ),
                }
                os.kill(store.pid, signal.SIGKILL)
                time.sleep(0.5)
                down = {
                    "prefetch -> 200 degraded": measure(
                        c, args.n, "POST", "/v1/prefetch", TURN, 200
                    ),
                    "GET /v1/entities -> 503": measure(c, args.n, "GET", "/v1/entities", None, 503),
                    "POST facts -> 503": measure(
                        c, args.n, "POST", facts, {"attribute": "likes", "value": "x"}, 503
                    ),
                    "GET /healthz -> 503": measure(c, args.n, "GET", "/healthz", None, 503),
                }
            print(
                "| request | n | client p50 ms | client max ms | service p50 ms | service max ms |"
            )
            print("|---|---|---|---|---|---|")
            for name, (client, served) in (up | down).items():
                print(row(name, client, served))
        finally:
            serve.send_signal(signal.SIGTERM)
            serve.wait(30)
            stop(store, timeout_s=10)


if __name__ == "__main__":
    main()
