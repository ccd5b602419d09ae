"""The optional LLM extractor proposes through the same objects and fails safe (CONTRACT §3, §4).

Every test drives the real `openai` client against a small OpenAI-compatible HTTP server
started here (`FakeOpenAI`), which serves the completion a test chooses and records each
request it receives. No Neo4j, no monkeypatched client.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from committer.proposals import EntityRef, Proposal
from curator.llm import ExtractorUnavailable, LlmExtractor
from curator.settings import CuratorSettings
from graph.attributes import REGISTRY
from graph.errors import NaiveTimestamp
from tests.fakes.openai import KEY, FakeOpenAI
from tests.fakes.openai import LLM_MODEL as MODEL

AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)

MESSAGES: list[dict[str, Any]] = [
    {
        "id": "m0",
        "role": "user",
        "text": "I moved to Lisbon last month. I work on the K8s migration.",
        "at": AT,
    },
    {
        "id": "m1",
        "role": "assistant",
        "text": "Got it, you prefer short answers.",
        "at": AT + timedelta(seconds=5),
    },
    {
        "id": "m2",
        "role": "tool",
        "text": "calendar: Ana's birthday is on 12 June",
        "at": "2023-05-08T15:57:00+02:00",
    },
    {
        "id": "m3",
        "role": "user",
        "speaker": "Caroline",
        "text": "Honestly, I’m  sick of   rain.",
        "at": AT + timedelta(minutes=1),
    },
]


@pytest.fixture
def extractor(llm: FakeOpenAI) -> Iterator[LlmExtractor]:
    ex = LlmExtractor(llm.base_url, KEY, MODEL, timeout=0.5)
    yield ex
    ex.close()


def stmt(**fields: Any) -> dict[str, Any]:
    """A valid statement about message 0 (location = Lisbon) with `fields` overriding."""
    base: dict[str, Any] = {
        "message_index": 0,
        "subject": None,
        "subject_kind": "person",
        "op": "assert",
        "attribute": "location",
        "value": "Lisbon",
        "confidence": 0.9,
        "evidence": "I moved to Lisbon last month.",
        "reason": "the user says they moved",
        "inferred": False,
    }
    base.update(fields)
    return {k: v for k, v in base.items() if v is not ...}


def run(extractor: LlmExtractor, run_id: str = "run-1") -> list[Proposal]:
    return extractor.extract_run(MESSAGES, run_id)


# --- proposals -------------------------------------------------------------------------


def test_user_statement_becomes_a_user_stated_proposal(llm: FakeOpenAI, extractor: LlmExtractor):
    """A user's own statement is proposed as `user_stated`, type llm, with its evidence."""
    llm.statements(stmt(valid_from="2023-04-01T00:00:00+00:00"))
    [p] = run(extractor)
    assert (p.op, p.subject, p.attribute, p.value, p.object) == (
        "assert",
        EntityRef(),
        "location",
        "Lisbon",
        None,
    )
    assert p.valid_from == datetime(2023, 4, 1, tzinfo=UTC) and p.valid_to is None
    assert p.type == "llm"
    prov = p.provenance
    assert (prov.source, prov.evidence, prov.message_id, prov.run_id, prov.confidence) == (
        "user_stated",
        "I moved to Lisbon last month.",
        "m0",
        "run-1",
        0.9,
    )
    assert prov.reason == "the user says they moved"


def test_valid_from_defaults_to_the_message_time_and_objects_are_entities(
    llm: FakeOpenAI, extractor: LlmExtractor
):
    """Without valid_from the fact holds from the message's time; an object is an EntityRef."""
    llm.statements(
        stmt(
            attribute="works_on",
            value=None,
            object="K8s migration",
            object_kind="Project",
            evidence="I work on the K8s migration.",
        )
    )
    [p] = run(extractor)
    assert p.valid_from == AT
    assert p.value is None and p.object == EntityRef(name="K8s migration", kind="project")


def test_subject_null_in_a_speakers_message_is_the_speaker(
    llm: FakeOpenAI, extractor: LlmExtractor
):
    """A null subject in a user message with a speaker names that speaker (CONTRACT §10)."""
    llm.statements(
        stmt(message_index=3, attribute="dislikes", value="rain", evidence="I'm sick of rain")
    )
    [p] = run(extractor)
    assert p.subject == EntityRef(name="Caroline", kind="person")
    assert p.provenance.message_id == "m3" and p.valid_from == AT + timedelta(minutes=1)


def test_evidence_may_differ_in_typographic_quotes_and_spacing(
    llm: FakeOpenAI, extractor: LlmExtractor
):
    """A quote that differs from the message only in ’ vs ' and white space still counts."""
    llm.statements(
        stmt(
            message_index=3,
            attribute="dislikes",
            value="rain",
            evidence="Honestly, I'm sick of rain.",
        )
    )
    assert len(run(extractor)) == 1


def test_inferred_statement_is_inferred(llm: FakeOpenAI, extractor: LlmExtractor):
    """What the model inferred rather than read is proposed with source `inferred` (§3)."""
    llm.statements(stmt(attribute="likes", value="city life", inferred=True, confidence=0.6))
    [p] = run(extractor)
    assert p.provenance.source == "inferred"


@pytest.mark.parametrize(
    ("index", "evidence"),
    [(1, "you prefer short answers"), (2, "Ana's birthday is on 12 June")],
)
def test_assistant_and_tool_messages_are_untrusted(
    llm: FakeOpenAI, extractor: LlmExtractor, index: int, evidence: str
):
    """Statements drawn from assistant or tool messages are `untrusted`, never user_stated."""
    llm.statements(stmt(message_index=index, evidence=evidence, inferred=False))
    [p] = run(extractor)
    assert p.provenance.source == "untrusted"
    assert p.provenance.message_id == f"m{index}"


def test_tool_timestamp_keeps_its_offset(llm: FakeOpenAI, extractor: LlmExtractor):
    """An RFC 3339 message time is read with its offset and is the default valid_from."""
    llm.statements(
        stmt(
            message_index=2,
            subject="Ana",
            attribute="birthday",
            value="06-12",
            evidence="Ana's birthday is on 12 June",
        )
    )
    [p] = run(extractor)
    assert p.valid_from == datetime(2023, 5, 8, 15, 57, tzinfo=timezone(timedelta(hours=2)))
    assert p.subject == EntityRef(name="Ana", kind="person")


def test_end_statement(llm: FakeOpenAI, extractor: LlmExtractor):
    """An `end` may omit the value: the attribute stopped holding at valid_from."""
    llm.statements(
        stmt(
            op="end",
            value=None,
            valid_from="2023-04-01T00:00:00+01:00",
            valid_to="2023-06-01T00:00:00+01:00",
        )
    )
    [p] = run(extractor)
    assert (p.op, p.value, p.valid_to) == ("end", None, None)
    assert p.valid_from == datetime(2023, 3, 31, 23, tzinfo=UTC)


INVALID = {
    "no such message": stmt(message_index=9),
    "index as text": stmt(message_index="0"),
    "negative index": stmt(message_index=-1),
    "evidence missing": stmt(evidence=...),
    "evidence empty": stmt(evidence=""),
    "evidence not in the message": stmt(evidence="I moved to Paris last month."),
    "evidence from another message": stmt(evidence="you prefer short answers"),
    "attribute not snake_case": stmt(attribute="Where They Live"),
    "attribute too long": stmt(attribute="a" * 60),
    "attribute missing": stmt(attribute=...),
    "naive valid_from": stmt(valid_from="2023-04-01T00:00:00"),
    "numeric valid_from": stmt(valid_from=1680307200),
    "not a timestamp": stmt(valid_from="last month"),
    "window backwards": stmt(valid_from="2023-04-01T00:00:00Z", valid_to="2023-03-01T00:00:00Z"),
    "far future": stmt(valid_from="9999-06-01T00:00:00Z"),
    "value and object": stmt(object="Lisbon"),
    "neither value nor object": stmt(value=None),
    "confidence above 1": stmt(confidence=1.5),
    "confidence missing": stmt(confidence=...),
    "confidence as text": stmt(confidence="high"),
    "unknown op": stmt(op="delete"),
    "value a dict": stmt(value={"city": "Lisbon"}),
    "value too long": stmt(value="x" * 300),
    "inferred as text": stmt(inferred="yes"),
    "bad kind": stmt(subject="Ana", subject_kind="Big Thing!"),
    "not an object": "location = Lisbon",
    "null": None,
}


@pytest.mark.parametrize("bad", list(INVALID.values()), ids=list(INVALID))
def test_invalid_statements_are_dropped(llm: FakeOpenAI, extractor: LlmExtractor, bad: Any):
    """An invalid statement is dropped without failing the run; valid ones still count."""
    good = stmt(attribute="works_on", value="K8s migration", evidence="I work on the K8s migration")
    llm.statements(bad, good)
    assert [(p.attribute, p.value) for p in run(extractor)] == [("works_on", "K8s migration")]


def test_unknown_short_snake_case_attribute_is_kept(llm: FakeOpenAI, extractor: LlmExtractor):
    """An attribute outside the registry is kept when it is short snake_case."""
    llm.statements(stmt(attribute="moved_from_city", value="Porto"))
    assert [p.attribute for p in run(extractor)] == ["moved_from_city"]


SECRET_MESSAGES: list[dict[str, Any]] = [
    {
        "id": "s0",
        "role": "user",
        "at": AT,
        "text": "My wifi password is Tr0ub4dor&3xyz!, and I live in Porto.",
    },
    {
        "id": "s1",
        "role": "tool",
        "at": AT,
        "text": "env: OPENAI_API_KEY=sk-proj-9fA8bC7dE6fG5hI4jK3lM2nO1pQ0rS9tU8vW7xY6z",
    },
]


def test_a_secret_is_never_proposed(llm: FakeOpenAI, extractor: LlmExtractor):
    """A statement whose value or evidence looks like a secret is never proposed (§3)."""
    llm.statements(
        stmt(
            attribute="wifi_password",
            value="Tr0ub4dor&3xyz!",
            evidence="My wifi password is Tr0ub4dor&3xyz!",
        ),
        stmt(
            attribute="location",
            value="Porto",
            evidence="My wifi password is Tr0ub4dor&3xyz!, and I live in Porto.",
        ),
        stmt(
            message_index=1,
            attribute="api_key",
            value="sk-proj-9fA8bC7dE6fG5hI4jK3lM2nO1pQ0rS9tU8vW7xY6z",
            evidence="sk-proj-9fA8bC7dE6fG5hI4jK3lM2nO1pQ0rS9tU8vW7xY6z",
        ),
        stmt(attribute="location", value="Porto", evidence="I live in Porto."),
    )
    found = extractor.extract_run(SECRET_MESSAGES, "run-s")
    assert [(p.attribute, p.value, p.provenance.evidence) for p in found] == [
        ("location", "Porto", "I live in Porto.")
    ]


def test_same_fact_twice_is_proposed_once(llm: FakeOpenAI, extractor: LlmExtractor):
    """The same open-ended fact stated twice in a completion is proposed once."""
    llm.statements(stmt(), stmt(value="lisbon", evidence="Lisbon"))
    assert len(run(extractor)) == 1


# --- ids -------------------------------------------------------------------------------


def test_ids_are_deterministic(llm: FakeOpenAI, extractor: LlmExtractor):
    """The same completion for the same run gives the same ids; another run, other ids."""
    llm.statements(
        stmt(),
        stmt(attribute="works_on", value="K8s migration", evidence="K8s migration"),
        stmt(subject="Ana", attribute="location", value="Lisbon"),
    )
    first = [p.id for p in run(extractor)]
    again = [p.id for p in run(extractor)]
    other = [p.id for p in run(extractor, "run-2")]
    assert first == again
    assert len(set(first)) == 3
    assert not set(first) & set(other)


def test_two_events_of_one_message_get_two_ids(llm: FakeOpenAI, extractor: LlmExtractor):
    """The same value in two valid windows is two proposals with distinct ids."""
    llm.statements(
        stmt(
            attribute="participated_in",
            value="yoga",
            valid_from="2023-05-01T00:00:00Z",
            valid_to="2023-05-02T00:00:00Z",
        ),
        stmt(
            attribute="participated_in",
            value="yoga",
            valid_from="2023-05-07T00:00:00Z",
            valid_to="2023-05-08T00:00:00Z",
        ),
    )
    found = run(extractor)
    assert len(found) == 2 and found[0].id != found[1].id


# --- the request -----------------------------------------------------------------------


def test_request_carries_model_key_registry_and_messages(llm: FakeOpenAI, extractor: LlmExtractor):
    """One chat completion per run: the model, Bearer key, JSON mode, registry, messages."""
    llm.statements()
    assert run(extractor) == []
    [(path, headers, body)] = llm.requests
    assert path == "/v1/chat/completions"
    assert {k.lower(): v for k, v in headers.items()}["authorization"] == f"Bearer {KEY}"
    assert body["model"] == MODEL
    assert body["response_format"] == {"type": "json_object"}
    prompt = "\n".join(m["content"] for m in body["messages"])
    assert all(name in prompt for name in REGISTRY)
    rendered = [json.loads(line) for line in body["messages"][-1]["content"].splitlines()[1:]]
    assert [(m["index"], m["role"], m["speaker"]) for m in rendered] == [
        (0, "user", None),
        (1, "assistant", None),
        (2, "tool", None),
        (3, "user", "Caroline"),
    ]
    assert rendered[0]["at"] == "2023-05-08T13:56:00+00:00"
    assert rendered[2]["at"] == "2023-05-08T15:57:00+02:00"
    assert rendered[3]["text"] == MESSAGES[3]["text"]


def test_run_without_text_makes_no_request(llm: FakeOpenAI, extractor: LlmExtractor):
    """A run with no message text proposes nothing and does not call the model."""
    assert extractor.extract_run([{"role": "user", "text": "  ", "at": AT}], "run-e") == []
    assert llm.requests == []


def test_naive_message_time_is_rejected(llm: FakeOpenAI, extractor: LlmExtractor):
    """A message time without an offset is refused before any call (CONTRACT §2)."""
    with pytest.raises(NaiveTimestamp):
        extractor.extract_run([{"role": "user", "text": "hi", "at": "2023-05-08T10:00"}], "r")
    assert llm.requests == []


# --- settings --------------------------------------------------------------------------


def test_off_unless_configured():
    """Without a base URL and a model the extractor is off (CONTRACT §4)."""
    assert LlmExtractor.from_settings(CuratorSettings(llm_base_url=None, llm_model=None)) is None
    assert (
        LlmExtractor.from_settings(
            CuratorSettings(llm_base_url="http://127.0.0.1:9/v1", llm_model=None)
        )
        is None
    )
    assert LlmExtractor.from_settings(CuratorSettings(llm_base_url=None, llm_model=MODEL)) is None


def test_from_settings_uses_url_key_model(llm: FakeOpenAI):
    """Configured by settings, it calls that endpoint with that model and key."""
    settings = CuratorSettings(
        llm_base_url=llm.base_url,
        llm_api_key="from-settings",
        llm_model="other-model",
        llm_timeout_seconds=2.0,
    )
    ex = LlmExtractor.from_settings(settings)
    assert ex is not None
    llm.statements(stmt())
    try:
        assert len(run(ex)) == 1
    finally:
        ex.close()
    [(_, headers, body)] = llm.requests
    assert {k.lower(): v for k, v in headers.items()}["authorization"] == "Bearer from-settings"
    assert body["model"] == "other-model"


def test_without_a_key_the_environment_key_is_not_sent(
    llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
):
    """No configured key: OPENAI_API_KEY from the environment never goes to the endpoint."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    ex = LlmExtractor(llm.base_url, None, MODEL, timeout=2.0)
    llm.statements()
    try:
        run(ex)
    finally:
        ex.close()
    [(_, headers, _)] = llm.requests
    assert "sk-from-the-environment" not in json.dumps(headers)


# --- failures --------------------------------------------------------------------------


def answer(status: int, body: bytes | None) -> Callable[[FakeOpenAI], None]:
    """Setup: answer every request with `status` and `body` (None: hang up unanswered)."""

    def setup(llm: FakeOpenAI) -> None:
        llm.reply = lambda: None if body is None else (status, body)

    return setup


def choices(items: list[Any]) -> bytes:
    """A chat-completion body with these `choices`."""
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": MODEL}
    return json.dumps({**body, "choices": items}).encode()


ERROR = b'{"error": {"message": "nope"}}'
FAILURES: dict[str, Callable[[FakeOpenAI], None]] = {
    "500": answer(500, ERROR),
    "503": answer(503, ERROR),
    "429": answer(429, ERROR),
    "401": answer(401, ERROR),
    "connection closed": answer(200, None),
    "timeout": FakeOpenAI.stall,
    "content not JSON": lambda llm: llm.complete("Sure! Lisbon is where they live."),
    "content JSON but no statements": lambda llm: llm.complete('{"facts": []}'),
    "content a JSON list": lambda llm: llm.complete("[]"),
    "body not JSON": answer(200, b"<html>oops</html>"),
    "no choices": answer(200, choices([])),
    "choices not objects": answer(200, choices([1])),
    "content null": answer(200, choices([{"index": 0, "message": {"role": "assistant"}}])),
}


@pytest.mark.parametrize("setup", list(FAILURES.values()), ids=list(FAILURES))
def test_failing_endpoint_raises_extractor_unavailable(
    llm: FakeOpenAI, extractor: LlmExtractor, setup: Callable[[FakeOpenAI], None]
):
    """Any endpoint failure raises ExtractorUnavailable, so the run is retried, never lost."""
    setup(llm)
    with pytest.raises(ExtractorUnavailable):
        run(extractor)
    assert 1 <= len(llm.requests) <= 2  # at most one retry inside the client


def test_unavailable_carries_the_http_status(llm: FakeOpenAI, extractor: LlmExtractor):
    """The HTTP status is kept, so a caller can tell a misconfiguration from an outage."""
    answer(404, ERROR)(llm)
    with pytest.raises(ExtractorUnavailable) as caught:
        run(extractor)
    assert caught.value.status == 404
    assert "Lisbon" not in str(caught.value)


def test_unreachable_endpoint_raises_extractor_unavailable():
    """Nothing listening at the base URL is an outage too."""
    probe = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = probe.server_address[1]
    probe.server_close()  # the port is now closed
    ex = LlmExtractor(f"http://127.0.0.1:{port}/v1", KEY, MODEL, timeout=0.5)
    try:
        with pytest.raises(ExtractorUnavailable):
            ex.extract_run(MESSAGES, "run-x")
    finally:
        ex.close()
