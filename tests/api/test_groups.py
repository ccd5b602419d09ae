"""Groups: owners who share entities (CONTRACT §7 "or to a group, visible to its members")."""

from __future__ import annotations

from typing import Any

import pytest

from graph.time import utcnow
from tests.api.conftest import Api, make_api
from tests.api.test_episodes import post_run
from tests.api.test_forget_episodes import user
from tests.api.test_proposals_api import me


def _now() -> str:
    return utcnow().isoformat().replace("+00:00", "Z")


@pytest.fixture
def third(client: Any, neo4j_driver: Any, owner: str) -> Api:
    """A third owner, never in the group."""
    return make_api(client, neo4j_driver, owner + "-third", ("read", "write", "curate", "admin"))


def group_of(creator: Api, *members: Api) -> str:
    r = creator.post("/v1/groups", {"name": "family"})
    assert r.status_code == 201, r.text
    for m in members:
        assert (
            creator.post(f"/v1/groups/{r.json()['id']}/members", {"owner": m.owner}).status_code
            == 201
        )
    return r.json()["id"]  # type: ignore[no-any-return]


def share(api: Api, group_id: str, entity_id: str) -> Any:
    return api.post(f"/v1/groups/{group_id}/shares", {"entity_id": entity_id})


def test_create_and_list(api: Api, other: Api) -> None:
    """POST /v1/groups answers 201 {id, name, owner, members}; GET lists the caller's
    groups only, and a member sees the group once added."""
    r = api.post("/v1/groups", {"name": "family"})
    assert r.status_code == 201
    g = r.json()
    assert (g["name"], g["owner"], g["members"], g["shares"]) == (
        "family",
        api.owner,
        [api.owner],
        [],
    )
    assert g["created_at"].endswith("Z")
    assert [x["id"] for x in api.get("/v1/groups").json()["items"]] == [g["id"]]
    assert other.get("/v1/groups").json()["items"] == []
    api.post(f"/v1/groups/{g['id']}/members", {"owner": other.owner})
    [seen] = other.get("/v1/groups").json()["items"]
    assert seen["members"] == [api.owner, other.owner]


def test_only_the_creator_manages_members(api: Api, other: Api, third: Api) -> None:
    """A member who is not the creator gets 403; an outsider gets the 404 of an unknown
    group; the creator cannot be removed (409); removing a non-member is a 404."""
    gid = group_of(api, other)
    r = other.post(f"/v1/groups/{gid}/members", {"owner": third.owner})
    assert r.status_code == 403 and r.headers["content-type"] == "application/problem+json"
    assert other.delete(f"/v1/groups/{gid}/members/{api.owner}").status_code == 403
    outsider = third.post(f"/v1/groups/{gid}/members", {"owner": third.owner})
    unknown = third.post("/v1/groups/grp_000000000000000000000000/members", {"owner": third.owner})
    assert outsider.status_code == unknown.status_code == 404
    assert outsider.json()["title"] == unknown.json()["title"]
    assert api.delete(f"/v1/groups/{gid}/members/{api.owner}").status_code == 409
    assert api.delete(f"/v1/groups/{gid}/members/{third.owner}").status_code == 404
    again = api.post(f"/v1/groups/{gid}/members", {"owner": other.owner})
    assert again.status_code == 201 and again.json()["members"] == [api.owner, other.owner]


def test_a_member_reads_a_shared_entity_through_every_read(api: Api, other: Api) -> None:
    """Shared: the member sees the entity, its facts, history and rows, and finds it in
    lists; its own "Bob" stays its own."""
    gid = group_of(api, other)
    atlas = api.entity("Atlas", kind="project")
    fact = api.fact(atlas["id"], attribute="location", value="Geneva")["fact"]
    other.entity("Bob")
    assert other.get(f"/v1/entities/{atlas['id']}").status_code == 404
    r = share(api, gid, atlas["id"])
    assert r.status_code == 201
    assert (r.json()["owner"], r.json()["entity_id"], r.json()["unshared_at"]) == (
        api.owner,
        atlas["id"],
        None,
    )
    got = other.get(f"/v1/entities/{atlas['id']}").json()
    assert got["entity"]["name"] == "Atlas" and [f["value"] for f in got["facts"]] == ["Geneva"]
    assert other.get(f"/v1/entities/{atlas['id']}/facts").json()["items"][0]["id"] == fact["id"]
    assert other.get(f"/v1/entities/{atlas['id']}/history/location").status_code == 200
    assert other.get(f"/v1/facts/{fact['id']}").json()["value"] == "Geneva"
    names = sorted(e["name"] for e in other.get("/v1/entities").json()["items"])
    assert names == sorted(["Atlas", "Bob", other.owner])
    assert [s["entity_id"] for s in other.get("/v1/groups").json()["items"][0]["shares"]] == [
        atlas["id"]
    ]


def test_a_member_cannot_write_to_a_shared_entity(api: Api, other: Api) -> None:
    """Writes to another owner's entity stay 404, shared or not: facts, forget, retract,
    merge, relationships to it, and passing the share on."""
    gid = group_of(api, other)
    atlas = api.entity("Atlas", kind="project")
    fact = api.fact(atlas["id"], attribute="location", value="Geneva")["fact"]
    share(api, gid, atlas["id"])
    mine = other.entity("Bob")
    attempts = [
        other.post(f"/v1/entities/{atlas['id']}/facts", {"attribute": "likes", "value": "x"}),
        other.post(
            f"/v1/entities/{mine['id']}/facts", {"attribute": "knows", "object_id": atlas["id"]}
        ),
        other.delete(f"/v1/facts/{fact['id']}"),
        other.delete(f"/v1/facts/{fact['id']}?mode=retract"),
        other.post(f"/v1/entities/{atlas['id']}/merge", {"into": mine["id"]}),
        other.post(f"/v1/entities/{mine['id']}/merge", {"into": atlas["id"]}),
        share(other, gid, atlas["id"]),
    ]
    assert [a.status_code for a in attempts] == [404] * len(attempts), [a.text for a in attempts]
    assert [f["value"] for f in api.get(f"/v1/entities/{atlas['id']}/facts").json()["items"]] == [
        "Geneva"
    ]


def test_only_a_member_shares_only_its_own(api: Api, other: Api, third: Api) -> None:
    """An outsider cannot share into the group (404 like an unknown group); nobody shares
    another owner's entity (404 like an unknown entity); sharing twice is one share."""
    gid = group_of(api, other)
    own = third.entity("Mine")
    assert share(third, gid, own["id"]).status_code == 404
    foreign = share(api, gid, own["id"])
    unknown = share(api, gid, "ent_000000000000000000000000")
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json()["title"] == unknown.json()["title"]
    atlas = api.entity("Atlas", kind="project")
    first, second = share(api, gid, atlas["id"]), share(api, gid, atlas["id"])
    assert first.json()["shared_at"] == second.json()["shared_at"]
    assert len(api.get("/v1/groups").json()["items"][0]["shares"]) == 1


def test_unshare_and_time_travel(api: Api, other: Api) -> None:
    """Shares live in transaction time: known_at before the share sees nothing, between
    share and unshare sees it, after the unshare sees nothing again."""
    gid = group_of(api, other)
    atlas = api.entity("Atlas", kind="project")
    api.fact(atlas["id"], attribute="location", value="Geneva")
    before = _now()
    share(api, gid, atlas["id"])
    during = _now()
    r = api.delete(f"/v1/groups/{gid}/shares/{atlas['id']}")
    assert r.status_code == 200 and r.json()["unshared_at"] is not None
    url = f"/v1/entities/{atlas['id']}"
    assert other.get(url).status_code == 404
    assert other.get(url, params={"known_at": before}).status_code == 404
    assert other.get(url, params={"known_at": during}).json()["facts"][0]["value"] == "Geneva"
    listed = other.get("/v1/entities", params={"known_at": during}).json()["items"]
    assert atlas["id"] in [e["id"] for e in listed]
    assert api.delete(f"/v1/groups/{gid}/shares/{atlas['id']}").status_code == 404
    assert other.delete(f"/v1/groups/{gid}/shares/{atlas['id']}").status_code == 404


def test_a_removed_member_loses_the_group_and_its_shares_end(api: Api, other: Api) -> None:
    """Removed: the member no longer sees what was shared with it, and what it had shared
    is no longer seen by the others."""
    gid = group_of(api, other)
    atlas, bob = api.entity("Atlas", kind="project"), other.entity("Bob")
    share(api, gid, atlas["id"])
    share(other, gid, bob["id"])
    assert api.get(f"/v1/entities/{bob['id']}").status_code == 200
    r = api.delete(f"/v1/groups/{gid}/members/{other.owner}")
    assert r.status_code == 200 and r.json()["members"] == [api.owner]
    assert [s["entity_id"] for s in r.json()["shares"]] == [atlas["id"]]
    assert other.get(f"/v1/entities/{atlas['id']}").status_code == 404
    assert api.get(f"/v1/entities/{bob['id']}").status_code == 404
    assert other.get("/v1/groups").json()["items"] == []
    assert share(other, gid, bob["id"]).status_code == 404


def test_group_writes_need_the_write_scope(client: Any, neo4j_driver: Any, api: Api) -> None:
    """A read token lists groups but cannot create one (403)."""
    reader = make_api(client, neo4j_driver, api.owner, ("read",))
    assert reader.post("/v1/groups", {"name": "x"}).status_code == 403
    assert reader.get("/v1/groups").status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "x" * 201}, "name"),
        ({"name": "x", "extra": 1}, "extra"),
    ],
)
def test_bad_group_input_is_422_naming_the_field(api: Api, body: Any, field: str) -> None:
    """Bad bodies are problem+json 422 naming the field."""
    r = api.post("/v1/groups", body)
    assert r.status_code == 422 and field in [e["field"] for e in r.json()["errors"]]


def test_a_shared_entity_merged_into_an_unshared_one_names_no_other_id(
    api: Api, other: Api
) -> None:
    """The owner merges a shared entity into one it did not share: the member gets the 404
    of the id it asked for, never the survivor's id (CONTRACT §7)."""
    gid = group_of(api, other)
    loser, survivor = (
        api.entity("Atlas", kind="project"),
        api.entity("Atlas Project", kind="project"),
    )
    share(api, gid, loser["id"])
    assert (
        api.post(f"/v1/entities/{loser['id']}/merge", {"into": survivor["id"]}).status_code == 200
    )
    r = other.get(f"/v1/entities/{loser['id']}")
    assert r.status_code == 404 and survivor["id"] not in r.text and loser["id"] in r.text


def test_a_member_must_be_an_existing_owner(api: Api) -> None:
    """Adding an owner that does not exist is a 422 naming `owner`: a typo must not
    pre-grant the group's shares to whoever takes that name later."""
    group = api.post("/v1/groups", {"name": "typo"}).json()
    r = api.post(f"/v1/groups/{group['id']}/members", {"owner": "nobody-" + group["id"]})
    assert r.status_code == 422 and "owner" in r.text
    assert all("nobody-" not in str(g["members"]) for g in api.get("/v1/groups").json()["items"])


def test_a_members_prefetch_names_no_speaker_it_cannot_see(api: Api, other: Api, app: Any) -> None:
    """A shared entity's fact said by its owner: the member's prefetch tags it "shared by"
    the sharer and names no `speaker_id` (the sharer's own person entity is not the
    member's to see, CONTRACT §7); the sharer's own prefetch still names it."""
    post_run(api, app, "r1", [user("My brother Jon lives in Berlin.")])
    [held] = api.get("/v1/proposals", params={"status": "pending"}).json()["items"]
    assert held["attribute"] == "location", held
    assert api.post(f"/v1/proposals/{held['id']}/keep", {}).status_code == 200
    [jon] = [e for e in api.get("/v1/entities", params={"q": "Jon"}).json()["items"]]
    assert share(api, group_of(api, other), jon["id"]).status_code == 201

    def berlin(who: Api) -> dict[str, Any]:
        body = who.post("/v1/prefetch", {"chat_id": "c1", "message": "How is Jon?"}).json()
        [line] = [i for i in body["items"] if i.get("value") == "Berlin"]
        return line  # type: ignore[no-any-return]

    theirs = berlin(other)
    assert (theirs["tag"], theirs["speaker"], theirs["speaker_id"], theirs["shared_by"]) == (
        f"shared by {api.owner}",
        "someone else",
        None,
        api.owner,
    ), theirs
    mine = berlin(api)
    assert (mine["tag"], mine["speaker"], mine["speaker_id"], mine["shared_by"]) == (
        "told by you",
        "you",
        me(api),
        None,
    )


def test_a_members_prefetch_never_says_you_for_what_the_sharer_entered(
    api: Api, other: Api
) -> None:
    """A fact the sharer entered over REST (`user_edit`, no speaker) on a shared entity:
    the member's block and item say "shared by" the sharer, never "entered by you"
    (CONTRACT §7, §12); the sharer's own prefetch still says "entered by you"."""
    atlas = api.entity("Atlas", kind="project")
    api.fact(atlas["id"], attribute="location", value="Geneva")
    assert share(api, group_of(api, other), atlas["id"]).status_code == 201

    def geneva(who: Api) -> tuple[str, dict[str, Any]]:
        body = who.post("/v1/prefetch", {"chat_id": "c1", "message": "Where is Atlas?"}).json()
        [line] = [i for i in body["items"] if i.get("value") == "Geneva"]
        return body["block"], line

    block, theirs = geneva(other)
    assert (theirs["tag"], theirs["speaker"], theirs["shared_by"]) == (
        f"shared by {api.owner}",
        api.owner,
        api.owner,
    ), theirs
    assert f"shared by {api.owner}" in block and "entered by you" not in block, block
    block, mine = geneva(api)
    assert (mine["tag"], mine["shared_by"]) == ("entered by you", None)
    assert "entered by you" in block
