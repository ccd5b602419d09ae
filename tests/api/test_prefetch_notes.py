"""Notes in the prefetch block (issue 15): the notes a message's words find, ranked with
the rest and within the budget, a one-line count of what is due, under the chat's memory
access (area `notes`)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.api.conftest import Api


@pytest.fixture(scope="module", autouse=True)
def warm(app: Any) -> None:
    """Plan prefetch's queries, with and without a project, as `serve` does before it
    answers (api/chat/prefetch/warm.py): the test app skips the start-up warm-up, and a
    cold plan takes longer than a turn's deadline on a loaded machine."""
    assert app.state.warmer.warm()


def prefetch(api: Api, message: str, chat: str = "c", **extra: Any) -> dict[str, Any]:
    """The turn's answer, not degraded. A query shape Neo4j has not planned yet can miss
    the deadline on a loaded machine; the route then has the warmer plan it in the
    background (tests/api/test_prefetch_deadline.py), so a later turn is served."""
    for _ in range(5):
        r = api.post("/v1/prefetch", {"chat_id": chat, "message": message, **extra})
        assert r.status_code == 200, r.text
        if r.json()["degraded"] is False:
            return r.json()  # type: ignore[no-any-return]
        time.sleep(2)
    raise AssertionError("prefetch stayed degraded after its shape was planned")


def note(api: Api, **body: Any) -> str:
    r = api.post("/v1/notes", body)
    assert r.status_code == 201, r.text
    return r.json()["note"]["id"]  # type: ignore[no-any-return]


def later(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat().replace("+00:00", "Z")


def test_relevant_notes_rank_before_the_facts_and_others_stay_out(api: Api) -> None:
    """A convention and a playbook the message's words find show in a Notes section, ranked
    right after the mentioned entity's title (before its facts); a note sharing one common
    word does not show; a project's note does not show in a prefetch (no project)."""
    ana = api.entity("Ana")["id"]
    for value in ("Porto", "Acme", "tea"):
        api.fact(ana, attribute="likes", value=value)
    api.post(
        "/v1/notes",
        {"kind": "convention", "title": "Release notes are written in plain English",
         "body": "No jargon; one line per change."},
    )  # fmt: skip
    note(api, kind="playbook", title="How to prepare a release", body="Freeze, tag, announce.")
    note(api, kind="decision", title="Drop the Windows installer")
    note(api, kind="decision", title="Release train for project Atlas", project="atlas")
    body = prefetch(api, "Can you draft the release notes and prepare the release for Ana's team?")
    items = body["items"]
    notes = [i for i in items if i["kind"] == "note"]
    assert {n["title"] for n in notes} == {
        "Release notes are written in plain English",
        "How to prepare a release",
    }
    assert {(n["tag"], n["note_kind"]) for n in notes} == {
        ("entered by you", "convention"),
        ("entered by you", "playbook"),
    }
    ranks = {i.get("title") or i.get("name") or i.get("value"): i["rank"] for i in items}
    assert ranks["Ana"] < ranks["Release notes are written in plain English"] < ranks["Porto"]
    assert "\n### Notes\n" in body["block"]
    assert "- convention: Release notes are written in plain English — No jargon" in body["block"]
    assert "Windows" not in body["block"] and "Atlas" not in body["block"]
    again = prefetch(api, "Can you draft the release notes and prepare the release for Ana's team?")
    assert again == body  # deterministic


def test_due_count_line_and_memory_access(api: Api, owner: str) -> None:
    """Due notes give one line; a restricted chat that leaves out area `notes` sees no note
    and no count; one that lists it (and the source) sees both; `none` sees nothing."""
    note(api, kind="hypothesis", title="Annual plans churn less", review_at=later(2))
    note(api, kind="convention", title="Invoices go out on the first", review_at=later(3))
    at = later(5)
    body = prefetch(api, "when do invoices go out?", at=at)
    assert body["block"].endswith("- 2 notes due for a second look\n")
    assert [i["count"] for i in body["items"] if i["kind"] == "notes_due"] == [2]
    assert [i["title"] for i in body["items"] if i["kind"] == "note"] == [
        "Invoices go out on the first"
    ]
    now = prefetch(api, "when do invoices go out?")["items"]
    assert [i["kind"] for i in now] == ["note"]  # found, and nothing due yet
    for chat, access, shows in (
        ("r-out", {"mode": "restricted", "areas": ["place"], "sources": ["user_edit"]}, False),
        ("r-in", {"mode": "restricted", "areas": ["notes"], "sources": ["user_edit"]}, True),
        ("r-src", {"mode": "restricted", "areas": ["notes"], "sources": ["user_stated"]}, False),
    ):
        r = api.client.put(f"/v1/chats/{chat}/memory-access", json=access, headers=api.headers)
        assert r.status_code == 200, r.text
        got = prefetch(api, "when do invoices go out?", chat=chat, at=at)
        assert ("Invoices go out" in got["block"]) is shows, (chat, got["block"])
        assert ("due for a second look" in got["block"]) is shows, chat
    api.client.put("/v1/chats/off/memory-access", json={"mode": "none"}, headers=api.headers)
    assert prefetch(api, "when do invoices go out?", chat="off", at=at)["block"] == ""


def test_notes_stay_within_the_budget(api: Api) -> None:
    """A small budget keeps whole lines only, the notes' among them."""
    for i in range(5):
        note(api, kind="learning", title=f"Deploys need the migration lock {'x' * i}",
             body="y" * 150)  # fmt: skip
    body = prefetch(api, "deploy with the migration lock", max_chars=300)
    assert len(body["block"]) <= 300
    assert sum(i["kind"] == "note" for i in body["items"]) <= 3
    assert all(
        ln.startswith(("-", "#", "Reference", "\n")) or not ln for ln in body["block"].split("\n")
    )


def test_a_turns_project_sees_its_override_and_its_due_notes(api: Api) -> None:
    """With `project`, the project's note of a key stands instead of the general one, and
    the project's due notes count; without it, the general note and general counts only;
    another project's notes show in neither."""
    note(api, kind="convention", title="The v1 endpoints are supported", key="v1")
    note(api, kind="convention", title="The v1 endpoints are deprecated", key="v1",
         project="Atlas")  # fmt: skip
    note(api, kind="decision", title="The v1 endpoints stay for Borealis", project="borealis")
    note(api, kind="hypothesis", title="Atlas users leave v1 soon", project="atlas",
         review_at=later(2))  # fmt: skip
    message = "are the v1 endpoints supported or deprecated?"
    at = later(5)

    def titles(body: dict[str, Any]) -> list[str]:
        return [i["title"] for i in body["items"] if i["kind"] == "note"]

    general = prefetch(api, message, at=at)
    assert titles(general) == ["The v1 endpoints are supported"]
    assert "due for a second look" not in general["block"]
    atlas = prefetch(api, message, at=at, project="  atlas ")
    assert titles(atlas) == ["The v1 endpoints are deprecated"]
    assert atlas["block"].endswith("- 1 note due for a second look\n")
    r = api.post("/v1/prefetch", {"chat_id": "c", "message": message, "project": ""})
    assert r.status_code == 422 and "project" in r.text
