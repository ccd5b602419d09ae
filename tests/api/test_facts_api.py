"""REST facts and entities: shapes, time travel, errors (CONTRACT §2, §9, §10)."""

from __future__ import annotations

from datetime import datetime

from tests.api.conftest import Api, make_api

JAN = "2024-01-01T00:00:00Z"
MAY = "2024-05-01T00:00:00Z"
JUN = "2024-06-01T00:00:00Z"
MAR = "2024-03-01T00:00:00Z"


def test_entity_create_list_get(api: Api) -> None:
    """An entity comes back with the contract's fields; `q` ignores case and accents."""
    zoe = api.entity("Zoë Martín", aliases=["Zo"], area="family")
    assert set(zoe) >= {"id", "name", "kind", "aliases", "area", "merged_into", "archived"}
    api.entity("Kubernetes migration", kind="project")
    r = api.get("/v1/entities", params={"q": "ZOE MARTIN"})
    assert [e["id"] for e in r.json()["items"]] == [zoe["id"]]
    r = api.get("/v1/entities", params={"q": "zo", "kind": "project"})
    assert r.json()["items"] == []
    r = api.get("/v1/entities", params={"kind": "project"})
    assert [e["name"] for e in r.json()["items"]] == ["Kubernetes migration"]
    r = api.get(f"/v1/entities/{zoe['id']}")
    assert r.status_code == 200 and r.json()["entity"]["name"] == "Zoë Martín"
    assert r.json()["facts"] == []


def test_supersede_and_time_travel(api: Api) -> None:
    """Paris then Berlin: valid_at picks the city; known_at before Berlin was told shows Paris."""
    me = api.entity("Me")["id"]
    paris = api.fact(me, attribute="location", value="Paris", valid_from=JAN)
    assert paris["effect"] == "created" and paris["fact"]["valid_to"] is None
    assert paris["fact"]["valid_from"] == JAN and paris["fact"]["recorded_at"].endswith("Z")
    berlin = api.fact(me, attribute="location", value="Berlin", valid_from=MAY)
    assert berlin["effect"] == "superseded" and berlin["superseded"] == [paris["fact"]["id"]]
    told = berlin["fact"]["recorded_at"]

    def city(**params: str) -> list[str]:
        r = api.get(f"/v1/entities/{me}/facts", params=params)
        assert r.status_code == 200, r.text
        return [f["value"] for f in r.json()["items"]]

    assert city() == ["Berlin"]
    assert city(valid_at=MAR) == ["Paris"]
    before = paris["fact"]["recorded_at"]
    assert city(valid_at=JUN, known_at=before) == ["Paris"]
    assert city(valid_at=JUN, known_at=told) == ["Berlin"]
    r = api.get(f"/v1/entities/{me}/history/location")
    rows = [(f["value"], f["status"], f["valid_to"]) for f in r.json()["items"]]
    assert rows == [("Paris", "superseded", MAY), ("Berlin", "active", None)]
    audit = api.get(f"/v1/entities/{me}/history", params={"include_retracted": "true"})
    assert len(audit.json()["items"]) == 3


def test_duplicate_is_not_written_twice(api: Api) -> None:
    """The same value over a covered window is a duplicate pointing at the existing row."""
    me = api.entity("Me")["id"]
    first = api.fact(me, attribute="likes", value="Green tea", valid_from=JAN)
    again = api.fact(
        me,
        attribute="likes",
        value="  green   TEA ",
        valid_from=MAR,
        evidence="said it again",
        reason="second statement",
    )
    assert again["effect"] == "duplicate" and again["fact"]["id"] == first["fact"]["id"]
    # Regression: the duplicate left no trace; it is kept as a corroboration.
    row = api.get(f"/v1/facts/{first['fact']['id']}").json()
    assert [(c["evidence"], c["reason"], c["valid_from"]) for c in row["corroborations"]] == [
        ("said it again", "second statement", MAR)
    ]


def test_relationship_fact(api: Api) -> None:
    """A fact whose object is another entity has value null and object_id set."""
    me = api.entity("Me")["id"]
    project = api.entity("K8s migration", kind="project")["id"]
    r = api.fact(me, attribute="works_on", object_id=project)
    assert r["fact"]["object_id"] == project and r["fact"]["value"] is None
    assert r["fact"]["cardinality"] == "many"


def test_forget_and_retract(api: Api) -> None:
    """Forget ends a fact now and keeps its past; retract undoes it and brings back Paris."""
    me = api.entity("Me")["id"]
    api.fact(me, attribute="location", value="Paris", valid_from=JAN)
    berlin = api.fact(me, attribute="location", value="Berlin", valid_from=MAY)["fact"]
    r = api.delete(f"/v1/facts/{berlin['id']}", params={"mode": "retract"})
    assert r.status_code == 200 and r.json()["fact"] is None
    assert r.json()["retracted"][0] == berlin["id"]  # then the Paris part folded back in
    now = api.get(f"/v1/entities/{me}/facts").json()["items"]
    assert [(f["value"], f["valid_from"], f["valid_to"]) for f in now] == [("Paris", JAN, None)]
    r = api.delete(f"/v1/facts/{now[0]['id']}")
    forgotten = r.json()["fact"]
    assert forgotten["status"] == "invalidated" and forgotten["valid_to"] is not None
    assert api.get(f"/v1/entities/{me}/facts").json()["items"] == []
    past = api.get(f"/v1/entities/{me}/facts", params={"valid_at": MAR}).json()["items"]
    assert [f["value"] for f in past] == ["Paris"]
    again = api.delete(f"/v1/facts/{now[0]['id']}")
    assert again.status_code == 409


def test_a_value_brought_back_until_a_later_one_reads_superseded(api: Api) -> None:
    """Paris, then Berlin from May, then Rome from June; "scrap Berlin": Paris comes back
    until June and is `superseded` there by Rome, as rule 2 records a value another ends
    (CONTRACT §2.1, §2.2; found by a tester: it read `active`)."""
    me = api.entity("Me")["id"]
    api.fact(me, attribute="location", value="Paris", valid_from=JAN)
    api.fact(me, attribute="location", value="Berlin", valid_from=MAY)
    api.fact(me, attribute="location", value="Rome", valid_from=JUN)
    rows = api.get(f"/v1/entities/{me}/history/location").json()["items"]
    [berlin] = [f for f in rows if f["value"] == "Berlin"]  # what Rome left of it
    assert api.delete(f"/v1/facts/{berlin['id']}", params={"mode": "retract"}).status_code == 200
    history = api.get(f"/v1/entities/{me}/history/location").json()["items"]
    assert [(f["value"], f["valid_from"], f["valid_to"], f["status"]) for f in history] == [
        ("Paris", JAN, JUN, "superseded"),
        ("Rome", JUN, None, "active"),
    ]


def test_naive_timestamp_is_422_naming_the_field(api: Api) -> None:
    """CONTRACT §2: a timestamp without an offset is rejected, naming the field."""
    me = api.entity("Me")["id"]
    r = api.post(
        f"/v1/entities/{me}/facts",
        {"attribute": "location", "value": "Paris", "valid_from": "2024-01-01T00:00:00"},
    )
    assert r.status_code == 422
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "valid_from" in r.json()["detail"]
    r = api.get(f"/v1/entities/{me}/facts", params={"known_at": "2024-01-01T00:00:00"})
    assert r.status_code == 422 and "known_at" in r.json()["detail"]


def test_bad_input_is_4xx_and_writes_nothing(api: Api) -> None:
    """Empty windows, both value and object, unknown objects: 4xx and no row written."""
    me = api.entity("Me")["id"]
    bad = [
        {"attribute": "location", "value": "Paris", "valid_from": MAY, "valid_to": JAN},
        {"attribute": "location"},
        {"attribute": "knows", "value": "x", "object_id": me},
        {"attribute": "knows", "object_id": "ent_missing"},
        {"attribute": "Bad Name", "value": "x"},
    ]
    for body in bad:
        r = api.post(f"/v1/entities/{me}/facts", body)
        assert 400 <= r.status_code < 500, (body, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
    audit = api.get(f"/v1/entities/{me}/history", params={"include_retracted": "true"})
    assert audit.json()["items"] == []


def test_tokens_and_scopes(api: Api, client, neo4j_driver) -> None:  # type: ignore[no-untyped-def]
    """No token is 401; a read-only token cannot write (403)."""

    assert client.get("/v1/entities").status_code == 401
    reader = make_api(client, neo4j_driver, api.owner, ("read",))
    assert reader.get("/v1/entities").status_code == 200
    assert reader.post("/v1/entities", {"name": "X", "kind": "person"}).status_code == 403
    me = api.entity("Me")["id"]
    fact = api.fact(me, attribute="likes", value="tea")["fact"]
    assert (
        reader.post(f"/v1/entities/{me}/facts", {"attribute": "likes", "value": "x"}).status_code
        == 403
    )
    assert reader.delete(f"/v1/facts/{fact['id']}").status_code == 403
    assert reader.post("/v1/runs", {"id": "r", "chat_id": "c", "messages": []}).status_code == 403


def _current(api: Api, entity_id: str, attribute: str) -> list[tuple[object, str, str | None, str]]:
    r = api.get(f"/v1/entities/{entity_id}/history/{attribute}")
    return [(f["value"], f["valid_from"], f["valid_to"], f["status"]) for f in r.json()["items"]]


def test_retracting_a_coalesced_row_keeps_the_earlier_statement(api: Api) -> None:
    """Regression: Rome [2020,2021) then Rome [2021,2022) coalesce; retracting the second
    assertion's row must leave the first statement standing (CONTRACT §2.2)."""
    me = api.entity("Me")["id"]
    api.fact(me, attribute="location", value="Paris", valid_from="2019-01-01T00:00:00Z")
    api.fact(
        me,
        attribute="location",
        value="Rome",
        valid_from="2020-01-01T00:00:00Z",
        valid_to="2021-01-01T00:00:00Z",
    )
    merged = api.fact(
        me,
        attribute="location",
        value="Rome",
        valid_from="2021-01-01T00:00:00Z",
        valid_to="2022-01-01T00:00:00Z",
    )["fact"]
    assert (merged["valid_from"], merged["valid_to"]) == (
        "2020-01-01T00:00:00Z",
        "2022-01-01T00:00:00Z",
    )
    assert api.delete(f"/v1/facts/{merged['id']}", params={"mode": "retract"}).status_code == 200
    assert _current(api, me, "location") == [
        ("Paris", "2019-01-01T00:00:00Z", "2020-01-01T00:00:00Z", "superseded"),
        ("Rome", "2020-01-01T00:00:00Z", "2021-01-01T00:00:00Z", "active"),
        ("Paris", "2021-01-01T00:00:00Z", None, "active"),
    ]


def test_retracting_a_forgotten_fact_brings_back_what_it_ended(api: Api) -> None:
    """Regression: Paris, then Berlin (supersedes), forget Berlin, then retract the forgotten
    Berlin row: Berlin never held, so Paris holds on, open (CONTRACT §2.2)."""
    me = api.entity("Me")["id"]
    api.fact(me, attribute="location", value="Paris", valid_from="2020-01-01T00:00:00Z")
    berlin = api.fact(me, attribute="location", value="Berlin", valid_from="2022-01-01T00:00:00Z")[
        "fact"
    ]
    forgotten = api.delete(f"/v1/facts/{berlin['id']}").json()["fact"]
    assert forgotten["status"] == "invalidated"
    assert api.delete(f"/v1/facts/{forgotten['id']}", params={"mode": "retract"}).status_code == 200
    assert _current(api, me, "location") == [("Paris", "2020-01-01T00:00:00Z", None, "active")]
    later = api.get(f"/v1/entities/{me}/facts", params={"valid_at": "2030-01-01T00:00:00Z"})
    assert [f["value"] for f in later.json()["items"]] == ["Paris"]


def test_a_retracted_value_never_comes_back_through_a_later_undo(api: Api) -> None:
    """Regression (issue 13): B Jan-Sep 2020; C from July cuts B to Jan-July; that B row is
    retracted; C Mar-Nov joins C from July into C from March; that row is retracted (C from
    July comes back), then C from July too. July 2020 holds nothing: B, declared never true
    in the third step, does not come back (CONTRACT §2.2)."""
    me = api.entity("Me")["id"]

    def month(n: int) -> str:
        return f"2020-{n:02d}-01T00:00:00Z"

    def retract(fact_id: str) -> None:
        assert api.delete(f"/v1/facts/{fact_id}", params={"mode": "retract"}).status_code == 200

    api.fact(me, attribute="location", value="B", valid_from=month(1), valid_to=month(9))
    api.fact(me, attribute="location", value="C", valid_from=month(7))
    (b,) = [
        f
        for f in api.get(f"/v1/entities/{me}/history/location").json()["items"]
        if f["value"] == "B"
    ]
    assert (b["valid_from"], b["valid_to"]) == (month(1), month(7))
    retract(b["id"])
    wider = api.fact(me, attribute="location", value="C", valid_from=month(3), valid_to=month(11))
    assert (wider["fact"]["valid_from"], wider["fact"]["valid_to"]) == (month(3), None)
    retract(wider["fact"]["id"])
    assert _current(api, me, "location") == [("C", month(7), None, "active")]
    retract(api.get(f"/v1/entities/{me}/history/location").json()["items"][0]["id"])
    july = api.get(f"/v1/entities/{me}/facts", params={"valid_at": "2020-07-15T00:00:00Z"})
    assert july.json()["items"] == []
    assert _current(api, me, "location") == []


def test_out_of_range_input_is_422_not_500(api: Api) -> None:
    """Regression: 2**70, NaN, lone surrogates and timestamps that overflow in UTC were 500s."""
    me = api.entity("Me")["id"]
    url = f"/v1/entities/{me}/facts"
    bodies = [
        ('{"attribute": "n", "value": 1180591620717411303424}', "value"),
        ('{"attribute": "n", "value": NaN}', "value"),
        ('{"attribute": "n", "value": "\\ud800"}', "value"),
        ('{"attribute": "n", "value": 1, "valid_from": "0001-01-01T00:00:00+05:00"}', "valid_from"),
        ('{"attribute": "n", "value": 1, "valid_to": "9999-12-31T23:00:00-05:00"}', "valid_to"),
    ]
    for raw, field in bodies:
        r = api.client.post(
            url, content=raw, headers={**api.headers, "Content-Type": "application/json"}
        )
        assert r.status_code == 422, (raw, r.status_code, r.text)
        assert field in r.json()["detail"], (raw, r.json())
    for params in (
        {"valid_at": "0001-01-01T00:00:00+05:00"},
        {"known_at": "9999-12-31T23:59:00-05:00"},
    ):
        r = api.get(url, params=params)
        assert r.status_code == 422 and next(iter(params)) in r.json()["detail"], r.text
    assert api.get(url).json()["items"] == []


def test_chunked_body_over_the_limit_is_413(api: Api) -> None:
    """Regression: a body sent without Content-Length slipped past the 2 MB bound."""

    def chunks():  # type: ignore[no-untyped-def]
        yield (
            b'{"id": "big", "chat_id": "c", "messages": '
            b'[{"role": "user", "at": "2024-01-01T00:00:00Z", "text": "'
        )
        for _ in range(300):
            yield b"x" * 10_000
        yield b'"}]}'

    r = api.client.post(
        "/v1/runs", content=chunks(), headers={**api.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 413 and r.headers["content-type"].startswith("application/problem+json")
    assert api.get("/v1/runs/big").status_code == 404


def test_forgetting_twice_changes_nothing(api: Api) -> None:
    """Regression: forgetting an already forgotten row wrote a new identical version each time."""
    me = api.entity("Me")["id"]
    fact = api.fact(me, attribute="likes", value="tea", valid_from="2024-01-01T00:00:00Z")["fact"]
    gone = api.delete(f"/v1/facts/{fact['id']}").json()["fact"]
    again = api.delete(f"/v1/facts/{gone['id']}").json()
    assert (again["retracted"], again["fact"]) == ([], gone)
    assert again["event_id"].startswith("act_")  # the person's attempt is still recorded
    audit = api.get(f"/v1/entities/{me}/history", params={"include_retracted": "true"})
    assert len(audit.json()["items"]) == 2


def test_timestamps_must_be_rfc3339_text(api: Api) -> None:
    """Regression: numbers and times without an offset were read as UTC timestamps (a
    space for the `T` is RFC 3339 and accepted: tests/api/test_timestamps.py)."""
    me = api.entity("Me")["id"]
    for bad in (1700000000, "1700000000", 0, "2024-01-01 00:00:00", "2024-01-01  00:00:00Z"):
        r = api.post(f"/v1/entities/{me}/facts", {"attribute": "x", "value": 1, "valid_from": bad})
        assert r.status_code == 422 and "valid_from" in r.json()["detail"], (bad, r.text)
    r = api.post(
        "/v1/prefetch", {"chat_id": "c", "message": "hi", "at": "9998-12-31T23:59:59-14:00"}
    )
    assert r.status_code == 422 and r.json()["detail"].startswith("at:"), r.text
    r = api.client.post(
        "/v1/prefetch", content="{", headers={**api.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["detail"].startswith(
        "body: the body is not valid JSON"
    )
    deep = "[" * 5000 + "]" * 5000
    r = api.client.post(
        "/v1/prefetch", content=deep, headers={**api.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 422 and "nests deeper" in r.json()["detail"], r.text
    assert api.get(f"/v1/entities/{me}/history/Bad-Attr").status_code == 422


def test_one_and_one_point_zero_are_the_same_number(api: Api) -> None:
    """Regression: 1.0 superseded 1 as if it were another value."""
    me = api.entity("Me")["id"]
    api.fact(me, attribute="age", value=41, valid_from=JAN)
    assert api.fact(me, attribute="age", value=41.0, valid_from=MAR)["effect"] == "duplicate"


def test_retract_joins_what_it_restores_into_one_row(api: Api) -> None:
    """Regression (found by a random-sequence tester): restored parts on either side of a
    current row of their value were left as two touching rows."""
    me = api.entity("Me")["id"]
    api.fact(me, attribute="location", value="Paris", valid_from="2024-01-01T00:00:00Z")
    api.fact(
        me,
        attribute="location",
        value="Berlin",
        valid_from="2025-01-01T00:00:00Z",
        valid_to="2028-01-01T00:00:00Z",
    )
    api.fact(
        me,
        attribute="location",
        value="Paris",
        valid_from="2026-01-01T00:00:00Z",
        valid_to="2027-01-01T00:00:00Z",
    )
    rows = api.get(f"/v1/entities/{me}/history/location").json()["items"]
    by_start = {f["valid_from"][:4]: f for f in rows}
    api.delete(f"/v1/facts/{by_start['2027']['id']}")  # forget the future Berlin part
    api.delete(f"/v1/facts/{by_start['2025']['id']}", params={"mode": "retract"})
    assert _current(api, me, "location") == [("Paris", "2024-01-01T00:00:00Z", None, "active")]


def test_prefetch_in_the_past_leaves_out_entities_not_known_then(api: Api) -> None:
    """Regression: a prefetch at a past `at` listed entities created after it."""
    api.entity("Annika")
    body = {"chat_id": "c", "message": "How is Annika?"}
    assert "**Annika**" in api.post("/v1/prefetch", body).json()["block"]
    past = api.post("/v1/prefetch", dict(body, at="2020-01-01T00:00:00Z")).json()["block"]
    assert "Annika" not in past


def test_times_round_trip_exactly(api: Api) -> None:
    """Times are sent and read back as integers: microseconds survive, before 1970 too."""
    me = api.entity("Me")["id"]
    for start, stop in (
        ("1969-12-31T23:59:59.500001Z", "1970-01-01T00:00:00.25Z"),
        ("0001-01-01T00:00:00Z", "1950-06-01T12:30:45.123456Z"),
        ("2024-05-01T09:00:00.000001Z", "2024-05-01T09:00:00.000002Z"),
    ):
        fact = api.fact(me, attribute="x", value=start, valid_from=start, valid_to=stop)["fact"]
        read = api.get(f"/v1/facts/{fact['id']}").json()
        expected = (datetime.fromisoformat(start), datetime.fromisoformat(stop))
        for row in (read, fact):
            got = (
                datetime.fromisoformat(row["valid_from"]),
                datetime.fromisoformat(row["valid_to"]),
            )
            assert got == expected and row["valid_from"].endswith("Z")
