"""The README's demo, run as written in a fresh clone of the repository (the quick part:
every command before `eval locomo`, which `worldstate eval` tests cover).

The clone has no folder beside it and no data but its own (docs/demo/). Its `.venv` is
this test run's environment (a link), so nothing is installed; the service is `worldstate
serve` as command 1 starts it, on a free port, against the test session's Neo4j. The
block's address (`http://127.0.0.1:8000`) is replaced by that port's and the owner
`demo` by a fresh one; nothing else is changed.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]


def demo_block() -> str:
    """The first `sh` block under the README's "Try it" heading, up to `eval locomo`."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Try it") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "the README's demo block"
    return block.group(1).split("# How much of what was said")[0]


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_readme_demo_runs_in_a_fresh_clone(neo4j_server: Any, tmp_path: Path) -> None:
    """Clone, serve, run the demo's commands: Maya's 1 March 2024 and current facts,
    her location's history and a prefetch block naming her, not degraded."""
    clone = tmp_path / "ws"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    (clone / ".venv").symlink_to(Path(sys.prefix))
    port = free_port()
    api = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "NEO4J_URI": neo4j_server.uri,
        "WORLDSTATE_DATA_DIR": str(tmp_path / "data"),
    }
    serve = subprocess.Popen(
        [str(clone / ".venv/bin/worldstate"), "serve", "--port", str(port)],
        cwd=clone,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            assert serve.poll() is None, serve.stderr.read() if serve.stderr else ""
            try:
                if httpx.get(f"{api}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "serve was not ready within 180 s"
            time.sleep(0.5)
        owner = f"readme-{uuid.uuid4().hex[:12]}"
        script = demo_block().replace("http://127.0.0.1:8000", api)
        script = script.replace("--owner demo", f"--owner {owner}")
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            check=False,
            cwd=clone,
            env={**env, "WORLDSTATE_API": api},
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        serve.terminate()
        serve.wait(timeout=60)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Portland" in out and "Riverside Hospital" in out, out
    assert "Denver" in out and "Mercy Clinic" in out, out
    assert "superseded" in out, out
    assert "knows        → Priya" in out, "relationships show their object's name"
    assert "## Known World State" in out and "Maya" in out, out
    assert '"degraded":false' in out.replace(" ", ""), out
