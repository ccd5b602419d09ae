"""The pure rules of notes (CONTRACT §13, issue 15), table-driven: decay over sessions by
tier, promotion of tiers, recency, titles that name a moment, dates to look again, the note
"the note about ..." names, and how chat words become notes. No database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from committer.rules.notes import best_match, check, names_a_moment, review_bounds_ok
from curator.rules.notes import find_note_request, kind_of, note_proposal, title_of
from graph.errors import InvalidInput
from graph.notes import NoteDraft, NoteRecord, next_tier, recency, relevance_now
from graph.time import FAR_FUTURE

T = datetime(2024, 3, 13, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("tier", "sessions", "expected"),
    [
        ("long", 0, 1.0),
        ("long", 1, 0.98),
        ("long", 10, 0.98**10),
        ("mid", 1, 0.9),
        ("mid", 3, 0.729),
        ("short", 1, 0.7),
        ("short", 2, 0.49),
        ("short", 10, 0.7**10),
    ],
)
def test_decay_over_sessions(tier: str, sessions: int, expected: float) -> None:
    """Each session end takes 2% (long), 10% (mid) or 30% (short) of the relevance."""
    assert relevance_now(1.0, tier, sessions) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(("tier", "up"), [("short", "mid"), ("mid", "long"), ("long", "long")])
def test_storing_again_moves_a_tier_up(tier: str, up: str) -> None:
    """Short to mid to long; long stays long."""
    assert next_tier(tier) == up


@pytest.mark.parametrize(("days", "value"), [(0, 1.0), (30, 0.5), (60, 0.25), (-5, 1.0)])
def test_recency_halves_every_30_days(days: int, value: float) -> None:
    """Recency is 1 when just written and halves every 30 days (never above 1)."""
    assert recency(T, T + timedelta(days=days)) == value


@pytest.mark.parametrize(
    ("title", "moment"),
    [
        ("run-2026-09-14", True),
        ("cycle-3", True),
        ("Session 12 notes", True),
        ("Daily log 2026-09-14", True),
        ("14:00 standup", True),
        ("Sprint 4 week 2", True),
        ("Run 5 failed on the auth step", False),
        ("Q3 pricing decision", False),
        ("Release 2.0 ships without the installer", False),
        ("Daily log", False),
    ],
)
def test_titles_that_name_a_moment(title: str, moment: bool) -> None:
    """A number or date plus only words like run, cycle, session, log, day, month names."""
    assert names_a_moment(title) is moment


@pytest.mark.parametrize(
    ("review", "ok"),
    [
        (datetime(2024, 3, 13, 23, tzinfo=UTC), False),
        (datetime(2024, 3, 14, 0, tzinfo=UTC), True),
        (datetime(2025, 3, 13, 12, tzinfo=UTC), True),
        (datetime(2025, 3, 14, 0, tzinfo=UTC), False),
        (datetime(2024, 3, 1, tzinfo=UTC), False),
    ],
)
def test_dates_to_look_again_are_1_to_365_calendar_days_out(review: datetime, ok: bool) -> None:
    """Counted in calendar days (UTC) from the day the note is written."""
    assert review_bounds_ok(review, T) is ok


def test_check_normalizes_and_names_the_field() -> None:
    """Titles collapse white space; a claim starts open; a closed claim loses its date."""
    draft = check(
        NoteDraft(kind="hypothesis", title="  Arm  users ", review_at=T + timedelta(days=2)), T
    )
    assert (draft.title, draft.status, draft.valid_from) == ("Arm users", "open", T)
    closed = check(NoteDraft(kind="question", title="Why", status="confirmed", review_at=T), T)
    assert closed.review_at is None
    for bad, field in (
        (NoteDraft(kind="memo", title="x"), "kind"),
        (NoteDraft(kind="decision", title=" "), "title"),
        (NoteDraft(kind="decision", title="x", status="open"), "status"),
        (NoteDraft(kind="decision", title="x", tier="forever"), "tier"),
        (NoteDraft(kind="decision", title="x", key="---"), "key"),
        (NoteDraft(kind="question", title="x"), "review_at"),
    ):
        with pytest.raises(InvalidInput) as caught:
            check(bad, T)
        assert caught.value.field == field


def _note(title: str, body: str = "", note_id: str = "n1") -> NoteRecord:
    return NoteRecord(
        id="v", note_id=note_id, owner="o", group_id=None, kind="context", title=title,
        body=body, evidence=None, known_by="told", source="user_edit", confidence=1.0,
        key=None, project=None, status="active", review_at=None, closed_at=None,
        close_reason=None, first_learned_at=T, valid_from=T, valid_to=FAR_FUTURE,
        recorded_at=T, retracted_at=FAR_FUTURE, row_status="active", version=1,
    )  # fmt: skip


def test_the_note_about_words_name() -> None:
    """The best title match sharing at least half of the words; none on a guess."""
    notes = [
        _note("The old pricing page is at /pricing-v1", note_id="a"),
        _note("Pricing is in euros", note_id="b"),
        _note("The onboarding checklist", "covers the pricing page too", note_id="c"),
    ]
    assert best_match("the old pricing page", notes) is notes[0]
    assert best_match("euro pricing", notes) is notes[1]
    assert best_match("the holiday rota", notes) is None


@pytest.mark.parametrize(
    ("sentence", "op", "clause", "project_only", "when"),
    [
        ("Remember for this project only: the v1 endpoints are deprecated.", "note",
         "the v1 endpoints are deprecated", True, None),
        ("We decided to drop the Windows installer — note that down.", "note",
         "We decided to drop the Windows installer", False, None),
        ("Prices go up in May, write that down please.", "note", "Prices go up in May", False,
         None),
        ("The spring sale runs until Friday; check that note again next week.", "note",
         "The spring sale runs until Friday", False, "next week"),
        ("Forget the note about the old pricing page, it's gone.", "retire_note",
         "the old pricing page", False, None),
        ("I note that down in my diary every day.", None, None, False, None),
        ("Remember that I live in Porto.", None, None, False, None),
    ],
)  # fmt: skip
def test_note_requests_in_chat(
    sentence: str, op: str | None, clause: str | None, project_only: bool, when: str | None
) -> None:
    """The five phrasings of the issue; sentences that ask nothing of a note give None."""
    found = find_note_request(sentence)
    if op is None:
        assert found is None
        return
    assert found is not None
    assert (found.op, found.clause, found.project_only, found.when) == (
        op,
        clause,
        project_only,
        when,
    )


@pytest.mark.parametrize(
    ("clause", "kind", "title"),
    [
        ("We decided to drop the Windows installer", "decision", "Drop the Windows installer"),
        ("maybe users want dark mode", "hypothesis", "Maybe users want dark mode"),
        ("who owns billing?", "question", "Who owns billing?"),
        ("we always squash merge", "convention", "We always squash merge"),
        ("our Starter plan includes 3 seats", "context", "Our Starter plan includes 3 seats"),
    ],
)
def test_kinds_and_titles_of_chat_notes(clause: str, kind: str, title: str) -> None:
    """The kind read from the words; "we decided to" left out of the title."""
    assert (kind_of(clause), title_of(clause)) == (kind, title)


def test_chat_notes_get_their_dates() -> None:
    """ "next week" from a Wednesday is the Monday (the speaker's day); a hypothesis without
    a date is looked at again in 14 days; a plain note has none."""
    at = datetime.fromisoformat("2024-03-13T10:00:00+01:00")
    assert note_proposal("The sale ends Friday", at, when="next week").review_at == datetime(
        2024, 3, 18, tzinfo=UTC
    )
    assert note_proposal("maybe it rains", at).review_at == at + timedelta(days=14)
    assert note_proposal("the sky is blue", at).review_at is None


@pytest.mark.parametrize(
    ("clause", "review"),
    [
        ("The spring sale runs until Friday", datetime(2024, 3, 15, tzinfo=UTC)),
        ("The trial offer expires on 3 May", datetime(2024, 5, 3, tzinfo=UTC)),
        ("The beta ends next month", datetime(2024, 4, 1, tzinfo=UTC)),
        ("The lease runs until 2031", datetime(2025, 3, 13, tzinfo=UTC)),  # 365 days at most
        ("The door code works until someone changes it", None),
        ("The shop is open until 6pm", None),  # a time of day, not an end
    ],
)
def test_a_stated_expiry_is_the_date_to_look_again(clause: str, review: datetime | None) -> None:
    """Without a "check again" date, an expiry the note states gives the date to look again
    (that day, from a Wednesday, 1 to 365 days out); words that name no time give none."""
    at = datetime.fromisoformat("2024-03-13T10:00:00+01:00")
    assert note_proposal(clause, at).review_at == review
