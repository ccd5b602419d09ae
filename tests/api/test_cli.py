"""The command line against a real Neo4j and a real HTTP server (CONTRACT §11)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from typer.testing import CliRunner

from api.cli.main import app as cli
from api.http.app import create_app
from api.http.settings import Settings
from committer.apply import Committer
from graph.local.server import pick_free_port


def _env(neo4j_server: Any) -> dict[str, str]:
    env = {"NEO4J_URI": neo4j_server.uri}
    if neo4j_server.auth:
        env |= {"NEO4J_USER": neo4j_server.auth[0], "NEO4J_PASSWORD": neo4j_server.auth[1]}
    return env


@pytest.fixture(scope="module")
def server(neo4j_driver: Any) -> Iterator[str]:
    """`worldstate serve`'s app with its in-process curator, on a free loopback port."""
    port = pick_free_port()
    config = uvicorn.Config(
        create_app(Settings(curator_poll_seconds=0.1), neo4j_driver),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # start-up loads the local embedding model (~10-60 s)
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(10)


def _conversation(path: Path) -> Path:
    """A tiny LoCoMo-format conversation written by the test itself."""

    def turns(n: int, items: list[tuple[str, str]]) -> list[dict[str, str]]:
        return [
            {"speaker": who, "dia_id": f"D{n}:{i + 1}", "text": text}
            for i, (who, text) in enumerate(items)
        ]

    path.write_text(
        json.dumps(
            {
                "speaker_a": "Lena",
                "speaker_b": "Omar",
                "session_1_date_time": "10:00 am on 3 March, 2023",
                "session_1": turns(
                    1,
                    [
                        ("Lena", "I work as a nurse these days."),
                        ("Omar", "I moved to Lisbon last month."),
                    ],
                ),
                "session_2_date_time": "4:30 pm on 20 June, 2023",
                "session_2": turns(
                    2,
                    [("Lena", "I lost my job as a nurse yesterday."), ("Omar", "I love surfing.")],
                ),
            }
        )
    )
    return path


def test_token_create_then_import_then_time_travel(
    neo4j_server: Any, server: str, owner: str, tmp_path: Path
) -> None:
    """`token create` prints the token last; `import locomo` posts each session as a run;
    the answer to "what was Lena's occupation" changes between two dates."""
    runner = CliRunner()
    env = _env(neo4j_server)
    made = runner.invoke(
        cli, ["token", "create", "--owner", owner, "--scopes", "read,write"], env=env
    )
    assert made.exit_code == 0, made.output
    token = made.output.strip().splitlines()[-1]
    assert token.startswith("ws_")

    file = _conversation(tmp_path / "tiny.json")
    done = runner.invoke(
        cli,
        [
            "import",
            "locomo",
            str(file),
            "--owner",
            owner,
            "--api",
            server,
            "--token",
            token,
            "--timeout",
            "60",
        ],
        env=env,
    )
    assert done.exit_code == 0, done.output
    assert "posted 2 runs" in done.output

    wrong = runner.invoke(
        cli,
        ["import", "locomo", str(file), "--owner", owner + "-x", "--api", server, "--token", token],
        env=env,
    )
    assert wrong.exit_code == 1 and "belongs to owner" in wrong.output

    h = {"Authorization": f"Bearer {token}"}
    lena = httpx.get(f"{server}/v1/entities", params={"q": "lena"}, headers=h).json()["items"][0]

    def occupation(valid_at: str) -> list[str]:
        facts = httpx.get(
            f"{server}/v1/entities/{lena['id']}/facts", params={"valid_at": valid_at}, headers=h
        ).json()["items"]
        return [f["value"] for f in facts if f["attribute"] == "occupation"]

    assert occupation("2023-04-01T00:00:00Z") == ["nurse"]
    assert occupation("2023-07-01T00:00:00Z") == []


def test_import_reports_an_unreachable_api_without_a_traceback(
    neo4j_server: Any, owner: str, tmp_path: Path
) -> None:
    """A wrong --api is a one-line error, exit 1."""
    file = _conversation(tmp_path / "tiny.json")
    port = pick_free_port()
    r = CliRunner().invoke(
        cli,
        [
            "import",
            "locomo",
            str(file),
            "--owner",
            owner,
            "--api",
            f"http://127.0.0.1:{port}",
            "--token",
            "ws_x",
        ],
        env=_env(neo4j_server),
    )
    assert r.exit_code == 1 and "cannot reach the worldstate API" in r.output
    assert "Traceback" not in r.output


def test_owner_erase(neo4j_server: Any, neo4j_driver: Any) -> None:
    """`owner erase` refuses a wrong confirmation, then erases the owner: nothing remains."""
    owner = f"cli-erase-{time.monotonic_ns()}"
    Committer(neo4j_driver).create_entity(owner, "Ada", "person")
    runner, env = CliRunner(), _env(neo4j_server)
    wrong = runner.invoke(cli, ["owner", "erase", "--owner", owner, "--confirm", "nope"], env=env)
    assert wrong.exit_code == 1 and "confirm" in wrong.output
    done = runner.invoke(cli, ["owner", "erase", "--owner", owner, "--confirm", owner], env=env)
    assert done.exit_code == 0, done.output
    assert done.output.strip().endswith("removed 3, remaining 0")  # owner, own entity, Ada


@pytest.mark.parametrize("bad", ["", "   ", " {m}", "{m} ", "{m}/x", "x/{m}"])
@pytest.mark.parametrize(
    "command",
    [
        ["token", "create", "--scopes", "read"],
        ["import", "locomo", "{file}", "--api", "http://127.0.0.1:9", "--token", "ws_x"],
        ["owner", "import", "{file}"],
        ["knowledge", "sync", "{dir}"],
    ],
    ids=["token-create", "import-locomo", "owner-import", "knowledge-sync"],
)
def test_commands_that_make_an_owner_refuse_a_bad_owner_name(
    neo4j_server: Any, neo4j_driver: Any, tmp_path: Path, command: list[str], bad: str
) -> None:
    """An owner name that is empty, only whitespace, has whitespace at either end, or holds
    a `/` (stored keys are `<owner>/<id>`: `a/b` with chat `c` would be `a` with chat
    `b/c`) is a usage error: exit 2 with a message naming `--owner`, nothing written
    (found by a tester: `token create --owner "a/b"` made that owner)."""
    marker = f"cli-bad-{time.monotonic_ns()}"
    file = _conversation(tmp_path / "tiny.json")
    args = [a.format(file=file, dir=tmp_path) for a in command] + ["--owner", bad.format(m=marker)]
    r = CliRunner().invoke(cli, args, env=_env(neo4j_server))
    assert r.exit_code == 2, r.output
    assert "--owner" in r.output and "Traceback" not in r.output
    with neo4j_driver.session() as s:
        found = s.run(
            "MATCH (n) WHERE n.owner CONTAINS $m OR n.id CONTAINS $m RETURN count(n) AS n",
            m=marker,
        ).single()["n"]
    assert found == 0
