"""Owner erasure (CONTRACT §9, §10 `DELETE /v1/owners/me?confirm=`): everything of one
owner goes, in batches, proven by a count that does not depend on the label list;
nothing of any other owner is touched."""

from __future__ import annotations

from typing import Any

from neo4j import Driver

from committer.apply import Committer
from graph.read.reader import Reader
from tests.api.conftest import Api, make_api
from tests.api.test_proposals_api import UNTRUSTED, me, pending, run

JAN = "2024-01-01T00:00:00Z"


def inventory(driver: Driver, owner: str) -> dict[str, int]:
    """Every node carrying `owner` by label, the Owner node, and the relationships
    touching them by type (a read transaction)."""
    reader = Reader(driver)
    nodes = reader.run_query(
        "MATCH (n) WHERE n.owner = $o UNWIND labels(n) AS l RETURN l, count(*) AS c", o=owner
    )
    rels = reader.run_query(
        "MATCH (n)-[r]-() WHERE n.owner = $o RETURN type(r) AS t, count(DISTINCT r) AS c", o=owner
    )
    owners = reader.run_query("MATCH (o:Owner {id: $o}) RETURN count(o) AS c", o=owner)
    return {
        **{f"node:{r['l']}": r["c"] for r in nodes},
        **{f"rel:{r['t']}": r["c"] for r in rels},
        "Owner": owners[0]["c"],
    }


def memory(api: Api, app: Any) -> None:
    """A bit of everything: entities, facts with history, a merge (names versions), a
    duplicate (corroboration), a run with a held proposal and a discarded one
    (suppression), notifications, a merge suggestion, chat memory access, episodes (one
    run's forgotten)."""
    john = api.entity("John Smith", aliases=["JS"])
    jon = api.entity("Jon Smith")
    api.fact(john["id"], attribute="location", value="Porto", valid_from=JAN)
    api.fact(john["id"], attribute="location", value="Lisbon")
    api.fact(john["id"], attribute="location", value="Lisbon")
    api.fact(me(api), attribute="knows", object_id=john["id"])
    api.fact(jon["id"], attribute="location", value="Braga", valid_from=JAN)
    assert api.post(f"/v1/entities/{jon['id']}/merge", {"into": john["id"]}).status_code == 200
    run(api, app, "r1", [("user", "I live in Lisbon."), UNTRUSTED])
    run(api, app, "r2", [("assistant", "Noted: the user's favorite food is pho.")])
    api.post(f"/v1/proposals/{pending(api)[-1]['id']}/discard")
    assert api.delete("/v1/runs/r2/episodes").status_code == 200  # a forgotten episode
    run(
        api,
        app,
        "r3",
        [],
        observations=[
            {
                "integration": "crm",
                "entity": {"name": "Jon Smyth", "kind": "person"},
                "attribute": "employer",
                "value": "Acme",
            }
        ],
    )
    assert (
        api.client.put(
            "/v1/chats/c9/memory-access", json={"mode": "none"}, headers=api.headers
        ).status_code
        == 200
    )
    # Notes (CONTRACT §13): two versions, a reading ledger, a session summary, a task.
    first = api.post("/v1/notes", {"kind": "decision", "title": "Ship weekly", "key": "ship"})
    api.post("/v1/notes", {"kind": "decision", "title": "Ship daily", "key": "ship"})
    assert api.get(f"/v1/notes/{first.json()['note']['id']}").status_code == 200
    committer = app.state.committer
    committer.end_session(
        api.owner, session_id="s1", chat_id=None, summary="planning", facts=[], reviewed=[]
    )
    committer.log_task(
        api.owner, task="sync", status="done", summary=None, duration_ms=5, session_id=None
    )
    # Knowledge documents, workflow state, usage (issue 16): each with two versions.
    for body in ("v1", "v2"):
        url = "/v1/knowledge/notes/doc"
        assert api.client.put(url, json={"body": body}, headers=api.headers).status_code == 200
        api.client.put("/v1/state/wf/k", json={"value": body}, headers=api.headers)
    assert api.post("/v1/usage", {"at": JAN, "model": "m"}).status_code == 201


def test_erasure_removes_everything_of_the_owner_and_nothing_else(
    api: Api, other: Api, app: Any, neo4j_driver: Driver
) -> None:
    """After the erasure nothing carries the owner (remaining 0, counted on every label)
    and the other owner's nodes and relationships are exactly as before."""
    memory(api, app)
    memory(other, app)
    # Groups both ways: the erased owner's group (with the other as member) and share go;
    # the other's group, share and membership in the erased owner's group stay.
    for sharer, member in ((api, other), (other, api)):
        group = sharer.post("/v1/groups", {"name": "team"}).json()
        assert (
            sharer.post(f"/v1/groups/{group['id']}/members", {"owner": member.owner}).status_code
            == 201
        )
        # A group note each member writes in the other's group: the erased owner's goes,
        # the other's stays (it is the other's row).
        note = {"kind": "convention", "title": "Errors are problem+json", "group_id": group["id"]}
        assert member.post("/v1/notes", note).status_code == 201
        assert (
            sharer.post(f"/v1/groups/{group['id']}/shares", {"entity_id": me(sharer)}).status_code
            == 201
        )
        # The group's own knowledge and state, by its creator: a learning (and its access
        # log entry) and a shared value.
        learned = {"topic": "t", "content": "c", "surface": "web", "group": group["id"]}
        assert sharer.post("/v1/knowledge/remember", learned).status_code == 200
        shared = f"/v1/shared-state/{group['id']}/wf/k"
        assert sharer.client.put(shared, json={"value": 1}, headers=sharer.headers).status_code
    mine, theirs = inventory(neo4j_driver, api.owner), inventory(neo4j_driver, other.owner)
    for label in (
        "Fact",
        "Corroboration",
        "Entity",
        "EntityNames",
        "Proposal",
        "Suppression",
        "Notification",
        "MergeSuggestion",
        "Run",
        "Chat",
        "Token",
        "Group",
        "Membership",
        "Share",
        "KnowledgeVersion",
        "StateVersion",
        "AccessLogEntry",
        "Usage",
        "Episode",
        "Note",
        "NoteHead",
        "NoteSession",
        "NoteTask",
        "NoteReadLedger",
    ):
        assert mine.get(f"node:{label}", 0) > 0, label  # the test covers every kind
    r = api.delete("/v1/owners/me", params={"confirm": api.owner})
    assert r.status_code == 200, r.text
    owned = sum(v for k, v in mine.items() if k.startswith("node:")) + 1
    assert r.json() == {"removed": owned, "remaining": 0}
    assert inventory(neo4j_driver, api.owner) == {"Owner": 0}
    assert inventory(neo4j_driver, other.owner) == theirs
    assert api.get("/v1/me").status_code == 401  # its tokens went too
    assert other.get(f"/v1/entities/{me(other)}/facts").json()["items"]


def test_confirm_must_name_the_owner(api: Api, app: Any, neo4j_driver: Driver) -> None:
    """A missing or wrong `confirm` is a 422 naming `confirm`, and nothing is deleted."""
    memory(api, app)
    before = inventory(neo4j_driver, api.owner)
    for params in ({}, {"confirm": "someone-else"}, {"confirm": api.owner.upper()}):
        r = api.delete("/v1/owners/me", params=params)
        assert r.status_code == 422, r.text
        assert [e["field"] for e in r.json()["errors"]] == ["confirm"]
    assert inventory(neo4j_driver, api.owner) == before


def test_erasure_needs_the_admin_scope(client: Any, neo4j_driver: Driver, owner: str) -> None:
    """Every scope but `admin` is refused with 403."""
    weak = make_api(client, neo4j_driver, owner, ("read", "write", "curate"))
    weak.entity("Ada")
    r = weak.delete("/v1/owners/me", params={"confirm": owner})
    assert r.status_code == 403
    assert weak.get("/v1/entities", params={"q": "ada"}).json()["items"]


def test_erasure_runs_in_batches(api: Api, neo4j_driver: Driver) -> None:
    """With batches of 3 nodes per transaction the erasure still removes all of them."""
    ada = api.entity("Ada")["id"]
    for i in range(8):
        api.fact(ada, attribute="likes", value=f"thing {i}")
    nodes = sum(v for k, v in inventory(neo4j_driver, api.owner).items() if k.startswith("node:"))
    result = Committer(neo4j_driver).erase_owner(api.owner, api.owner, batch=3)
    assert (result.removed, result.remaining) == (nodes + 1, 0)
    assert result.by_label["Fact"] == 8 and result.by_label["Owner"] == 1


def test_a_forgotten_label_shows_as_remaining(api: Api, other: Api, neo4j_driver: Driver) -> None:
    """A node of a label missing from the erasure's list is not silently kept: the proof
    counts it. Another owner's node linked to the erased owner's loses only that link."""
    ada = api.entity("Ada")["id"]
    bob = other.entity("Bob")["id"]
    with neo4j_driver.session() as s:
        s.run("CREATE (:Stray {owner: $o})", o=api.owner).consume()
        s.run(
            "MATCH (a:Entity {id: $a}), (b:Entity {id: $b}) CREATE (b)-[:LINKED_TO]->(a)",
            a=ada,
            b=bob,
        ).consume()
    theirs = inventory(neo4j_driver, other.owner)
    r = api.delete("/v1/owners/me", params={"confirm": api.owner})
    assert r.status_code == 200 and r.json()["remaining"] == 1
    after = inventory(neo4j_driver, other.owner)
    assert after == {k: v for k, v in theirs.items() if k != "rel:LINKED_TO"}
    with neo4j_driver.session() as s:
        s.run("MATCH (n:Stray {owner: $o}) DELETE n", o=api.owner).consume()
