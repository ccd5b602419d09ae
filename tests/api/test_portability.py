"""Owner export and import round trip (issue 13 "Export of an owner's memory").

An owner with a rich history (supersedes, forget, retract, a merge, a split, curated
runs with kept and discarded proposals and their episodes (one forgotten), a suppression,
merge suggestions, a chat's memory access, a group and a share) is exported over
`GET /v1/owners/me/export` and imported into a new owner through the committer. Every
read of the new owner, at many `(valid_at, known_at)` points on both axes, equals the old
owner's with ids mapped by `remap_id`.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest

from committer.apply import Committer
from committer.portability import remap_id
from graph.cypher.erasure import OWNED_LABELS
from graph.errors import Conflict, InvalidInput
from graph.portable import BY_LABEL, KINDS
from tests.api.conftest import Api, make_api
from tests.api.test_merges_api import observe, suggestions
from tests.api.test_proposals_api import UNTRUSTED, pending, run

ALL = ("read", "write", "curate", "admin")


def mapped(value: Any, owner: str, old: str) -> Any:
    """A response of the old owner as the new one must answer it: our ids remapped (the
    owner's own person entity keeps its name: history is restored, not rewritten)."""
    if isinstance(value, str):
        return mapped_key(value, owner)
    if isinstance(value, list):
        return [mapped(v, owner, old) for v in value]
    if isinstance(value, dict):
        return {k: mapped(v, owner, old) for k, v in value.items()}
    return value


ID_IN_TEXT = re.compile(r"\b(?:[a-z]{3})_[0-9a-f]{24}\b")


def mapped_key(key: str, owner: str) -> str:
    """A key of `reads` with the ids in it remapped."""
    return ID_IN_TEXT.sub(lambda m: remap_id(owner, m.group(0)), key)


def canonical(key: str, value: Any) -> Any:
    """Lists whose order ties break on ids (an id order is not history) as sorted lists."""
    if key in ("entities", "proposals", "notifications", "suggestions"):
        items = value if isinstance(value, list) else value["items"]
        return sorted(json.dumps(x, sort_keys=True) for x in items)
    return value


def rich_history(api: Api, app: Any, other: Api) -> list[str]:
    """Every kind of row an owner can have, written through the API; return the ids of
    actions whose effects to compare (an episode forgotten)."""
    ana = api.entity("Ana Lima", aliases=["Ana"])
    city = api.entity("Lisbon", kind="place")
    k8s = api.entity("K8s migration", kind="project")
    api.fact(ana["id"], attribute="location", value="Paris", valid_from="2020-01-01T00:00:00Z")
    api.fact(ana["id"], attribute="location", value="Berlin", valid_from="2022-06-01T00:00:00Z")
    api.fact(
        ana["id"],
        attribute="location",
        value="Rome",
        valid_from="2021-01-01T00:00:00Z",
        valid_to="2021-06-01T00:00:00Z",
    )
    gone = api.fact(ana["id"], attribute="likes", value="tea")["fact"]["id"]
    api.fact(ana["id"], attribute="likes", value="jazz", evidence="she said so", reason="chat")
    api.fact(ana["id"], attribute="likes", value="jazz")  # a corroboration
    api.fact(ana["id"], attribute="works_on", object_id=k8s["id"])
    api.fact(ana["id"], attribute="lives_near", object_id=city["id"])
    assert api.delete(f"/v1/facts/{gone}").status_code == 200
    rome = next(
        f
        for f in api.get(f"/v1/entities/{ana['id']}/history/location").json()["items"]
        if f["value"] == "Rome"
    )
    assert api.delete(f"/v1/facts/{rome['id']}", params={"mode": "retract"}).status_code == 200
    run(api, app, "r1", [("user", "I love tango."), UNTRUSTED], chat="c1")
    [held] = pending(api)
    assert api.post(f"/v1/proposals/{held['id']}/discard").status_code == 200
    run(api, app, "r2", [("assistant", "The user's favorite color is teal."), ("user", "Hi.")])
    said = api.get("/v1/episodes", params={"run_id": "r2"}).json()["items"]
    forgot = api.delete(f"/v1/episodes/{said[-1]['id']}")
    assert forgot.status_code == 200, forgot.text
    observe(api, app, "r3", "Jon Smith", "employer", "Acme")
    john = api.entity("John Smith")
    api.fact(john["id"], attribute="employer", value="Acme", valid_from="2024-01-01T00:00:00Z")
    observe(api, app, "r4", "Jon Smith", "hobby", "chess")
    [s] = suggestions(api)
    assert api.post(f"/v1/merge-suggestions/{s['id']}/confirm").status_code == 200
    hobby = next(
        f["id"]
        for f in api.get(f"/v1/entities/{john['id']}/facts").json()["items"]
        if f["attribute"] == "hobby"
    )
    r = api.post(f"/v1/entities/{john['id']}/split", {"fact_ids": [hobby], "name": "Jon S."})
    assert r.status_code == 201, r.text
    assert (
        api.client.put(
            "/v1/chats/c9/memory-access",
            json={"mode": "restricted", "areas": ["place"]},
            headers=api.headers,
        ).status_code
        == 200
    )
    group = api.post("/v1/groups", {"name": "family"}).json()
    assert (
        api.post(f"/v1/groups/{group['id']}/shares", {"entity_id": city["id"]}).status_code == 201
    )
    theirs = other.post("/v1/groups", {"name": "theirs"}).json()
    other.post(f"/v1/groups/{theirs['id']}/members", {"owner": api.owner})
    # Notes (CONTRACT §13): versions, a retired one, a read (the ledger), a session, a task.
    first = api.post("/v1/notes", {"kind": "decision", "title": "Ship weekly", "key": "ship"})
    api.post("/v1/notes", {"kind": "decision", "title": "Ship daily", "key": "ship"})
    gone = api.post("/v1/notes", {"kind": "context", "title": "The old office is in Porto"})
    assert api.post(f"/v1/notes/{gone.json()['note']['id']}/retire").status_code == 200
    assert api.get(f"/v1/notes/{first.json()['note']['id']}").status_code == 200
    app.state.committer.end_session(
        api.owner, session_id="s1", chat_id=None, summary="planning", facts=[], reviewed=[]
    )
    app.state.committer.log_task(
        api.owner, task="sync", status="done", summary=None, duration_ms=5, session_id=None
    )
    # Knowledge documents, a learning (and its access-log entry), workflow state, usage
    # (issue 16).
    for body in ("v1", "v2"):
        doc = {"description": "Notes", "body": body}
        assert api.client.put("/v1/knowledge/notes", json=doc, headers=api.headers).is_success
    learned = {"topic": "t", "content": "c", "surface": "web", "group": group["id"]}
    assert api.post("/v1/knowledge/remember", learned).status_code == 200
    assert api.client.put("/v1/state/wf/k", json={"value": 1}, headers=api.headers).is_success
    assert api.post("/v1/usage", {"at": "2024-01-01T00:00:00Z"}).status_code == 201
    return [forgot.json()["event_id"]]


def reads(api: Api, points: list[tuple[str, str]], events: list[str]) -> dict[str, Any]:
    """Every read of the owner's memory, at each point and now, and the effects of
    `events` (ids of the owner's actions)."""
    out: dict[str, Any] = {}
    entities = api.get("/v1/entities", params={"limit": 500}).json()["items"]
    out["entities"] = entities
    notes = api.get("/v1/notes", params={"limit": 500}).json()
    out["notes"] = notes
    for n in notes["items"]:
        out[f"note history {n['id']}"] = api.get(
            f"/v1/notes/{n['id']}/history", params={"include_retracted": "true"}
        ).json()
    for e in entities:
        eid = e["id"]
        out[f"history {eid}"] = api.get(
            f"/v1/entities/{eid}/history", params={"include_retracted": "true"}
        ).json()
        for valid_at, known_at in points:
            q = {"valid_at": valid_at, "known_at": known_at}
            out[f"entity {eid} {q}"] = api.get(f"/v1/entities/{eid}", params=q).json()
            out[f"history {eid} {known_at}"] = api.get(
                f"/v1/entities/{eid}/history", params={"known_at": known_at}
            ).json()
        for f in out[f"history {eid}"].get("items", []):
            out[f"why {f['id']}"] = api.get(f"/v1/facts/{f['id']}/why").json()
    out["proposals"] = api.get("/v1/proposals").json()
    out["notifications"] = api.get("/v1/notifications").json()
    out["suggestions"] = [
        x
        for status in ("open", "confirmed", "declined")
        for x in api.get("/v1/merge-suggestions", params={"status": status}).json()["items"]
    ]
    out["runs"] = [api.get(f"/v1/runs/{r}").json() for r in ("r1", "r2", "r3", "r4")]
    out["access"] = api.get("/v1/chats/c9/memory-access").json()
    out["effects"] = api.get("/v1/events/r1/effects").json()
    for event in events:
        out[f"effects {event}"] = api.get(f"/v1/events/{event}/effects").json()
    said: set[str] = set()
    for valid_at, known_at in [*points, ("", "")]:
        q = {"valid_at": valid_at, "known_at": known_at} if valid_at else {}
        out[f"episodes {q}"] = page = api.get("/v1/episodes", params=q).json()
        said |= {e["id"] for e in page["items"]}
    for episode in sorted(said):
        out[f"episode {episode}"] = api.get(f"/v1/episodes/{episode}").json()
    return out


def points_of(export: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(valid_at, known_at) pairs around every transaction and valid time of the rows."""
    times: set[str] = set()
    for line in export:
        if line.get("node") == "Fact":
            for key in ("valid_from", "recorded_at", "retracted_at"):
                stamp = line["props"][key]["$datetime"]
                if not stamp.startswith("9999"):
                    times.add(stamp)
    ordered = sorted(times)
    picked = [*ordered[:: max(1, len(ordered) // 6)], "2021-03-01T00:00:00Z"]
    return [(v, k) for v in picked[::2] for k in picked]


def test_round_trip_keeps_every_read_on_both_axes(
    api: Api, app: Any, other: Api, client: Any, neo4j_driver: Any
) -> None:
    """Export, import into a new owner: entities, facts at many (valid_at, known_at),
    history with retracted rows, why chains, proposals, notifications, merge
    suggestions, runs, memory access, effects, and episodes (one forgotten, its action's
    effects) all read the same, ids mapped."""
    events = rich_history(api, app, other)
    r = api.get("/v1/owners/me/export")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    lines = r.text.splitlines()
    export = [json.loads(x) for x in lines]
    assert export[0]["owner"] == api.owner and export[-1]["end"] is True
    assert export[-1]["changed_during_export"] is False
    assert not any("hash" in x.get("props", {}) for x in export if x.get("node") == "Token")
    assert {x["node"] for x in export if "node" in x} >= set(OWNED_LABELS) - {"Membership"} | {
        "Owner"
    }

    new = f"owner-{uuid.uuid4().hex}"
    result = Committer(neo4j_driver).import_owner(lines, new)
    assert result.skipped == {"Token": 1, "Membership of another owner's group": 1}
    restored = make_api(client, neo4j_driver, new, ALL)
    points = points_of(export)
    assert len(points) >= 20
    old = reads(api, points, events)
    before = {mapped_key(k, new): mapped(v, new, api.owner) for k, v in old.items()}
    after = reads(restored, points, [remap_id(new, e) for e in events])
    assert any(k.startswith("episode ") for k in after)
    assert "ENDED_EPISODE" in {x.get("rel") for x in export}
    assert set(after) == set(before)
    for key in after:
        assert canonical(key, after[key]) == canonical(key, before[key]), key
    # The new owner writes on: its commits follow the imported ones in transaction time.
    ana = next(e for e in after["entities"] if e["name"] == "Ana Lima")
    fresh = restored.fact(ana["id"], attribute="likes", value="chess")["fact"]
    assert fresh["recorded_at"] > max(p[1] for p in points)


def test_import_refuses_an_owner_with_memory_and_a_cut_file(api: Api, neo4j_driver: Any) -> None:
    """An owner that has memory is never merged into; a file without its closing line,
    or one whose owner changed during the export, is refused."""
    api.entity("Ana")
    lines = api.get("/v1/owners/me/export").text.splitlines()
    committer = Committer(neo4j_driver)
    with pytest.raises(Conflict):
        committer.import_owner(lines, api.owner)
    with pytest.raises(InvalidInput):
        committer.import_owner(lines[:-1], f"owner-{uuid.uuid4().hex}")
    with pytest.raises(InvalidInput):
        committer.import_owner(["{}", *lines[1:]], f"owner-{uuid.uuid4().hex}")


def test_every_owned_label_is_a_kind_of_the_export() -> None:
    """A label added to erasure's list must be added to the export's table too."""
    assert set(OWNED_LABELS) <= set(BY_LABEL)
    assert KINDS[0].label == "Owner"
