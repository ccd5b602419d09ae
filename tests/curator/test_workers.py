"""Curator workers at scale: leased claims, takeover, exactly-once apply (CONTRACT §4, §7).

Worker processes are real `worldstate curator` processes against the session's Neo4j;
each test stops the processes it started. Claims take one of the oldest claimable runs of any
owner, so each test first drains what earlier tests left queued (`quiet_queue`, in
conftest.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from committer.apply import Committer
from committer.proposals import Reviewed
from curator.extract import extract_run
from curator.worker import CuratorWorker
from graph.errors import Conflict
from graph.read.reader import Reader
from graph.records import RunRecord
from tests.curator.paused_worker import PausedWorker

ROOT = Path(__file__).resolve().parents[2]
AT = "2024-03-01T09:00:00+00:00"


# --- helpers ----------------------------------------------------------------------------


def submit(committer: Committer, owner: str, run_id: str, text: str, chat: str = "c1") -> None:
    """Queue a run of one user message, as `POST /v1/runs` stores it."""
    payload = {
        "id": run_id,
        "chat_id": chat,
        "surface": "test",
        "observations": [],
        "messages": [{"id": "m0", "role": "user", "speaker": None, "text": text, "at": AT}],
    }
    committer.submit_run(
        owner, run_id=run_id, chat_id=chat, surface="test", payload=json.dumps(payload)
    )


def reviewed(run: RunRecord) -> list[Reviewed]:
    """The run's proposals, each to be committed."""
    messages = [
        {**m, "at": datetime.fromisoformat(m["at"])} for m in json.loads(run.payload)["messages"]
    ]
    return [
        Reviewed(proposal=p, action="commit", policy="auto") for p in extract_run(messages, run.id)
    ]


def likes(driver: Driver, owner: str) -> dict[str, int]:
    """Rows of `likes` per value for the owner, on every axis (retracted ones included)."""
    records, _, _ = driver.execute_query(
        "MATCH (f:Fact) WHERE f.owner = $owner AND f.attribute = 'likes' "
        "RETURN f.value AS value, count(*) AS n",
        owner=owner,
    )
    return {r["value"]: r["n"] for r in records}


def wait_for(check: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> Any:
    """Poll `check` every 50 ms until it returns something truthy; fail after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


@dataclass
class WorkerProcess:
    """A `worldstate curator` child process and the worker id it printed."""

    popen: subprocess.Popen[bytes]
    worker_id: str
    log: Path


@contextlib.contextmanager
def worker_process(
    neo4j_server: Any, log: Path, pause_after_claim: float | None = None, **settings: str
) -> Iterator[WorkerProcess]:
    """Start `worldstate curator` with `WORLDSTATE_<NAME>` settings; kill it at the end.

    With `pause_after_claim`, the worker stalls that many seconds after each claim
    (tests/curator/paused_worker.py), so the test can act while a run is claimed."""
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_server.uri,
        "WORLDSTATE_CURATOR_POLL_SECONDS": "0.05",
        # Claims and leases are under test, not search: spare each process the ~1 GB,
        # 10-60 s load of the local embedding model.
        "WORLDSTATE_EMBEDDER": "none",
    }
    if neo4j_server.auth:
        env |= {"NEO4J_USER": neo4j_server.auth[0], "NEO4J_PASSWORD": neo4j_server.auth[1]}
    env |= {f"WORLDSTATE_{k.upper()}": v for k, v in settings.items()}
    command = [sys.executable, "-c", "from api.cli.main import main; main()", "curator"]
    if pause_after_claim is not None:
        command = [sys.executable, "-m", "tests.curator.paused_worker", str(pause_after_claim)]
    with log.open("wb") as out:
        popen = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:

        def started() -> str | None:
            assert popen.poll() is None, log.read_text()
            for line in log.read_text().splitlines():
                if line.startswith("curator worker ") and " running;" in line:
                    return line.split()[2]
            return None

        yield WorkerProcess(popen, wait_for(started, 60, "the worker to start"), log)
    finally:
        if popen.poll() is None:
            popen.kill()
        popen.wait(10)


# --- claims and leases, in process -------------------------------------------------------


def test_concurrent_claims_never_share_a_run(
    committer: Committer, reader: Reader, owner: str, quiet_queue: None
) -> None:
    """Eight threads claiming at once take 40 runs, each run exactly once (the queue lock)."""
    for i in range(40):
        submit(committer, owner, f"run-{i}", f"I love tango number {i}.")
    claimed: list[tuple[str, str]] = []
    lock = threading.Lock()

    def claimer(worker: str) -> None:
        while (run := committer.claim_run(worker, 60)) is not None:
            with lock:
                claimed.append((run.id, worker))

    threads = [threading.Thread(target=claimer, args=(f"w{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    ids = sorted(run_id for run_id, _ in claimed)
    assert ids == sorted(f"run-{i}" for i in range(40))
    for run_id, worker in claimed:
        run = reader.run(owner, run_id)
        assert (run.status, run.lease_owner, run.attempts) == ("curating", worker, 1)
        assert committer.close_run(run, "failed", "test", worker=worker)


def test_slow_worker_cannot_finish_after_takeover(
    committer: Committer, reader: Reader, neo4j_driver: Driver, owner: str, quiet_queue: None
) -> None:
    """A worker whose lease lapsed and was taken over gets Conflict and writes nothing."""
    submit(committer, owner, "r1", "I love tango number 1.")
    slow = committer.claim_run("slow", lease_seconds=0.3)
    assert slow is not None and slow.id == "r1" and slow.lease_until is not None
    assert committer.claim_run("fast", 30) is None  # leased: nobody else takes it
    time.sleep(0.4)
    fast = committer.claim_run("fast", 30)
    assert fast is not None and fast.id == "r1" and fast.attempts == 2
    assert not committer.heartbeat(slow, "slow", 30)  # the slow worker learns it lost
    with pytest.raises(Conflict):
        committer.apply_run(slow, reviewed(slow), worker="slow")
    assert likes(neo4j_driver, owner) == {}
    outcome = committer.apply_run(fast, reviewed(fast), worker="fast")
    assert outcome.committed == 1
    with pytest.raises(Conflict):  # the slow worker waking up after the finish
        committer.apply_run(slow, reviewed(slow), worker="slow")
    run = reader.run(owner, "r1")
    assert (run.status, run.finished_by, run.committed) == ("done", "fast", 1)
    assert likes(neo4j_driver, owner) == {"tango number 1": 1}


def test_applying_a_run_twice_changes_nothing(
    committer: Committer, reader: Reader, neo4j_driver: Driver, owner: str, quiet_queue: None
) -> None:
    """A second apply of a done run raises Conflict and leaves memory and counts as they were."""
    submit(committer, owner, "r1", "I love tango number 7.")
    run = committer.claim_run("w", 30)
    assert run is not None
    committer.apply_run(run, reviewed(run), worker="w")
    before = reader.run(owner, "r1")
    with pytest.raises(Conflict):
        committer.apply_run(run, reviewed(run), worker="w")
    assert reader.run(owner, "r1") == before
    assert likes(neo4j_driver, owner) == {"tango number 7": 1}
    assert committer.claim_run("w", 30) is None


def test_heartbeat_keeps_a_long_run(
    committer: Committer, reader: Reader, owner: str, quiet_queue: None
) -> None:
    """A run curated for longer than its lease stays its worker's while heartbeats go on."""
    submit(committer, owner, "r1", "I love tango number 3.")
    slow = PausedWorker(committer, lease_seconds=0.6)
    slow.PAUSE = 2.0
    thread = threading.Thread(target=slow.run_once)
    thread.start()
    wait_for(lambda: reader.run(owner, "r1").status == "curating", 10, "the claim")
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        assert committer.claim_run("thief", 30) is None
        time.sleep(0.1)
    thread.join(10)
    run = reader.run(owner, "r1")
    assert (run.status, run.finished_by, run.attempts) == ("done", slow.worker_id, 1)


def test_released_run_waits_for_retry_at_and_is_not_lost(
    committer: Committer, reader: Reader, owner: str, quiet_queue: None
) -> None:
    """A released run is queued again, claimable only after its retry time; a release
    does not use up an attempt, an error does, and the last attempt fails the run."""
    submit(committer, owner, "r1", "I love tango number 4.")
    run = committer.claim_run("w", 30, max_attempts=2)
    assert run is not None and committer.release_run(run, "w", "endpoint down", retry_in=0.5)
    stored = reader.run(owner, "r1")
    assert (stored.status, stored.attempts, stored.releases, stored.error) == (
        "queued",
        0,
        1,
        "endpoint down",
    )
    assert stored.retry_at is not None and stored.retry_at > datetime.now(UTC)
    assert committer.claim_run("w", 30, max_attempts=2) is None
    time.sleep(0.6)
    for attempt in (1, 2):
        run = committer.claim_run("w", 30, max_attempts=2)
        assert run is not None and run.attempts == attempt
        assert committer.release_run(
            run, "w", "boom", count_attempt=True, retry_in=0, max_attempts=2
        )
    stored = reader.run(owner, "r1")
    assert (stored.status, stored.error) == ("failed", "boom")


def test_run_that_keeps_crashing_its_workers_is_failed(
    committer: Committer, reader: Reader, owner: str, quiet_queue: None
) -> None:
    """Leases that lapse count as attempts: after the last one the claim marks it failed."""
    submit(committer, owner, "r1", "I love tango number 5.")
    for _ in range(2):
        assert committer.claim_run("dies", 0.01, max_attempts=2) is not None
        time.sleep(0.05)
    assert committer.claim_run("w", 30, max_attempts=2) is not None
    assert committer.claim_run("w", 30, max_attempts=2) is None
    run = reader.run(owner, "r1")
    assert (run.status, run.error) == ("failed", "gave up after 2 attempts")


def test_run_of_a_chat_with_memory_access_none_is_skipped_unread(
    committer: Committer, reader: Reader, neo4j_driver: Driver, owner: str, quiet_queue: None
) -> None:
    """CONTRACT §7: a `none` chat is never mined; its runs are `skipped`, payload unread."""
    committer.set_memory_access(owner, "secret", "none")
    committer.submit_run(
        owner,
        run_id="r-secret",
        chat_id="secret",
        surface=None,
        payload="this is not JSON: reading it would fail",
    )
    submit(committer, owner, "r-open", "I love tango number 6.", chat="open")
    worker = CuratorWorker(committer)
    assert worker.drain() == 2
    secret = reader.run(owner, "r-secret")
    assert (secret.status, secret.proposals, secret.committed, secret.error) == (
        "skipped",
        0,
        0,
        None,
    )
    assert reader.run(owner, "r-open").status == "done"
    # The owner's default `none` covers every chat without its own setting.
    committer.set_memory_access(owner, None, "none")
    committer.set_memory_access(owner, "allowed", "full")
    submit(committer, owner, "r-other", "I love tango number 8.", chat="other")
    submit(committer, owner, "r-allowed", "I love tango number 9.", chat="allowed")
    assert worker.drain() == 2
    assert reader.run(owner, "r-other").status == "skipped"
    assert reader.run(owner, "r-allowed").status == "done"
    assert likes(neo4j_driver, owner) == {"tango number 6": 1, "tango number 9": 1}


# --- real worker processes -----------------------------------------------------------------


@pytest.mark.slow
def test_killed_worker_run_is_taken_over_after_the_lease(
    committer: Committer,
    reader: Reader,
    neo4j_driver: Driver,
    neo4j_server: Any,
    owner: str,
    tmp_path: Path,
    quiet_queue: None,
) -> None:
    """A worker process killed with SIGKILL mid-run leaves the run `curating` until its
    lease lapses; then another worker takes it over and commits it exactly once."""
    submit(committer, owner, "r1", "I love tango number 11.")
    with worker_process(
        neo4j_server,
        tmp_path / "w.log",
        curator_lease_seconds="2",
        pause_after_claim=120,
    ) as proc:
        wait_for(
            lambda: reader.run(owner, "r1").lease_owner == proc.worker_id,
            30,
            "the worker process to claim the run",
        )
        os.kill(proc.popen.pid, signal.SIGKILL)
        proc.popen.wait(10)
    run = reader.run(owner, "r1")
    assert (run.status, run.attempts) == ("curating", 1)
    assert run.lease_until is not None and run.lease_until > datetime.now(UTC)
    rescuer = CuratorWorker(committer)
    assert rescuer.run_once() is False  # the lease still holds
    time.sleep(max((run.lease_until - datetime.now(UTC)).total_seconds(), 0) + 0.1)
    assert rescuer.drain() == 1
    run = reader.run(owner, "r1")
    assert (run.status, run.attempts, run.committed) == ("done", 2, 1)
    assert run.finished_by == rescuer.worker_id
    assert likes(neo4j_driver, owner) == {"tango number 11": 1}


@pytest.mark.slow
def test_sigterm_stops_a_worker_cleanly_and_hands_its_run_back(
    committer: Committer,
    reader: Reader,
    neo4j_server: Any,
    owner: str,
    tmp_path: Path,
    quiet_queue: None,
) -> None:
    """SIGTERM during a run: the process exits 0 and the run is queued again, unharmed."""
    submit(committer, owner, "r1", "I love tango number 12.")
    with worker_process(neo4j_server, tmp_path / "w.log", pause_after_claim=120) as proc:
        wait_for(lambda: reader.run(owner, "r1").lease_owner == proc.worker_id, 30, "the claim")
        proc.popen.send_signal(signal.SIGTERM)
        assert proc.popen.wait(20) == 0, proc.log.read_text()
        assert f"curator worker {proc.worker_id} stopped" in proc.log.read_text()
    run = reader.run(owner, "r1")
    assert (run.status, run.attempts, run.releases) == ("queued", 0, 1)
    assert CuratorWorker(committer).drain() == 1
    assert reader.run(owner, "r1").status == "done"


@pytest.mark.slow
def test_two_worker_processes_apply_fifty_runs_exactly_once(
    committer: Committer,
    reader: Reader,
    neo4j_driver: Driver,
    neo4j_server: Any,
    tmp_path: Path,
    quiet_queue: None,
) -> None:
    """Two worker processes drain 50 runs of five owners: each run is done once, by one of
    them, no fact is written twice, and both workers took some runs."""
    owners = [f"owner-{uuid.uuid4().hex}" for _ in range(5)]
    with (
        worker_process(neo4j_server, tmp_path / "a.log") as a,
        worker_process(neo4j_server, tmp_path / "b.log") as b,
    ):
        for i in range(50):
            submit(committer, owners[i % 5], f"run-{i}", f"I love tango number {i}.")

        def all_done() -> bool:
            return all(reader.run(owners[i % 5], f"run-{i}").status == "done" for i in range(50))

        wait_for(all_done, 120, "every run to be done")
        for proc in (a, b):
            proc.popen.send_signal(signal.SIGTERM)
        for proc in (a, b):
            assert proc.popen.wait(20) == 0, proc.log.read_text()
    runs = [reader.run(owners[i % 5], f"run-{i}") for i in range(50)]
    assert {(r.status, r.attempts, r.committed) for r in runs} == {("done", 1, 1)}
    by = {r.finished_by for r in runs}
    assert by == {a.worker_id, b.worker_id}, by
    for k, o in enumerate(owners):
        assert likes(neo4j_driver, o) == {f"tango number {i}": 1 for i in range(k, 50, 5)}
