"""Real processes for the fault tests: a Neo4j of the test's own, a `worldstate serve`.

Nothing here touches the session's Neo4j (tests/conftest.py): every instance that is
killed is started by these helpers, in a temporary data directory, on a port of its own,
and stopped at the end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from neo4j import Driver

from committer.apply import Committer
from graph.driver import connect
from graph.local.server import LocalNeo4j, Neo4jLocalSettings, pick_free_port, start, stop
from graph.schema import ensure_schema

ROOT = Path(__file__).resolve().parents[2]
HEAP = "512m"
PAGE_CACHE_MB = 48


def wait_for(check: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll `check` every 50 ms until it returns something truthy; raise after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


@dataclass
class OwnNeo4j:
    """A local Neo4j for one test module: killed with SIGKILL and started again on the
    same data directory and port, as often as a test likes."""

    data_dir: Path
    port: int = field(default_factory=pick_free_port)
    instance: LocalNeo4j | None = None

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    def start(self) -> float:
        """Start it (recovering after a kill); return the seconds it took."""
        began = time.monotonic()
        self.instance = start(
            self.data_dir,
            port=self.port,
            heap=HEAP,
            page_cache_mb=PAGE_CACHE_MB,
            cache_dir=Neo4jLocalSettings().neo4j_cache,
            detach=False,
        )
        return time.monotonic() - began

    def kill(self) -> None:
        """SIGKILL the JVM (no shutdown, no checkpoint) and reap it."""
        assert self.instance is not None and self.instance.process is not None
        os.kill(self.instance.pid, signal.SIGKILL)
        self.instance.process.wait(30)
        stop(self.instance, timeout_s=5)  # clears the state file

    def stop(self) -> None:
        if self.instance is not None:
            stop(self.instance, timeout_s=20)

    def driver(self) -> Driver:
        return connect(self.uri)


@contextlib.contextmanager
def own_neo4j(data_dir: Path) -> Iterator[OwnNeo4j]:
    """A started `OwnNeo4j` with the schema in place, stopped at the end."""
    store = OwnNeo4j(data_dir)
    store.start()
    try:
        with store.driver() as driver:
            ensure_schema(driver)
        yield store
    finally:
        store.stop()


def token(
    store_uri: str, owner: str, scopes: tuple[str, ...] = ("read", "write", "curate", "admin")
) -> str:
    """Mint a token for `owner` in the store at `store_uri`; return the secret."""
    with connect(store_uri) as driver:
        secret, _ = Committer(driver).create_token(owner, list(scopes))
    return secret


@dataclass
class Serve:
    """A `worldstate serve` process."""

    popen: subprocess.Popen[bytes]
    url: str
    log: Path

    def client(self, secret: str | None = None, timeout: float = 30.0) -> httpx.Client:
        headers = {"Authorization": f"Bearer {secret}"} if secret else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)


def cli_env(**settings: str) -> dict[str, str]:
    """The environment of a worldstate process: no embedder (spares a ~1 GB model load),
    no rate limit, and `WORLDSTATE_<NAME>` for each of `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "WORLDSTATE_"))}
    env |= {"WORLDSTATE_EMBEDDER": "none", "WORLDSTATE_RATE_LIMIT_PER_MINUTE": "0"}
    env |= {f"WORLDSTATE_{k.upper()}": v for k, v in settings.items()}
    return env


@contextlib.contextmanager
def serve(log: Path, env: dict[str, str], timeout: float = 180.0) -> Iterator[Serve]:
    """Run `worldstate serve` on a free port with `env`; yield once `/healthz` answers 200;
    SIGTERM it (then SIGKILL) at the end."""
    port = pick_free_port()
    with log.open("wb") as out:
        popen = subprocess.Popen(
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
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Serve(popen, f"http://127.0.0.1:{port}", log)
    try:

        def healthy() -> bool:
            assert popen.poll() is None, log.read_text()
            try:
                return httpx.get(server.url + "/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_for(healthy, timeout, "worldstate serve to answer /healthz")
        yield server
    finally:
        if popen.poll() is None:
            popen.send_signal(signal.SIGTERM)
            try:
                popen.wait(30)
            except subprocess.TimeoutExpired:
                popen.kill()
                popen.wait(10)
