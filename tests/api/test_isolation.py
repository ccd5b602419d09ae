"""CONTRACT §7: another owner's ids answer 404, exactly as ids that do not exist."""

from __future__ import annotations

from tests.api.conftest import Api


def test_every_endpoint_hides_other_owners(api: Api, other: Api) -> None:
    """Each endpoint that takes an id answers 404 to another owner, and lists never cross."""
    bob = api.entity("Bob")
    fact = api.fact(bob["id"], attribute="location", value="Lisbon")["fact"]
    run = api.post("/v1/runs", {"id": "run-iso", "chat_id": "c1", "messages": []})
    assert run.status_code == 202
    other.entity("Bob")

    eid, fid = bob["id"], fact["id"]
    probes = [
        ("GET", f"/v1/entities/{eid}", None),
        ("GET", f"/v1/entities/{eid}/facts", None),
        ("GET", f"/v1/entities/{eid}/history", None),
        ("GET", f"/v1/entities/{eid}/history/location", None),
        ("GET", f"/v1/facts/{fid}", None),
        ("GET", "/v1/runs/run-iso", None),
        ("POST", f"/v1/entities/{eid}/facts", {"attribute": "likes", "value": "x"}),
        ("DELETE", f"/v1/facts/{fid}", None),
        ("DELETE", f"/v1/facts/{fid}?mode=retract", None),
    ]
    for method, url, body in probes:
        r = other.client.request(method, url, json=body, headers=other.headers)
        missing = other.client.request(
            method,
            url.replace(eid, "ent_nope").replace(fid, "fct_nope").replace("run-iso", "run-nope"),
            json=body,
            headers=other.headers,
        )
        assert r.status_code == 404, (method, url, r.text)
        assert missing.status_code == 404 and r.json()["title"] == missing.json()["title"]

    names = [e["id"] for e in other.get("/v1/entities", params={"q": "bob"}).json()["items"]]
    assert eid not in names and len(names) == 1
    # The owner's own data is untouched by the other's attempts.
    assert api.get(f"/v1/entities/{eid}/facts").json()["items"][0]["value"] == "Lisbon"
    # A run id is per owner: the other owner may use the same id for its own run.
    assert (
        other.post("/v1/runs", {"id": "run-iso", "chat_id": "c9", "messages": []}).status_code
        == 202
    )
    block = other.post("/v1/prefetch", {"chat_id": "c9", "message": "Where is Bob?"}).json()[
        "block"
    ]
    assert "Lisbon" not in block
