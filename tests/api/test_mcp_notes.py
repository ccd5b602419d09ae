"""The note tools over MCP (issue 15), each driven with the official `mcp` client over
streamable HTTP: the Docsbook-shaped tools, the Zibby-shaped tools, scopes, memory access,
and the refused `credential` category."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from mcp import Client
from neo4j import Driver

from tests.api.conftest import Api
from tests.api.test_mcp import call, error, mcp_url, ok, over_http, token

__all__ = ["mcp_url"]  # the module's fixture, shared


def later(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat().replace("+00:00", "Z")


def test_docsbook_tools_write_list_search_read_retire(
    mcp_url: str, api: Api, neo4j_driver: Driver, owner: str
) -> None:
    """write_context (confidence told) -> list_context -> search_context -> read_context
    -> retire_context; each answers as REST does."""
    rw = token(neo4j_driver, owner, "read", "write")

    async def work(c: Client) -> dict[str, Any]:
        wrote = await c.call_tool(
            "write_context",
            {"kind": "decision", "title": "Ship the Linux build first", "body": "most users",
             "confidence": "told", "key": "first-build"},
        )  # fmt: skip
        hyp = await c.call_tool(
            "write_context",
            {"kind": "hypothesis", "title": "Arm users churn less", "review_at": later(7),
             "confidence": "inferred"},
        )  # fmt: skip
        missing = await c.call_tool(
            "write_context", {"kind": "hypothesis", "title": "Arm users churn more"}
        )
        nid = ok(wrote)["note"]["id"]
        return {
            "wrote": ok(wrote),
            "hyp": ok(hyp),
            "missing": missing,
            "list": await c.call_tool("list_context", {}),
            "search": await c.call_tool("search_context", {"query": "linux builds"}),
            "read": await c.call_tool("read_context", {"id": nid}),
            "retire": await c.call_tool("retire_context", {"id": nid, "reason": "done"}),
            "again": await c.call_tool("retire_context", {"id": nid}),
        }

    got = over_http(mcp_url, rw, work)
    note = got["wrote"]["note"]
    assert got["wrote"]["effect"] == "created" and note["known_by"] == "told"
    assert note["source"] == "user_edit"
    assert got["hyp"]["note"]["source"] == "inferred" and got["hyp"]["note"]["status"] == "open"
    assert "review_at: an open hypothesis needs a date to look again" in error(got["missing"])
    listed = ok(got["list"])
    assert {n["title"] for n in listed["items"]} == {
        "Ship the Linux build first",
        "Arm users churn less",
    }
    assert [h["note"]["title"] for h in ok(got["search"])["items"]] == [
        "Ship the Linux build first"
    ]
    assert ok(got["read"])["body"] == "most users"
    assert ok(got["retire"])["effect"] == "retired"
    assert "retired already" in error(got["again"])
    assert [n["title"] for n in api.get("/v1/notes").json()["items"]] == ["Arm users churn less"]


def test_credentials_are_refused_and_scopes_hold(
    mcp_url: str, neo4j_driver: Driver, owner: str
) -> None:
    """A credential category or kind is refused with the reason; a read token cannot
    write; a secret in the content is refused."""
    read_only = token(neo4j_driver, owner, "read")
    rw = token(neo4j_driver, owner, "read", "write")
    store = call(mcp_url, rw, "memory_store", {"content": "prod db", "category": "credential"})
    assert "credentials are never stored" in error(store) and "Zibby" in error(store)
    kind = call(mcp_url, rw, "write_context", {"kind": "credential", "title": "AWS"})
    assert "credentials are never stored" in error(kind)
    secret = call(mcp_url, rw, "memory_store", {"content": "the api key is sk-abc123def456ghi789"})
    assert "never stores secrets" in error(secret)
    denied = call(mcp_url, read_only, "memory_store", {"content": "tea at four"})
    assert "lacks the 'write' scope" in error(denied)


def test_zibby_store_recall_tiers_and_dedupe(
    mcp_url: str, neo4j_driver: Driver, owner: str
) -> None:
    """memory_store keeps a note (memoryKey, tier); the same content again promotes it;
    memory_recall ranks by relevance x recency x match and shows each term."""
    rw = token(neo4j_driver, owner, "read", "write")

    async def work(c: Client) -> dict[str, Any]:
        first = ok(
            await c.call_tool(
                "memory_store",
                {
                    "content": "The user prefers dark mode in the editor",
                    "category": "preference",
                    "tier": "short",
                    "memoryKey": "theme",
                },
            )
        )
        again = ok(
            await c.call_tool(
                "memory_store",
                {"content": "the user prefers dark mode in the editor.", "category": "preference"},
            )
        )
        other = ok(
            await c.call_tool(
                "memory_store",
                {
                    "content": "Release notes go out on Thursdays",
                    "category": "convention",
                    "tier": "long",
                },
            )
        )
        recall = ok(await c.call_tool("memory_recall", {"query": "dark mode editor"}))
        by_tier = ok(
            await c.call_tool("memory_recall", {"query": "release thursdays", "tier": "mid"})
        )
        return {"first": first, "again": again, "other": other, "recall": recall, "tier": by_tier}

    got = over_http(mcp_url, rw, work)
    assert got["first"]["effect"] == "created" and got["first"]["tier"] == "short"
    assert got["first"]["category"] == "convention" and got["first"]["memoryKey"] == "theme"
    assert got["again"]["effect"] == "promoted" and got["again"]["id"] == got["first"]["id"]
    assert got["again"]["tier"] == "mid"
    [hit] = got["recall"]["items"]
    assert hit["content"] == "The user prefers dark mode in the editor" and hit["tier"] == "mid"
    assert hit["relevance"] == 1.0 and hit["match"] == 1.0 and 0.99 <= hit["recency"] <= 1.0
    assert hit["score"] == pytest.approx(hit["relevance"] * hit["recency"] * hit["match"], abs=1e-6)
    assert got["tier"]["items"] == []


def test_zibby_sessions_decay_brief_and_tasks(
    mcp_url: str, api: Api, neo4j_driver: Driver, owner: str
) -> None:
    """memory_end_session keeps the summary, decays relevance once per session by tier,
    and proposes the key facts (held, pending); memory_brief shows sessions, top notes and
    task counts; task_log / task_history keep the task log."""
    rw = token(neo4j_driver, owner, "read", "write")

    async def work(c: Client) -> dict[str, Any]:
        await c.call_tool("memory_store", {"content": "Prices are shown in euros", "tier": "long"})
        await c.call_tool("memory_store", {"content": "Standups moved to 9:30", "tier": "mid"})
        ended = ok(
            await c.call_tool(
                "memory_end_session",
                {
                    "summary": "Planned the beta",
                    "keyFacts": "the beta ends in May; users want exports; the beta ends in May",
                    "sessionId": "s-1",
                },
            )
        )
        await c.call_tool("memory_end_session", {"summary": "Reviewed pricing"})
        logged = ok(
            await c.call_tool(
                "task_log", {"task": "import contacts", "status": "done", "durationMs": 1200}
            )
        )
        await c.call_tool("task_log", {"task": "import contacts", "status": "failed"})
        bad = await c.call_tool("task_log", {"task": "x", "status": "nope"})
        history = ok(await c.call_tool("task_history", {}))
        brief = ok(await c.call_tool("memory_brief", {}))
        recall = ok(await c.call_tool("memory_recall", {"query": "euros standups"}))
        return {"ended": ended, "logged": logged, "bad": bad, "history": history,
                "brief": brief, "recall": recall}  # fmt: skip

    got = over_http(mcp_url, rw, work)
    assert got["ended"]["sessionId"] == "s-1" and got["ended"]["sessions"] == 1
    facts = got["ended"]["proposals"]
    assert [(p["op"], p["status"], p["note"]["title"]) for p in facts] == [
        ("note", "pending", "The beta ends in May"),
        ("note", "pending", "Users want exports"),
    ]
    assert api.get("/v1/proposals", params={"status": "pending"}).json()["items"][0]["op"] == "note"
    assert got["logged"]["id"].startswith("tsk_")
    assert "status" in error(got["bad"])
    assert got["history"]["counts"] == {"done": 1, "failed": 1}
    assert [t["status"] for t in got["history"]["items"]] == ["failed", "done"]
    brief = got["brief"]
    assert [s["summary"] for s in brief["sessions"]] == ["Reviewed pricing", "Planned the beta"]
    assert [n["title"] for n in brief["long"]] == ["Prices are shown in euros"]
    assert [n["title"] for n in brief["mid"]] == ["Standups moved to 9:30"]
    assert brief["tasks"]["counts"] == {"done": 1, "failed": 1} and brief["retired"] == []
    relevance = {i["title"]: i["relevance"] for i in got["recall"]["items"]}
    assert relevance == {
        "Prices are shown in euros": pytest.approx(0.98**2),
        "Standups moved to 9:30": pytest.approx(0.9**2),
    }


def test_memory_access_none_refuses_the_note_tools(
    mcp_url: str, api: Api, neo4j_driver: Driver, owner: str
) -> None:
    """A chat with memory `none` refuses reads and writes of notes alike."""
    api.client.put("/v1/chats/off/memory-access", headers=api.headers, json={"mode": "none"})
    rw = token(neo4j_driver, owner, "read", "write")
    for name, args in (
        ("list_context", {}),
        ("memory_store", {"content": "x y z"}),
        ("memory_recall", {"query": "x"}),
        ("task_history", {}),
    ):
        assert "memory is off" in error(call(mcp_url, rw, name, {**args, "chat_id": "off"})), name
