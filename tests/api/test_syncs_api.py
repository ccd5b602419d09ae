"""Integration syncs: applied at once; a full snapshot archives what it no longer reports,
and what returns comes back with its facts (CONTRACT §4, §5, §8)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.api.test_proposals_api import me, pending

AT = "2024-02-01T00:00:00Z"


def obs(name: str | None, attribute: str, value: str, **extra: Any) -> dict[str, Any]:
    entity = {"kind": "person"} if name is None else {"name": name, "kind": "person"}
    return {"entity": entity, "attribute": attribute, "value": value, **extra}


def sync(
    api: Api, sync_id: str, observations: list[dict[str, Any]], full: bool = True, status: int = 201
) -> dict[str, Any]:
    r = api.post(
        "/v1/syncs",
        {
            "id": sync_id,
            "integration": "crm",
            "full_snapshot": full,
            "at": AT,
            "observations": observations,
        },
    )
    assert r.status_code == status, r.text
    return r.json()  # type: ignore[no-any-return]


def find(api: Api, name: str) -> dict[str, Any]:
    [e] = api.get("/v1/entities", params={"q": name}).json()["items"]
    return e  # type: ignore[no-any-return]


def prefetch(api: Api, message: str) -> str:
    return api.post("/v1/prefetch", {"chat_id": "c", "message": message}).json()["block"]  # type: ignore[no-any-return]


def test_full_snapshot_archives_and_a_later_report_brings_back(api: Api) -> None:
    """Bob missing from a full snapshot is archived (facts kept, in history, out of
    prefetch); reported again, he returns with his facts. Both are effects of the syncs."""
    out = sync(
        api, "s1", [obs("Alice Moss", "employer", "Acme"), obs("Bob Stone", "employer", "Initech")]
    )
    assert (out["status"], out["proposals"], out["committed"], out["archived"]) == (
        "applied",
        2,
        2,
        [],
    )
    bob = find(api, "bob stone")
    assert "Initech" in prefetch(api, "How is Bob Stone doing?")
    out = sync(api, "s2", [obs("Alice Moss", "employer", "Acme")])
    assert out["archived"] == [bob["id"]] and out["committed"] == 0
    archived = api.get(f"/v1/entities/{bob['id']}").json()
    assert archived["entity"]["archived"] is True and archived["entity"]["archived_at"]
    assert [f["value"] for f in archived["facts"]] == ["Initech"]
    assert len(api.get(f"/v1/entities/{bob['id']}/history").json()["items"]) == 1
    assert "Initech" not in prefetch(api, "How is Bob Stone doing?")
    assert find(api, "alice moss")["archived"] is False
    items = api.get("/v1/events/s2/effects").json()["items"]
    assert [(i["change"], i["op"], i["entity_id"], i["fact_id"]) for i in items] == [
        ("changed", "archived", bob["id"], None)
    ]
    out = sync(
        api, "s3", [obs("Bob Stone", "employer", "Initech"), obs("Alice Moss", "employer", "Acme")]
    )
    assert (out["unarchived"], out["archived"]) == ([bob["id"]], [])
    back = api.get(f"/v1/entities/{bob['id']}").json()
    assert back["entity"]["archived"] is False and back["entity"]["archived_at"] is None
    assert [f["value"] for f in back["facts"]] == ["Initech"]
    assert "Initech" in prefetch(api, "How is Bob Stone doing?")
    assert [
        (i["op"], i["entity_id"]) for i in api.get("/v1/events/s3/effects").json()["items"]
    ] == [("unarchived", bob["id"])]


def test_partial_sync_archives_nothing_and_the_owner_is_never_archived(api: Api) -> None:
    """Without `full_snapshot` nothing is archived; the owner's own entity, reported by a
    snapshot and missing from the next, stays."""
    sync(api, "s1", [obs(None, "location", "Oslo"), obs("Bob Stone", "employer", "Initech")])
    assert sync(api, "s2", [obs("Alice Moss", "employer", "Acme")], full=False)["archived"] == []
    out = sync(api, "s3", [obs("Alice Moss", "employer", "Acme")])
    assert out["archived"] == [find(api, "bob stone")["id"]]
    assert api.get(f"/v1/entities/{me(api)}").json()["entity"]["archived"] is False


def test_a_sync_is_idempotent_on_its_id(api: Api, app: Any) -> None:
    """The same sync again changes nothing and answers 200 alike; other content under its
    id, or a run's id, is 409; a run cannot take a sync's id either."""
    body = [obs("Bob Stone", "employer", "Initech")]
    first = sync(api, "s1", body)
    assert sync(api, "s1", body, status=200) == first
    assert len(api.get(f"/v1/entities/{find(api, 'bob stone')['id']}/history").json()["items"]) == 1
    sync(api, "s1", [obs("Bob Stone", "employer", "Acme")], status=409)
    run = {"id": "r1", "chat_id": "c", "messages": [{"role": "user", "text": "hi", "at": AT}]}
    assert api.post("/v1/runs", run).status_code == 202
    sync(api, "r1", body, status=409)
    assert api.post("/v1/runs", {**run, "id": "s1"}).status_code == 409


def test_observations_must_be_the_syncs_integration(api: Api) -> None:
    """An observation naming another integration is a 422 naming its field."""
    r = api.post(
        "/v1/syncs",
        {
            "id": "s1",
            "integration": "crm",
            "observations": [obs("Bob", "employer", "Initech", integration="mail")],
        },
    )
    assert r.status_code == 422
    assert r.json()["errors"][0]["field"] == "observations.0.integration"


def test_held_observation_kept_later_is_an_effect_of_the_sync(api: Api) -> None:
    """A low-confidence observation waits for the person; kept, its row counts among the
    sync's effects, and its why chain starts at the sync."""
    out = sync(api, "s1", [obs("Bob Stone", "employer", "Initech", confidence=0.3)])
    assert (out["held"], out["committed"]) == (1, 0)
    [p] = pending(api)
    fact = api.post(f"/v1/proposals/{p['id']}/keep").json()["fact"]
    items = api.get("/v1/events/s1/effects").json()["items"]
    assert [(i["change"], i["op"], i["fact_id"]) for i in items] == [
        ("wrote", "created", fact["id"])
    ]
    chain = api.get(f"/v1/facts/{fact['id']}/why").json()["chain"]
    assert [c["kind"] for c in chain] == ["sync", "proposal", "decision", "commit"]
    assert chain[0]["integration"] == "crm" and chain[0]["full_snapshot"] is True
    assert fact["source"] == "integration:crm"
