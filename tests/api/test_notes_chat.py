"""Notes through chat (issue 15): runs go through the curator, note requests become note
proposals under the risk policy (told by you: committed), each answered with one line of
what was kept and where, in the run's result and in a notification."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api

AT = "2024-03-13T10:00:00+01:00"  # a Wednesday


def run(api: Api, app: Any, run_id: str, texts: list[str], **extra: Any) -> dict[str, Any]:
    messages = [{"id": f"m{i}", "role": "user", "text": t, "at": AT} for i, t in enumerate(texts)]
    body = {"id": run_id, "chat_id": "c1", "messages": messages, **extra}
    assert api.post("/v1/runs", body).status_code == 202
    app.state.curator.drain()
    got = api.get(f"/v1/runs/{run_id}").json()
    assert got["status"] == "done", got
    return got  # type: ignore[no-any-return]


def notes(api: Api, **params: str) -> dict[str, dict[str, Any]]:
    items = api.get("/v1/notes", params=params).json()["items"]
    return {n["title"]: n for n in items}


def test_the_five_requests_of_the_issue(api: Api, app: Any) -> None:
    """Remember; remember for this project only; we decided — note that down; check that
    note again next week; forget the note about ...: each kept (or retired) with a line."""
    api.post("/v1/notes", {"kind": "context", "title": "The old pricing page is at /pricing-v1"})
    done = run(
        api,
        app,
        "r-notes",
        [
            "Remember: our Starter plan includes 3 seats.",
            "Remember for this project only: the v1 endpoints are deprecated.",
            "We decided to drop the Windows installer — note that down.",
            "The spring sale runs until Friday; check that note again next week.",
            "Forget the note about the old pricing page, it's gone.",
        ],
        project="Atlas",
    )
    assert done["committed"] == 5 and done["held"] == 0
    assert done["notes"] == [
        "Kept a context note “Our Starter plan includes 3 seats” in your general notes.",
        "Kept a context note “The v1 endpoints are deprecated” for project “Atlas” only.",
        "Kept a decision note “Drop the Windows installer” in your general notes.",
        (
            "Kept a context note “The spring sale runs until Friday” in your general notes. "
            "I'll bring it up again on 2024-03-18."
        ),
        "Retired the note “The old pricing page is at /pricing-v1”.",
    ]
    general = notes(api)
    assert set(general) == {
        "Our Starter plan includes 3 seats",
        "Drop the Windows installer",
        "The spring sale runs until Friday",
    }
    assert general["Drop the Windows installer"]["kind"] == "decision"
    assert general["The spring sale runs until Friday"]["review_at"] == "2024-03-18T00:00:00Z"
    assert "The v1 endpoints are deprecated" in notes(api, project="atlas")
    one = api.get(f"/v1/notes/{general['Drop the Windows installer']['id']}").json()
    assert one["source"] == "user_stated" and one["known_by"] == "told"
    assert one["evidence"] == "We decided to drop the Windows installer — note that down."
    assert one["body"] == "We decided to drop the Windows installer"
    said = api.get("/v1/notifications", params={"chat_id": "c1"}).json()["items"]
    assert sorted(n["text"] for n in said if n["kind"] == "note") == sorted(done["notes"])
    why = api.get(f"/v1/notes/{one['id']}/why").json()
    kinds = [e["kind"] for e in why["chain"]]
    assert kinds[0] == "run" and "proposal" in kinds and kinds[-1] == "commit"
    assert why["decided_by"]["decision"] == "commit" and why["trigger"]["id"] == "r-notes"


def test_saying_it_again_promotes_and_a_refused_note_says_why(api: Api, app: Any) -> None:
    """The same note said again is promoted, not duplicated; a note whose title names a
    moment is not kept and the line says why; a secret is never proposed."""
    run(api, app, "r1", ["Remember: deploys need the migration lock."])
    again = run(
        api,
        app,
        "r2",
        [
            "Remember: deploys need the migration lock.",
            "Remember: cycle 3 of 2024-03-13.",
            "Remember: the staging password is hunter2.",
        ],
    )
    assert again["notes"][0].startswith("Already noted: “Deploys need the migration lock”")
    assert again["notes"][1].startswith("Not kept: title: 'Cycle 3 of 2024-03-13' names a moment")
    assert len(again["notes"]) == 2
    assert list(notes(api)) == ["Deploys need the migration lock"]
    assert "hunter2" not in api.get("/v1/proposals").text


def test_a_note_from_untrusted_content_is_held_and_kept_on_yes(api: Api, app: Any) -> None:
    """A note proposal held by the risk policy (here: low confidence, by setting the
    threshold above it) waits invisible; keeping it writes the note and answers."""
    curator = app.state.curator
    settings = curator._settings
    old = settings.auto_commit_threshold
    settings.auto_commit_threshold = 0.99
    try:
        done = run(api, app, "r-held", ["We decided to price in euros — note that down."])
    finally:
        settings.auto_commit_threshold = old
    assert done["held"] == 1 and done["notes"] == []
    assert notes(api) == {}
    [pending] = api.get("/v1/proposals", params={"status": "pending"}).json()["items"]
    assert pending["op"] == "note" and pending["note"]["kind"] == "decision"
    said = api.get("/v1/notifications", params={"chat_id": "c1"}).json()["items"]
    assert any("a note: Price in euros" in n["text"] for n in said)
    kept = api.post(f"/v1/proposals/{pending['id']}/keep").json()
    assert kept["proposal"]["reply"].startswith("Kept a decision note “Price in euros”")
    assert kept["proposal"]["note_id"] in [n["id"] for n in notes(api).values()]
