"""Processes killed mid-work (issue 13 chaos table): curator workers SIGKILLed mid-run
while runs flow, and an API process SIGKILLed mid-commit. Real processes over the fault
tests' own Neo4j (claims take any owner's runs, so never the suite's shared one)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from neo4j import Driver

from committer.apply import Committer
from curator.worker import CuratorWorker
from graph.read.reader import Reader
from tests.faults.harness import ROOT, OwnNeo4j, cli_env, serve, token, wait_for

pytestmark = pytest.mark.slow
AT = "2024-03-01T09:00:00+00:00"


@contextlib.contextmanager
def worker(store: OwnNeo4j, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A `worldstate curator` process with a 2 s lease, stalling 1 s after each claim
    (tests/curator/paused_worker.py: a kill at a random moment usually lands mid-run);
    SIGKILLed at the end."""
    # Kills count as attempts: with the default 5 a run killed five times would close
    # `failed`, never applied, which is the contract's answer to a poisonous run, not
    # what this test is about (every run applied exactly once).
    env = cli_env(
        curator_lease_seconds="2", curator_poll_seconds="0.05", curator_max_attempts="100"
    ) | {"NEO4J_URI": store.uri}
    with log.open("ab") as out:
        popen = subprocess.Popen(
            [sys.executable, "-m", "tests.curator.paused_worker", "1.0"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        yield popen
    finally:
        if popen.poll() is None:
            popen.kill()
        popen.wait(10)


def submit(committer: Committer, owner: str, i: int) -> None:
    payload = {
        "id": f"run-{i}",
        "chat_id": "c1",
        "surface": "test",
        "observations": [],
        "messages": [
            {
                "id": "m0",
                "role": "user",
                "speaker": None,
                "text": f"I love tango number {i}.",
                "at": AT,
            }
        ],
    }
    committer.submit_run(
        owner, run_id=f"run-{i}", chat_id="c1", surface="test", payload=json.dumps(payload)
    )


def attempts(driver: Driver, owner: str) -> int:
    """Claims made so far of the owner's runs (one round trip: polled while a worker stalls)."""
    records, _, _ = driver.execute_query(
        "MATCH (r:Run) WHERE r.owner = $owner RETURN sum(coalesce(r.attempts, 0)) AS n",
        owner=owner,
    )
    return int(records[0]["n"])


def test_curator_workers_killed_twenty_times_apply_every_run_once(
    faulty_store: OwnNeo4j, tmp_path: Path
) -> None:
    """Runs keep being posted while a worker process is SIGKILLed 20 times at random
    moments, each time while it holds a run (it stalls 1 s after each claim), and a new
    one started: every run ends `done`, each applied exactly once: one proposal and one
    fact per run, none lost, none doubled."""
    owner = f"owner-{uuid.uuid4().hex}"
    with faulty_store.driver() as driver:
        committer = Committer(driver)
        reader = Reader(driver)
        CuratorWorker(committer).drain()  # what earlier tests left queued
        posted = 0
        kills = 0
        began = time.monotonic()
        log = tmp_path / "victim.log"
        while kills < 20:
            for _ in range(3):
                submit(committer, owner, posted)
                posted += 1
            claims = attempts(driver, owner)
            with worker(faulty_store, log) as victim:
                # Killed while it holds a run: after its claim, inside its 1 s stall. (A
                # kill timed from the process's start mostly landed before its first claim
                # or between runs: 1 of 20 runs was taken over.)
                wait_for(lambda c=claims: attempts(driver, owner) > c, 120, "a worker's claim")
                time.sleep(random.uniform(0.02, 0.5))
                os.kill(victim.pid, signal.SIGKILL)
                kills += 1
        rescuer = CuratorWorker(committer, lease_seconds=30, max_attempts=100)
        wait_for(
            lambda: (
                rescuer.drain() >= 0
                and all(reader.run(owner, f"run-{i}").status == "done" for i in range(posted))
            ),
            180,
            "every run to be done",
        )
        elapsed = time.monotonic() - began
        runs = [reader.run(owner, f"run-{i}") for i in range(posted)]
        records, _, _ = driver.execute_query(
            "MATCH (f:Fact) WHERE f.owner = $owner AND f.attribute = 'likes' "
            "RETURN f.value AS v, count(*) AS n",
            owner=owner,
        )
        facts = {r["v"]: r["n"] for r in records}
        records, _, _ = driver.execute_query(
            "MATCH (p:Proposal) WHERE p.owner = $owner RETURN p.run_id AS run, count(*) AS n",
            owner=owner,
        )
        proposals = {r["run"]: r["n"] for r in records}
    taken_over = sum(1 for r in runs if r.attempts > 1)
    interrupted = sum(r.attempts for r in runs) - len(runs)  # claims that never finished
    print(
        f"\ncurator: {kills} SIGKILLs in {elapsed:.0f} s, {posted} runs posted meanwhile; "
        f"done {sum(r.status == 'done' for r in runs)}/{posted}, claims cut by a kill "
        f"{interrupted} over {taken_over} runs (most claims: {max(r.attempts for r in runs)}: "
        f"a lapsed lease makes the killed run the oldest claimable one), committed once "
        f"{sum(r.committed == 1 for r in runs)}, facts "
        f"{sum(facts.values())} ({sum(n > 1 for n in facts.values())} doubled), proposals "
        f"{sum(proposals.values())} ({sum(n > 1 for n in proposals.values())} doubled)"
    )
    assert {(r.status, r.committed) for r in runs} == {("done", 1)}
    assert interrupted >= kills // 2, "most kills landed while a run was held"
    assert facts == {f"tango number {i}": 1 for i in range(posted)}
    assert proposals == {f"run-{i}": 1 for i in range(posted)}
    assert taken_over > 0  # kills landed mid-run


def test_api_killed_mid_commit_is_all_or_nothing(faulty_store: OwnNeo4j, tmp_path: Path) -> None:
    """A sync of 1,500 observations is one commit. It is timed once whole; then the API
    process is SIGKILLed at 20 %, 50 %, 80 % and 110 % of that time into a new one. Each
    time the store holds all 1,500 facts of the sync or none; posted again after a
    restart, a sync lands whole, once."""
    owner = f"owner-{uuid.uuid4().hex}"
    secret = token(faulty_store.uri, owner)
    env = cli_env(curator_in_process="false") | {"NEO4J_URI": faulty_store.uri}
    n = 1_500

    def body(attempt: int) -> dict[str, object]:
        return {
            "id": f"sync-{attempt}",
            "integration": "hr",
            "at": "2024-01-01T00:00:00Z",
            "observations": [
                {
                    "entity": {"name": f"Person {attempt}-{i}", "kind": "person"},
                    "attribute": "employee_no",
                    "value": f"{attempt}-{i}",
                }
                for i in range(n)
            ],
        }

    with serve(tmp_path / "serve-timed.log", env) as server, server.client(secret, 600) as c:
        began = time.monotonic()
        assert c.post("/v1/syncs", json=body(0)).status_code in (200, 201)
        whole = time.monotonic() - began
    assert _count(faulty_store, owner, "0-") == n
    outcomes: list[int] = []
    for attempt, share in enumerate((0.2, 0.5, 0.8, 1.1), start=1):
        with serve(tmp_path / f"serve-{attempt}.log", env) as server:
            sent = threading.Thread(
                target=_post_quietly, args=(server.url, secret, body(attempt)), daemon=True
            )
            sent.start()
            time.sleep(whole * share)
            server.popen.kill()
            server.popen.wait(10)
        outcomes.append(_count(faulty_store, owner, f"{attempt}-"))
    with serve(tmp_path / "serve-again.log", env) as server, server.client(secret, 600) as c:
        for attempt in range(1, 5):
            r = c.post("/v1/syncs", json=body(attempt))
            assert r.status_code in (200, 201), r.text
    again = [_count(faulty_store, owner, f"{attempt}-") for attempt in range(1, 5)]
    print(
        f"\nAPI SIGKILLed at 20/50/80/110 % of a {whole:.1f} s commit of {n} facts: facts "
        f"found {outcomes}; each sync posted again after a restart: {again}"
    )
    assert all(c in (0, n) for c in outcomes), outcomes
    assert again == [n] * 4


def _post_quietly(url: str, secret: str, body: dict[str, object]) -> None:
    with contextlib.suppress(httpx.HTTPError):
        httpx.post(
            url + "/v1/syncs", json=body, headers={"Authorization": f"Bearer {secret}"}, timeout=300
        )


def _others_running(driver: Driver) -> int:
    """How many transactions Neo4j is running besides the one asking."""
    records, _, _ = driver.execute_query(
        "SHOW TRANSACTIONS YIELD currentQuery "
        "WHERE NOT currentQuery STARTS WITH 'SHOW TRANSACTIONS' RETURN count(*) AS n"
    )
    return int(records[0]["n"])


def _count(store: OwnNeo4j, owner: str, prefix: str) -> int:
    """The sync's facts once every other transaction has ended. A client killed after
    it sent COMMIT leaves a commit Neo4j still applies; Neo4j reads are read-committed,
    so a count running beside that commit may see part of it, which says nothing
    about atomicity. Once the killed API's transaction is over, it landed whole or not
    at all."""
    with store.driver() as driver:
        wait_for(lambda: _others_running(driver) == 0, 120, "the killed API's transaction")
        records, _, _ = driver.execute_query(
            "MATCH (f:Fact) WHERE f.owner = $owner AND f.attribute = 'employee_no' "
            "AND f.value STARTS WITH $prefix RETURN count(f) AS n",
            owner=owner,
            prefix=prefix,
        )
    return int(records[0]["n"])
