"""`worldstate serve --workers 2`: two API processes on one Neo4j (issue 17 "Under load").

One server for the module, started as a user would (the CLI, a real port), against the
session's Neo4j. Every request opens a new connection, so the kernel hands requests to
either process; `/metrics` names the process that answered (its `pid` label).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

import api.http.app
from api.cli import store
from committer.apply import Committer
from graph.local.server import pick_free_port
from graph.read.reader import Reader

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_workers(neo4j_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`serve --workers 2` on a free loopback port, with each process's curator thread."""
    port = pick_free_port()
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_server.uri,
        "WORLDSTATE_EMBEDDER": "none",
        "WORLDSTATE_CURATOR_POLL_SECONDS": "0.1",
    }
    if neo4j_server.auth:
        env |= {"NEO4J_USER": neo4j_server.auth[0], "NEO4J_PASSWORD": neo4j_server.auth[1]}
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    cmd = [sys.executable, "-c", "from api.cli.main import main; main()", "serve"]
    with log.open("w") as out:
        proc = subprocess.Popen(
            [*cmd, "--port", str(port), "--workers", "2", "--no-access-log"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while not ready_pids(url, 1):
            if proc.poll() is not None:
                raise RuntimeError(f"serve exited {proc.returncode}: {log.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"serve not ready in 180 s: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def fresh() -> httpx.Client:
    """A client that opens a new connection for every request."""
    return httpx.Client(limits=httpx.Limits(max_keepalive_connections=0), timeout=10.0)


def ready_pids(url: str, tries: int) -> set[int]:
    """The processes seen answering /readyz 200 (each then asked its pid on /metrics)."""
    seen: set[int] = set()
    with fresh() as client:
        for _ in range(tries):
            with contextlib.suppress(httpx.HTTPError):
                if client.get(f"{url}/readyz").status_code == 200:
                    seen.add(pid_of(client, url))
    return seen


def pid_of(client: httpx.Client, url: str) -> int:
    found = re.search(r'pid="(\d+)"', client.get(f"{url}/metrics").text)
    assert found is not None
    return int(found.group(1))


def test_both_processes_get_ready(two_workers: str) -> None:
    """Each process warms prefetch and answers /readyz 200 on its own: over many new
    connections, two different processes are seen, and /readyz never answers 503."""
    seen: set[int] = set()
    with fresh() as client:
        for _ in range(200):
            assert client.get(f"{two_workers}/readyz").status_code == 200
            seen.add(pid_of(client, two_workers))
            if len(seen) == 2:
                break
    assert len(seen) == 2


def test_a_token_works_in_every_process(two_workers: str, neo4j_driver: Any, owner: str) -> None:
    """Tokens live in Neo4j: one created after start-up is accepted by whichever process
    answers, sixty times over; a revoked one is refused by all within the token cache's
    5 seconds."""
    secret, record = Committer(neo4j_driver).create_token(owner, ["read"])
    headers = {"Authorization": f"Bearer {secret}"}
    with fresh() as client:
        for _ in range(60):
            r = client.get(f"{two_workers}/v1/me", headers=headers)
            assert r.status_code == 200 and r.json()["owner"] == owner
        Committer(neo4j_driver).revoke_token(record.id)
        time.sleep(5.5)
        for _ in range(20):
            assert client.get(f"{two_workers}/v1/me", headers=headers).status_code == 401


def test_runs_are_curated_once_with_a_curator_in_each_process(
    two_workers: str, neo4j_driver: Any, owner: str
) -> None:
    """Both processes run a curator thread on the same queue: six runs posted through
    either process are each curated exactly once (claimed once, closed `done`)."""
    secret, _ = Committer(neo4j_driver).create_token(owner, ["read", "write"])
    headers = {"Authorization": f"Bearer {secret}"}
    ids = [f"run-{n}" for n in range(6)]
    with fresh() as client:
        for n, run_id in enumerate(ids):
            body = {
                "id": run_id,
                "chat_id": f"chat-{n}",
                "messages": [
                    {"role": "user", "text": f"I moved to Lisbon {n} weeks ago.",
                     "at": "2024-03-01T09:00:00+00:00"},
                ],
            }  # fmt: skip
            assert (
                client.post(f"{two_workers}/v1/runs", json=body, headers=headers).status_code == 202
            )
        deadline = time.monotonic() + 120
        status: dict[str, str] = {}
        while time.monotonic() < deadline:
            status = {
                i: client.get(f"{two_workers}/v1/runs/{i}", headers=headers).json()["status"]
                for i in ids
            }
            if all(s in ("done", "failed", "skipped") for s in status.values()):
                break
            time.sleep(0.3)
    assert set(status.values()) == {"done"}, status
    reader = Reader(neo4j_driver)
    for run_id in ids:
        run = reader.run(owner, run_id)
        assert run.attempts == 1 and run.releases == 0 and run.finished_by, run


def test_a_memory_page_session_works_in_every_process(
    two_workers: str, neo4j_driver: Any, owner: str
) -> None:
    """The Memory page's session is a signed cookie: signed in through one process, the
    page answers 200 (not the sign-in form) from whichever process serves it, forty times;
    a cookie with a forged signature is sent to sign in."""
    secret, _ = Committer(neo4j_driver).create_token(owner, ["read"])
    with fresh() as client:
        form = client.get(f"{two_workers}/memory/sign-in")
        csrf = client.cookies.get("ws_signin")
        assert form.status_code == 200 and csrf
        signed = client.post(f"{two_workers}/memory/sign-in", data={"token": secret, "csrf": csrf})
        assert signed.status_code == 303, signed.text
        cookie = client.cookies.get("ws_session")
        assert cookie
        for _ in range(40):
            page = client.get(f"{two_workers}/memory", follow_redirects=False)
            assert page.status_code == 200, page.headers
        body, mac = cookie.rsplit(".", 1)
        client.cookies.set("ws_session", f"{body}.{'A' * len(mac)}", path="/memory")
        forged = client.get(f"{two_workers}/memory", follow_redirects=False)
        assert forged.status_code in (302, 303, 307) and "sign-in" in forged.headers["location"]


@pytest.mark.parametrize("workers", [1, 3])
def test_only_a_serving_process_preloads(workers: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve` imports the app and loads the embedder while Neo4j starts, but only when it
    serves itself: with `--workers N` the parent only starts processes, and each loads its
    own (it used to preload anyway: seconds of CPU and the model's memory for nothing)."""
    preloaded: list[object] = []
    served: list[object] = []
    names = ("WORLDSTATE_WEB_SESSIONS", "WORLDSTATE_WEB_SESSION_SECRET")
    before = [os.environ.get(n) for n in names]
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")  # not used: open_store is replaced
    # serve sets these for its workers in os.environ: set here first, so the test's end
    # restores them (monkeypatch.delenv of an unset variable records nothing to undo, and
    # signed sessions leaked into the later web tests)
    monkeypatch.setenv("WORLDSTATE_WEB_SESSIONS", "memory")
    monkeypatch.setenv("WORLDSTATE_WEB_SESSION_SECRET", "s" * 32)
    monkeypatch.setattr(store, "_preload", preloaded.append)
    monkeypatch.setattr(store, "open_store", lambda *a, **k: contextlib.nullcontext(None))
    monkeypatch.setattr(store, "log_to_stderr", lambda: None)
    monkeypatch.setattr(api.http.app, "create_app", lambda *a, **k: "the app")
    monkeypatch.setattr(uvicorn, "run", lambda app, **k: served.append((app, k.get("workers", 1))))
    store.serve(workers=workers)
    monkeypatch.undo()
    assert [os.environ.get(n) for n in names] == before  # nothing leaks into later tests
    assert len(preloaded) == (1 if workers == 1 else 0)
    assert (
        served == [("the app", 1)]
        if workers == 1
        else served == [("api.http.app:app_from_environment", workers)]
    )
