"""Memory access per chat and the owner's default over REST (CONTRACT §7, §10)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import Api, make_api

FULL = {"mode": "full", "areas": [], "sources": [], "origin": "default"}


def put(api: Api, url: str, body: Any) -> Any:
    return api.client.put(url, json=body, headers=api.headers)


def test_nothing_set_reads_as_full(api: Api) -> None:
    """A chat never configured, and an owner without a default, read as `full`."""
    assert api.get("/v1/profile/memory-access").json() == FULL
    assert api.get("/v1/chats/never-seen/memory-access").json() == FULL


def test_chat_setting_overrides_the_profile_default(api: Api) -> None:
    """A chat's own setting wins; other chats inherit the owner's default."""
    r = put(
        api,
        "/v1/chats/c1/memory-access",
        {"mode": "restricted", "areas": ["work", "work"], "sources": ["user_stated"]},
    )
    assert r.status_code == 200, r.text
    chat = {"mode": "restricted", "areas": ["work"], "sources": ["user_stated"], "origin": "chat"}
    assert r.json() == chat
    assert api.get("/v1/chats/c1/memory-access").json() == chat
    r = put(api, "/v1/profile/memory-access", {"mode": "none"})
    assert r.json() == {"mode": "none", "areas": [], "sources": [], "origin": "profile"}
    assert api.get("/v1/chats/c2/memory-access").json()["mode"] == "none"
    assert api.get("/v1/chats/c1/memory-access").json() == chat
    assert api.get("/v1/profile/memory-access").json()["origin"] == "profile"


def test_restricted_without_lists_lets_nothing_through(api: Api) -> None:
    """Fail-closed: `restricted` with omitted (or null) lists stores empty lists."""
    r = put(api, "/v1/chats/c1/memory-access", {"mode": "restricted", "sources": None})
    assert r.json() == {"mode": "restricted", "areas": [], "sources": [], "origin": "chat"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "full", "areas": ["health"]}, "areas"),
        ({"mode": "full", "sources": ["user_stated"]}, "sources"),
        ({"mode": "none", "areas": ["work"], "sources": ["user_edit"]}, "areas"),
        ({"mode": "none", "sources": ["integration:calendar"]}, "sources"),
    ],
)
def test_lists_with_mode_full_or_none_are_refused(api: Api, body: Any, field: str) -> None:
    """The lists mean something only under `restricted` (CONTRACT §7): given with `full` or
    `none`, a list that names anything is a 422 problem naming it, and nothing is stored
    (found by a tester: `{"mode": "full", "areas": ["health"]}` was stored as it was, as
    if it restricted something)."""
    for url in ("/v1/chats/c1/memory-access", "/v1/profile/memory-access"):
        r = put(api, url, body)
        assert r.status_code == 422, r.text
        assert r.headers["content-type"].startswith("application/problem+json")
        assert [e["field"] for e in r.json()["errors"]] == [field]
        assert "restricted" in r.json()["detail"]
    assert api.get("/v1/chats/c1/memory-access").json() == FULL


def test_empty_lists_with_mode_full_or_none_are_accepted(api: Api) -> None:
    """Empty (or null) lists carry nothing, so `full` and `none` take them."""
    r = put(api, "/v1/chats/c1/memory-access", {"mode": "full", "areas": [], "sources": None})
    assert r.json() == {"mode": "full", "areas": [], "sources": [], "origin": "chat"}
    r = put(api, "/v1/profile/memory-access", {"mode": "none", "areas": [], "sources": []})
    assert r.json() == {"mode": "none", "areas": [], "sources": [], "origin": "profile"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "private"}, "mode"),
        ({}, "mode"),
        ({"mode": "restricted", "areas": "work"}, "areas"),
        ({"mode": "restricted", "areas": [""]}, "areas.0"),
        ({"mode": "restricted", "sources": [1]}, "sources.0"),
        ({"mode": "full", "colour": "red"}, "colour"),
    ],
)
def test_bad_input_is_422_naming_the_field(api: Api, body: Any, field: str) -> None:
    """Unknown modes, malformed lists and unknown fields are problem+json 422s."""
    for url in ("/v1/chats/c1/memory-access", "/v1/profile/memory-access"):
        r = put(api, url, body)
        assert r.status_code == 422, r.text
        assert r.headers["content-type"].startswith("application/problem+json")
        assert field in [e["field"] for e in r.json()["errors"]], r.json()
    assert api.get("/v1/chats/c1/memory-access").json() == FULL


def test_changing_it_needs_the_admin_scope(
    client: TestClient, neo4j_driver: Any, owner: str
) -> None:
    """An assistant's token (read, write, even curate) may read memory access, not change
    it (403): it must not lift its own chat's clean room."""
    assistant = make_api(client, neo4j_driver, owner, ("read", "write", "curate"))
    assert put(assistant, "/v1/chats/c1/memory-access", {"mode": "full"}).status_code == 403
    assert put(assistant, "/v1/profile/memory-access", {"mode": "full"}).status_code == 403
    assert assistant.get("/v1/chats/c1/memory-access").status_code == 200
    admin = make_api(client, neo4j_driver, owner, ("admin",))
    assert put(admin, "/v1/chats/c1/memory-access", {"mode": "none"}).status_code == 200


def test_owners_settings_are_separate(api: Api, other: Api) -> None:
    """CONTRACT §7: one owner's chat and profile settings never touch another's."""
    assert put(api, "/v1/chats/c1/memory-access", {"mode": "none"}).status_code == 200
    assert put(api, "/v1/profile/memory-access", {"mode": "restricted"}).status_code == 200
    assert other.get("/v1/chats/c1/memory-access").json() == FULL
    assert other.get("/v1/profile/memory-access").json() == FULL
    assert put(other, "/v1/chats/c1/memory-access", {"mode": "full"}).status_code == 200
    assert api.get("/v1/chats/c1/memory-access").json()["mode"] == "none"


def test_run_from_a_none_chat_is_skipped(api: Api, app: Any) -> None:
    """The curator never mines a `none` chat: its run ends `skipped`, nothing proposed."""
    assert put(api, "/v1/chats/private/memory-access", {"mode": "none"}).status_code == 200
    body = {
        "id": "run-1",
        "chat_id": "private",
        "messages": [
            {"role": "user", "text": "I love tango number 1.", "at": "2024-03-01T09:00:00Z"}
        ],
    }
    assert api.post("/v1/runs", body).status_code == 202
    app.state.curator.drain()
    run = api.get("/v1/runs/run-1").json()
    assert run["finished_at"] is not None  # closed by the worker, when (tests/api/test_runs*)
    assert {k: v for k, v in run.items() if k not in ("created_at", "finished_at")} == {
        "id": "run-1",
        "status": "skipped",
        "proposals": 0,
        "committed": 0,
        "held": 0,
        "notes": [],
    }
    me = next(
        e
        for e in api.get("/v1/entities", params={"q": api.owner}).json()["items"]
        if e["name"] == api.owner
    )["id"]
    assert api.get(f"/v1/entities/{me}/facts").json()["items"] == []


def test_unknown_areas_and_sources_are_rejected(api: Api) -> None:
    """A typo in `areas` or `sources` is a 422 naming the list, not a chat that silently
    sees nothing (CONTRACT §9); `integration` and `integration:<name>` are sources."""
    put = api.client.put
    r = put(
        "/v1/chats/t1/memory-access",
        headers=api.headers,
        json={"mode": "restricted", "areas": ["nonsense"], "sources": ["user_edit"]},
    )
    assert r.status_code == 422 and "areas" in r.text
    r = put(
        "/v1/chats/t1/memory-access",
        headers=api.headers,
        json={"mode": "restricted", "areas": ["place"], "sources": ["gossip"]},
    )
    assert r.status_code == 422 and "sources" in r.text
    r = put(
        "/v1/chats/t1/memory-access",
        headers=api.headers,
        json={
            "mode": "restricted",
            "areas": ["place", "general"],
            "sources": ["integration", "integration:crm", "user_stated"],
        },
    )
    assert r.status_code == 200, r.text
