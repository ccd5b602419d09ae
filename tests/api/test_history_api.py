"""History endpoints (CONTRACT §2.3, §10): both axes, status and provenance, keyset pages."""

from __future__ import annotations

import base64
import json
from typing import Any

from tests.api.conftest import Api

JAN, FEB, MAR, APR = (f"2024-0{m}-01T00:00:00Z" for m in (1, 2, 3, 4))
FIELDS = {
    "id",
    "entity_id",
    "attribute",
    "value",
    "object_id",
    "cardinality",
    "valid_from",
    "valid_to",
    "recorded_at",
    "retracted_at",
    "status",
    "source",
    "evidence",
    "reason",
    "confidence",
}


def pages(api: Api, url: str, limit: int, **params: Any) -> tuple[list[dict[str, Any]], int]:
    """Every item of a listing, page by page; (items, number of pages)."""
    items, cursor, count = [], None, 0
    while True:
        query = {**params, "limit": limit, **({"cursor": cursor} if cursor else {})}
        r = api.get(url, params=query)
        assert r.status_code == 200, r.text
        body = r.json()
        items += body["items"]
        count += 1
        cursor = body["next"]
        if cursor is None:
            return items, count


def story(api: Api) -> str:
    """Ada: location Paris, Berlin (supersedes), Rome (supersedes); likes tea, coffee."""
    ada = api.entity("Ada")["id"]
    for value, start in (("Paris", JAN), ("Berlin", FEB), ("Rome", MAR)):
        api.fact(ada, attribute="location", value=value, valid_from=start, evidence=f"said {value}")
    api.fact(ada, attribute="likes", value="tea", valid_from=JAN)
    api.fact(ada, attribute="likes", value="coffee", valid_from=APR)
    return ada


def test_history_has_both_axes_status_and_provenance(api: Api) -> None:
    """Each row carries value, valid and transaction times, status and provenance, ordered
    by valid_from then recorded_at."""
    ada = story(api)
    items = api.get(f"/v1/entities/{ada}/history/location").json()["items"]
    assert [(f["value"], f["status"]) for f in items] == [
        ("Paris", "superseded"),
        ("Berlin", "superseded"),
        ("Rome", "active"),
    ]
    assert all(set(f) >= FIELDS for f in items)
    assert items[0]["valid_to"] == FEB and items[0]["retracted_at"] is None
    assert items[0]["source"] == "user_edit" and items[0]["evidence"] == "said Paris"
    keys = [(f["valid_from"], f["recorded_at"]) for f in items]
    assert keys == sorted(keys)


def test_pages_cover_the_history_exactly_once(api: Api) -> None:
    """Pages of 2 list every row once, in order, for the entity and the audit view."""
    ada = story(api)
    whole = api.get(f"/v1/entities/{ada}/history").json()
    assert whole["next"] is None and len(whole["items"]) == 5
    paged, count = pages(api, f"/v1/entities/{ada}/history", 2)
    assert paged == whole["items"] and count == 3
    audit = api.get(f"/v1/entities/{ada}/history", params={"include_retracted": "true"}).json()
    assert len(audit["items"]) == 7  # Paris and Berlin were recorded again, cut short
    paged, _ = pages(api, f"/v1/entities/{ada}/history", 3, include_retracted="true")
    assert paged == audit["items"]
    retracted = [f for f in paged if f["retracted_at"] is not None]
    assert {f["value"] for f in retracted} == {"Paris", "Berlin"}


def test_pages_read_the_knowledge_of_the_first(api: Api) -> None:
    """Rows written between two pages neither repeat nor shift rows: every page reads as
    known when the first was served."""
    ada = story(api)
    url = f"/v1/entities/{ada}/history/location"
    first = api.get(url, params={"limit": 2}).json()
    api.fact(ada, attribute="location", value="Oslo", valid_from="2023-06-01T00:00:00Z")
    api.fact(ada, attribute="location", value="Lima", valid_from=FEB)
    rest = api.get(url, params={"limit": 2, "cursor": first["next"]}).json()
    assert [f["value"] for f in first["items"] + rest["items"]] == ["Paris", "Berlin", "Rome"]
    assert rest["next"] is None
    fresh = [f["value"] for f in api.get(url).json()["items"]]
    assert fresh == ["Oslo", "Paris", "Lima", "Rome"]


def test_foreign_or_altered_cursor_is_422_naming_cursor(api: Api) -> None:
    """A cursor of another entity, attribute, audit flag or known_at, or garbage, is a
    422 naming `cursor`."""
    ada, bob = story(api), story(api)
    url = f"/v1/entities/{ada}/history"
    cursor = api.get(url, params={"limit": 1}).json()["next"]
    body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    body["p"][0] = "not a time"
    altered = base64.urlsafe_b64encode(json.dumps(body).encode()).decode()
    bad = [
        (f"/v1/entities/{bob}/history", {"cursor": cursor}),
        (f"{url}/location", {"cursor": cursor}),
        (url, {"cursor": cursor, "include_retracted": "true"}),
        (url, {"cursor": cursor, "known_at": JAN}),
        (url, {"cursor": "not-a-cursor"}),
        (url, {"cursor": altered}),
        (url, {"cursor": "7"}),
    ]
    for path, params in bad:
        r = api.get(path, params=params)
        assert r.status_code == 422, (path, params, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
        assert [e["field"] for e in r.json()["errors"]] == ["cursor"], r.json()
    assert api.get(url, params={"cursor": cursor}).status_code == 200


def test_known_at_shows_history_as_known_then(api: Api) -> None:
    """`known_at` between two writes: the history as believed then."""
    ada = api.entity("Ada")["id"]
    first = api.fact(ada, attribute="location", value="Paris", valid_from=JAN)["fact"]
    api.fact(ada, attribute="location", value="Berlin", valid_from=FEB)
    then = api.get(
        f"/v1/entities/{ada}/history/location", params={"known_at": first["recorded_at"]}
    ).json()["items"]
    assert [(f["value"], f["valid_to"], f["status"]) for f in then] == [("Paris", None, "active")]
