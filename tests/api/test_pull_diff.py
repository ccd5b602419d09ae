"""GET /v1/entities/{id}/diff: what changed between T1 and T2, on both axes (CONTRACT §2)."""

from __future__ import annotations

import time
from typing import Any

from tests.api.conftest import Api

JAN, MAR, MAY, JUL = (
    "2024-01-01T00:00:00Z",
    "2024-03-01T00:00:00Z",
    "2024-05-01T00:00:00Z",
    "2024-07-01T00:00:00Z",
)


def diff(api: Api, entity_id: str, **params: Any) -> dict[str, Any]:
    r = api.get(f"/v1/entities/{entity_id}/diff", params=params)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_valid_axis_a_moved_value_is_one_change(api: Api) -> None:
    """Paris from January, Berlin from May: between March and July, location changed."""
    e = api.entity("Ana")["id"]
    paris = api.fact(e, attribute="location", value="Paris", valid_from=JAN)["fact"]
    berlin = api.fact(e, attribute="location", value="Berlin", valid_from=MAY)["fact"]
    body = diff(api, e, **{"from": MAR, "to": JUL, "axis": "valid"})
    assert body["added"] == [] and body["removed"] == []
    [change] = body["changed"]
    assert change["attribute"] == "location"
    assert [f["value"] for f in change["before"]] == ["Paris"]
    assert [f["id"] for f in change["after"]] == [berlin["id"]]
    assert change["before"][0]["id"] != paris["id"]  # the remainder row, recorded at the supersede
    assert body["axis"] == "valid" and body["from"] == MAR and body["to"] == JUL
    assert body["known_at"].endswith("Z") and body["valid_at"] is None


def test_valid_axis_many_values_are_added_and_removed(api: Api) -> None:
    """likes tea until May, likes coffee from May: tea removed, coffee added, no change."""
    e = api.entity("Ana")["id"]
    api.fact(e, attribute="likes", value="tea", valid_from=JAN, valid_to=MAY)
    api.fact(e, attribute="likes", value="coffee", valid_from=MAY)
    api.fact(e, attribute="likes", value="jazz", valid_from=JAN)
    body = diff(api, e, **{"from": MAR, "to": JUL})
    assert [f["value"] for f in body["added"]] == ["coffee"]
    assert [f["value"] for f in body["removed"]] == ["tea"]
    assert body["changed"] == []


def test_valid_axis_nothing_changed_is_empty(api: Api) -> None:
    """A value holding at both points appears nowhere."""
    e = api.entity("Ana")["id"]
    api.fact(e, attribute="location", value="Paris", valid_from=JAN)
    body = diff(api, e, **{"from": MAR, "to": JUL})
    assert (body["added"], body["removed"], body["changed"]) == ([], [], [])


def test_valid_axis_uses_the_knowledge_of_known_at(api: Api) -> None:
    """With known_at before Berlin was recorded, March to July shows no change."""
    e = api.entity("Ana")["id"]
    paris = api.fact(e, attribute="location", value="Paris", valid_from=JAN)["fact"]
    time.sleep(0.01)
    api.fact(e, attribute="location", value="Berlin", valid_from=MAY)
    then = diff(api, e, **{"from": MAR, "to": JUL, "known_at": paris["recorded_at"]})
    assert (then["added"], then["removed"], then["changed"]) == ([], [], [])
    assert then["known_at"] == paris["recorded_at"]


def test_known_axis_lists_what_was_learned_in_between(api: Api) -> None:
    """Between two transaction times: a value recorded in between is added; a supersede
    is a change of the attribute, with the rows believed before and after."""
    e = api.entity("Ana")["id"]
    paris = api.fact(e, attribute="location", value="Paris", valid_from=JAN)["fact"]
    t1 = paris["recorded_at"]
    time.sleep(0.01)
    api.fact(e, attribute="likes", value="tea", valid_from=JAN)
    berlin = api.fact(e, attribute="location", value="Berlin", valid_from=MAY)["fact"]
    t2 = berlin["recorded_at"]
    body = diff(api, e, **{"from": t1, "to": t2, "axis": "known"})
    assert [f["value"] for f in body["added"]] == ["tea"]
    assert body["removed"] == []
    [change] = body["changed"]
    assert [f["id"] for f in change["before"]] == [paris["id"]]
    assert [(f["value"], f["valid_to"]) for f in change["after"]] == [
        ("Paris", MAY),
        ("Berlin", None),
    ]
    assert body["valid_at"] is None and body["known_at"] is None


def test_known_axis_at_a_point_in_the_world(api: Api) -> None:
    """With valid_at=March, the supersede from May changed nothing believed about March."""
    e = api.entity("Ana")["id"]
    paris = api.fact(e, attribute="location", value="Paris", valid_from=JAN)["fact"]
    time.sleep(0.01)
    berlin = api.fact(e, attribute="location", value="Berlin", valid_from=MAY)["fact"]
    march = diff(
        api,
        e,
        **{
            "from": paris["recorded_at"],
            "to": berlin["recorded_at"],
            "axis": "known",
            "valid_at": MAR,
        },
    )
    assert (march["added"], march["removed"], march["changed"]) == ([], [], [])
    july = diff(
        api,
        e,
        **{
            "from": paris["recorded_at"],
            "to": berlin["recorded_at"],
            "axis": "known",
            "valid_at": JUL,
        },
    )
    assert [
        ([b["value"] for b in c["before"]], [a["value"] for a in c["after"]])
        for c in july["changed"]
    ] == [(["Paris"], ["Berlin"])]


def test_known_axis_a_retraction_is_removed(api: Api) -> None:
    """A row retracted between T1 and T2 is listed as removed."""
    e = api.entity("Ana")["id"]
    tea = api.fact(e, attribute="likes", value="tea", valid_from=JAN)["fact"]
    time.sleep(0.01)
    gone = api.delete(f"/v1/facts/{tea['id']}?mode=retract").json()
    assert gone["retracted"] == [tea["id"]]
    retracted_at = api.get(f"/v1/facts/{tea['id']}").json()["retracted_at"]
    body = diff(api, e, **{"from": tea["recorded_at"], "to": retracted_at, "axis": "known"})
    assert [f["id"] for f in body["removed"]] == [tea["id"]]
    assert body["removed"][0]["retracted_at"] == retracted_at
    assert (body["added"], body["changed"]) == ([], [])


def test_from_after_to_is_422_naming_from(api: Api) -> None:
    """from > to is refused (422 naming `from`)."""
    e = api.entity("Ana")["id"]
    r = api.get(f"/v1/entities/{e}/diff", params={"from": JUL, "to": MAR})
    assert r.status_code == 422
    assert r.json()["detail"].startswith("from")


def test_naive_timestamps_are_422_naming_the_field(api: Api) -> None:
    """A `from` or `to` without an offset is refused, naming it (CONTRACT §2)."""
    e = api.entity("Ana")["id"]
    for field, params in (
        ("from", {"from": "2024-03-01T00:00:00", "to": JUL}),
        ("to", {"from": MAR, "to": "2024-07-01T00:00:00"}),
    ):
        r = api.get(f"/v1/entities/{e}/diff", params=params)
        assert r.status_code == 422
        assert field in r.json()["detail"]


def test_axis_and_the_other_time_do_not_mix(api: Api) -> None:
    """valid_at with axis=valid, or known_at with axis=known, is 422 naming it."""
    e = api.entity("Ana")["id"]
    r = api.get(f"/v1/entities/{e}/diff", params={"from": MAR, "to": JUL, "valid_at": MAR})
    assert r.status_code == 422 and r.json()["detail"].startswith("valid_at")
    r = api.get(
        f"/v1/entities/{e}/diff", params={"from": MAR, "to": JUL, "axis": "known", "known_at": MAR}
    )
    assert r.status_code == 422 and r.json()["detail"].startswith("known_at")
    r = api.get(f"/v1/entities/{e}/diff", params={"from": MAR, "to": JUL, "axis": "both"})
    assert r.status_code == 422 and "axis" in r.json()["detail"]


def test_restricted_chat_sees_only_allowed_changes(api: Api) -> None:
    """Under `restricted` to area preferences, a location change is not shown; likes is."""
    e = api.entity("Ana")["id"]
    api.fact(e, attribute="location", value="Paris", valid_from=JAN)
    api.fact(e, attribute="location", value="Berlin", valid_from=MAY)
    api.fact(e, attribute="likes", value="tea", valid_from=MAY)
    api.client.put(
        "/v1/chats/prefs/memory-access",
        headers=api.headers,
        json={"mode": "restricted", "areas": ["preferences"], "sources": ["user_edit"]},
    )
    body = diff(api, e, **{"from": MAR, "to": JUL, "chat_id": "prefs"})
    assert body["changed"] == [] and [f["value"] for f in body["added"]] == ["tea"]


def test_none_chat_and_other_owner_are_refused(api: Api, other: Api) -> None:
    """Memory off: 403; another owner's entity: 404."""
    e = api.entity("Ana")["id"]
    api.client.put("/v1/chats/off/memory-access", json={"mode": "none"}, headers=api.headers)
    params = {"from": MAR, "to": JUL}
    assert api.get(f"/v1/entities/{e}/diff", params={**params, "chat_id": "off"}).status_code == 403
    assert other.get(f"/v1/entities/{e}/diff", params=params).status_code == 404
