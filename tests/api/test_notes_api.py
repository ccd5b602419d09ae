"""Notes over REST (CONTRACT §13, issue 15) on the real Neo4j: versions on both axes, project
overrides, dates to look again, refused titles, retire and close, why, search."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.api.conftest import Api


def z(t: datetime) -> str:
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z")


def now() -> datetime:
    return datetime.now(UTC)


def note(api: Api, **body: Any) -> dict[str, Any]:
    r = api.post("/v1/notes", {"kind": "decision", **body})
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def later(days: int) -> str:
    return z(now() + timedelta(days=days))


def test_replacing_by_key_supersedes_and_keeps_first_learned_at(api: Api) -> None:
    """A second write with the same key is a new version: the old one is superseded (still
    seen with known_at before), and `first_learned_at` is the first version's."""
    first = note(api, title="Drop the Windows installer", body="few users", key="installer")
    assert first["effect"] == "created" and first["note"]["version"] == 1
    between = z(now())
    time.sleep(0.01)
    second = note(api, title="Keep the Windows installer", body="enterprise asks", key="installer")
    assert second["effect"] == "replaced" and second["ended"] == [first["note"]["version_id"]]
    nid = first["note"]["id"]
    assert second["note"]["id"] == nid and second["note"]["version"] == 2
    assert second["note"]["first_learned_at"] == first["note"]["first_learned_at"]
    assert api.get(f"/v1/notes/{nid}").json()["title"] == "Keep the Windows installer"
    then = api.get(f"/v1/notes/{nid}", params={"known_at": between}).json()
    assert then["title"] == "Drop the Windows installer" and then["valid_to"] is None
    history = api.get(f"/v1/notes/{nid}/history").json()["items"]
    assert [(v["version"], v["row_status"]) for v in history] == [(1, "superseded"), (2, "active")]
    assert history[0]["valid_to"] == history[1]["valid_from"]
    audit = api.get(f"/v1/notes/{nid}/history", params={"include_retracted": "true"}).json()
    assert len(audit["items"]) == 3 and audit["items"][0]["retracted_at"] is not None
    listed = api.get("/v1/notes").json()["items"]
    assert [n["title"] for n in listed] == ["Keep the Windows installer"]
    assert "body" not in listed[0]


def test_the_same_content_again_promotes_instead_of_a_duplicate(api: Api) -> None:
    """Storing the same normalized content again writes no row: the tier moves up and the
    relevance starts again at 1."""
    first = note(api, title="Deploys need the migration lock", tier="short")
    again = note(api, title="  deploys NEED the migration lock ", tier="short")
    assert again["effect"] == "promoted" and again["note"]["id"] == first["note"]["id"]
    assert again["note"]["tier"] == "mid" and again["ended"] == []
    third = note(api, title="Deploys need the migration lock")
    assert third["note"]["tier"] == "long"
    assert len(api.get("/v1/notes").json()["items"]) == 1


def test_a_project_note_overrides_the_general_note_of_its_key_for_that_project_only(
    api: Api,
) -> None:
    """Reads for the project see its note and not the general one of the same key; reads
    without a project, or for another project, see the general one."""
    general = note(api, title="Use the v1 endpoints", key="endpoints", kind="convention")
    scoped = note(api, title="The v1 endpoints are deprecated", key="endpoints",
                  kind="convention", project="Atlas")  # fmt: skip
    assert scoped["effect"] == "created" and scoped["note"]["id"] != general["note"]["id"]
    other = note(api, title="Atlas ships on Fridays", project="atlas")

    def titles(**params: str) -> list[str]:
        return sorted(n["title"] for n in api.get("/v1/notes", params=params).json()["items"])

    assert titles() == ["Use the v1 endpoints"]
    assert titles(project="ATLAS") == ["Atlas ships on Fridays", "The v1 endpoints are deprecated"]
    assert titles(project="Borealis") == ["Use the v1 endpoints"]
    found = api.get("/v1/notes/search", params={"q": "endpoints", "project": "atlas"}).json()
    assert [h["note"]["title"] for h in found["items"]] == ["The v1 endpoints are deprecated"]
    assert other["note"]["project"] == "atlas"


@pytest.mark.parametrize(
    ("days", "ok"), [(0, False), (1, True), (30, True), (365, True), (366, False)]
)
def test_an_open_hypothesis_needs_a_date_to_look_again_1_to_365_days_out(
    api: Api, days: int, ok: bool
) -> None:
    """Calendar days (UTC) after today: 1 and 365 pass, 0 and 366 are a 422 naming
    review_at."""
    at = datetime.combine(now().date() + timedelta(days=days), datetime.min.time(), UTC)
    r = api.post(
        "/v1/notes",
        {
            "kind": "hypothesis",
            "title": "Users want dark mode",
            "review_at": z(at + timedelta(hours=12)),
        },
    )
    assert (r.status_code == 201) is ok, r.text
    if not ok:
        assert r.json()["errors"][0]["field"] == "review_at"


def test_open_claims_without_a_date_and_naive_dates_are_refused(api: Api) -> None:
    """No review_at on an open question, or one without an offset: 422 naming review_at."""
    r = api.post("/v1/notes", {"kind": "question", "title": "Why do signups dip on Mondays"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "review_at"
    assert "date to look again" in r.json()["detail"]
    naive = api.post(
        "/v1/notes", {"kind": "question", "title": "Why", "review_at": "2030-01-01T00:00:00"}
    )
    assert naive.status_code == 422 and naive.json()["errors"][0]["field"] == "review_at"
    closed = api.post("/v1/notes", {"kind": "hypothesis", "title": "Pricing", "status": "rejected"})
    assert closed.status_code == 201 and closed.json()["note"]["review_at"] is None


@pytest.mark.parametrize(
    ("title", "refused"),
    [
        ("run-2026-09-14", True),
        ("cycle-3", True),
        ("Session 12 notes", True),
        ("2026-09-14 14:00", True),
        ("Run 5 failed on the auth step", False),
        ("Q3 pricing decision", False),
        ("Deploys need the migration lock", False),
    ],
)
def test_titles_named_after_a_moment_are_refused(api: Api, title: str, refused: bool) -> None:
    """A diary of runs teaches the next run nothing: 422 on the title, with the reason."""
    r = api.post("/v1/notes", {"kind": "learning", "title": title})
    assert (r.status_code == 422) is refused, r.text
    if refused:
        assert r.json()["errors"][0]["field"] == "title" and "diary" in r.json()["detail"]


def test_due_lists_what_needs_a_second_look_and_close_records_when_and_why(api: Api) -> None:
    """`GET /v1/notes/due?at=` lists open claims and dated notes due by then; closing a
    hypothesis as confirmed records when and why in a new version and ends its due date."""
    h = note(api, kind="hypothesis", title="Annual plans churn less", review_at=later(3))
    note(api, kind="context", title="The spring sale runs until Friday", review_at=later(7))
    note(api, kind="question", title="Who owns billing", review_at=later(30))
    assert api.get("/v1/notes/due").json()["count"] == 0
    due = api.get("/v1/notes/due", params={"at": later(8)}).json()
    assert [n["title"] for n in due["items"]] == [
        "Annual plans churn less",
        "The spring sale runs until Friday",
    ]
    nid = h["note"]["id"]
    closed = api.post(f"/v1/notes/{nid}/close", {"status": "confirmed", "reason": "cohort data"})
    assert closed.status_code == 200, closed.text
    body = closed.json()["note"]
    assert body["status"] == "confirmed" and body["close_reason"] == "cohort data"
    assert body["closed_at"] == body["valid_from"] and body["review_at"] is None
    assert body["version"] == 2 and body["first_learned_at"] == h["note"]["first_learned_at"]
    due = api.get("/v1/notes/due", params={"at": later(8)}).json()
    assert [n["title"] for n in due["items"]] == ["The spring sale runs until Friday"]
    again = api.post(f"/v1/notes/{nid}/close", {"status": "rejected", "reason": "x"})
    assert again.status_code == 409
    plain = note(api, title="Ship weekly")["note"]["id"]
    assert (
        api.post(f"/v1/notes/{plain}/close", {"status": "confirmed", "reason": "x"}).status_code
        == 409
    )
    # (this read sent `at`, which the route does not take: it was ignored, now it is a 422)
    overview = api.get("/v1/notes/overview").json()
    assert overview["kinds"] == {"context": 1, "decision": 1, "hypothesis": 1, "question": 1}
    assert overview["total"] == 4 and overview["held"] == 4 and overview["max_notes"] == 600


def test_retire_ends_validity_and_keeps_the_past(api: Api) -> None:
    """After retire, now reads it as retired (valid_to set) and lists leave it out; a read
    with valid_at before the retirement sees it active; a second retire is a 409."""
    n = note(api, title="Use the old pricing page")
    nid = n["note"]["id"]
    before = z(now())
    time.sleep(0.01)
    r = api.post(f"/v1/notes/{nid}/retire", {"reason": "the page is gone"})
    assert r.status_code == 200, r.text
    assert r.json()["effect"] == "retired" and r.json()["note"]["status"] == "retired"
    assert api.get("/v1/notes").json()["items"] == []
    now_read = api.get(f"/v1/notes/{nid}").json()
    assert now_read["status"] == "retired" and now_read["valid_to"] is not None
    then = api.get(f"/v1/notes/{nid}", params={"valid_at": before, "known_at": before}).json()
    assert then["status"] == "active" and then["valid_to"] is None
    assert api.post(f"/v1/notes/{nid}/retire").status_code == 409
    assert (
        api.get(f"/v1/notes/{nid}", params={"valid_at": "2000-01-01T00:00:00Z"}).status_code == 404
    )


def test_why_walks_the_trail_of_every_version(api: Api) -> None:
    """Why of the current version: the action and commit of each write, oldest first."""
    first = note(api, title="Price in euros", key="currency")
    note(api, title="Price in dollars", key="currency")
    why = api.get(f"/v1/notes/{first['note']['id']}/why").json()
    assert why["note"]["title"] == "Price in dollars" and why["source"] == "user_edit"
    assert [(e["kind"], e.get("action")) for e in why["chain"]] == [
        ("action", "note"),
        ("commit", None),
        ("action", "note"),
        ("commit", None),
    ]
    assert why["decided_by"]["kind"] == "action" and why["trigger"]["id"] == why["decided_by"]["id"]
    old = api.get(
        f"/v1/notes/{first['note']['id']}/why", params={"version_id": first["note"]["version_id"]}
    )
    assert old.status_code == 200 and len(old.json()["chain"]) == 2


def test_other_owners_notes_look_absent_and_secrets_are_refused(api: Api, other: Api) -> None:
    """Another owner's note id is a 404 like an unknown one, for reads and writes; a note
    holding a credential is a 422 (secrets are never stored)."""
    mine = note(api, title="Rotate the staging keys monthly")["note"]["id"]
    for r in (
        other.get(f"/v1/notes/{mine}"),
        other.get(f"/v1/notes/{mine}/history"),
        other.post(f"/v1/notes/{mine}/retire"),
    ):
        assert r.status_code == 404 and r.json()["detail"] == f"No note with id {mine!r}."
    assert other.get("/v1/notes").json()["items"] == []
    secret = api.post(
        "/v1/notes", {"kind": "context", "title": "Staging", "body": "the password is hunter2"}
    )
    assert secret.status_code == 422 and secret.json()["errors"][0]["field"] == "body"


def test_search_finds_stemmed_words_with_an_extract(api: Api) -> None:
    """ "pricing" finds "price"; a match comes with a short extract and the two terms recall
    ranks by."""
    note(api, kind="playbook", title="How we change a price",
         body="Announce two weeks ahead. " * 20 + "Update the pricing page last.")  # fmt: skip
    note(api, title="Ship weekly")
    found = api.get("/v1/notes/search", params={"q": "prices"}).json()["items"]
    assert [h["note"]["title"] for h in found] == ["How we change a price"]
    assert found[0]["relevance"] == 1.0 and 0.99 <= found[0]["recency"] <= 1.0
    assert len(found[0]["extract"]) <= 170
    assert api.get("/v1/notes/search", params={"q": " "}).status_code == 422


def test_the_list_pages_through_every_note_once(api: Api) -> None:
    """`next` leads through every note exactly once, newest first, with no `valid_at` given
    (a cursor pins the first page's instant on both axes); an altered cursor is a 422."""
    made = [
        note(api, kind="context", title=f"Office fact number {i}")["note"]["id"] for i in range(5)
    ]
    seen: list[str] = []
    cursor = None
    for _ in range(5):
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        r = api.get("/v1/notes", params=params)
        assert r.status_code == 200, r.text
        seen += [n["id"] for n in r.json()["items"]]
        cursor = r.json()["next"]
        if cursor is None:
            break
    assert seen == list(reversed(made))
    r = api.get("/v1/notes", params={"limit": 2, "kind": "decision", "cursor": "x" + "A" * 40})
    assert r.status_code == 422 and "cursor" in r.text
