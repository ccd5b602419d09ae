"""Hubify's four layers on `/v1/memory` (issue 15): the shapes against the field lists of
that API, required fields per layer, and the messages layer saying it is unavailable."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.api.conftest import Api

FIELDS = {
    "messages": {"role", "content", "sessionId", "createdAt"},
    "preferences": {"key", "value"},
    "learnings": {"content", "agentId", "experimentId", "confidence", "createdAt"},
    "decisions": {"title", "rationale", "createdAt"},
}
"""The fields each layer's items carry (issue 15)."""


def post(api: Api, **body: Any) -> dict[str, Any]:
    r = api.post("/v1/memory", body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def test_the_four_layers_carry_their_fields(api: Api) -> None:
    """Preferences are preference facts, learnings and decisions are notes; every item has
    its layer's fields (createdAt in Unix ms); `all` gives the four layers."""
    started = int(time.time() * 1000)
    post(api, layer="preferences", key="answer_style", value="terse")
    post(api, layer="preferences", key="theme", value="dark")
    post(api, layer="preferences", key="theme", value="light")
    post(api, layer="learnings", content="Short prompts get better answers",
         agentId="agent-7", experimentId="exp-3", confidence=0.8)  # fmt: skip
    decided = post(api, layer="decisions", title="Ship on Tuesdays", rationale="fewer incidents")
    assert decided["item"]["createdAt"] >= started
    everything = api.get("/v1/memory", params={"layer": "all"}).json()
    assert set(everything) == set(FIELDS)
    for layer, body in everything.items():
        assert body["layer"] == layer
        for item in body["items"]:
            assert FIELDS[layer] <= set(item), (layer, item)
    prefs = {(p["key"], p["value"]) for p in everything["preferences"]["items"]}
    assert prefs == {("answer_style", "terse"), ("theme", "light")}
    [learning] = everything["learnings"]["items"]
    assert (learning["agentId"], learning["experimentId"], learning["confidence"]) == (
        "agent-7",
        "exp-3",
        0.8,
    )
    assert isinstance(learning["createdAt"], int) and learning["createdAt"] >= started
    [decision] = everything["decisions"]["items"]
    assert (decision["title"], decision["rationale"]) == ("Ship on Tuesdays", "fewer incidents")
    notes = api.get("/v1/notes").json()["items"]
    assert {(n["kind"], n["title"]) for n in notes} == {
        ("learning", "Short prompts get better answers"),
        ("decision", "Ship on Tuesdays"),
    }
    one = api.get("/v1/memory", params={"layer": "decisions"}).json()
    assert one == everything["decisions"]


def test_messages_are_the_episodes_newest_first(api: Api, app: Any) -> None:
    """The layer lists what was said in curated runs in Hubify's fields, newest first and
    at most `limit`; a restricted chat without area `conversation` sees none; a POST to it
    is a 422 naming `layer` (messages are kept from runs)."""
    run = {
        "id": "r-hub",
        "chat_id": "c-hub",
        "messages": [
            {"role": "user", "text": "We ship the beta on Monday.", "at": "2024-05-01T09:00:00Z"},
            {"role": "assistant", "text": "Noted, Monday it is.", "at": "2024-05-01T09:00:05Z"},
            {"role": "user", "text": "And the docs the week after.", "at": "2024-05-01T09:01:00Z"},
        ],
    }
    assert api.post("/v1/runs", run).status_code == 202
    app.state.curator.drain()
    got = api.get("/v1/memory", params={"layer": "messages", "limit": 2}).json()
    assert got["available"] is True
    assert [{k: m[k] for k in ("role", "content", "sessionId", "chatId", "createdAt")}
            for m in got["items"]] == [
        {"role": "user", "content": "And the docs the week after.", "sessionId": "r-hub",
         "chatId": "c-hub", "createdAt": 1714554060000},
        {"role": "assistant", "content": "Noted, Monday it is.", "sessionId": "r-hub",
         "chatId": "c-hub", "createdAt": 1714554005000},
    ]  # fmt: skip
    everything = api.get("/v1/memory", params={"layer": "all"}).json()
    assert len(everything["messages"]["items"]) == 3
    access = {"mode": "restricted", "areas": ["notes"], "sources": ["user_stated"]}
    r = api.client.put("/v1/chats/c-notes/memory-access", json=access, headers=api.headers)
    assert r.status_code == 200, r.text
    hidden = api.get("/v1/memory", params={"layer": "messages", "chat_id": "c-notes"}).json()
    assert hidden["items"] == []
    r = api.post("/v1/memory", {"layer": "messages", "role": "user", "content": "hi"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "layer"
    assert "POST /v1/runs" in r.json()["errors"][0]["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"layer": "preferences", "key": "theme"}, "value"),
        ({"layer": "preferences", "value": "dark"}, "key"),
        ({"layer": "learnings", "agentId": "a"}, "content"),
        ({"layer": "decisions", "title": "Ship"}, "rationale"),
        ({"layer": "decisions", "rationale": "because"}, "title"),
        ({"layer": "decisions", "title": "Ship", "rationale": "x", "agentId": "a"}, "agentId"),
        ({"layer": "preferences", "key": "Theme Color", "value": "x"}, "key"),
        ({"layer": "archive", "content": "x"}, "layer"),
    ],
)
def test_a_post_missing_a_layers_field_is_a_422_naming_it(
    api: Api, body: dict[str, Any], field: str
) -> None:
    """Each layer's required fields, and no other layer's fields."""
    r = api.post("/v1/memory", body)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == field
