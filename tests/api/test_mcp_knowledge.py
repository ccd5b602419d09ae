"""The knowledge tools over MCP (CONTRACT §14): `list_knowledge` and `read_knowledge` answer
like REST; `remember(topic, content)` goes through the gate with the surface of the request
(never an argument), logs every attempt, and leaves `remember(text)` as it was."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CallToolResult
from neo4j import Driver

from tests.api.conftest import Api
from tests.api.test_groups import group_of
from tests.api.test_mcp import error, mcp_url, ok, over_http, token

__all__ = ["mcp_url"]  # the module-scoped server fixture of tests/api/test_mcp.py


def call(
    url: str, secret: str, name: str, args: dict[str, Any], surface: str | None
) -> CallToolResult:
    """Call one tool over streamable HTTP, with `X-Worldstate-Surface` when given."""
    headers = {"Authorization": f"Bearer {secret}"}
    if surface is not None:
        headers["X-Worldstate-Surface"] = surface

    async def main() -> CallToolResult:
        http = create_mcp_http_client(headers=headers)
        async with (
            http,
            Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60) as c,
        ):
            return await c.call_tool(name, args)

    return anyio.run(main)


def test_list_and_read_answer_like_rest(mcp_url: str, api: Api, neo4j_driver: Driver) -> None:
    """list_knowledge and read_knowledge give the JSON of GET /v1/knowledge and GET
    /v1/knowledge/{name}."""
    api.client.put(
        "/v1/knowledge/billing/edge-cases",
        json={"description": "Refunds", "body": "30 days."},
        headers=api.headers,
    )
    secret = token(neo4j_driver, api.owner, "read")
    listed = ok(call(mcp_url, secret, "list_knowledge", {}, None))
    assert listed == api.get("/v1/knowledge").json()
    read = ok(call(mcp_url, secret, "read_knowledge", {"name": "billing/edge-cases"}, None))
    assert read == api.get("/v1/knowledge/billing/edge-cases").json()
    missing = error(call(mcp_url, secret, "read_knowledge", {"name": "no/such"}, None))
    assert "No document" in missing


def test_remember_a_learning_through_the_gate(
    mcp_url: str, api: Api, other: Api, neo4j_driver: Driver
) -> None:
    """With topic and content, remember writes learned/<slug> from an allowed surface and is
    refused (and logged) from slack and without a surface; with text it still files facts."""
    group = group_of(api, other)
    curator = token(neo4j_driver, api.owner, "read", "write", "curate")
    args = {"topic": "Refund edge cases", "content": "Prorate upgrades.", "group": group}
    done = ok(call(mcp_url, curator, "remember", args, "web"))
    assert done["document"]["name"] == "learned/refund-edge-cases"
    assert done["access"]["surface"] == "web"
    assert "surface" in error(call(mcp_url, curator, "remember", args, "slack"))
    assert "surface" in error(call(mcp_url, curator, "remember", args, None))
    reasons = [
        e["reason"] for e in api.get("/v1/access-log", params={"group": group}).json()["items"]
    ]
    assert reasons == ["surface", "surface", "ok"]
    mixed = error(call(mcp_url, curator, "remember", {**args, "text": "I live in Porto"}, "web"))
    assert "either" in mixed
    facts = ok(call(mcp_url, curator, "remember", {"text": "I live in Porto."}, "web"))
    assert facts["proposals"][0]["attribute"] == "location"


def test_the_remember_tool_tells_the_model_when_to_call_it(
    mcp_url: str, neo4j_driver: Driver, owner: str
) -> None:
    """The description the model reads says to call `remember` only when the person
    explicitly asks to remember, save or note something; its schema offers topic and
    content, and no surface (the surface is the request's, never the model's choice)."""
    listed = over_http(mcp_url, token(neo4j_driver, owner, "read"), lambda c: c.list_tools())
    tool = next(t for t in listed.tools if t.name == "remember")
    assert "ONLY when the person explicitly asks you to remember, save or note" in " ".join(
        (tool.description or "").split()
    )
    assert {"topic", "content", "group"} <= set(tool.input_schema["properties"])
    assert "surface" not in tool.input_schema["properties"]
