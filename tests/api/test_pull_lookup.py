"""GET /v1/lookup and GET /v1/entities/{id}/facts?chat_id= (CONTRACT §6 lookup, current facts)."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import Driver

from tests.api.conftest import Api

T0 = "2024-01-01T00:00:00Z"


def lookup(api: Api, name: str, **params: Any) -> list[dict[str, Any]]:
    r = api.get("/v1/lookup", params={"name": name, **params})
    assert r.status_code == 200, r.text
    return r.json()["items"]  # type: ignore[no-any-return]


def test_lookup_by_name_ignores_case_and_accents(api: Api) -> None:
    """ "zoe o'brien" finds "Zoë  O'Brien", with its current facts."""
    z = api.entity("Zoë  O'Brien")["id"]
    api.fact(z, attribute="location", value="Cork", valid_from=T0)
    [item] = lookup(api, "ZOE O'BRIEN")
    assert item["entity"]["id"] == z
    assert [(f["attribute"], f["value"]) for f in item["facts"]] == [("location", "Cork")]


def test_lookup_by_alias(api: Api) -> None:
    """An alias finds its entity; a partial name does not (exact after normalization)."""
    k = api.entity("Kubernetes migration", "project", aliases=["K8s", "Kübe"])["id"]
    assert [i["entity"]["id"] for i in lookup(api, "k8s")] == [k]
    assert [i["entity"]["id"] for i in lookup(api, "kube")] == [k]
    assert lookup(api, "Kubernetes") == []


def test_lookup_lists_every_entity_of_that_name_oldest_first(api: Api) -> None:
    """Two entities called Sam (a person and a dog): both, in creation order."""
    first, second = api.entity("Sam")["id"], api.entity("Sam", "pet")["id"]
    assert [i["entity"]["id"] for i in lookup(api, "sam")] == [first, second]


def test_lookup_at_known_at_before_creation_finds_nothing(api: Api) -> None:
    """An entity created after known_at is not there yet."""
    api.entity("Nia")
    assert lookup(api, "nia", known_at="2000-01-01T00:00:00Z") == []


def test_lookup_never_sees_another_owner(api: Api, other: Api) -> None:
    """Another owner's entity of the same name is invisible (CONTRACT §7)."""
    api.entity("Olga")
    assert lookup(other, "olga") == []


def test_lookup_merged_loser_is_left_out(api: Api) -> None:
    """After a merge the loser's name is an alias of the survivor, found once."""
    a, b = api.entity("Jon")["id"], api.entity("Jonny")["id"]
    assert api.post(f"/v1/entities/{b}/merge", {"into": a}).status_code == 200
    assert [i["entity"]["id"] for i in lookup(api, "jonny")] == [a]


@pytest.mark.parametrize("name", ["", " " * 3, "x" * 201])
def test_lookup_bad_name_is_422(api: Api, name: str) -> None:
    """A blank or overlong name is refused naming `name`."""
    r = api.get("/v1/lookup", params={"name": name})
    assert r.status_code == 422 and "name" in r.json()["detail"]


def test_lookup_restricted_chat_filters_facts(api: Api) -> None:
    """Under `restricted` (area place only), the entity is found with only place facts."""
    z = api.entity("Zed")["id"]
    api.fact(z, attribute="location", value="Oslo", valid_from=T0)
    api.fact(z, attribute="likes", value="skiing", valid_from=T0)
    api.client.put(
        "/v1/chats/p/memory-access",
        headers=api.headers,
        json={"mode": "restricted", "areas": ["place"], "sources": ["user_edit"]},
    )
    [item] = lookup(api, "zed", chat_id="p")
    assert [f["attribute"] for f in item["facts"]] == ["location"]


def test_lookup_none_chat_is_403(api: Api) -> None:
    """Memory off in the chat: 403 problem+json."""
    api.client.put("/v1/chats/off/memory-access", json={"mode": "none"}, headers=api.headers)
    r = api.get("/v1/lookup", params={"name": "x", "chat_id": "off"})
    assert r.status_code == 403
    assert r.headers["content-type"].startswith("application/problem+json")


def test_facts_honour_chat_id(api: Api) -> None:
    """GET /v1/entities/{id}/facts?chat_id= applies that chat's memory access."""
    z = api.entity("Zed")["id"]
    api.fact(z, attribute="location", value="Oslo", valid_from=T0)
    api.fact(z, attribute="likes", value="skiing", valid_from=T0)
    api.client.put(
        "/v1/chats/p/memory-access",
        headers=api.headers,
        json={"mode": "restricted", "areas": ["preferences"], "sources": ["user_edit"]},
    )
    api.client.put("/v1/chats/off/memory-access", json={"mode": "none"}, headers=api.headers)
    full = api.get(f"/v1/entities/{z}/facts").json()["items"]
    restricted = api.get(f"/v1/entities/{z}/facts?chat_id=p").json()["items"]
    assert sorted(f["attribute"] for f in full) == ["likes", "location"]
    assert [f["attribute"] for f in restricted] == ["likes"]
    assert api.get(f"/v1/entities/{z}/facts?chat_id=off").status_code == 403
    assert api.get(f"/v1/entities/{z}/facts?chat_id=elsewhere").json()["items"] == full


def test_shared_entity_is_read_but_not_traversed_beyond(
    api: Api, other: Api, neo4j_driver: Driver
) -> None:
    """An entity another owner shares through a group is found and read, and traversal
    from it stops at the sharer's entities that are not shared (CONTRACT §7)."""
    team = other.entity("Team Kube", "project")["id"]
    secret = other.entity("Secret person")["id"]
    other.fact(team, attribute="location", value="Oslo", valid_from=T0)
    other.fact(secret, attribute="works_on", object_id=team, valid_from=T0)
    # Group membership and share as graph/scope.py SHARED_ENTITY_IDS reads them.
    neo4j_driver.execute_query(
        "CREATE (:Membership {member: $me, group_id: $g, joined_at: datetime() - duration('PT1H'),"
        " left_at: datetime('9999-12-31T00:00:00Z')})"
        " CREATE (:Share {group_id: $g, entity_id: $team, owner: $them,"
        " shared_at: datetime() - duration('PT1H'), shared_by: $them,"
        " unshared_at: datetime('9999-12-31T00:00:00Z')})",
        me=api.owner,
        them=other.owner,
        g=f"grp-{api.owner}",
        team=team,
    )
    [item] = lookup(api, "team kube")
    assert item["entity"]["id"] == team
    assert [f["value"] for f in item["facts"]] == ["Oslo"]
    assert api.get(f"/v1/entities/{team}/neighbors?depth=3").json()["items"] == []
    assert api.get(f"/v1/entities/{secret}/neighbors").status_code == 404


def test_entity_pages_follow_their_cursor_and_refuse_any_other(api: Api) -> None:
    """`GET /v1/entities` pages by an opaque cursor: following `next` lists each entity
    once; a cursor the listing did not give, or gave for another `q`, is 422 naming
    `cursor` (found by a tester: `cursor=junk` answered 200 with an empty page)."""
    made = {api.entity(f"Pager {i}")["id"] for i in range(5)}
    seen: list[str] = []
    params: dict[str, Any] = {"q": "pager", "limit": 2}
    while True:
        r = api.get("/v1/entities", params=params)
        assert r.status_code == 200, r.text
        seen += [e["id"] for e in r.json()["items"]]
        if r.json()["next"] is None:
            break
        params["cursor"] = r.json()["next"]
    assert sorted(seen) == sorted(made)
    first = api.get("/v1/entities", params={"q": "pager", "limit": 2}).json()["next"]
    for bad in ("junk", "A", first[:-2], sorted(made)[0]):
        r = api.get("/v1/entities", params={"q": "pager", "cursor": bad})
        assert r.status_code == 422 and "cursor" in r.json()["detail"], (bad, r.text)
    r = api.get("/v1/entities", params={"q": "other", "cursor": first})
    assert r.status_code == 422 and "cursor" in r.json()["detail"]
