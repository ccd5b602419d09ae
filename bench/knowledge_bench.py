"""Knowledge and state benchmark (issue 16): `read_knowledge` against the `RETURN 1` floor, and
a workflow-state PUT beside a raw write, measured in the same run.

Prints median and p99 latencies (ms). The floors: a `RETURN 1` round trip in a read
transaction (`Reader.ping`) for reads; for writes, one raw row created in one write
transaction with no rules, locks or events (`WriteTx.raw_create`, the store benchmark's
floor). Each measurement alternates with its floor call by call, so both meet the same
load; ratios, not absolute times, are what to compare.

Usage (uses NEO4J_URI, else starts a local Neo4j in a temporary directory):

    .venv/bin/python bench/knowledge_bench.py [--docs 300] [--versions 3] [--samples 500]

The store: one owner in a group; the group holds `--docs` documents of about 4,000
characters, each edited `--versions` times (so a read at an old `known_at` has versions to
skip); the owner's own holder a few more. `read_knowledge` is timed as the MCP tool and the
REST route run it (api/chat/knowledge.py: the reach, then one read), current and at an old
`known_at`; `list_knowledge` lists a page of 100. The state PUT is timed through the
committer (lock, compare-and-set, version, cause and effect: one transaction) and through
the REST route in process (TestClient), with `If-Match` each time.

Measured on 2026-12-01 (own Neo4j; 2 cores shared with other jobs, load average 10-13;
defaults), ms:

    | what | p50 | p99 | floor p50 | floor p99 |
    | read_knowledge, current | 2.98 | 133.81 | 1.06 | 47.27 |
    | read_knowledge, at an old known_at | 2.71 | 36.16 | 0.96 | 19.89 |
    | list_knowledge, 100 names | 14.36 | 118.61 | 4.42 | 69.47 |
    | state PUT via the committer (If-Match) | 30.51 | 203.15 | 12.10 | 131.24 |
    | state PUT via REST in process (If-Match) | 26.29 | 329.17 | 8.72 | 139.74 |

A second run half an hour later (same load average), after the held reads' parameters
became one map:

    | read_knowledge, current | 2.26 | 7.30 | 0.77 | 3.57 |
    | read_knowledge, at an old known_at | 2.39 | 14.36 | 0.87 | 9.63 |
    | list_knowledge, 100 names | 5.69 | 23.43 | 0.86 | 15.56 |
    | state PUT via the committer (If-Match) | 15.96 | 97.07 | 6.86 | 51.89 |
    | state PUT via REST in process (If-Match) | 13.84 | 61.94 | 5.11 | 34.90 |

read_knowledge is about 3x its floor at p50 and a state PUT about 2.5x a raw write; the
p99s follow the machine's load, as the floors' own do.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastapi.testclient import TestClient
from neo4j import Driver

from api.chat.knowledge import list_knowledge, read_knowledge
from api.chat.tools import Caller
from api.http.app import create_app
from api.http.settings import Settings
from bench.measure import p, timed
from committer.apply import Committer
from committer.holders import Author
from committer.state import Conditions
from graph.driver import connect
from graph.read.reader import Reader
from graph.schema import ensure_schema
from graph.write.writer import Writer

WARMUPS = 30


def paired(
    floor: Callable[[], object], fn: Callable[[], object], n: int
) -> tuple[list[float], list[float]]:
    """Time `floor` and `fn` alternately, n times each after warm-ups, so both meet the same
    load on a shared machine; return (floor latencies, fn latencies) in ms."""
    timed(floor, 0, WARMUPS)
    timed(fn, 0, WARMUPS)
    floors, fns = [], []
    for _ in range(n):
        floors += timed(floor, 1)
        fns += timed(fn, 1)
    return floors, fns


BODY = ("Refunds are prorated by day; chargebacks go to finance within 24 hours. " * 60)[:4000]


@contextmanager
def neo4j() -> Iterator[Driver]:
    """A driver to NEO4J_URI, else to a local Neo4j started for this run."""
    uri = os.environ.get("NEO4J_URI")
    if uri:
        with connect(uri, os.environ.get("NEO4J_USER"), os.environ.get("NEO4J_PASSWORD")) as d:
            yield d
        return
    from graph.local.server import start, stop

    with tempfile.TemporaryDirectory() as home:
        instance = start(Path(home), detach=False)
        try:
            with connect(instance.uri) as d:
                yield d
        finally:
            stop(instance)


def row(label: str, samples: list[float], floor: list[float]) -> str:
    """A table row: median and p99 (ms), those of the floor measured beside it, and the
    ratios."""
    med, p99 = statistics.median(samples), p(samples, 0.99)
    fmed, fp99 = statistics.median(floor), p(floor, 0.99)
    return (
        f"| {label} | {med:.2f} | {p99:.2f} | {fmed:.2f} | {fp99:.2f} "
        f"| {med / fmed:.1f}x | {p99 / fp99:.1f}x |"
    )


def seed(committer: Committer, owner: str, docs: int, versions: int) -> tuple[str, datetime]:
    """The group and its documents; returns (group id, a known_at after version 1)."""
    committer.create_token(owner, ["read", "write", "curate"])
    group = committer.create_group(owner, "bench").id
    early = None
    for v in range(versions):
        for i in range(docs):
            committer.put_document(
                Author(owner),
                f"area-{i % 10}/doc-{i}",
                f"Document {i}: refunds and chargebacks, edition {v}",
                f"{BODY}\n\nedition {v}",
                group_id=group,
            )
        if early is None:
            early = datetime.now(UTC)
    for i in range(20):
        committer.put_document(Author(owner), f"mine/doc-{i}", "My notes", BODY)
    assert early is not None
    return group, early


def main() -> None:
    """Seed, warm, measure, print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=300)
    ap.add_argument("--versions", type=int, default=3)
    ap.add_argument("--samples", type=int, default=500)
    args = ap.parse_args()
    with neo4j() as driver:
        ensure_schema(driver)
        committer, reader = Committer(driver), Reader(driver)
        owner = f"bench-{uuid.uuid4().hex[:8]}"
        group, early = seed(committer, owner, args.docs, args.versions)
        caller = Caller(owner)
        k = args.docs // 2
        name = f"area-{k % 10}/doc-{k}"
        n = args.samples

        floor_cur, current = paired(reader.ping, lambda: read_knowledge(reader, caller, name), n)
        floor_old, as_of = paired(
            reader.ping, lambda: read_knowledge(reader, caller, name, known_at=early), n
        )
        floor_list, listing = paired(
            reader.ping, lambda: list_knowledge(reader, caller, limit=100), n // 4
        )

        writer = Writer(driver)
        raw: Callable[[], object] = lambda: writer.transaction(  # noqa: E731 - one call
            lambda w: w.raw_create(owner, [raw_row(owner)], datetime.now(UTC))
        )
        version = [committer.put_state(Author(owner), "bench", "counter", 0).state.version]

        def put() -> None:
            done = committer.put_state(
                Author(owner),
                "bench",
                "counter",
                version[0],
                conditions=Conditions(if_match=version[0]),
            )
            version[0] = done.state.version

        floor_write, state_put = paired(raw, put, n)
        app = create_app(Settings(curator_in_process=False), driver)
        secret, _ = committer.create_token(owner, ["read", "write"])
        headers = {"Authorization": f"Bearer {secret}"}
        with TestClient(app) as client:
            tag = [client.get("/v1/state/bench/counter", headers=headers).headers["etag"]]

            def rest_put() -> None:
                r = client.put(
                    "/v1/state/bench/counter",
                    json={"value": 1},
                    headers={**headers, "If-Match": tag[0]},
                )
                assert r.status_code == 200, r.text
                tag[0] = r.headers["etag"]

            floor_rest, rest = paired(raw, rest_put, n)

        print(f"store: {args.docs} group documents x {args.versions} versions, group {group}")
        print("read floor: RETURN 1 in a read transaction; write floor: one raw row in one")
        print("write transaction (each measured call by call beside the row's own calls)")
        print("| what | p50 ms | p99 ms | floor p50 | floor p99 | p50 / floor | p99 / floor |")
        print("|---|---|---|---|---|---|---|")
        print(row("read_knowledge, current", current, floor_cur))
        print(row("read_knowledge, at an old known_at", as_of, floor_old))
        print(row("list_knowledge, 100 names", listing, floor_list))
        print(row("state PUT via the committer (If-Match)", state_put, floor_write))
        print(row("state PUT via REST in process (If-Match)", rest, floor_rest))
        committer.erase_owner(owner, owner)


def raw_row(owner: str) -> dict[str, object]:
    """One fact row for the raw-write floor (every field RAW_CREATE stores)."""
    now = datetime.now(UTC)
    return {
        "id": f"fct_{uuid.uuid4().hex[:24]}",
        "owner": owner,
        "entity_id": "ent_bench",
        "attribute": "counter",
        "value": "1",
        "value_norm": "s:1",
        "cardinality": "one",
        "valid_from": now,
        "valid_to": datetime(9999, 12, 31, tzinfo=UTC),
        "status": "active",
        "source": "user_edit",
        "confidence": 1.0,
        "evidence": None,
        "reason": None,
        "run_id": None,
        "message_id": None,
        "object_id": None,
    }


if __name__ == "__main__":
    main()
