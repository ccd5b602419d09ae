"""GET /v1/entities/{id}/neighbors: relationship traversal to depth 3 (CONTRACT §6, §10)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from neo4j import Driver

from tests.api.conftest import Api, make_api

T0 = "2024-01-01T00:00:00Z"


def rel(api: Api, subject: str, attribute: str, obj: str, **extra: Any) -> dict[str, Any]:
    return api.fact(subject, attribute=attribute, object_id=obj, valid_from=T0, **extra)["fact"]


def names(body: dict[str, Any]) -> dict[str, int]:
    return {item["entity"]["name"]: len(item["via"]) for item in body["items"]}


@pytest.fixture
def chain(api: Api) -> dict[str, Any]:
    """ana -knows-> bo -works_on-> kube <-works_on- cy -member_of-> club; ana likes tea."""
    ids = {
        n: api.entity(n, kind)["id"]
        for n, kind in (
            ("Ana", "person"),
            ("Bo", "person"),
            ("Kube", "project"),
            ("Cy", "person"),
            ("Club", "group"),
        )
    }
    facts = {
        "ana_bo": rel(api, ids["Ana"], "knows", ids["Bo"]),
        "bo_kube": rel(api, ids["Bo"], "works_on", ids["Kube"]),
        "cy_kube": rel(api, ids["Cy"], "works_on", ids["Kube"]),
        "cy_club": rel(api, ids["Cy"], "member_of", ids["Club"]),
    }
    api.fact(ids["Ana"], attribute="likes", value="tea", valid_from=T0)
    return {"ids": ids, "facts": facts}


def test_depth_one_to_three_widens_the_circle(api: Api, chain: dict[str, Any]) -> None:
    """Each extra hop adds the entities one relationship further, in either direction."""
    ana = chain["ids"]["Ana"]
    got = [names(api.get(f"/v1/entities/{ana}/neighbors?depth={d}").json()) for d in (1, 2, 3)]
    assert got[0] == {"Bo": 1}
    assert got[1] == {"Bo": 1, "Kube": 2}
    assert got[2] == {"Bo": 1, "Kube": 2, "Cy": 3}


def test_via_is_the_path_of_facts_in_order(api: Api, chain: dict[str, Any]) -> None:
    """`via` lists the rows from the start outwards, incoming edges included, as Facts."""
    cy = chain["ids"]["Cy"]
    body = api.get(f"/v1/entities/{cy}/neighbors?depth=3").json()
    by_name = {i["entity"]["name"]: i for i in body["items"]}
    f = chain["facts"]
    assert [v["id"] for v in by_name["Ana"]["via"]] == [
        f["cy_kube"]["id"],
        f["bo_kube"]["id"],
        f["ana_bo"]["id"],
    ]
    assert by_name["Ana"]["via"][2]["attribute"] == "knows"
    assert by_name["Ana"]["via"][2]["object_id"] == chain["ids"]["Bo"]
    assert [i["entity"]["name"] for i in body["items"]] == sorted(
        by_name, key=lambda n: (len(by_name[n]["via"]), by_name[n]["entity"]["id"])
    )


def test_default_depth_is_one_and_values_are_no_edges(api: Api, chain: dict[str, Any]) -> None:
    """Without `depth` one hop is taken; scalar facts (likes tea) lead nowhere."""
    body = api.get(f"/v1/entities/{chain['ids']['Ana']}/neighbors").json()
    assert names(body) == {"Bo": 1}


def test_cycle_reaches_each_entity_once_by_its_shortest_path(api: Api) -> None:
    """A -> B -> C -> A: from A both B and C are one hop away; A itself is not listed."""
    a, b, c = (api.entity(n)["id"] for n in ("A", "B", "C"))
    ab, bc, ca = rel(api, a, "knows", b), rel(api, b, "knows", c), rel(api, c, "knows", a)
    body = api.get(f"/v1/entities/{a}/neighbors?depth=3").json()
    got = {i["entity"]["id"]: [v["id"] for v in i["via"]] for i in body["items"]}
    assert got == {b: [ab["id"]], c: [ca["id"]]}
    assert bc["id"] not in {f for path in got.values() for f in path}


def test_ties_between_shortest_paths_go_to_the_smallest_fact_ids(api: Api) -> None:
    """Two two-hop paths to D: the one whose fact ids are smaller, read from the start."""
    a, b, c, d = (api.entity(n)["id"] for n in ("A", "B", "C", "D"))
    paths = [
        [rel(api, a, "knows", b)["id"], rel(api, b, "knows", d)["id"]],
        [rel(api, a, "knows", c)["id"], rel(api, c, "knows", d)["id"]],
    ]
    body = api.get(f"/v1/entities/{a}/neighbors?depth=2").json()
    via = {i["entity"]["id"]: [v["id"] for v in i["via"]] for i in body["items"]}
    assert via[d] == min(paths)
    again = api.get(f"/v1/entities/{a}/neighbors?depth=2").json()
    assert again == body


def test_two_facts_between_the_same_pair_pick_the_smaller_id(api: Api) -> None:
    """Parallel relationships (knows and works_with) between A and B: one path, smallest id."""
    a, b = api.entity("A")["id"], api.entity("B")["id"]
    ids = [rel(api, a, "knows", b)["id"], rel(api, b, "works_with", a)["id"]]
    body = api.get(f"/v1/entities/{a}/neighbors").json()
    assert [[v["id"] for v in i["via"]] for i in body["items"]] == [[min(ids)]]


@pytest.mark.parametrize("depth", ["0", "4", "-1", "two"])
def test_depth_outside_one_to_three_is_422_naming_depth(
    api: Api, chain: dict[str, Any], depth: str
) -> None:
    """depth must be 1, 2 or 3 (CONTRACT §6: traversal to depth <= 3)."""
    r = api.get(f"/v1/entities/{chain['ids']['Ana']}/neighbors?depth={depth}")
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "depth" in r.json()["detail"]


def test_valid_at_follows_only_relationships_holding_then(api: Api) -> None:
    """A relationship that ended (valid_to) is not followed after, but is before."""
    a, b, c = (api.entity(n)["id"] for n in ("A", "B", "C"))
    rel(api, a, "works_on", b, valid_to="2024-06-01T00:00:00Z")
    api.fact(a, attribute="works_on", object_id=c, valid_from="2024-06-01T00:00:00Z")
    may = api.get(f"/v1/entities/{a}/neighbors?valid_at=2024-05-01T00:00:00Z").json()
    july = api.get(f"/v1/entities/{a}/neighbors?valid_at=2024-07-01T00:00:00%2B02:00").json()
    assert [i["entity"]["id"] for i in may["items"]] == [b]
    assert [i["entity"]["id"] for i in july["items"]] == [c]


def test_known_at_sees_what_was_believed_then(api: Api) -> None:
    """A relationship recorded later is absent at an earlier known_at; a retracted one is
    absent now but present at a known_at before the retraction."""
    a, b, c = (api.entity(n)["id"] for n in ("A", "B", "C"))
    ab = rel(api, a, "knows", b)
    time.sleep(0.01)
    before_c = api.get(f"/v1/facts/{ab['id']}").json()["recorded_at"]
    time.sleep(0.01)
    rel(api, a, "knows", c)
    assert api.delete(f"/v1/facts/{ab['id']}?mode=retract").status_code == 200
    now = api.get(f"/v1/entities/{a}/neighbors").json()
    then = api.get(f"/v1/entities/{a}/neighbors", params={"known_at": before_c}).json()
    assert [i["entity"]["id"] for i in now["items"]] == [c]
    assert [i["entity"]["id"] for i in then["items"]] == [b]


def test_naive_timestamp_is_422_naming_the_field(api: Api, chain: dict[str, Any]) -> None:
    """valid_at without an offset is refused (CONTRACT §2)."""
    r = api.get(f"/v1/entities/{chain['ids']['Ana']}/neighbors?valid_at=2024-05-01T00:00:00")
    assert r.status_code == 422
    assert "valid_at" in r.json()["detail"]


def test_another_owners_entity_is_404(api: Api, other: Api, chain: dict[str, Any]) -> None:
    """Another owner's id answers 404, exactly like an id that does not exist (§7)."""
    r = other.get(f"/v1/entities/{chain['ids']['Ana']}/neighbors")
    assert r.status_code == 404
    assert api.get("/v1/entities/ent_doesnotexist/neighbors").status_code == 404


def test_none_chat_is_403(api: Api, chain: dict[str, Any]) -> None:
    """A chat whose memory access is `none` is refused, with a detail saying so (§7)."""
    api.client.put("/v1/chats/clean/memory-access", json={"mode": "none"}, headers=api.headers)
    r = api.get(f"/v1/entities/{chain['ids']['Ana']}/neighbors?chat_id=clean")
    assert r.status_code == 403
    assert "memory is off in this chat" in r.json()["detail"]


def test_restricted_chat_follows_only_allowed_areas(api: Api, chain: dict[str, Any]) -> None:
    """Under `restricted` to area work, `knows` (family) is not followed but works_on is."""
    api.client.put(
        "/v1/chats/work/memory-access",
        headers=api.headers,
        json={"mode": "restricted", "areas": ["work"], "sources": ["user_edit"]},
    )
    ana, bo = chain["ids"]["Ana"], chain["ids"]["Bo"]
    assert api.get(f"/v1/entities/{ana}/neighbors?depth=3&chat_id=work").json()["items"] == []
    body = api.get(f"/v1/entities/{bo}/neighbors?depth=3&chat_id=work").json()
    assert names(body) == {"Kube": 1, "Cy": 2}


def test_read_scope_is_needed(
    client: Any, neo4j_driver: Driver, owner: str, chain: dict[str, Any]
) -> None:
    """A token without `read` is refused with 403."""

    writer = make_api(client, neo4j_driver, owner, ("write",))
    assert writer.get(f"/v1/entities/{chain['ids']['Ana']}/neighbors").status_code == 403


def test_merged_start_reads_its_survivor(api: Api) -> None:
    """Asking from a merged id traverses from the survivor (CONTRACT §5)."""
    a, a2, b = api.entity("Al")["id"], api.entity("Alan")["id"], api.entity("Bea")["id"]
    rel(api, a, "knows", b)
    assert api.post(f"/v1/entities/{a2}/merge", {"into": a}).status_code == 200
    body = api.get(f"/v1/entities/{a2}/neighbors").json()
    assert [i["entity"]["id"] for i in body["items"]] == [b]
