"""`worldstate mcp`: the read tools and `remember` over MCP, driven by the official `mcp`
client over streamable HTTP and over stdio (CONTRACT §6 "Pull", §7)."""

from __future__ import annotations

import json
import re
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx
import pytest
import uvicorn
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult
from neo4j import Driver

from api.http.deps import TokenCache
from api.mcp.server import McpState, http_app
from committer.apply import Committer
from curator.statements import Policy
from graph.local.server import pick_free_port
from graph.read.reader import Reader
from tests.api.conftest import Api

T = TypeVar("T")
T0 = "2024-01-01T00:00:00Z"
TOOLS = {
    "lookup_entity",
    "current_facts",
    "time_travel",
    "neighbors",
    "diff",
    "search",
    "list_knowledge",
    "read_knowledge",
    "remember",
}
NOTE_TOOLS = {
    "list_context",
    "search_context",
    "read_context",
    "write_context",
    "retire_context",
    "memory_store",
    "memory_recall",
    "memory_brief",
    "memory_end_session",
    "task_log",
    "task_history",
}


@pytest.fixture(scope="module")
def mcp_url(neo4j_driver: Driver, app: Any) -> Iterator[str]:
    """The streamable HTTP MCP app (as `worldstate mcp --transport http` serves it) on a
    free loopback port, in a thread, with the REST app's embedder (the real model)."""
    reader = Reader(neo4j_driver)
    embedder = app.state.embedder
    state = McpState(
        reader,
        Committer(neo4j_driver, embedder=embedder),
        TokenCache(reader, ttl=0.0),
        Policy(0.8, ("health", "finances", "credentials")),
        embedder=embedder,
    )
    port = pick_free_port()
    srv = uvicorn.Server(
        uvicorn.Config(http_app(state), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    srv.should_exit = True
    thread.join(10)


def over_http(url: str, token: str, work: Callable[[Client], Awaitable[T]]) -> T:
    """Open an MCP session over streamable HTTP with `token` and run `work` in it."""

    async def main() -> T:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with (
            http,
            Client(
                streamable_http_client(url, http_client=http), read_timeout_seconds=60
            ) as client,
        ):
            return await work(client)

    return anyio.run(main)


def call(url: str, token: str, name: str, args: dict[str, Any]) -> CallToolResult:
    return over_http(url, token, lambda c: c.call_tool(name, args))


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    return result.structured_content


def error(result: CallToolResult) -> str:
    """The text of a tool error, less the SDK's "Error executing tool <name>: " prefix."""
    assert result.is_error
    return re.sub(r"^Error executing tool \w+: ", "", result.content[0].text)  # type: ignore[union-attr]


def token(neo4j_driver: Driver, owner: str, *scopes: str) -> str:
    return Committer(neo4j_driver).create_token(owner, scopes)[0]


@pytest.fixture
def world(api: Api) -> dict[str, str]:
    """Ana (Paris, then Berlin from May) knows Bo, who works on Kube."""
    ana, bo = api.entity("Ana", aliases=["Anita"])["id"], api.entity("Bo")["id"]
    kube = api.entity("Kube", "project")["id"]
    api.fact(ana, attribute="location", value="Paris", valid_from=T0)
    api.fact(ana, attribute="location", value="Berlin", valid_from="2024-05-01T00:00:00Z")
    api.fact(ana, attribute="knows", object_id=bo, valid_from=T0)
    api.fact(bo, attribute="works_on", object_id=kube, valid_from=T0)
    return {"ana": ana, "bo": bo, "kube": kube}


def test_http_lists_every_tool(mcp_url: str, neo4j_driver: Driver, owner: str) -> None:
    """tools/list names the nine tools and the note tools, each with an input schema."""
    listed = over_http(mcp_url, token(neo4j_driver, owner, "read"), lambda c: c.list_tools())
    assert {t.name for t in listed.tools} == TOOLS | NOTE_TOOLS
    neighbors = next(t for t in listed.tools if t.name == "neighbors")
    assert set(neighbors.input_schema["properties"]) >= {"entity_id", "depth", "chat_id"}


def test_http_read_tools_answer_like_rest(
    mcp_url: str, api: Api, neo4j_driver: Driver, owner: str, world: dict[str, str]
) -> None:
    """Each read tool gives the same JSON as its REST route (one shared tool layer)."""
    secret = token(neo4j_driver, owner, "read")
    ana = world["ana"]
    pairs = [
        ("lookup_entity", {"name": "ANITA"}, "/v1/lookup?name=ANITA"),
        ("current_facts", {"entity_id": ana}, f"/v1/entities/{ana}/facts"),
        ("neighbors", {"entity_id": ana, "depth": 2}, f"/v1/entities/{ana}/neighbors?depth=2"),
        (
            "diff",
            {
                "entity_id": ana,
                "from_time": "2024-03-01T00:00:00Z",
                "to_time": "2024-07-01T00:00:00Z",
                "known_at": "2999-01-01T00:00:00Z",
            },
            (
                f"/v1/entities/{ana}/diff?from=2024-03-01T00:00:00Z&to=2024-07-01T00:00:00Z"
                "&known_at=2999-01-01T00:00:00Z"
            ),
        ),
        (
            "search",
            {"q": "where does Ana live", "known_at": "2999-01-01T00:00:00Z"},
            "/v1/search?q=where%20does%20Ana%20live&known_at=2999-01-01T00:00:00Z",
        ),
    ]
    for name, args, url in pairs:
        assert _stable(ok(call(mcp_url, secret, name, args))) == _stable(api.get(url).json()), name
    travel = ok(
        call(
            mcp_url,
            secret,
            "time_travel",
            {"entity_id": ana, "valid_at": "2024-03-01T00:00:00+01:00"},
        )
    )
    rest = api.get(f"/v1/entities/{ana}/facts?valid_at=2024-03-01T00:00:00%2B01:00").json()
    assert travel["facts"] == rest["items"]
    assert [f["value"] for f in travel["facts"] if f["attribute"] == "location"] == ["Paris"]
    assert [
        i["entity"]["name"]
        for i in ok(call(mcp_url, secret, "neighbors", {"entity_id": ana, "depth": 2}))["items"]
    ] == ["Bo", "Kube"]


def test_http_bad_token_is_refused(mcp_url: str) -> None:
    """A request with an unknown token is 401 problem+json before MCP sees it, and the
    client cannot open a session."""
    r = httpx.post(
        mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Authorization": "Bearer ws_not-a-token"},
    )
    assert r.status_code == 401
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.headers["www-authenticate"] == "Bearer"
    assert httpx.post(mcp_url, json={}).status_code == 401
    with pytest.raises(BaseExceptionGroup) as failed:
        over_http(mcp_url, "ws_not-a-token", lambda c: c.list_tools())
    assert failed.group_contains(MCPError, match="error response")


def test_http_read_token_cannot_remember(
    mcp_url: str, api: Api, neo4j_driver: Driver, owner: str
) -> None:
    """`remember` needs the `write` scope; nothing is filed."""
    result = call(
        mcp_url, token(neo4j_driver, owner, "read"), "remember", {"text": "I live in Lyon"}
    )
    assert "lacks the 'write' scope" in error(result)
    assert api.get("/v1/proposals").json()["items"] == []


def test_write_token_cannot_read(
    mcp_url: str, neo4j_driver: Driver, owner: str, world: dict[str, str]
) -> None:
    """The read tools need the `read` scope."""
    result = call(
        mcp_url, token(neo4j_driver, owner, "write"), "current_facts", {"entity_id": world["ana"]}
    )
    assert "lacks the 'read' scope" in error(result)


def test_http_remember_files_proposals_visible_over_rest(
    mcp_url: str, api: Api, neo4j_driver: Driver, owner: str
) -> None:
    """Text is read as the person's own words and, low-risk, committed; a health fact is
    held pending (invisible to reads) — both listed in GET /v1/proposals as user_stated."""
    secret = token(neo4j_driver, owner, "read", "write")
    said = ok(call(mcp_url, secret, "remember", {"text": "I live in Lyon", "chat_id": "c1"}))
    [lyon] = said["proposals"]
    assert (lyon["attribute"], lyon["value"], lyon["status"]) == ("location", "Lyon", "committed")
    held = ok(
        call(
            mcp_url,
            secret,
            "remember",
            {"attribute": "medication", "value": "insulin", "chat_id": "c1"},
        )
    )
    [insulin] = held["proposals"]
    assert (insulin["status"], insulin["policy"]) == ("pending", "privileged category")
    listed = {p["id"]: p for p in api.get("/v1/proposals?chat_id=c1").json()["items"]}
    assert set(listed) == {lyon["id"], insulin["id"]}
    assert {p["source"] for p in listed.values()} == {"user_stated"}
    me = lyon["entity_id"]
    facts = api.get(f"/v1/entities/{me}/facts").json()["items"]
    assert [(f["attribute"], f["value"], f["source"]) for f in facts] == [
        ("location", "Lyon", "user_stated")
    ]
    assert api.post(f"/v1/proposals/{insulin['id']}/keep").status_code == 200
    assert "medication" in {
        f["attribute"] for f in api.get(f"/v1/entities/{me}/facts").json()["items"]
    }


def test_http_remember_about_a_named_entity(
    mcp_url: str, api: Api, neo4j_driver: Driver, owner: str, world: dict[str, str]
) -> None:
    """`entity` may be an id; a value of the wrong shape or no fact in the text is a tool
    error naming the field."""
    secret = token(neo4j_driver, owner, "write")
    done = ok(
        call(
            mcp_url,
            secret,
            "remember",
            {"entity": world["kube"], "attribute": "status", "value": "shipped"},
        )
    )
    assert done["proposals"][0]["entity_id"] == world["kube"]
    assert done["proposals"][0]["status"] == "committed"
    assert error(call(mcp_url, secret, "remember", {"text": "hmm"})).startswith("text:")
    assert error(
        call(mcp_url, secret, "remember", {"attribute": "Bad Name", "value": 1})
    ).startswith("attribute:")
    assert error(call(mcp_url, secret, "remember", {})).startswith("attribute:")


def test_http_memory_off_refuses_every_tool(
    mcp_url: str, api: Api, neo4j_driver: Driver, owner: str, world: dict[str, str]
) -> None:
    """A chat whose memory access is `none` refuses the tools, saying so (CONTRACT §7)."""
    api.client.put("/v1/chats/off/memory-access", json={"mode": "none"}, headers=api.headers)
    secret = token(neo4j_driver, owner, "read", "write")
    for name, args in (
        ("lookup_entity", {"name": "ana"}),
        ("current_facts", {"entity_id": world["ana"]}),
        ("neighbors", {"entity_id": world["ana"]}),
        ("search", {"q": "ana"}),
        ("remember", {"text": "I live in Oslo"}),
    ):
        text = error(call(mcp_url, secret, name, {**args, "chat_id": "off"}))
        assert "memory is off in this chat" in text, name
    assert api.get("/v1/proposals").json()["items"] == []


def test_http_bad_arguments_are_tool_errors_naming_the_field(
    mcp_url: str, neo4j_driver: Driver, owner: str, world: dict[str, str], other: Api
) -> None:
    """depth 4, a naive time, from after to, another owner's id: readable tool errors."""
    secret = token(neo4j_driver, owner, "read")
    ana = world["ana"]
    assert error(call(mcp_url, secret, "neighbors", {"entity_id": ana, "depth": 4})).startswith(
        "depth:"
    )
    assert error(
        call(mcp_url, secret, "time_travel", {"entity_id": ana, "valid_at": "2024-01-01T00:00:00"})
    ).startswith("valid_at:")
    assert error(
        call(
            mcp_url,
            secret,
            "diff",
            {
                "entity_id": ana,
                "from_time": "2024-07-01T00:00:00Z",
                "to_time": "2024-01-01T00:00:00Z",
            },
        )
    ).startswith("from_time:")
    stranger = token(neo4j_driver, other.owner, "read")
    assert error(call(mcp_url, stranger, "current_facts", {"entity_id": ana})) == (
        f"No entity with id {ana!r}."
    )


def _stable(answer: Any) -> Any:
    """An answer without BM25 scores: Lucene scores with index-wide statistics, which other
    owners' writes on a shared Neo4j move between two calls (ranks and ids stay)."""
    if isinstance(answer, dict):
        return {k: _stable(v) for k, v in answer.items() if k != "fulltext_score"}
    if isinstance(answer, list):
        return [_stable(v) for v in answer]
    return answer


# --- stdio: `worldstate mcp` as a subprocess ----------------------------------------------


ROOT = Path(__file__).resolve().parents[2]
"""The checkout under test: the server runs from it (`python -c` puts the working directory
first on `sys.path`), not from whatever `worldstate` script the environment installed."""


def _command() -> tuple[str, list[str]]:
    return sys.executable, ["-c", "from api.cli.main import main; main()", "mcp"]


def over_stdio(
    env: dict[str, str], args: list[str], work: Callable[[Client], Awaitable[T]], errlog: Any
) -> T:
    command, base = _command()
    params = StdioServerParameters(command=command, args=base + args, env=env, cwd=ROOT)

    async def main() -> T:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
            return await work(client)

    return anyio.run(main)


def _env(neo4j_server: Any, secret: str) -> dict[str, str]:
    env = {"NEO4J_URI": neo4j_server.uri, "WORLDSTATE_TOKEN": secret}
    if neo4j_server.auth:
        env |= {"NEO4J_USER": neo4j_server.auth[0], "NEO4J_PASSWORD": neo4j_server.auth[1]}
    return env


@pytest.mark.slow
def test_stdio_serves_the_tools_for_a_pinned_chat(
    neo4j_server: Any, neo4j_driver: Driver, api: Api, owner: str, world: dict[str, str]
) -> None:
    """Over stdio with WORLDSTATE_TOKEN and --chat-id: the tools answer under that chat's
    memory access (restricted to place), another chat is refused, remember files a
    proposal in the pinned chat."""
    api.client.put(
        "/v1/chats/pin/memory-access",
        headers=api.headers,
        json={"mode": "restricted", "areas": ["place"], "sources": ["user_edit", "user_stated"]},
    )
    env = _env(neo4j_server, token(neo4j_driver, owner, "read", "write"))

    async def work(client: Client) -> dict[str, Any]:
        return {
            "tools": {t.name for t in (await client.list_tools()).tools},
            "lookup": await client.call_tool("lookup_entity", {"name": "ana"}),
            "neighbors": await client.call_tool("neighbors", {"entity_id": world["ana"]}),
            "elsewhere": await client.call_tool(
                "current_facts", {"entity_id": world["ana"], "chat_id": "x"}
            ),
            "remember": await client.call_tool("remember", {"text": "I live in Rome"}),
        }

    with tempfile.TemporaryFile("w+") as errlog:
        got = over_stdio(env, ["--chat-id", "pin"], work, errlog)
    assert got["tools"] == TOOLS | NOTE_TOOLS
    [item] = ok(got["lookup"])["items"]
    assert [(f["attribute"], f["value"]) for f in item["facts"]] == [("location", "Berlin")]
    assert ok(got["neighbors"])["items"] == []  # `knows` is family, not place
    assert "bound to chat 'pin'" in error(got["elsewhere"])
    [rome] = ok(got["remember"])["proposals"]
    assert (rome["value"], rome["chat_id"], rome["source"]) == ("Rome", "pin", "user_stated")
    assert [p["id"] for p in api.get("/v1/proposals?chat_id=pin").json()["items"]] == [rome["id"]]


@pytest.mark.slow
def test_stdio_refuses_an_unknown_token(neo4j_server: Any) -> None:
    """With a WORLDSTATE_TOKEN that is no live token the server exits before serving,
    saying why on stderr; the client cannot open a session."""
    env = _env(neo4j_server, "ws_not-a-token")
    with tempfile.TemporaryFile("w+") as errlog:
        with pytest.raises(BaseExceptionGroup) as failed:
            over_stdio(env, [], lambda c: c.list_tools(), errlog)
        assert failed.group_contains(MCPError, match="Connection closed")
        errlog.seek(0)
        assert "WORLDSTATE_TOKEN is unknown or revoked" in errlog.read()
