"""Knowledge documents over REST (CONTRACT §14): versioned in transaction time, read as of
a point, listed without bodies, restored, retired, held by an owner or a group, bounded."""

from __future__ import annotations

from typing import Any

import pytest

import committer.knowledge
from committer.apply import Committer
from tests.api.conftest import Api, make_api
from tests.api.test_groups import group_of

DOC = "/v1/knowledge/billing/edge-cases"


def put(api: Api, url: str, body: str, description: str = "Billing edge cases", **kw: Any) -> Any:
    return api.client.put(
        url, json={"description": description, "body": body, **kw}, headers=api.headers
    )


def test_every_edit_is_a_version_and_each_reads_as_it_was(api: Api) -> None:
    """Three edits give versions 1-3; GET reads the latest, `known_at` each earlier one,
    `/versions` lists all three oldest first with who and why, and the same content again
    writes nothing."""
    first = put(api, DOC, "Refunds within 30 days.", reason="first draft")
    assert first.status_code == 200 and first.json()["changed"] is True
    v1 = first.json()["document"]
    v2 = put(api, DOC, "Refunds within 14 days.").json()["document"]
    v3 = put(api, DOC, "Refunds within 14 days; prorate upgrades.").json()["document"]
    assert [v1["version"], v2["version"], v3["version"]] == [1, 2, 3]
    again = put(api, DOC, "Refunds within 14 days; prorate upgrades.").json()
    assert again["changed"] is False and again["document"]["version"] == 3
    now = api.get(DOC).json()
    assert now["body"] == "Refunds within 14 days; prorate upgrades." and now["group"] is None
    assert now["retracted_at"] is None and now["author"] == api.owner
    then = api.get(DOC, params={"known_at": v1["recorded_at"]}).json()
    assert then["body"] == "Refunds within 30 days." and then["version"] == 1
    assert then["retracted_at"] == v2["recorded_at"]
    versions = api.get(DOC + "/versions").json()["items"]
    assert [v["version"] for v in versions] == [1, 2, 3]
    assert versions[0]["reason"] == "first draft" and versions[0]["author"] == api.owner
    assert all(v["event_id"] for v in versions) and "body" not in versions[0]
    assert versions[0]["chars"] == len("Refunds within 30 days.")


def test_restore_undoes_and_retire_keeps_history(api: Api) -> None:
    """Restore records a new version with an old content; retire answers 404 from now on
    while `known_at` before it still reads; restoring brings a retired document back."""
    v1 = put(api, DOC, "old text").json()["document"]
    put(api, DOC, "new text")
    restored = api.post(DOC + "/restore", {"version": 1})
    assert restored.status_code == 200, restored.text
    doc = restored.json()["document"]
    assert (doc["version"], doc["body"], doc["restored_from"]) == (3, "old text", 1)
    assert api.post(DOC + "/restore", {"version": 1}).json()["changed"] is False
    retired = api.delete(DOC, params={"reason": "obsolete"})
    assert retired.status_code == 200 and retired.json()["version"] == 4
    assert api.get(DOC).status_code == 404
    assert api.get(DOC, params={"known_at": v1["recorded_at"]}).json()["body"] == "old text"
    assert api.delete(DOC).status_code == 404
    bad = api.post(DOC + "/restore", {"version": 4})
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "version"
    back = api.post(DOC + "/restore", {"version": 2}).json()["document"]
    assert (back["version"], back["body"]) == (5, "new text")
    assert api.post(DOC + "/restore", {"version": 9}).status_code == 404


def test_listing_has_names_and_descriptions_never_bodies(api: Api) -> None:
    """GET /v1/knowledge lists by name with descriptions and lengths, no body; pages
    with `next`; a retired document is left out."""
    for name in ("b/two", "a/one", "c/three"):
        put(api, f"/v1/knowledge/{name}", f"secret body of {name}", description=f"about {name}")
    api.delete("/v1/knowledge/c/three")
    page = api.get("/v1/knowledge", params={"limit": 1}).json()
    assert [d["name"] for d in page["items"]] == ["a/one"] and page["next"]
    rest = api.get("/v1/knowledge", params={"cursor": page["next"]}).json()
    assert [d["name"] for d in rest["items"]] == ["b/two"] and rest["next"] is None
    listing = api.get("/v1/knowledge").text
    assert "secret body" not in listing and "about a/one" in listing


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/v1/knowledge/Billing", {"body": "x"}, "name"),
        ("/v1/knowledge/a//b", {"body": "x"}, "name"),
        ("/v1/knowledge/a/versions", {"body": "x"}, "name"),
        ("/v1/knowledge/" + "a" * 201, {"body": "x"}, "name"),
        ("/v1/knowledge/ok", {"body": "x" * 100_001}, "body"),
        ("/v1/knowledge/ok", {"body": "x", "description": "d" * 1_001}, "description"),
    ],
)
def test_bounds_are_a_422_naming_the_field(
    api: Api, url: str, body: dict[str, Any], field: str
) -> None:
    """Name (a path-like slug of at most 200 characters), body (100,000) and description
    (1,000) out of bounds: 422 naming the field, nothing written."""
    r = api.client.put(url, json=body, headers=api.headers)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == field
    assert api.get("/v1/knowledge").json()["items"] == []


def test_at_most_so_many_documents(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the bound of live documents a new one is a 409 (the bound is 1,000, made 2
    here); editing a live one, or after retiring one, is fine."""
    monkeypatch.setattr(committer.knowledge, "MAX_DOCS", 2)
    assert put(api, "/v1/knowledge/a", "1").status_code == 200
    assert put(api, "/v1/knowledge/b", "2").status_code == 200
    over = put(api, "/v1/knowledge/c", "3")
    assert over.status_code == 409 and "2 documents" in over.json()["detail"]
    assert put(api, "/v1/knowledge/a", "1 edited").status_code == 200
    api.delete("/v1/knowledge/b")
    assert put(api, "/v1/knowledge/c", "3").status_code == 200


def test_a_groups_documents_are_read_by_its_members_only(
    api: Api, other: Api, client: Any, neo4j_driver: Any
) -> None:
    """A group's document is read by members (with and without `group`); an outsider and
    a member of another group get 404 exactly as for an unknown name and cannot write it;
    editing it needs `curate`."""
    group = group_of(api, other)
    r = put(api, DOC + f"?group={group}", "team text")
    assert r.status_code == 200 and r.json()["document"]["group"] == group
    assert other.get(DOC, params={"group": group}).json()["body"] == "team text"
    assert other.get(DOC).json()["group"] == group  # its one group's
    listed = other.get(DOC + "/versions").json()["items"]  # its one group's versions too
    assert [(v["version"], v["group"]) for v in listed] == [(1, group)]
    outsider = make_api(client, neo4j_driver, api.owner + "-out", ("read", "write", "curate"))
    group_of(outsider)  # a member of another group
    probe = outsider.get(DOC, params={"group": group})
    unknown = outsider.get("/v1/knowledge/no/such", params={"group": group})
    assert probe.status_code == unknown.status_code == 404
    assert probe.json()["title"] == unknown.json()["title"]
    assert outsider.get("/v1/knowledge", params={"group": group}).json()["items"] == []
    assert put(outsider, DOC + f"?group={group}", "hijack").status_code == 404
    assert outsider.post(DOC + f"/restore?group={group}", {"version": 1}).status_code == 404
    writer = make_api(client, neo4j_driver, other.owner, ("read", "write"))
    no_curate = put(writer, DOC + f"?group={group}", "edit")
    assert no_curate.status_code == 403 and "curate" in no_curate.json()["detail"]
    assert api.get(DOC, params={"group": group}).json()["body"] == "team text"


def test_a_name_in_two_groups_needs_the_group(api: Api, other: Api) -> None:
    """Without `group`, the caller's own document wins; with none and two groups holding
    the name, the read and the listing of versions are a 409 asking for the group."""
    g1, g2 = group_of(api), group_of(api)
    put(api, DOC + f"?group={g1}", "one")
    put(api, DOC + f"?group={g2}", "two")
    assert api.get(DOC).status_code == 409
    assert api.get(DOC + "/versions").status_code == 409
    assert api.get(DOC, params={"group": g2}).json()["body"] == "two"
    put(api, DOC, "mine")
    assert api.get(DOC).json()["body"] == "mine"
    [own] = api.get(DOC + "/versions").json()["items"]
    assert own["group"] is None


def test_memory_access_of_the_chat_applies(api: Api) -> None:
    """A `none` chat is refused (403); a `restricted` chat reads documents only when its
    areas list `knowledge`."""
    put(api, DOC, "text")
    for chat, access in (
        ("c-none", {"mode": "none"}),
        ("c-places", {"mode": "restricted", "areas": ["place"], "sources": ["user_edit"]}),
        ("c-docs", {"mode": "restricted", "areas": ["knowledge"], "sources": []}),
    ):
        url = f"/v1/chats/{chat}/memory-access"
        assert api.client.put(url, json=access, headers=api.headers).status_code == 200
    assert api.get(DOC, params={"chat_id": "c-none"}).status_code == 403
    assert api.get("/v1/knowledge", params={"chat_id": "c-none"}).status_code == 403
    assert api.get(DOC, params={"chat_id": "c-places"}).status_code == 404
    assert api.get("/v1/knowledge", params={"chat_id": "c-places"}).json()["items"] == []
    assert api.get(DOC, params={"chat_id": "c-docs"}).json()["body"] == "text"


def test_export_and_import_carry_documents_and_state(
    api: Api, client: Any, neo4j_driver: Any
) -> None:
    """An owner's documents (every version), state values and usage travel in its export;
    imported into a new owner they read the same, under the new owner's holder."""
    v1 = put(api, DOC, "first").json()["document"]
    put(api, DOC, "second")
    api.client.put("/v1/state/wf/k", json={"value": [1, 2]}, headers=api.headers)
    lines = api.get("/v1/owners/me/export").text.splitlines()
    new = api.owner + "-copy"
    Committer(neo4j_driver).import_owner(lines, new)
    copy = make_api(client, neo4j_driver, new, ("read", "write", "curate", "admin"))
    assert copy.get(DOC).json()["body"] == "second"
    assert copy.get(DOC, params={"known_at": v1["recorded_at"]}).json()["body"] == "first"
    assert [v["version"] for v in copy.get(DOC + "/versions").json()["items"]] == [1, 2]
    assert copy.get("/v1/state/wf/k").json()["value"] == [1, 2]
    assert put(copy, DOC, "third").json()["document"]["version"] == 3
