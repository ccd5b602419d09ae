"""Group notes (a group plays an organization) and handing a project's notes over
(CONTRACT §13): who sees what, as of when."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from tests.api.conftest import Api, make_api


def z() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def note(api: Api, **body: Any) -> dict[str, Any]:
    r = api.post("/v1/notes", {"kind": "convention", **body})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def titles(api: Api, **params: str) -> list[str]:
    r = api.get("/v1/notes", params=params)
    assert r.status_code == 200, r.text
    return sorted(n["title"] for n in r.json()["items"])


def group_of(a: Api, *members: Api) -> str:
    gid: str = a.post("/v1/groups", {"name": "org"}).json()["id"]
    for m in members:
        assert a.post(f"/v1/groups/{gid}/members", {"owner": m.owner}).status_code == 201
    return gid


def test_members_read_and_write_the_groups_notes_and_leavers_stop(
    api: Api, other: Api, client: Any, neo4j_driver: Any
) -> None:
    """A group's note is seen by its members (not by others); a member writes its next
    version; a member removed sees it no more, except with known_at while a member."""
    stranger = make_api(client, neo4j_driver, api.owner + "-x", ("read", "write"))
    gid = group_of(api, other)
    first = note(api, title="Errors are problem+json", key="errors", group_id=gid)
    assert first["note"]["group_id"] == gid
    assert titles(other) == ["Errors are problem+json"]
    assert titles(stranger) == []
    nid = first["note"]["id"]
    assert stranger.get(f"/v1/notes/{nid}").status_code == 404
    assert (
        stranger.post("/v1/notes", {"kind": "context", "title": "x", "group_id": gid}).status_code
        == 404
    )
    second = note(other, title="Errors are RFC 9457 problems", key="errors", group_id=gid)
    assert second["effect"] == "replaced" and second["note"]["id"] == nid
    assert titles(api) == ["Errors are RFC 9457 problems"]
    member = z()
    time.sleep(0.01)
    assert api.delete(f"/v1/groups/{gid}/members/{other.owner}").status_code == 200
    assert titles(other) == []
    assert other.get(f"/v1/notes/{nid}").status_code == 404
    assert titles(other, known_at=member) == ["Errors are RFC 9457 problems"]


def test_an_own_note_stands_for_its_key_before_the_groups(api: Api, other: Api) -> None:
    """Under one key: the member's project note, then the group's project note, then the
    member's general note, then the group's general note."""
    gid = group_of(api, other)
    note(api, title="Group: deploy on Tuesdays", key="deploys", group_id=gid)
    assert titles(other) == ["Group: deploy on Tuesdays"]
    note(other, title="Mine: deploy on Mondays", key="deploys")
    assert titles(other) == ["Mine: deploy on Mondays"]
    assert titles(api) == ["Group: deploy on Tuesdays"]
    note(api, title="Group Atlas: deploy on Fridays", key="deploys", group_id=gid, project="atlas")
    assert titles(other, project="atlas") == ["Group Atlas: deploy on Fridays"]
    note(other, title="Mine Atlas: never deploy", key="deploys", project="atlas")
    assert titles(other, project="atlas") == ["Mine Atlas: never deploy"]
    assert titles(api, project="atlas") == ["Group Atlas: deploy on Fridays"]


def test_handover_moves_a_projects_notes_as_one_event(api: Api, other: Api) -> None:
    """A hands project Atlas to B: A's reads now miss the notes and B's see them (same ids,
    first_learned_at kept); with known_at before, the other way round. One event id is in
    both owners' trails."""
    kept = note(api, title="Atlas uses the v2 endpoints", key="endpoints", project="Atlas")
    note(api, title="Atlas uses the v3 endpoints", key="endpoints", project="Atlas")
    note(api, title="Atlas demo every Friday", project="atlas", kind="decision")
    note(api, title="General note stays", key="general")
    before = z()
    time.sleep(0.01)
    r = api.post("/v1/notes/handover", {"project": "ATLAS", "to": other.owner})
    assert r.status_code == 200, r.text
    done = r.json()
    assert len(done["note_ids"]) == 2 and done["rows"] == 3
    assert titles(api, project="atlas") == ["General note stays"]
    assert titles(other, project="atlas") == [
        "Atlas demo every Friday",
        "Atlas uses the v3 endpoints",
    ]
    assert titles(api, project="atlas", known_at=before) == [
        "Atlas demo every Friday",
        "Atlas uses the v3 endpoints",
        "General note stays",
    ]
    assert titles(other, project="atlas", known_at=before) == []
    nid = kept["note"]["id"]
    moved = other.get(f"/v1/notes/{nid}").json()
    assert moved["first_learned_at"] == kept["note"]["first_learned_at"] and moved["version"] == 2
    history = other.get(f"/v1/notes/{nid}/history").json()["items"]
    assert [v["version"] for v in history] == [1, 2]
    assert api.get(f"/v1/notes/{nid}").status_code == 404
    assert api.get(f"/v1/notes/{nid}", params={"known_at": before}).json()["version"] == 2
    chain = other.get(f"/v1/notes/{nid}/why").json()["chain"]
    assert done["event_id"] in [e["id"] for e in chain]
    effects = api.get(f"/v1/events/{done['event_id']}/effects")
    assert effects.status_code == 200


def test_handover_refusals(api: Api, other: Api, client: Any, neo4j_driver: Any) -> None:
    """404 without notes of the project; 422 for an unknown owner or oneself; 409 when the
    receiver keeps the same key there; 403 without `admin`."""
    note(api, title="Borealis ships nightly", key="ships", project="borealis")
    assert api.post("/v1/notes/handover", {"project": "nope", "to": other.owner}).status_code == 404
    unknown = api.post("/v1/notes/handover", {"project": "borealis", "to": "nobody-" + api.owner})
    assert unknown.status_code == 422 and unknown.json()["errors"][0]["field"] == "to"
    assert (
        api.post("/v1/notes/handover", {"project": "borealis", "to": api.owner}).status_code == 422
    )
    note(other, title="Borealis ships weekly", key="ships", project="Borealis")
    clash = api.post("/v1/notes/handover", {"project": "borealis", "to": other.owner})
    assert clash.status_code == 409 and "ships" in clash.json()["detail"]
    writer = make_api(client, neo4j_driver, api.owner, ("read", "write"))
    assert (
        writer.post("/v1/notes/handover", {"project": "borealis", "to": other.owner}).status_code
        == 403
    )
