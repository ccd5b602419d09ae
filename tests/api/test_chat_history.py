"""A chat's thread, `GET /v1/chats/{chat_id}/history` (issue 16 "Per-chat history"): the
visible text of its user and assistant messages in order, no tool entries, separate per
chat, the chat's memory access, the two bounds, paging back, a forgotten message gone."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from graph.time import utcnow
from tests.api.conftest import Api


def ago(minutes: float) -> str:
    """An RFC 3339 time `minutes` before now."""
    return (utcnow() - timedelta(minutes=minutes)).isoformat()


def post_run(api: Api, app: Any, run_id: str, chat: str, messages: list[tuple[str, str]]) -> None:
    """Post a run of (role, text) messages said a minute apart ending 10 minutes ago
    (`<run>-m<i>` ids), and curate it."""
    n = len(messages)
    body = {
        "id": run_id,
        "chat_id": chat,
        "messages": [
            {"id": f"{run_id}-m{i}", "role": role, "text": text, "at": ago(10 + n - i)}
            for i, (role, text) in enumerate(messages)
        ],
    }
    assert api.post("/v1/runs", body).status_code == 202
    app.state.curator.drain()
    assert api.get(f"/v1/runs/{run_id}").json()["status"] in ("done", "skipped")


def history(api: Api, chat: str, **params: Any) -> dict[str, Any]:
    r = api.get(f"/v1/chats/{chat}/history", params=params)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def texts(answer: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], m["text"]) for m in answer["items"]]


THREAD = [
    ("user", "Can you look up the refund policy?"),
    ("tool", "policy.md: refunds within 30 days"),
    ("assistant", "Refunds are accepted within 30 days."),
    ("system", "You are a helpful assistant."),
    ("user", "Thanks, and for annual plans?\n\n> pasted: annual plans are prorated\n"),
    ("assistant", "Annual plans are prorated."),
]


def test_the_thread_in_order_with_only_visible_text(api: Api, app: Any, other: Api) -> None:
    """User and assistant messages of the chat, oldest first, across runs; no tool or
    system entries and no pasted text; another chat's messages never; another owner's
    chat of the same id is empty for it."""
    post_run(api, app, "r1", "support", THREAD)
    post_run(api, app, "r2", "support", [("user", "One more: monthly plans?")])
    post_run(api, app, "r3", "elsewhere", [("user", "Unrelated chat.")])
    answer = history(api, "support")
    assert texts(answer) == [
        ("user", "Can you look up the refund policy?"),
        ("assistant", "Refunds are accepted within 30 days."),
        ("user", "Thanks, and for annual plans?"),
        ("assistant", "Annual plans are prorated."),
        ("user", "One more: monthly plans?"),
    ]
    assert answer["chat_id"] == "support" and answer["before"] is None
    first = answer["items"][0]
    assert (first["run_id"], first["message_id"], first["speaker"]) == ("r1", "r1-m0", api.owner)
    assert answer["items"][1]["speaker"] is None
    assert texts(history(api, "elsewhere")) == [("user", "Unrelated chat.")]
    assert history(other, "support")["items"] == []


def test_limit_and_before_page_back(api: Api, app: Any) -> None:
    """`limit` gives the latest messages; the answer's `before` pages back to the older
    ones, and the last page has `before: null`."""
    post_run(api, app, "r1", "c1", [("user", f"message {i}") for i in range(5)])
    latest = history(api, "c1", limit=2)
    assert [m["text"] for m in latest["items"]] == ["message 3", "message 4"]
    middle = history(api, "c1", limit=2, before=latest["before"])
    assert [m["text"] for m in middle["items"]] == ["message 1", "message 2"]
    last = history(api, "c1", limit=2, before=middle["before"])
    assert [m["text"] for m in last["items"]] == ["message 0"] and last["before"] is None
    bad = api.get("/v1/chats/c1/history", params={"before": "2024-05-01T10:00:00"})
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "before"


def test_the_cursor_pages_back_through_messages_said_at_one_instant(api: Api, app: Any) -> None:
    """Four messages said at the same second, over two runs: `cursor` pages back through
    every one, once each (found by a tester: paging by `before` reached only the first);
    another chat's or an altered cursor is 422 naming `cursor`."""
    at = (utcnow() - timedelta(minutes=5)).replace(microsecond=0).isoformat()
    for run, texts in (("r1", ["a", "b"]), ("r2", ["c", "d"])):
        body = {
            "id": run,
            "chat_id": "c1",
            "messages": [{"role": "user", "text": t, "at": at} for t in texts],
        }
        assert api.post("/v1/runs", body).status_code == 202
    app.state.curator.drain()
    assert [m["text"] for m in history(api, "c1")["items"]] == ["a", "b", "c", "d"]
    seen, cursor = [], None
    for _ in range(5):
        page = history(api, "c1", limit=1, **({"cursor": cursor} if cursor else {}))
        seen = [m["text"] for m in page["items"]] + seen
        cursor = page["cursor"]
        if cursor is None:
            break
    assert seen == ["a", "b", "c", "d"]
    first = history(api, "c1", limit=1)["cursor"]
    for bad in (first[:-2], "junk"):
        r = api.get("/v1/chats/c1/history", params={"cursor": bad})
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == "cursor", r.text
    r = api.get("/v1/chats/c2/history", params={"cursor": first})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "cursor", r.text


def test_the_two_bounds(api: Api, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """At most `chat_history_max_turns` messages whatever `limit` asks, and none said
    longer ago than `chat_history_max_age_days`."""
    post_run(api, app, "r1", "c1", [("user", f"message {i}") for i in range(4)])
    old = {
        "id": "r0",
        "chat_id": "c1",
        "messages": [{"role": "user", "text": "from last year", "at": ago(60 * 24 * 365)}],
    }
    assert api.post("/v1/runs", old).status_code == 202
    app.state.curator.drain()
    settings = app.state.settings
    assert [m["text"] for m in history(api, "c1")["items"]] == [f"message {i}" for i in range(4)]
    monkeypatch.setattr(settings, "chat_history_max_age_days", 400.0)
    assert history(api, "c1")["items"][0]["text"] == "from last year"
    monkeypatch.setattr(settings, "chat_history_max_turns", 3)
    capped = history(api, "c1", limit=50)
    assert [m["text"] for m in capped["items"]] == ["message 1", "message 2", "message 3"]
    assert capped["before"] is not None


def test_memory_access_and_forgetting(api: Api, app: Any) -> None:
    """A `none` chat is a 403; a restricted chat shows its thread only with the area
    `conversation`; a forgotten message is gone from the thread."""
    post_run(api, app, "r1", "c1", [("user", "keep this"), ("user", "forget this")])
    put = api.client.put
    narrow = {"mode": "restricted", "areas": ["place"], "sources": ["user_stated"]}
    assert put("/v1/chats/c1/memory-access", json=narrow, headers=api.headers).is_success
    assert history(api, "c1")["items"] == []
    narrow["areas"] = ["conversation"]
    assert put("/v1/chats/c1/memory-access", json=narrow, headers=api.headers).is_success
    items = history(api, "c1")["items"]
    assert [m["text"] for m in items] == ["keep this", "forget this"]
    assert api.delete(f"/v1/episodes/{items[1]['id']}").status_code == 200
    assert [m["text"] for m in history(api, "c1")["items"]] == ["keep this"]
    closed = {"mode": "none"}
    assert put("/v1/chats/c1/memory-access", json=closed, headers=api.headers).is_success
    refused = api.get("/v1/chats/c1/history")
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("application/problem+json")
