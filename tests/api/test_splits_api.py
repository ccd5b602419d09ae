"""Splitting an entity, and splits and merges undoing each other (CONTRACT §5, §8)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api
from tests.api.test_proposals_api import me

Y2020, Y2022, Y2024 = "2020-01-01T00:00:00Z", "2022-01-01T00:00:00Z", "2024-01-01T00:00:00Z"


def facts(api: Api, entity_id: str, **params: str) -> list[dict[str, Any]]:
    r = api.get(f"/v1/entities/{entity_id}/history", params=params)
    assert r.status_code == 200, r.text
    return r.json()["items"]  # type: ignore[no-any-return]


def state(api: Api, entity_id: str, rename: dict[str, str] | None = None) -> list[tuple[Any, ...]]:
    """An entity's current rows, every valid time, without ids and transaction times
    (object ids through `rename`)."""
    rename = rename or {}
    return sorted(
        (
            f["attribute"],
            f["value"],
            rename.get(f["object_id"], f["object_id"]),
            f["valid_from"],
            f["valid_to"],
            f["status"],
            f["source"],
            f["evidence"],
            f["reason"],
            f["confidence"],
            f["cardinality"],
        )
        for f in facts(api, entity_id)
    )


def entity(api: Api, entity_id: str) -> dict[str, Any]:
    return api.get(f"/v1/entities/{entity_id}").json()["entity"]  # type: ignore[no-any-return]


def split(api: Api, entity_id: str, **body: Any) -> Any:
    return api.post(f"/v1/entities/{entity_id}/split", body)


def sam(api: Api) -> tuple[str, dict[str, str]]:
    """Sam Lee (aliases Sammy, S. Lee): employer, location, likes; the owner knows Sam."""
    e = api.entity("Sam Lee", aliases=["Sammy", "S. Lee"], area="work")["id"]
    ids = {
        "employer": api.fact(
            e, attribute="employer", value="Acme", valid_from=Y2024, evidence="Sam works at Acme"
        )["fact"]["id"],
        "location": api.fact(e, attribute="location", value="Paris")["fact"]["id"],
        "likes": api.fact(e, attribute="likes", value="tea")["fact"]["id"],
        "knows": api.fact(me(api), attribute="knows", object_id=e)["fact"]["id"],
    }
    return e, ids


def test_split_moves_chosen_rows_and_aliases(api: Api) -> None:
    """Chosen rows (one about the entity, one pointing at it) and an alias move to a new
    entity of the same kind; the rest stays; time travel still sees the old picture."""
    e, ids = sam(api)
    before = api.get(f"/v1/entities/{e}").json()["facts"][0]["recorded_at"]
    r = split(
        api, e, fact_ids=[ids["employer"], ids["knows"]], name="Sam Jones", aliases=["S. Lee"]
    )
    assert r.status_code == 201, r.text
    new = r.json()
    assert (new["name"], new["kind"], new["aliases"], new["area"]) == (
        "Sam Jones",
        "person",
        ["S. Lee"],
        "work",
    )
    assert entity(api, e)["aliases"] == ["Sammy"]
    assert {f["attribute"] for f in api.get(f"/v1/entities/{e}/facts").json()["items"]} == {
        "location",
        "likes",
    }
    [moved] = api.get(f"/v1/entities/{new['id']}/facts").json()["items"]
    assert (moved["attribute"], moved["value"], moved["valid_from"], moved["evidence"]) == (
        "employer",
        "Acme",
        Y2024,
        "Sam works at Acme",
    )
    mine = api.get(f"/v1/entities/{me(api)}/facts").json()["items"]
    assert [f["object_id"] for f in mine if f["attribute"] == "knows"] == [new["id"]]
    found = api.get("/v1/entities", params={"q": "s. lee"}).json()["items"]
    assert [x["id"] for x in found] == [new["id"]]
    past = api.get(f"/v1/entities/{e}", params={"known_at": before, "valid_at": Y2024})
    assert "employer" in {f["attribute"] for f in past.json()["facts"]}
    # One event records it all; the moved row's chain reaches back to its assertion.
    chain = api.get(f"/v1/facts/{moved['id']}/why").json()["chain"]
    assert [c.get("action") for c in chain if c["kind"] == "action"] == ["assert", "split"]
    act = next(c for c in chain if c.get("action") == "split")
    items = api.get(f"/v1/events/{act['id']}/effects").json()["items"]
    assert sorted((i["change"], i["op"]) for i in items) == [
        ("changed", "split"),
        ("ended", "moved"),
        ("ended", "moved"),
        ("wrote", "created"),
        ("wrote", "created"),
    ]


def test_split_refuses_what_it_cannot_move(api: Api, other: Api) -> None:
    """Unknown or foreign ids are 404; rows not current or not about the entity, aliases
    it does not have, or nothing at all are 422 naming the field."""
    e, ids = sam(api)
    ada = api.entity("Ada")["id"]
    ada_row = api.fact(ada, attribute="likes", value="jazz")["fact"]["id"]
    assert split(api, e, fact_ids=["fct_missing"], name="X").status_code == 404
    assert split(api, "ent_missing", fact_ids=[ids["likes"]], name="X").status_code == 404
    assert split(other, e, fact_ids=[ids["likes"]], name="X").status_code == 404
    for body, field in (
        ({"fact_ids": [ada_row]}, "fact_ids"),
        ({"fact_ids": [ids["likes"]], "aliases": ["Bob"]}, "aliases"),
        ({"fact_ids": []}, "fact_ids"),
    ):
        r = split(api, e, name="X", **body)
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == field, r.text
    api.delete(f"/v1/facts/{ids['likes']}", params={"mode": "retract"})
    r = split(api, e, fact_ids=[ids["likes"]], name="X")
    assert r.status_code == 422 and "retracted" in r.json()["detail"]
    assert len(api.get(f"/v1/entities/{e}/facts").json()["items"]) == 2  # nothing moved


def test_merge_then_split_back_restores_both(api: Api) -> None:
    """Splitting off exactly what a merge brought (its effects) gives back the picture
    from before the merge: rows (windows, statuses, provenance), relationships, aliases."""
    jon = api.entity("Jon Smith", aliases=["JS"])["id"]
    api.fact(jon, attribute="employer", value="Acme", valid_from=Y2024, evidence="at Acme")
    api.fact(jon, attribute="location", value="Paris", valid_from=Y2020)
    api.fact(jon, attribute="location", value="Berlin", valid_from=Y2022)
    api.fact(me(api), attribute="knows", object_id=jon)
    john = api.entity("John Smith", aliases=["Johnny"])["id"]
    api.fact(john, attribute="hobby", value="chess")
    jon_before, john_before, me_before = state(api, jon), state(api, john), state(api, me(api))
    assert ("location", "Paris", None, Y2020, Y2022, "superseded") in [s[:6] for s in jon_before]
    merged = api.post(f"/v1/entities/{jon}/merge", {"into": john}).json()
    brought = [
        i["fact_id"]
        for i in api.get(f"/v1/events/{merged['event_id']}/effects").json()["items"]
        if i["change"] == "wrote"
    ]
    assert len(brought) == 4
    r = split(api, john, fact_ids=brought, name="Jon Smith", aliases=["JS"])
    assert r.status_code == 201, r.text
    back = r.json()
    assert state(api, john) == john_before
    assert state(api, back["id"]) == jon_before
    assert state(api, me(api), {back["id"]: jon}) == me_before
    assert (entity(api, john)["aliases"], back["aliases"]) == (["Johnny"], ["JS"])


def test_split_then_merge_back_restores_the_entity(api: Api) -> None:
    """Merging a split-off entity back gives the entity its rows as before the split."""
    e, ids = sam(api)
    api.fact(e, attribute="location", value="Rome", valid_from=Y2024)  # Paris -> Rome
    rows = [f["id"] for f in api.get(f"/v1/entities/{e}/history").json()["items"]]
    before, me_before = state(api, e), state(api, me(api))
    chosen = [ids["employer"], ids["knows"], *rows[:2]]
    new = split(api, e, fact_ids=chosen, name="Sam Jones").json()
    assert state(api, e) != before
    assert api.post(f"/v1/entities/{new['id']}/merge", {"into": e}).status_code == 200
    assert state(api, e) == before
    assert state(api, me(api)) == me_before
