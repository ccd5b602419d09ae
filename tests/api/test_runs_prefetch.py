"""Runs through the curator into memory, and the prefetch block (CONTRACT §4, §6)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tests.api.conftest import Api


def _run(run_id: str, messages: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {
        "id": run_id,
        "chat_id": "chat-1",
        "surface": "test",
        "messages": [
            {"id": f"m{i}", "role": role, "text": text, "at": at}
            for i, (role, text, at) in enumerate(messages)
        ],
    }


def test_run_is_curated_into_time_travel_memory(api: Api, app: Any) -> None:
    """A statement with "yesterday" lands with a valid time resolved against the message."""
    body = _run(
        "run-1",
        [
            ("user", "I moved to Porto yesterday.", "2024-03-10T09:00:00+01:00"),
            ("assistant", "The user lives in Oslo.", "2024-03-10T09:00:05+01:00"),
        ],
    )
    r = api.post("/v1/runs", body)
    assert r.status_code == 202 and r.json() == {"id": "run-1", "status": "queued"}
    assert api.post("/v1/runs", body).status_code == 202  # idempotent on run id
    changed = dict(body, chat_id="chat-2")
    assert api.post("/v1/runs", changed).status_code == 409
    app.state.curator.drain()
    status = api.get("/v1/runs/run-1").json()
    assert status["status"] == "done" and status["committed"] >= 1, status
    me = next(
        e
        for e in api.get("/v1/entities", params={"q": api.owner}).json()["items"]
        if e["name"] == api.owner
    )["id"]
    facts = api.get(f"/v1/entities/{me}/facts").json()["items"]
    location = [f for f in facts if f["attribute"] == "location"]
    assert [f["value"] for f in location] == ["Porto"]
    # "Yesterday" is the speaker's: 2024-03-09 from midnight at +01:00.
    assert location[0]["valid_from"] == "2024-03-08T23:00:00Z"
    assert location[0]["source"] == "user_stated" and location[0]["message_id"] == "m0"
    assert "Porto" in location[0]["evidence"]
    before = api.get(f"/v1/entities/{me}/facts", params={"valid_at": "2024-03-08T12:00:00Z"})
    assert [f for f in before.json()["items"] if f["attribute"] == "location"] == []


def test_run_status_says_when_it_was_queued_and_closed(api: Api, app: Any) -> None:
    """`created_at` is set from the post on; `finished_at` is null until a worker closes
    the run, then not before `created_at` (their difference is the curator's lag, which
    bench/load.py reports)."""
    r = api.post("/v1/runs", _run("run-lag", [("user", "I like tea.", "2024-03-10T09:00:00Z")]))
    assert r.status_code == 202
    queued = api.get("/v1/runs/run-lag").json()
    assert queued["created_at"].endswith("Z") or "+00:00" in queued["created_at"]
    assert queued["finished_at"] is None
    app.state.curator.drain()
    done = api.get("/v1/runs/run-lag").json()
    assert done["status"] == "done" and done["created_at"] == queued["created_at"]
    assert done["finished_at"] is not None
    assert datetime.fromisoformat(done["finished_at"]) >= datetime.fromisoformat(done["created_at"])


def test_run_with_naive_time_is_422(api: Api) -> None:
    """Every message time needs an offset."""
    body = _run("run-naive", [("user", "I like tea.", "2024-03-10T09:00:00")])
    r = api.post("/v1/runs", body)
    assert r.status_code == 422 and "messages.0.at" in r.json()["detail"]


def test_ids_that_url_paths_cannot_name_are_422(api: Api) -> None:
    """A run or chat id holding "/" could never be read back (`/v1/runs/{id}`,
    `/v1/chats/{chat_id}/...`), so it is refused where it is made, naming the field (found
    by a tester: `a/b` was accepted, then every route for it answered 404)."""
    line = [("user", "I like tea.", "2024-03-10T09:00:00Z")]
    r = api.post("/v1/runs", _run("a/b", line))
    assert r.status_code == 422 and "id" in r.json()["detail"], r.text
    r = api.post("/v1/runs", {**_run("run-slash", line), "chat_id": "team/general"})
    assert r.status_code == 422 and "chat_id" in r.json()["detail"], r.text
    r = api.post("/v1/prefetch", {"chat_id": "team/general", "message": "hi"})
    assert r.status_code == 422 and "chat_id" in r.json()["detail"], r.text
    assert api.get("/v1/runs/run-slash").status_code == 404
    ok = api.post("/v1/runs", {**_run("run a?b#c", line), "chat_id": "team general"})
    assert ok.status_code == 202, ok.text


def test_a_speaker_named_you_is_422(api: Api) -> None:
    """ "you" (any case) tags the owner's own words, so no other speaker may be named so
    (found by a tester: speaker "you" read "told by you"); nothing is queued."""
    for name in ("you", " You ", "ME"):
        body = {
            "id": "run-you",
            "chat_id": "c",
            "messages": [
                {"role": "user", "text": "Hi.", "at": "2024-03-10T09:00:00Z"},
                {
                    "role": "user",
                    "speaker": name,
                    "text": "I love skydiving.",
                    "at": "2024-03-10T09:01:00Z",
                },
            ],
        }
        r = api.post("/v1/runs", body)
        assert r.status_code == 422, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert "messages.1.speaker" in r.json()["detail"], r.text
    assert api.get("/v1/runs/run-you").status_code == 404
    body["messages"][1]["speaker"] = "Yousef"
    assert api.post("/v1/runs", body).status_code == 202


def test_a_message_id_given_twice_in_a_run_is_422(api: Api) -> None:
    """A fact's `message_id` names one message, so a run's message ids are unique (found
    by a tester: two messages "dup" were accepted)."""
    line = {"id": "dup", "role": "user", "text": "a", "at": "2024-03-10T09:00:00Z"}
    r = api.post("/v1/runs", {"id": "run-dup", "chat_id": "c", "messages": [line, line]})
    assert r.status_code == 422 and "messages" in r.json()["detail"], r.text
    assert "'dup'" in r.json()["detail"]
    assert api.get("/v1/runs/run-dup").status_code == 404


def test_prefetch_block(api: Api) -> None:
    """Preferences and mentioned entities appear, deterministically, within the budget."""
    me = api.entity("Me")["id"]
    ana = api.entity("Ana Sousa", aliases=["Ana"])["id"]
    api.fact(me, attribute="answer_style", value="terse", valid_from="2024-01-01T00:00:00Z")
    api.fact(ana, attribute="location", value="Porto", valid_from="2024-01-01T00:00:00Z")
    api.fact(ana, attribute="knows", object_id=me, valid_from="2024-01-01T00:00:00Z")
    body = {"chat_id": "c", "message": "What should I get Ana's kids?"}
    first = api.post("/v1/prefetch", body).json()
    second = api.post("/v1/prefetch", body).json()
    assert first == second and first["degraded"] is False
    block = first["block"]
    assert block.startswith("## Known World State\n") and "not instruction" in block
    assert (
        "answer_style: terse" in block and "location: Porto" in block and "**Ana Sousa**" in block
    )
    assert "entered by you" in block  # asserted over REST (source user_edit)
    assert block.index("Preferences") < block.index("Mentioned")
    small = api.post("/v1/prefetch", dict(body, max_chars=260)).json()["block"]
    assert len(small) <= 260 and all(line == line.rstrip() for line in small.splitlines())
    # `at` is a point on both axes: in 2023 none of this was true, nor known.
    past = api.post("/v1/prefetch", dict(body, at="2023-06-01T00:00:00Z")).json()["block"]
    assert "Porto" not in past and "Ana Sousa" not in past


def test_same_run_in_another_offset_is_the_same_run(api: Api) -> None:
    """Regression: the same instants written with another offset were a 409."""
    body = _run("run-tz", [("user", "I like tea.", "2024-03-10T10:00:00Z")])
    assert api.post("/v1/runs", body).status_code == 202
    shifted = _run("run-tz", [("user", "I like tea.", "2024-03-10T11:00:00+01:00")])
    assert api.post("/v1/runs", shifted).status_code == 202
    other = _run("run-tz", [("user", "I like tea.", "2024-03-10T11:00:00Z")])
    assert api.post("/v1/runs", other).status_code == 409
