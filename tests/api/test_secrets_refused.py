"""Secrets are never stored, whichever way they come in (CONTRACT §3, §12;
committer/secrets.py decides for every writer).

A run's messages are redacted; every REST and MCP write that keeps a client's text
refuses a secret with a 422 problem+json naming the field, and nothing is written. The
values are fresh per test run, so a store that ever held one cannot hide a leak.
"""

from __future__ import annotations

import json
import secrets as rnd
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j import Driver

from tests.api.conftest import Api
from tests.api.test_episodes import AT, episodes, owned_texts, post_run
from tests.api.test_groups import group_of
from tests.api.test_mcp import call, error, mcp_url, ok, token
from tests.api.test_proposals_api import me
from tests.api.test_remember_gate import log

__all__ = ["mcp_url"]  # the MCP app fixture, shared

PIN = str(rnd.randbelow(9 * 10**7) + 10**7)
"""An 8-digit PIN of this test run (no other test writes it)."""
WORD = "Zq" + rnd.token_hex(4) + "91"
"""A password of this test run."""


def leaked(driver: Driver, owner: str) -> list[str]:
    """The owner's stored texts that hold this run's PIN or password (the owner's nodes
    and their relationships)."""
    return [t for t in owned_texts(driver, owner) if PIN in t or WORD in t]


def refused(r: Any, field: str) -> None:
    """A 422 problem+json naming `field`, saying why."""
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["errors"][0]["field"] == field
    assert "never stores secrets" in r.json()["detail"]


def test_a_runs_messages_lose_a_secret_said_with_words_between(
    api: Api, app: Any, neo4j_driver: Driver
) -> None:
    """ "The wifi password at home is ...", "my password, by the way, is ...", "my bank
    PIN at Santander is ...": each sentence is `[redacted]` in its episode, and neither
    value is in the store or in prefetch."""
    post_run(
        api,
        app,
        "r1",
        [
            {"role": "user", "text": f"I live in Porto. The wifi password at home is {WORD}."},
            {"role": "user", "text": f"My password at work is {WORD}."},
            {"role": "user", "text": f"My password, by the way, is {WORD}."},
            {"role": "user", "text": f"My bank PIN at Santander is {PIN}."},
            # wordings a tester found stored verbatim (F1)
            {"role": "user", "text": f"my password is: {WORD}"},
            {"role": "user", "text": f"I row on Sundays. I changed my password to {WORD}."},
            {"role": "user", "text": f"{PIN} is my PIN."},
            {"role": "user", "text": f"My \uff30\uff29\uff2e is {PIN}."},
            {"role": "user", "text": f"My P\u200bIN is {PIN}."},
        ],
    )
    assert [e["text"] for e in episodes(api, run_id="r1")] == [
        "I live in Porto. [redacted]",
        *["[redacted]"] * 4,
        "I row on Sundays. [redacted]",
        *["[redacted]"] * 3,
    ]
    block = api.post("/v1/prefetch", {"chat_id": "c1", "message": "wifi password at home"})
    assert WORD not in block.text and PIN not in block.text
    assert leaked(neo4j_driver, api.owner) == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"attribute": "bank_pin", "value": f"my PIN is {PIN}"}, "value"),
        ({"attribute": "bank_pin", "value": PIN}, "value"),  # read as "bank pin: <PIN>"
        ({"attribute": "note", "value": f"my password is {WORD}"}, "value"),
        ({"attribute": "bank", "value": "Santander", "evidence": f"my PIN is {PIN}"}, "evidence"),
        ({"attribute": "bank", "value": "Santander", "reason": f"PIN: {PIN}"}, "reason"),
        # wordings a tester found stored (F1)
        ({"attribute": "note", "value": f"my password is: {WORD}"}, "value"),
        ({"attribute": "note", "value": f"{PIN} is my PIN"}, "value"),
        ({"attribute": "likes", "value": "tea", "evidence": f"I set my PIN to {PIN}."}, "evidence"),
        (
            {"attribute": "likes", "value": "tea", "reason": f"aws_secret_access_key = {WORD}"},
            "reason",
        ),
    ],
)
def test_a_fact_carrying_a_secret_is_refused(
    api: Api, neo4j_driver: Driver, body: dict[str, str], field: str
) -> None:
    """POST /v1/entities/{id}/facts: 422 naming the field, and no fact is written."""
    refused(api.post(f"/v1/entities/{me(api)}/facts", body), field)
    assert api.get(f"/v1/entities/{me(api)}/facts").json()["items"] == []
    assert leaked(neo4j_driver, api.owner) == []


def test_a_fact_that_mentions_a_credential_is_kept(api: Api) -> None:
    """Precision: "the PIN pad was broken" and a `password_hint` are not secrets."""
    api.fact(me(api), attribute="note", value="the PIN pad at the shop was broken")
    api.fact(me(api), attribute="password_hint", value="my first dog")


def test_a_document_carrying_a_secret_is_refused(api: Api, neo4j_driver: Driver) -> None:
    """PUT /v1/knowledge/{name}: 422 naming `body` (or `description`); nothing is kept."""
    url = "/v1/knowledge/home/router"
    put = api.client.put
    r = put(url, json={"description": "router", "body": f"my PIN is {PIN}"}, headers=api.headers)
    refused(r, "body")
    r = put(url, json={"description": f"wifi key: {WORD}", "body": "x"}, headers=api.headers)
    refused(r, "description")
    assert api.get(url).status_code == 404
    assert leaked(neo4j_driver, api.owner) == []


def test_remember_refuses_a_secret_and_logs_it_without(
    api: Api, other: Api, neo4j_driver: Driver
) -> None:
    """POST /v1/knowledge/remember: 422 naming `content` (or `topic`); the attempt is in
    the access log as refused, without the secret (a topic holding it is `[redacted]`)."""
    team = group_of(api, other)
    body = {"topic": "Router", "surface": "web", "group": team}
    refused(api.post("/v1/knowledge/remember", {**body, "content": f"PIN: {PIN}"}), "content")
    topic = f"password at home is {WORD}"
    refused(api.post("/v1/knowledge/remember", {**body, "topic": topic, "content": "x"}), "topic")
    entries = log(api, group=team)
    assert [(e["outcome"], e["reason"], e["topic"]) for e in entries] == [
        ("refused", "invalid", "[redacted]"),
        ("refused", "invalid", "Router"),
    ]
    assert leaked(neo4j_driver, api.owner) == []


@pytest.mark.parametrize(
    "value",
    [
        {"note": f"my PIN is {PIN}"},
        {"steps": [{"login": "ana", "password": WORD}]},
        {"pin": int(PIN)},
        f"the door code is {PIN}",
        f"my password is: {WORD}",
    ],
)
def test_state_carrying_a_secret_is_refused(api: Api, neo4j_driver: Driver, value: Any) -> None:
    """PUT /v1/state/{workflow}/{key}: a string anywhere in the JSON, or a scalar under a
    credential key, is a 422 naming `value`; nothing is written."""
    url = "/v1/state/onboarding/bank"
    refused(api.client.put(url, json={"value": value}, headers=api.headers), "value")
    assert api.get(url).status_code == 404
    assert leaked(neo4j_driver, api.owner) == []
    ok_put = api.client.put(url, json={"value": {"pin_pad": "broken"}}, headers=api.headers)
    assert ok_put.status_code == 201, ok_put.text


def test_a_preference_carrying_a_secret_is_refused(api: Api, neo4j_driver: Driver) -> None:
    """POST /v1/memory (preferences): 422 naming `value`; the key's earlier value still
    holds, and prefetch never shows the secret."""
    first = api.post("/v1/memory", {"layer": "preferences", "key": "pin", "value": "on the card"})
    assert first.status_code == 201, first.text
    for value in (f"my PIN is {PIN}", PIN):
        body = {"layer": "preferences", "key": "pin", "value": value}
        refused(api.post("/v1/memory", body), "value")
    prefs = api.get("/v1/memory", params={"layer": "preferences"}).json()["items"]
    assert [(p["key"], p["value"]) for p in prefs] == [("pin", "on the card")]
    block = api.post("/v1/prefetch", {"chat_id": "c1", "message": "what is my PIN?"}).json()
    assert PIN not in block["block"]
    assert leaked(neo4j_driver, api.owner) == []


def test_a_note_closed_with_a_secret_is_refused(api: Api) -> None:
    """POST /v1/notes/{id}/close and /retire: a secret in the reason is a 422 naming it."""
    later = (datetime.now(UTC) + timedelta(days=30)).isoformat()
    note = api.post("/v1/notes", {"kind": "question", "title": "Which bank?", "review_at": later})
    assert note.status_code == 201, note.text
    nid = note.json()["note"]["id"]
    reason = f"the PIN at the bank is {PIN}"
    refused(api.post(f"/v1/notes/{nid}/close", {"status": "confirmed", "reason": reason}), "reason")
    refused(api.post(f"/v1/notes/{nid}/retire", {"reason": reason}), "reason")
    assert api.get(f"/v1/notes/{nid}").json()["status"] == "open"


def test_the_mcp_write_tools_refuse_a_secret(
    mcp_url: str, api: Api, neo4j_driver: Driver, owner: str
) -> None:
    """`remember` (a credential attribute's value), `write_context` and `memory_store`
    answer a tool error and store nothing; ordinary health facts still go through."""
    rw = token(neo4j_driver, owner, "read", "write")
    pin = call(mcp_url, rw, "remember", {"attribute": "bank_pin", "value": PIN})
    assert "looks like a secret" in error(pin)
    note = {"kind": "context", "title": "bank", "body": f"My PIN at the bank is {PIN}"}
    assert "body: " in error(call(mcp_url, rw, "write_context", note))
    stored = call(mcp_url, rw, "memory_store", {"content": f"My password at work is {WORD}"})
    assert "never stores secrets" in error(stored)
    assert api.get("/v1/proposals").json()["items"] == []
    assert leaked(neo4j_driver, api.owner) == []
    held = ok(call(mcp_url, rw, "remember", {"text": "I take insulin every day."}))
    assert [(p["attribute"], p["status"]) for p in held["proposals"]] == [("habit", "pending")]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": f"my PIN is {PIN}", "kind": "person"}, "name"),
        ({"name": "Bob", "kind": "person", "aliases": ["Bobby", f"password: {WORD}"]}, "aliases"),
        ({"name": f"{PIN} is my PIN", "kind": "place"}, "name"),
    ],
)
def test_an_entity_named_with_a_secret_is_refused(
    api: Api, neo4j_driver: Driver, body: dict[str, Any], field: str
) -> None:
    """POST /v1/entities: a name or alias carrying a credential is 422 naming the field,
    and no entity is written (found by a tester: both were 201 and listed by every read)."""
    refused(api.post("/v1/entities", body), field)
    assert [e["name"] for e in api.get("/v1/entities").json()["items"]] == [api.owner]
    assert leaked(neo4j_driver, api.owner) == []


def test_a_split_naming_a_secret_is_refused(api: Api, neo4j_driver: Driver) -> None:
    """POST /v1/entities/{id}/split: the new entity's name is checked too; the source
    keeps its alias."""
    bob = api.entity("Bob", aliases=["Bobby"])
    body = {"fact_ids": [], "name": f"the PIN is {PIN}", "aliases": ["Bobby"]}
    refused(api.post(f"/v1/entities/{bob['id']}/split", body), "name")
    assert api.get(f"/v1/entities/{bob['id']}").json()["entity"]["aliases"] == ["Bobby"]
    assert leaked(neo4j_driver, api.owner) == []


def test_an_entity_named_like_a_credential_is_kept(api: Api) -> None:
    """Precision: a name that mentions a credential word but carries no value."""
    api.entity("Password Manager Club", kind="project", aliases=["PIN pad repairs"])
    api.entity("Pinky", aliases=["the secret keeper"])


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"surface": f"my password is {WORD}"}, "surface"),
        ({"speaker": f"my PIN is {PIN}"}, "messages[1].speaker"),
    ],
)
def test_a_run_whose_speaker_or_surface_carries_a_secret_is_refused(
    api: Api, neo4j_driver: Driver, change: dict[str, str], field: str
) -> None:
    """POST /v1/runs: a speaker becomes a person entity and the surface is kept on each
    episode, so neither is redacted but refused, 422 naming the message's field path;
    the run is not stored (found by a tester: both were kept verbatim)."""
    speaker = change.get("speaker", "Ana")
    body = {
        "id": "r-spk",
        "chat_id": "c1",
        "surface": change.get("surface", "cli"),
        "messages": [
            {"id": "m0", "role": "user", "text": "I love rowing.", "at": AT},
            {"id": "m1", "role": "user", "speaker": speaker, "text": "Me too.", "at": AT},
        ],
    }
    refused(api.post("/v1/runs", body), field)
    assert api.get("/v1/runs/r-spk").status_code == 404
    assert leaked(neo4j_driver, api.owner) == []


def _observation(**change: Any) -> dict[str, Any]:
    return {
        "integration": "calendar",
        "entity": {"name": "Ana"},
        "attribute": "location",
        "value": "Porto",
        **change,
    }


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"chat_id": f"my PIN is {PIN}"}, "chat_id"),
        ({"project": f"my password is {WORD}"}, "project"),
        ({"id": f"my PIN is {PIN}"}, "id"),
        ({"message_id": f"my PIN is {PIN}"}, "messages[0].id"),
        ({"observation": _observation(value=f"my PIN is {PIN}")}, "observations[0].value"),
        ({"observation": _observation(attribute="bank_pin", value=PIN)}, "observations[0].value"),
        (
            {"observation": _observation(attribute="door_code", value=int(PIN))},
            "observations[0].value",
        ),
        (
            {"observation": _observation(entity={"name": f"my password is {WORD}"})},
            "observations[0].entity.name",
        ),
        (
            {"observation": _observation(value=None, object={"name": f"PIN {PIN}"})},
            "observations[0].object.name",
        ),
    ],
)
def test_a_run_whose_ids_project_or_observations_carry_a_secret_is_refused(
    api: Api, app: Any, neo4j_driver: Driver, change: dict[str, Any], field: str
) -> None:
    """POST /v1/runs: the run's id, chat id and project, a message's id, and an observation's
    names and value are kept as they are (on the run, its episodes, events, proposals and
    facts), so a secret there is refused like a speaker's, 422 naming the field; nothing of
    the run is stored, and the raw store (`Reader.run_query`) holds neither value (found by a
    tester: `chat_id` "my PIN is 4821" was stored on the run and every episode)."""
    observation = change.get("observation")
    body = {
        "id": change.get("id", "r-ids"),
        "chat_id": change.get("chat_id", "c1"),
        "messages": [
            {"id": change.get("message_id", "m0"), "role": "user", "text": "Hi.", "at": AT}
        ],
        "observations": [] if observation is None else [observation],
        **({"project": change["project"]} if "project" in change else {}),
    }
    refused(api.post("/v1/runs", body), field)
    app.state.curator.drain()
    found = app.state.reader.run_query(
        "MATCH (n) WHERE n.owner = $owner OR n.id = $owner UNWIND keys(n) AS k"
        " WITH n[k] AS v WHERE v IS :: STRING AND (v CONTAINS $pin OR v CONTAINS $word)"
        " RETURN count(*) AS n",
        owner=api.owner,
        pin=PIN,
        word=WORD,
    )
    assert found == [{"n": 0}]
    assert leaked(neo4j_driver, api.owner) == []


def test_a_chat_id_in_a_path_or_a_sync_id_carrying_a_secret_is_refused(
    api: Api, neo4j_driver: Driver
) -> None:
    """`PUT /v1/chats/{chat_id}/memory-access` stores the chat id as given, and a sync's id
    is its event id: either carrying a PIN in words is a 422 naming `chat_id` or `id`, and
    the store holds neither (found in review: only a run's ids were read for a secret)."""
    chat = f"my PIN is {PIN}"
    r = api.client.put(
        f"/v1/chats/{chat}/memory-access", json={"mode": "full"}, headers=api.headers
    )
    refused(r, "chat_id")
    sync = {
        "id": f"the password is {WORD}",
        "integration": "calendar",
        "observations": [
            {"entity": {"name": "Standup", "kind": "event"}, "attribute": "day", "value": "Monday"}
        ],
    }
    refused(api.post("/v1/syncs", sync), "id")
    assert leaked(neo4j_driver, api.owner) == []
    ok = api.client.put(
        "/v1/chats/chat-7/memory-access", json={"mode": "full"}, headers=api.headers
    )
    assert ok.status_code == 200, ok.text


def test_opaque_ids_are_never_taken_for_a_secret(api: Api) -> None:
    """A run, chat or message id without white space is the client's token, not words:
    a random 38-character id (the shape of OpenAI's `chatcmpl-…` ids, which the machine-key
    rule flags in text) is accepted as the run's, the chat's and the message's id."""
    opaque = "chatcmpl-8Rm0ZbLqKfGZ1Uq9yW2Z3f4gH5jK6aB"
    body = {
        "id": opaque,
        "chat_id": opaque,
        "messages": [{"id": opaque, "role": "user", "text": "I love rowing.", "at": AT}],
    }
    r = api.post("/v1/runs", body)
    assert r.status_code == 202, r.text


def test_an_observation_evidence_loses_its_secret_and_the_run_is_kept(
    api: Api, app: Any, neo4j_driver: Driver
) -> None:
    """An observation's `evidence` is free text, like a message's: the sentence carrying a
    secret is `[redacted]` and the run goes on (the one free-text rule for a run)."""
    body = {
        "id": "r-ev",
        "chat_id": "c1",
        "messages": [{"id": "m0", "role": "user", "text": "Hi.", "at": AT}],
        "observations": [_observation(evidence=f"Synced. The door code is {PIN}.")],
    }
    assert api.post("/v1/runs", body).status_code == 202
    app.state.curator.drain()
    assert api.get("/v1/runs/r-ev").json()["status"] == "done"
    assert leaked(neo4j_driver, api.owner) == []


def test_a_run_queued_with_a_secret_speaker_files_it_redacted(
    api: Api, app: Any, neo4j_driver: Driver
) -> None:
    """A run stored before the route refused one (submitted to the committer directly):
    its episodes name the speaker `[redacted]` and drop the surface, never the secret."""
    messages = [{"id": "m0", "role": "user", "speaker": f"my PIN is {PIN}", "text": "Hi."}]
    payload = {"messages": [{**m, "at": AT} for m in messages], "observations": []}
    app.state.committer.submit_run(
        api.owner,
        run_id="r-old",
        chat_id="c1",
        surface=f"my password is {WORD}",
        payload=json.dumps({"id": "r-old", "chat_id": "c1", **payload}),
    )
    app.state.curator.drain()
    (said,) = episodes(api, run_id="r-old")
    assert said["surface"] == "[redacted]"
    assert api.get(f"/v1/entities/{said['speaker_id']}").json()["entity"]["name"] == "[redacted]"
    assert PIN not in str(said) and WORD not in str(said)


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/v1/entities", "post"),
        ("/v1/entities/{entity_id}/split", "post"),
        ("/v1/runs", "post"),
        ("/v1/entities/{entity_id}/facts", "post"),
        ("/v1/knowledge/{name}", "put"),
        ("/v1/knowledge/remember", "post"),
        ("/v1/state/{workflow}/{key}", "put"),
        ("/v1/shared-state/{group_id}/{workflow}/{key}", "put"),
        ("/v1/memory", "post"),
        ("/v1/notes", "post"),
        ("/v1/notes/{note_id}/close", "post"),
    ],
)
def test_openapi_documents_the_refusal(api: Api, path: str, method: str) -> None:
    """Each write that keeps a client's text documents its 422 for a secret."""
    spec = api.get("/openapi.json").json()
    described = spec["paths"][path][method]["responses"]["422"]["description"]
    assert "never stores secrets" in described
