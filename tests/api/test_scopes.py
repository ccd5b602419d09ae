"""Token scopes (CONTRACT §7): `read`, `write`, `curate` (keep/discard, merge, forget, the
gated `remember` of knowledge), `admin`. An assistant's read token can call nothing that
writes (a refused `remember` is logged, CONTRACT §14, and nothing else is written).

`WRITES` has one row per route that changes the store (every POST, PUT, PATCH and
DELETE but `POST /v1/prefetch`, which reads), with the scope it needs and a body that
would succeed; a write route without a row fails `test_every_write_route_has_a_row`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from tests.api.conftest import Api, app_routes, make_api
from tests.api.test_proposals_api import UNTRUSTED, run

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
READS = {("POST", "/v1/prefetch")}
"""Routes that take a body but only read (CONTRACT §6: reads never write)."""

WRITES: dict[tuple[str, str], tuple[str, Any]] = {
    ("POST", "/v1/entities"): ("write", {"name": "Carol", "kind": "person"}),
    ("POST", "/v1/entities/{entity_id}/facts"): ("write", {"attribute": "likes", "value": "x"}),
    ("DELETE", "/v1/facts/{fact_id}"): ("curate", None),
    ("POST", "/v1/runs"): ("write", {"id": "r-new", "chat_id": "c1", "messages": []}),
    ("PUT", "/v1/chats/{chat_id}/memory-access"): ("admin", {"mode": "none"}),
    ("PUT", "/v1/profile/memory-access"): ("admin", {"mode": "none"}),
    ("POST", "/v1/proposals/{proposal_id}/keep"): ("curate", None),
    ("POST", "/v1/proposals/{proposal_id}/discard"): ("curate", None),
    ("POST", "/v1/chats/{chat_id}/replies"): ("curate", {"text": "yes"}),
    ("POST", "/v1/notifications/{notification_id}/acknowledge"): ("curate", None),
    ("POST", "/v1/merge-suggestions/{suggestion_id}/confirm"): ("curate", None),
    ("POST", "/v1/merge-suggestions/{suggestion_id}/decline"): ("curate", None),
    ("POST", "/v1/entities/{entity_id}/merge"): ("curate", {"into": "{other_entity_id}"}),
    ("POST", "/v1/groups"): ("write", {"name": "team"}),
    ("POST", "/v1/groups/{group_id}/members"): ("write", {"owner": "someone-else"}),
    ("DELETE", "/v1/groups/{group_id}/members/{member}"): ("write", None),
    ("POST", "/v1/groups/{group_id}/shares"): ("write", {"entity_id": "{other_entity_id}"}),
    ("DELETE", "/v1/groups/{group_id}/shares/{entity_id}"): ("write", None),
    ("DELETE", "/v1/owners/me"): ("admin", None),
    ("POST", "/v1/entities/{entity_id}/split"): (
        "curate",
        {"fact_ids": ["{fact_id}"], "name": "Bo"},
    ),
    ("POST", "/v1/syncs"): ("write", {"id": "sync-1", "integration": "crm", "observations": []}),
    ("POST", "/v1/notes"): ("write", {"kind": "decision", "title": "Ship weekly"}),
    ("POST", "/v1/notes/{note_id}/retire"): ("write", None),
    ("POST", "/v1/notes/{note_id}/close"): ("write", {"status": "confirmed", "reason": "data"}),
    ("POST", "/v1/notes/handover"): ("admin", {"project": "atlas", "to": "someone-else"}),
    ("POST", "/v1/memory"): ("write", {"layer": "decisions", "title": "Ship", "rationale": "why"}),
    ("PUT", "/v1/knowledge/{name:path}"): ("write", {"body": "text"}),
    ("DELETE", "/v1/knowledge/{name:path}"): ("write", None),
    ("POST", "/v1/knowledge/{name:path}/restore"): ("write", {"version": 1}),
    ("POST", "/v1/knowledge/remember"): (
        "curate",
        {"topic": "t", "content": "c", "surface": "web", "group": "{group_id}"},
    ),
    ("PUT", "/v1/state/{workflow}/{key}"): ("write", {"value": 1}),
    ("DELETE", "/v1/state/{workflow}/{key}"): ("write", None),
    ("PUT", "/v1/shared-state/{group_id}/{workflow}/{key}"): ("write", {"value": 1}),
    ("DELETE", "/v1/shared-state/{group_id}/{workflow}/{key}"): ("write", None),
    ("POST", "/v1/usage"): ("write", {"at": "2024-05-01T00:00:00Z"}),
    ("DELETE", "/v1/episodes/{episode_id}"): ("curate", None),
    ("DELETE", "/v1/runs/{run_id}/episodes"): ("curate", None),
}
"""Route -> (the scope it needs, a body that would succeed). Ids in braces are filled
from the seeded store (`seed`)."""


def _fill(text: str, ids: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        assert m.group(1) in ids, f"no seeded id for {{{m.group(1)}}}: add it to seed()"
        return ids[m.group(1)]

    return re.sub(r"{(\w+)(?::\w+)?}", one, text)


def _request(api: Api, key: tuple[str, str], ids: dict[str, str]) -> Any:
    method, path = key
    body = WRITES[key][1]
    payload = None if body is None else json.loads(_fill(json.dumps(body), ids))
    return api.client.request(method, _fill(path, ids), json=payload, headers=api.headers)


def seed(api: Api, app: Any) -> dict[str, str]:
    """A store where every write route has a real target: entities, a fact, a pending
    proposal and its notification, a merge suggestion, a group with a member and a share,
    a curated run and its episode."""
    bob = api.entity("Bob")
    fact = api.fact(bob["id"], attribute="location", value="Lisbon")["fact"]
    john = api.entity("John Smith")
    run(
        api,
        app,
        "r-seed",
        [UNTRUSTED],
        chat="c1",
        observations=[
            {
                "integration": "crm",
                "entity": {"name": "Jon Smith", "kind": "person"},
                "attribute": "employer",
                "value": "Acme",
                "valid_from": "2024-01-01T00:00:00Z",
            }
        ],
    )
    [proposal] = api.get("/v1/proposals", params={"status": "pending"}).json()["items"]
    notes = api.get("/v1/notifications", params={"chat_id": "c1"}).json()["items"]
    [suggestion] = api.get("/v1/merge-suggestions").json()["items"]
    [episode] = api.get("/v1/episodes", params={"run_id": "r-seed"}).json()["items"]
    group = api.post("/v1/groups", {"name": "seeded"}).json()
    for other in ("member-x", "someone-else"):  # members must be owners that exist
        app.state.committer.create_token(other, ["read"])
    assert api.post(f"/v1/groups/{group['id']}/members", {"owner": "member-x"}).status_code == 201
    assert api.post(f"/v1/groups/{group['id']}/shares", {"entity_id": bob["id"]}).status_code == 201
    note = api.post(
        "/v1/notes",
        {"kind": "hypothesis", "title": "Arm users churn less", "status": "rejected",
         "project": "atlas"},
    ).json()  # fmt: skip
    for url in ("/v1/knowledge/seeded/doc", f"/v1/knowledge/seeded/doc?group={group['id']}"):
        assert api.client.put(url, json={"body": "b"}, headers=api.headers).status_code == 200
    for url in ("/v1/state/wf/k", f"/v1/shared-state/{group['id']}/wf/k"):
        assert api.client.put(url, json={"value": 0}, headers=api.headers).status_code == 201
    return {
        "entity_id": bob["id"],
        "other_entity_id": john["id"],
        "fact_id": fact["id"],
        "proposal_id": proposal["id"],
        "notification_id": notes[0]["id"],
        "suggestion_id": suggestion["id"],
        "chat_id": "c1",
        "group_id": group["id"],
        "member": "member-x",
        "note_id": note["note"]["id"],
        "name": "seeded/doc",
        "workflow": "wf",
        "key": "k",
        "episode_id": episode["id"],
        "run_id": "r-seed",
    }


def _fingerprint(driver: Driver, owner: str, group_id: str) -> str:
    """The properties of every node of the owner and its group (chats keyed `owner/...`
    included), and every relationship touching them, as one string.

    Scoped to this test's owner, so tests running beside it on a shared Neo4j cannot
    change it (STYLE: tests never see each other's data). The access log of `remember` is
    left out: a refused attempt is logged on purpose (CONTRACT §14), and the test checks
    that entry itself."""
    mine = (
        "MATCH (n) WHERE (n.owner = $owner OR n.id = $owner OR n.member = $owner "
        "OR n.group_id = $g OR n.id = $g OR n.key STARTS WITH $prefix) "
        "AND NOT n:AccessLogEntry "
    )
    with driver.session() as s:
        props = [
            json.dumps(r["p"], sort_keys=True, default=str)
            for r in s.run(
                mine + "RETURN properties(n) AS p", owner=owner, g=group_id, prefix=owner + "/"
            )
        ]
        rels = [
            json.dumps(r["r"], sort_keys=True, default=str)
            for r in s.run(
                mine + "MATCH (n)-[r]-() RETURN [type(r), elementId(r), properties(r)] AS r",
                owner=owner,
                g=group_id,
                prefix=owner + "/",
            )
        ]
    return json.dumps([sorted(props), sorted(rels)])


def test_every_write_route_has_a_row(app: Any) -> None:
    """A route that changes the store without a row in WRITES fails here: nothing writes
    unchecked."""
    writes = {r for r in app_routes(app) if r[0] in WRITE_METHODS} - READS
    assert writes - WRITES.keys() == set(), "add these write routes to WRITES"
    assert WRITES.keys() - writes == set(), "WRITES names routes the app does not have"


def test_a_read_token_can_call_nothing_that_writes(
    api: Api, app: Any, client: TestClient, neo4j_driver: Driver
) -> None:
    """With the assistant's read token every write route is a 403 problem+json, and the
    store is exactly as it was; prefetch, a read, still answers."""
    ids = seed(api, app)
    reader = make_api(client, neo4j_driver, api.owner, ("read",))
    before = _fingerprint(neo4j_driver, api.owner, ids["group_id"])
    for key in sorted(WRITES):
        r = _request(reader, key, ids)
        assert r.status_code == 403, (key, r.status_code, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
        assert "scope" in r.json()["detail"]
    assert reader.post("/v1/prefetch", {"chat_id": "c1", "message": "Bob?"}).status_code == 200
    assert _fingerprint(neo4j_driver, api.owner, ids["group_id"]) == before
    [logged] = api.get("/v1/access-log").json()["items"]  # the refused remember, no content
    assert (logged["outcome"], logged["reason"]) == ("refused", "scope")


@pytest.mark.parametrize("key", sorted(WRITES), ids=[f"{m} {p}" for m, p in sorted(WRITES)])
def test_each_write_route_needs_its_scope(
    key: tuple[str, str], client: TestClient, neo4j_driver: Driver, owner: str
) -> None:
    """CONTRACT §7 scope map: a token with every other non-admin scope is refused (403);
    one with just the route's scope (or `admin`) is let through (to a 404 here: the ids
    are unknown)."""
    needed = WRITES[key][0]
    others = tuple(s for s in ("read", "write", "curate") if s != needed)
    ids = {
        "entity_id": "ent_x",
        "other_entity_id": "ent_y",
        "fact_id": "fct_x",
        "proposal_id": "prp_x",
        "notification_id": "ntf_x",
        "suggestion_id": "mrg_x",
        "chat_id": "c1",
        "group_id": "grp_x",
        "member": "m",
        "note_id": "nte_x",
        "name": "unknown/doc",
        "workflow": "wf",
        "key": "k",
        "episode_id": "epi_x",
        "run_id": "run_x",
    }
    refused = _request(make_api(client, neo4j_driver, owner, others), key, ids)
    assert refused.status_code == 403, (key, refused.text)
    for scopes in ((needed,), ("admin",)):
        allowed = _request(make_api(client, neo4j_driver, owner, scopes), key, ids)
        assert allowed.status_code != 403, (key, scopes, allowed.text)
