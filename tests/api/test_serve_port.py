"""`worldstate serve` that cannot start ends in one line saying why: a port already taken
(it failed after start-up, sometimes beside a traceback, when a second `serve` was
started) or a Neo4j that does not answer (a 300-line traceback)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from graph.local.server import pick_free_port

ROOT = Path(__file__).resolve().parents[2]
NOWHERE = "bolt://127.0.0.1:9"
"""A Bolt URI where nothing listens."""


def _serve(port: int) -> subprocess.CompletedProcess[str]:
    """`worldstate serve --port PORT` against `NOWHERE`, run to its end."""
    env = {**os.environ, "NEO4J_URI": NOWHERE, "WORLDSTATE_EMBEDDER": "none"}
    command = [sys.executable, "-c", "from api.cli.main import main; main()", "serve"]
    return subprocess.run(
        [*command, "--port", str(port)],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_serve_on_a_taken_port_says_so_in_one_line() -> None:
    """A listening socket holds a loopback port; `serve --port` on it exits 1 with
    `error: cannot listen on 127.0.0.1:PORT: ...`, before it reaches the store."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = _serve(port)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [lines[0]] and lines[0].startswith(f"error: cannot listen on 127.0.0.1:{port}:")
    assert "--port" in lines[0] and "Traceback" not in done.stderr + done.stdout


def test_serve_with_an_unreachable_neo4j_ends_in_one_line() -> None:
    """`NEO4J_URI` naming a port where nothing listens: after the driver's retries, `serve`
    exits 1 with `error: cannot reach Neo4j at <uri>: ...` and a hint, not a traceback."""
    done = _serve(pick_free_port())
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "unset NEO4J_URI" in last, done.stderr
    assert f"error: cannot reach Neo4j at {NOWHERE}" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
