"""Usage records (issue 16): a turn's numbers, never content; bounded; summed by surface,
model or UTC day over a half-open window."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import Api


def turn(api: Api, **fields: Any) -> Any:
    body = {
        "at": "2024-05-01T10:00:00Z",
        "surface": "slack",
        "chat_id": "c1",
        "model": "m-small",
        "input_tokens": 100,
        "output_tokens": 20,
        "cost": 0.01,
        "duration_ms": 900,
        **fields,
    }
    return api.post("/v1/usage", body)


def test_records_sum_by_surface_model_and_day(api: Api, other: Api) -> None:
    """Records are summed per group over [from, to); another owner's never count."""
    assert turn(api).status_code == 201
    turn(api, surface="web", model="m-large", input_tokens=1000, cost=0.5)
    turn(api, at="2024-05-02T23:59:59+02:00", surface="web")  # 21:59:59Z, May 2 in UTC
    turn(api, at="2024-06-01T00:00:00Z")  # outside the window
    turn(other, input_tokens=5)
    window = {"from": "2024-05-01T00:00:00Z", "to": "2024-06-01T00:00:00Z"}
    by = {
        g: api.get("/v1/usage/summary", params={**window, "group_by": g}).json()
        for g in ("surface", "model", "day")
    }
    assert [(i["key"], i["turns"], i["input_tokens"]) for i in by["surface"]["items"]] == [
        ("slack", 1, 100),
        ("web", 2, 1100),
    ]
    assert [(i["key"], i["turns"]) for i in by["model"]["items"]] == [
        ("m-large", 1),
        ("m-small", 2),
    ]
    assert [(i["key"], i["turns"]) for i in by["day"]["items"]] == [
        ("2024-05-01", 2),
        ("2024-05-02", 1),
    ]
    total = by["day"]["total"]
    assert (total["turns"], total["tokens"], total["cost"]) == (3, 1200 + 60, 0.52)
    assert by["day"]["from"] == "2024-05-01T00:00:00Z"


def test_a_retry_with_the_same_id_is_stored_once(api: Api) -> None:
    """An `id` posted again with the same fields is a 200 and stored once; with other
    fields a 409."""
    assert turn(api, id="turn-1").status_code == 201
    assert turn(api, id="turn-1").status_code == 200
    assert turn(api, id="turn-1", cost=9).status_code == 409
    window = {"from": "2024-05-01T00:00:00Z", "to": "2024-05-02T00:00:00Z"}
    assert api.get("/v1/usage/summary", params=window).json()["total"]["turns"] == 1


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"input_tokens": -1}, "input_tokens"),
        ({"cost": 10**7}, "cost"),
        ({"duration_ms": 10**9}, "duration_ms"),
        ({"at": "2024-05-01T10:00:00"}, "at"),
        ({"text": "the content"}, "text"),
        ({"surface": "s" * 51}, "surface"),
    ],
)
def test_bounds_and_never_content(api: Api, fields: dict[str, Any], field: str) -> None:
    """Out of bounds, a naive time, or any content field: 422 naming the field."""
    r = turn(api, **fields)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == field


def test_the_window_is_checked(api: Api) -> None:
    """`to` not after `from`, or a window over 366 days, is a 422."""
    bad = api.get(
        "/v1/usage/summary", params={"from": "2024-05-02T00:00:00Z", "to": "2024-05-01T00:00:00Z"}
    )
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "to"
    long = api.get(
        "/v1/usage/summary", params={"from": "2020-01-01T00:00:00Z", "to": "2024-01-01T00:00:00Z"}
    )
    assert long.status_code == 422
    assert api.get("/v1/usage/summary", params={"group_by": "week"}).status_code == 422
