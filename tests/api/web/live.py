"""A live `worldstate serve` subprocess and Debian's Chromium driven by Playwright, for the
Memory page's browser tests.

The browser is the system's (`/usr/bin/chromium`, from `apt-get install chromium`, or
`WORLDSTATE_CHROMIUM`); nothing downloads a browser of its own (no `playwright install`).
Every request the browser makes is logged, so a test can check that the page asks no
other host for anything.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from graph.local.server import pick_free_port

ROOT = Path(__file__).resolve().parents[3]
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
SHOTS = Path(__file__).parent / "screenshots"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """The system Chromium (`WORLDSTATE_CHROMIUM`, default /usr/bin/chromium)."""
    path = os.environ.get("WORLDSTATE_CHROMIUM", "/usr/bin/chromium")
    if not Path(path).exists():
        raise RuntimeError(
            f"no Chromium at {path}: `apt-get install -y chromium` (Debian's), or set "
            "WORLDSTATE_CHROMIUM; .ci/run installs it"
        )
    return path


@contextlib.contextmanager
def serve(neo4j_server: Any, log: Path) -> Iterator[str]:
    """Run `worldstate serve` (this checkout's code) on a free loopback port; yield its URL.

    The embedder is `none` (the page needs no semantic recall) and the curator polls
    every 0.1 s, so imported runs are curated at once.
    """
    port = pick_free_port()
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_server.uri,
        "WORLDSTATE_EMBEDDER": "none",
        "WORLDSTATE_CURATOR_POLL_SECONDS": "0.1",
    }
    if neo4j_server.auth:
        env |= {"NEO4J_USER": neo4j_server.auth[0], "NEO4J_PASSWORD": neo4j_server.auth[1]}
    cmd = [sys.executable, "-c", "from api.cli.main import main; main()", "serve"]
    with log.open("w") as out:
        proc = subprocess.Popen(
            [*cmd, "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"serve exited {proc.returncode}: {log.read_text()[-2000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"serve did not answer in 120 s: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def cli(*args: str, neo4j_server: Any) -> str:
    """Run `worldstate ARGS` as a subprocess against the test Neo4j; return its stdout."""
    env = {**os.environ, "NEO4J_URI": neo4j_server.uri, "WORLDSTATE_EMBEDDER": "none"}
    if neo4j_server.auth:
        env |= {"NEO4J_USER": neo4j_server.auth[0], "NEO4J_PASSWORD": neo4j_server.auth[1]}
    done = subprocess.run(
        [sys.executable, "-c", "from api.cli.main import main; main()", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@dataclass
class NetworkLog:
    """Every URL the browser asked for."""

    urls: list[str] = field(default_factory=list)

    def hosts(self) -> set[str]:
        """`host:port` of every http(s) request (data: URLs are no request)."""
        return {
            urlsplit(u).netloc for u in self.urls if urlsplit(u).scheme in ("http", "https", "ws")
        } | {u for u in self.urls if urlsplit(u).scheme not in ("http", "https", "ws", "data")}


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """Run axe-core's WCAG 2 A and AA rules on the page; return the violations."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "async () => (await axe.run(document, {runOnly: {type: 'tag', values: "
        "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})).violations"
        ".map(v => ({id: v.id, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))}))"
    )
    return list(result)
