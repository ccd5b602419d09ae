"""Memory page benchmark (issue 14): how long each page takes to render, over HTTP, on the
demo data of the README (a LoCoMo conversation imported through `POST /v1/runs` and
curated), and for an entity with 1,000 rows of history (paginated).

Budgets: every page at most 150 ms p95 on the demo data; the 1,000-row entity's pages at
most 300 ms p95 (that entity belongs to a second owner, whose start page then lists 999
conflict notes, measured too). Each figure is printed beside a floor measured in the same run: `GET
/healthz` (a Neo4j round trip through the same server), so a loaded machine shows as a
high floor rather than as slow pages.

Usage (start a Neo4j of your own for it, e.g. `WORLDSTATE_DATA_DIR=/tmp/wb worldstate neo4j
start`, which prints its URI):

    NEO4J_URI=bolt://127.0.0.1:PORT .venv/bin/python bench/web_bench.py [LOCOMO_FILE] [--n 40]

LOCOMO_FILE defaults to the README demo's conversation, docs/demo/conversation.json; any
LoCoMo-format file works (the figures below were measured on LoCoMo's conversation 30).
The server is `worldstate serve` in its own process on a free loopback port, with its
in-process curator and no embedder (the page reads no vectors).

Measured on 2026-12-01 (2 cores shared with other jobs, load average 12-16; LoCoMo 30, 60
requests a page), ms:

    floor GET /healthz               p50   2.3  p95   5.9   (after: 10.3 / 22.4)
    to confirm                       p50  45.8  p95  91.9
    entities / search                p50  14.5 / 15.8   p95  48.2 / 63.5
    entity                           p50  74.7  p95 146.3
    entity: time travel              p50  57.0  p95 167.5   over 150
    entity: what changed             p50  77.5  p95 200.6   over 150
    entity: why                      p50  93.9  p95 173.5   over 150
    history + chart                  p50  58.7  p95 105.3
    run: cause and effect            p50  34.9  p95  98.3
    memory access / erase form       p50  15.0 / 1.7   p95  51.6 / 7.3
    1,000 rows: entity               p50  11.6  p95  17.2
    1,000 rows: history 100 / 200    p50  84.8 / 159.9   p95 140.2 / 248.6
    1,000 rows: history page 2       p50 132.0  p95 219.1
    1,000 rows: audit view (200)     p50 106.0  p95 163.2
    1,000 rows: to confirm (999 notes) p50 511.8  p95 1368.4   over 300

The p95s over budget are read time of the shared tools they call (diff: two scoped reads
per side; why: the event walk), under the machine's load (the floor's p95 quadrupled
during the run); the start page with 999 unacknowledged notes is over because the REST
lists are oldest first, so finding the newest reads them all.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from bench.measure import p, timed
from bench.search_bench import neo4j
from committer.apply import Committer
from committer.proposals import Assertion, Provenance
from curator.locomo import load_locomo
from graph.local.server import pick_free_port

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "docs" / "demo" / "conversation.json"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
BUDGET_DEMO, BUDGET_BIG = 150.0, 300.0


@contextmanager
def serve(uri: str) -> Iterator[str]:
    """`worldstate serve` (this checkout) as a subprocess on a free loopback port, so the
    timing client never shares a process (and its GIL) with the server; yields its URL."""
    port = pick_free_port()
    env = {
        **os.environ,
        "NEO4J_URI": uri,
        "WORLDSTATE_EMBEDDER": "none",
        "WORLDSTATE_CURATOR_POLL_SECONDS": "0.05",
    }
    cmd = [sys.executable, "-c", "from api.cli.main import main; main()", "serve"]
    proc = subprocess.Popen(
        [*cmd, "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            assert proc.poll() is None, "serve exited"
            with suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)


def sign_in(url: str, token: str) -> httpx.Client:
    """A client signed in to the Memory page with `token`."""
    client = httpx.Client(base_url=url, timeout=120)
    csrf = CSRF.search(client.get("/memory/sign-in").text).group(1)  # type: ignore[union-attr]
    r = client.post("/memory/sign-in", data={"token": token, "csrf": csrf, "next": "/memory"})
    assert r.status_code in (200, 303), r.text
    return client


def load_demo(url: str, token: str, file: Path) -> int:
    """Import a LoCoMo conversation as runs and wait for the curator; returns the runs."""
    headers = {"Authorization": f"Bearer {token}"}
    runs = load_locomo(file)
    with httpx.Client(base_url=url, headers=headers, timeout=120) as api:
        for run in runs:
            assert api.post("/v1/runs", json=run).status_code == 202
        for run in runs:
            while api.get(f"/v1/runs/{run['id']}").json()["status"] not in ("done", "failed"):
                time.sleep(0.2)
    return len(runs)


def load_big(committer: Committer, owner: str, rows: int) -> str:
    """An entity whose `location` took `rows` values, one commit each (a staircase of
    superseded rows and one current row); returns its id. Each edit supersedes a value the
    person set, so the owner also gets `rows - 1` conflict notes (CONTRACT §2.1 rule 5)."""
    entity = committer.create_entity(owner, "Wanderer", "person", [], None)
    start = datetime(1900, 1, 1, tzinfo=UTC)
    for i in range(rows):
        committer.assert_fact(
            owner,
            Assertion(
                entity_id=entity.id,
                attribute="location",
                value=f"Town {i}",
                valid_from=start + timedelta(days=30 * i),
                provenance=Provenance(source="user_edit"),
            ),
        )
    return entity.id


def first_id(html: str, prefix: str) -> str:
    """The first id after `prefix` in a page's links."""
    found = re.search(re.escape(prefix) + r"([A-Za-z0-9_\-]+)", html)
    assert found, prefix
    return found.group(1)


def main() -> None:
    """Load, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEMO)
    parser.add_argument("--n", type=int, default=40, help="timed requests per page")
    parser.add_argument("--rows", type=int, default=1000, help="history rows of the big entity")
    args = parser.parse_args()
    owner = f"bench-web-{uuid.uuid4().hex[:8]}"
    uri = os.environ.get("NEO4J_URI")
    if not uri:
        raise SystemExit("set NEO4J_URI (e.g. from `worldstate neo4j start`)")
    with neo4j() as driver, serve(uri) as url:
        committer = Committer(driver)
        token, _ = committer.create_token(owner, ["read", "write", "curate", "admin"])
        began = time.perf_counter()
        runs = load_demo(url, token, args.file)
        print(
            f"demo: {runs} runs of {args.file.name} curated in {time.perf_counter() - began:.0f} s"
        )
        began = time.perf_counter()
        big = load_big(committer, owner + "-big", args.rows)
        print(f"big entity: {args.rows} commits in {time.perf_counter() - began:.0f} s")
        big_token, _ = committer.create_token(owner + "-big", ["read", "write", "curate", "admin"])
        big_client = sign_in(url, big_token)
        client = sign_in(url, token)
        headers = {"Authorization": f"Bearer {token}"}
        people = client.get("/memory/entities", params={"kind": "person"}).text
        ids = re.findall(r'href="/memory/entities/([A-Za-z0-9_\-]+)"', people)
        pages_of = {i: client.get(f"/memory/entities/{i}").text for i in dict.fromkeys(ids)}
        person = max(pages_of, key=lambda i: pages_of[i].count('class="fact '))
        entity = pages_of[person]
        fact = first_id(entity, "open=")
        attribute = first_id(entity, f"/memory/entities/{person}/history/")
        run = httpx.get(f"{url}/v1/proposals", headers=headers).json()["items"]
        run_id = run[0]["run_id"] if run else load_locomo(args.file)[0]["id"]
        hist = big_client.get(f"/memory/entities/{big}/history/location?limit=200").text
        cursor = re.search(r'cursor=([^&"]+)', hist).group(1)  # type: ignore[union-attr]
        pages = [
            ("demo", "/memory", "to confirm"),
            ("demo", "/memory/entities", "entities"),
            ("demo", "/memory/entities?q=jo&kind=person", "entities: search"),
            ("demo", f"/memory/entities/{person}", "entity"),
            (
                "demo",
                (
                    f"/memory/entities/{person}?valid_at=2023-03-01T00:00&known_at="
                    f"{datetime.now(UTC):%Y-%m-%dT%H:%M:%S}"
                ),
                "entity: time travel",
            ),
            (
                "demo",
                f"/memory/entities/{person}?changes=valid&from=2023-01-01T00:00",
                "entity: what changed",
            ),
            ("demo", f"/memory/entities/{person}?open={fact}", "entity: why"),
            (
                "demo",
                f"/memory/entities/{person}/history/{attribute}?include_retracted=true",
                "history + chart",
            ),
            ("demo", f"/memory/events/{run_id}", "run: cause and effect"),
            ("demo", "/memory/access?chat=locomo-30", "memory access"),
            ("demo", "/memory/erase", "erase form"),
            ("big", "/memory", "1,000 rows: to confirm (999 notes)"),
            ("big", f"/memory/entities/{big}", "1,000 rows: entity"),
            ("big", f"/memory/entities/{big}/history/location", "1,000 rows: history (100)"),
            (
                "big",
                f"/memory/entities/{big}/history/location?limit=200",
                "1,000 rows: history (200)",
            ),
            (
                "big",
                f"/memory/entities/{big}/history/location?limit=200&cursor={cursor}",
                "1,000 rows: history page 2",
            ),
            (
                "big",
                f"/memory/entities/{big}/history/location?include_retracted=true&limit=200",
                "1,000 rows: audit view (200)",
            ),
        ]
        floor = timed(lambda: client.get("/healthz"), args.n, warmups=5)
        print(f"\nfloor GET /healthz: p50 {p(floor, 0.5):6.1f} ms  p95 {p(floor, 0.95):6.1f} ms\n")
        print(f"{'page':34} {'p50 ms':>8} {'p95 ms':>8} {'budget':>7}  verdict")
        worst = []
        for kind, path, name in pages:

            def get(path: str = path, kind: str = kind) -> None:
                r = (client if kind == "demo" else big_client).get(path)
                assert r.status_code == 200, (path, r.status_code, r.text[-500:])

            t = timed(get, args.n, warmups=3)
            budget = BUDGET_DEMO if kind == "demo" else BUDGET_BIG
            verdict = "ok" if p(t, 0.95) <= budget else "OVER"
            worst.append(verdict)
            print(f"{name:34} {p(t, 0.5):8.1f} {p(t, 0.95):8.1f} {budget:7.0f}  {verdict}")
        floor2 = timed(lambda: client.get("/healthz"), args.n, warmups=0)
        print(f"\nfloor again:        p50 {p(floor2, 0.5):6.1f} ms  p95 {p(floor2, 0.95):6.1f} ms")
        print(f"pages over budget: {worst.count('OVER')} of {len(worst)}")
        committer.erase_owner(owner, owner)
        committer.erase_owner(owner + "-big", owner + "-big")


if __name__ == "__main__":
    main()
