"""A favourite of a named kind is one attribute, one value at a time, whoever says it
(CONTRACT §2.1: facts from chat and from REST meet on one attribute; graph/attributes.py)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.api.test_episodes import post_run
from tests.api.test_forget_episodes import user, values


def test_a_new_favourite_supersedes_the_old_one(api: Api, app: Any) -> None:
    """ "My favourite colour is green", later "my favorite color is blue": one attribute,
    `favorite_color`, whose current value is blue; green is in its history, superseded."""
    post_run(api, app, "r1", [user("My favourite colour is green.", at="2024-01-05T10:00:00Z")])
    post_run(api, app, "r2", [user("My favorite color is blue.", at="2024-03-05T10:00:00Z")])
    assert values(api, "favorite_color") == ["blue"]
    assert values(api, "favorite_color", valid_at="2024-02-01T00:00:00Z") == ["green"]
    me = api.get("/v1/entities", params={"q": api.owner}).json()["items"][0]["id"]
    history = api.get(f"/v1/entities/{me}/history/favorite_color").json()["items"]
    assert [(f["value"], f["status"], f["cardinality"]) for f in history] == [
        ("green", "superseded", "one"),
        ("blue", "active", "one"),
    ]


def test_the_assistants_word_meets_the_persons_on_one_attribute(api: Api, app: Any) -> None:
    """An assistant's "the user's favourite colour is teal" is held as untrusted under the
    same `favorite_color` the person's own words commit."""
    post_run(api, app, "r1", [user("My favourite colour is green.")])
    post_run(
        api, app, "r2", [{"role": "assistant", "text": "The user's favourite colour is teal."}]
    )
    [held] = api.get("/v1/proposals", params={"status": "pending"}).json()["items"]
    assert (held["attribute"], held["value"], held["source"]) == (
        "favorite_color",
        "teal",
        "untrusted",
    )
    assert values(api, "favorite_color") == ["green"]


def test_a_chat_restricted_to_preferences_sees_favourites(api: Api, app: Any) -> None:
    """`favorite_<kind>` is in area `preferences` (CONTRACT §7): a chat restricted to
    preferences sees it, one restricted to `general` does not."""
    post_run(api, app, "r1", [user("My favourite colour is green.")])
    for areas, seen in ((["preferences"], ["green"]), (["general"], [])):
        r = api.client.put(
            "/v1/chats/c2/memory-access",
            headers=api.headers,
            json={"mode": "restricted", "areas": areas, "sources": ["user_stated"]},
        )
        assert r.status_code == 200, r.text
        found = api.get("/v1/search", params={"q": "favorite color", "chat_id": "c2"}).json()
        facts = [i["fact"]["value"] for i in found["items"] if i["kind"] == "fact"]
        assert facts == seen, (areas, found)
