"""Proposals a person keeps or discards, suppression, notifications (CONTRACT §2.1 rule 5, §3)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import Api, make_api

AT = "2024-03-10T09:00:00+01:00"


def run(
    api: Api,
    app: Any,
    run_id: str,
    messages: list[tuple[str, str]],
    chat: str = "chat-1",
    observations: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Post a run, curate it, return its status."""
    body = {
        "id": run_id,
        "chat_id": chat,
        "messages": [
            {"id": f"{run_id}-m{i}", "role": role, "text": text, "at": AT}
            for i, (role, text) in enumerate(messages)
        ],
        "observations": observations or [],
    }
    assert api.post("/v1/runs", body).status_code == 202
    app.state.curator.drain()
    status = api.get(f"/v1/runs/{run_id}").json()
    assert status["status"] == "done", status
    return status  # type: ignore[no-any-return]


def me(api: Api) -> str:
    return next(
        e["id"]
        for e in api.get("/v1/entities", params={"q": api.owner}).json()["items"]
        if e["name"] == api.owner
    )


def current(api: Api, attribute: str, entity: str | None = None) -> list[Any]:
    facts = api.get(f"/v1/entities/{entity or me(api)}/facts").json()["items"]
    return [f["value"] for f in facts if f["attribute"] == attribute]


def pending(api: Api, **params: str) -> list[dict[str, Any]]:
    return api.get("/v1/proposals", params={"status": "pending", **params}).json()["items"]  # type: ignore[no-any-return]


UNTRUSTED = ("assistant", "Noted: the user's favorite color is teal.")


def test_untrusted_content_is_held_and_invisible_until_kept(api: Api, app: Any) -> None:
    """An assistant's claim about the person waits, pending, out of every read; keep writes it."""
    status = run(api, app, "r1", [("user", "I live in Lisbon."), UNTRUSTED])
    assert (status["committed"], status["held"]) == (1, 1)
    [p] = pending(api)
    assert (p["attribute"], p["value"], p["source"], p["policy"]) == (
        "favorite_color",
        "teal",
        "untrusted",
        "untrusted source",
    )
    assert current(api, "favorite_color") == []
    block = api.post("/v1/prefetch", {"chat_id": "chat-1", "message": "what color?"}).json()
    assert "teal" not in block["block"]
    [note] = api.get("/v1/notifications", params={"chat_id": "chat-1"}).json()["items"]
    assert note["kind"] == "proposal" and note["proposal_id"] == p["id"] and "teal" in note["text"]
    kept = api.post(f"/v1/proposals/{p['id']}/keep")
    assert kept.status_code == 200, kept.text
    assert kept.json()["proposal"]["status"] == "kept"
    assert kept.json()["fact"]["source"] == "untrusted" and kept.json()["fact"]["value"] == "teal"
    assert current(api, "favorite_color") == ["teal"]
    assert api.post(f"/v1/proposals/{p['id']}/keep").status_code == 409
    assert api.get("/v1/notifications", params={"chat_id": "chat-1"}).json()["items"] == []


def test_discard_suppresses_in_every_chat_until_asserted(api: Api, app: Any) -> None:
    """Discard → never proposed again, in any chat of the owner; asserting clears it."""
    run(api, app, "r1", [UNTRUSTED], chat="chat-1")
    [p] = pending(api)
    r = api.post(f"/v1/proposals/{p['id']}/discard")
    assert r.status_code == 200 and r.json()["proposal"]["status"] == "discarded"
    again = run(
        api, app, "r2", [("assistant", "The user's Favorite  Color is TEAL.")], chat="chat-2"
    )
    assert again["held"] == 0 and pending(api) == []
    api.fact(me(api), attribute="favorite_color", value="teal")  # the person asserts it
    run(api, app, "r3", [("assistant", "The user's favorite color is teal.")], chat="chat-3")
    assert [q["chat_id"] for q in pending(api)] == ["chat-3"]


def test_suppression_is_per_owner(api: Api, other: Api, app: Any) -> None:
    """One owner's "no" does not silence another owner's curator."""
    run(api, app, "r1", [UNTRUSTED])
    api.post(f"/v1/proposals/{pending(api)[0]['id']}/discard")
    run(other, app, "r1", [UNTRUSTED])
    assert len(pending(other)) == 1


def test_replies_in_chat(api: Api, app: Any) -> None:
    """A reply resolves the proposals last surfaced in that chat; unclear replies change nothing."""
    run(
        api,
        app,
        "r1",
        [("assistant", "The user's favorite color is teal. The user lives in Oslo.")],
    )
    ids = [p["id"] for p in pending(api)]
    assert len(ids) == 2
    unclear = api.post("/v1/chats/chat-1/replies", {"text": "hmm, maybe later?"}).json()
    assert unclear == {
        "understood": False,
        "kept": [],
        "discarded": [],
        "pending": ids,
        "detail": unclear["detail"],
    }
    r = api.post("/v1/chats/chat-1/replies", {"text": "keep the first one"}).json()
    assert r["understood"] and r["kept"] == ids[:1] and r["pending"] == ids[1:]
    r = api.post("/v1/chats/chat-1/replies", {"text": "no, forget it"}).json()
    assert r["discarded"] == ids[1:] and r["pending"] == []
    assert current(api, "favorite_color") == ["teal"] and current(api, "location") == []
    nothing = api.post("/v1/chats/chat-1/replies", {"text": "yes"}).json()
    assert nothing["understood"] is False and nothing["pending"] == []


def test_reply_only_touches_its_own_chat(api: Api, app: Any) -> None:
    """ "yes" in chat-2 does not keep what was surfaced in chat-1."""
    run(api, app, "r1", [UNTRUSTED], chat="chat-1")
    r = api.post("/v1/chats/chat-2/replies", {"text": "yes, remember that"}).json()
    assert r["understood"] is False and len(pending(api)) == 1
    r = api.post("/v1/chats/chat-1/replies", {"text": "yes, remember that"}).json()
    assert r["understood"] and len(r["kept"]) == 1


def test_assistant_password_claim_produces_nothing(api: Api, app: Any) -> None:
    """Secrets are never proposed, whoever says them."""
    status = run(
        api,
        app,
        "r1",
        [
            ("assistant", "For the record, the user's password is hunter2."),
            ("tool", "the user's api key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"),
        ],
    )
    assert status["proposals"] == 0 and status["held"] == 0 and status["committed"] == 0
    assert api.get("/v1/proposals").json()["items"] == []


def test_pasted_text_is_untrusted(api: Api, app: Any) -> None:
    """Text quoted into a user message is not the person speaking: it is held."""
    run(api, app, "r1", [("user", "Look what this page says:\n> The user lives in Tokyo.\nFunny.")])
    assert current(api, "location") == []
    assert [(p["value"], p["source"]) for p in pending(api)] == [("Tokyo", "untrusted")]


def test_a_conflict_over_another_speakers_words_names_that_speaker(api: Api, app: Any) -> None:
    """CONTRACT §2.1 rule 5 with a speaker other than the owner (found in the imported
    demo: Jon's own words read "you'd said"): the notification names Jon."""
    for run_id, text in (("r1", "I live in Paris."), ("r2", "I live in Berlin now.")):
        body = {
            "id": run_id,
            "chat_id": "chat-1",
            "messages": [
                {"id": f"{run_id}-m0", "role": "user", "speaker": "Jon", "text": text, "at": AT}
            ],
        }
        assert api.post("/v1/runs", body).status_code == 202
        app.state.curator.drain()
    notes = [n for n in api.get("/v1/notifications").json()["items"] if n["kind"] == "conflict"]
    assert [n["text"] for n in notes] == [
        "I updated something Jon had said differently before: Jon's location Paris → Berlin"
    ]


def test_conflict_notification_when_a_stated_value_is_superseded(api: Api, app: Any) -> None:
    """CONTRACT §2.1 rule 5: superseding what the person said is said out loud."""
    run(api, app, "r1", [("user", "I live in Paris.")])
    api.fact(me(api), attribute="location", value="Berlin")
    notes = [n for n in api.get("/v1/notifications").json()["items"] if n["kind"] == "conflict"]
    assert len(notes) == 1 and notes[0]["chat_id"] is None
    assert notes[0]["text"] == (
        "I updated something you'd said differently before: location Paris → Berlin"
    )
    ack = api.post(f"/v1/notifications/{notes[0]['id']}/acknowledge")
    assert ack.status_code == 200 and ack.json()["acknowledged_at"] is not None
    assert api.get("/v1/notifications").json()["items"] == []
    assert (
        len(api.get("/v1/notifications", params={"include_acknowledged": "true"}).json()["items"])
        == 1
    )


def test_integration_observation_commits_and_privileged_is_held(api: Api, app: Any) -> None:
    """An integration's plain observation commits; a health detail waits for a yes."""
    status = run(
        api,
        app,
        "r1",
        [],
        observations=[
            {
                "integration": "calendar",
                "entity": {"name": "Atlas", "kind": "project"},
                "attribute": "status",
                "value": "on hold",
                "valid_from": "2024-03-01T00:00:00Z",
            },
            {
                "integration": "health-app",
                "entity": {},
                "attribute": "medication",
                "value": "insulin",
                "valid_from": "2024-03-01T00:00:00Z",
            },
        ],
    )
    assert (status["committed"], status["held"]) == (1, 1)
    [p] = pending(api)
    assert (p["attribute"], p["policy"], p["source"]) == (
        "medication",
        "privileged category",
        "integration:health-app",
    )


def test_observation_with_long_evidence_is_proposed(api: Api, app: Any) -> None:
    """An observation the API accepts is one the curator proposes: 5,000 characters of
    evidence (under the 20,000 bound) commit. A regression: the curator had its own model
    capped at 2,000, so the run was accepted with 202 and then silently proposed nothing."""
    evidence = "calendar export line " * 250
    status = run(
        api,
        app,
        "r1",
        [],
        observations=[
            {
                "integration": "calendar",
                "entity": {"name": "Atlas", "kind": "project"},
                "attribute": "status",
                "value": "on hold",
                "valid_from": "2024-03-01T00:00:00Z",
                "evidence": evidence[:5000],
            }
        ],
    )
    assert (status["proposals"], status["committed"]) == (1, 1)


def test_proposal_isolation_and_filters(api: Api, other: Api, app: Any) -> None:
    """Another owner's proposal ids are 404; filters by chat and run work; pages chain."""
    run(api, app, "r1", [UNTRUSTED], chat="chat-a")
    run(api, app, "r2", [("assistant", "The user lives in Oslo.")], chat="chat-b")
    pid = pending(api)[0]["id"]
    for call in (
        other.get(f"/v1/proposals/{pid}"),
        other.post(f"/v1/proposals/{pid}/keep"),
        other.post(f"/v1/proposals/{pid}/discard"),
    ):
        assert call.status_code == 404
    assert other.get("/v1/proposals").json()["items"] == []
    assert [p["run_id"] for p in pending(api, chat_id="chat-b")] == ["r2"]
    assert [p["chat_id"] for p in pending(api, run_id="r1")] == ["chat-a"]
    page = api.get("/v1/proposals", params={"limit": 1}).json()
    assert len(page["items"]) == 1 and page["next"]
    rest = api.get("/v1/proposals", params={"limit": 1, "cursor": page["next"]}).json()
    assert rest["items"][0]["id"] != page["items"][0]["id"]
    assert api.get("/v1/proposals", params={"status": "maybe"}).status_code == 422


def test_read_token_cannot_decide(api: Api, app: Any, client: Any, neo4j_driver: Any) -> None:
    """keep/discard/replies need `curate`."""

    run(api, app, "r1", [UNTRUSTED])
    reader = make_api(client, neo4j_driver, api.owner, ("read",))
    pid = pending(api)[0]["id"]
    assert reader.post(f"/v1/proposals/{pid}/keep").status_code == 403
    assert reader.post(f"/v1/proposals/{pid}/discard").status_code == 403
    assert reader.post("/v1/chats/chat-1/replies", {"text": "yes"}).status_code == 403


def test_pasted_blocks_of_every_form_are_untrusted(api: Api, app: Any) -> None:
    """Fenced (``` and ~~~, closed or not) and indented blocks are pasted, not the person;
    the person's own sentence beside a quote still counts."""
    for i, text in enumerate(
        [
            "```\nI work at Initech\n```",
            "Look at this:\n~~~\nI work at Vandelay\n~~~\nthoughts?",
            "Here is the email:\n\n    I work at Evil Corp\n\nwhat now?",
            "Reply to the above\n```\nI work at Umbrella\n",
        ]
    ):
        run(api, app, f"p{i}", [("user", text)])
    assert current(api, "employer") == []
    run(api, app, "q", [("user", "> I work at Evil Corp\nI live in Madrid.")])
    assert current(api, "location") == ["Madrid"]


def test_bad_observations_are_422_naming_the_field(api: Api) -> None:
    """Observations are checked when the run is posted; nothing is queued."""
    good = {
        "integration": "hr",
        "entity": {"name": "Atlas", "kind": "project"},
        "attribute": "status",
        "value": "active",
    }
    for bad, field in [
        ({"entity": {"name": ""}}, "observations.0.entity.name"),
        ({"value": 2**70}, "observations.0.value"),
        ({"valid_from": "2024-01-01T00:00:00"}, "observations.0.valid_from"),
        ({"attribute": "Not Snake"}, "observations.0.attribute"),
    ]:
        r = api.post(
            "/v1/runs",
            {"id": "bad", "chat_id": "c", "messages": [], "observations": [{**good, **bad}]},
        )
        assert r.status_code == 422 and field in r.json()["detail"], r.text
    assert api.get("/v1/runs/bad").status_code == 404


def test_observations_alone_are_curated(api: Api, app: Any) -> None:
    """A sync with no messages still records what it observed (dated at the run)."""
    status = run(
        api,
        app,
        "r1",
        [],
        observations=[
            {
                "integration": "hr",
                "entity": {"name": "Atlas", "kind": "project"},
                "attribute": "status",
                "value": "active",
            }
        ],
    )
    assert status["committed"] == 1


def test_stating_a_discarded_value_oneself_asserts_it(api: Api, app: Any) -> None:
    """After "no" to an assistant's claim, the person plainly saying it commits it."""
    run(api, app, "r1", [("assistant", "The user works at Zorg Corp.")])
    api.post(f"/v1/proposals/{pending(api)[0]['id']}/discard")
    run(api, app, "r2", [("user", "I work at Zorg Corp.")], chat="chat-2")
    assert current(api, "employer") == ["Zorg Corp"]
    run(api, app, "r3", [("tool", "The user works at Zorg Corp.")], chat="chat-3")
    assert pending(api) != []  # the suppression was cleared by the assertion


def test_reply_skips_what_was_decided_meanwhile(api: Api, app: Any) -> None:
    """A keep over REST just before "yes" does not make the reply fail for the others."""
    run(
        api,
        app,
        "r1",
        [("assistant", "The user's favorite color is teal. The user lives in Oslo.")],
    )
    first, second = (p["id"] for p in pending(api))
    api.post(f"/v1/proposals/{second}/keep")
    r = api.post("/v1/chats/chat-1/replies", {"text": "yes"})
    assert r.status_code == 200 and r.json()["kept"] == [first]
