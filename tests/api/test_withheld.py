"""What was said around a held privileged statement is not pushed or found (CONTRACT §3:
a statement waiting for a yes is invisible to prefetch and search; §12)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.api.test_episodes import episodes, post_run


def said(items: list[dict[str, Any]]) -> list[str]:
    """The texts of a search's episode items."""
    return [i["episode"]["text"] for i in items if i["kind"] == "episode"]


def test_a_held_health_statement_is_neither_pushed_nor_found(api: Api, app: Any) -> None:
    """ "I have diabetes" is held for a yes; its message stays in the person's own listing
    but search and prefetch never show it, before the answer or after a no; the other
    messages of the run are found as before (found by a tester: after "no, forget it"
    prefetch still quoted "I have diabetes")."""
    post_run(
        api,
        app,
        "r1",
        [
            {"role": "user", "text": "I have diabetes, so keep that in mind for recipes."},
            {"role": "user", "text": "I love jazz and old recipes from my grandmother."},
        ],
    )
    pending = api.get("/v1/proposals").json()["items"]
    [held] = [p for p in pending if "diabetes" in str(p.get("value", "")).lower()]
    assert {e["text"][:14] for e in episodes(api)} == {"I have diabete", "I love jazz an"}

    def shown() -> tuple[list[str], str]:
        found = api.get("/v1/search", params={"q": "diabetes recipes"}).json()["items"]
        block = api.post(
            "/v1/prefetch", {"chat_id": "c2", "message": "Any recipes for my diabetes?"}
        ).json()
        assert not block["degraded"], block
        return said(found), block["block"]

    texts, block = shown()
    assert texts == ["I love jazz and old recipes from my grandmother."], texts
    assert "diabetes" not in block.lower(), block
    assert api.post(f"/v1/proposals/{held['id']}/discard").status_code == 200
    texts, block = shown()
    assert not any("diabetes" in t for t in texts) and "diabetes" not in block.lower()
    assert len(episodes(api)) == 2  # the person's own transcript keeps both


def test_the_runs_other_messages_naming_the_held_value_are_withheld_too(api: Api, app: Any) -> None:
    """A held `condition = diabetes`: another message of the same run that names diabetes
    is withheld as well, so neither search nor prefetch shows it while the statement waits
    (found by a tester: "My diabetes makes the pastry club hard." was pushed); a message
    naming it only inside another word is not."""
    post_run(
        api,
        app,
        "r1",
        [
            {"role": "user", "text": "I was diagnosed with diabetes last month."},
            {"role": "user", "text": "My Diabetes makes the pastry club hard."},
            {"role": "user", "text": "The prediabetesfree pastry club meets on Fridays."},
        ],
    )
    pending = api.get("/v1/proposals", params={"status": "pending"}).json()["items"]
    assert [p["value"] for p in pending if p["attribute"] == "condition"] == ["diabetes"]
    found = api.get("/v1/search", params={"q": "diabetes pastry club"}).json()["items"]
    assert said(found) == ["The prediabetesfree pastry club meets on Fridays."], found
    block = api.post(
        "/v1/prefetch", {"chat_id": "c2", "message": "How is the pastry club with diabetes?"}
    ).json()["block"]
    assert "diabetes makes" not in block.lower() and "diagnosed" not in block, block
    assert len(episodes(api)) == 3  # the person's own transcript keeps all three
