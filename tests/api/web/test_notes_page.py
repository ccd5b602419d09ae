"""The Memory page's Notes tab (issue 15 "a Notes tab belongs there"): the notes REST lists,
titles and dates only, filtered by kind and project, the owner's own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.api.web.conftest import Page, make_page


def _note(rest: Any, **body: Any) -> None:
    r = rest.post("/v1/notes", body)
    assert r.status_code == 201, r.text


def test_notes_tab_lists_titles_by_kind_and_project(
    web: Page, rest: Any, app: Any, neo4j_driver: Any
) -> None:
    """Titles, kinds and dates, never bodies; a project's note of a key stands for the
    general one only under that project; `kind` filters; another owner sees none of it."""
    _note(rest, kind="decision", title="Ship on Tuesdays", body="Quiet body words", key="ship")
    _note(rest, kind="decision", title="Ship on Fridays for Atlas", key="ship", project="Atlas")
    review = (datetime.now(UTC) + timedelta(days=3)).date()
    _note(
        rest, kind="question", title="Do users read the changelog?", review_at=f"{review}T12:00:00Z"
    )
    r = web.get("/memory/notes")
    assert r.status_code == 200, r.text
    html = r.text
    assert 'aria-current="page">Notes</a>' in html
    assert "Ship on Tuesdays" in html and "Do users read the changelog?" in html
    assert f"look again {review}" in html
    assert "Ship on Fridays" not in html and "Quiet body words" not in html
    assert "Due for a second look" not in html  # nothing is due yet
    atlas = web.get("/memory/notes?project=atlas").text
    assert "Ship on Fridays for Atlas" in atlas and "Ship on Tuesdays" not in atlas
    assert "project Atlas" in atlas
    questions = web.get("/memory/notes?kind=question").text
    assert "Do users read the changelog?" in questions and "Ship on" not in questions
    other = make_page(app, neo4j_driver, rest.owner + "-elsewhere", ("read",))
    theirs = other.get("/memory/notes").text
    assert "No note yet." in theirs and "Ship on" not in theirs


def test_a_notes_cursor_of_another_listing_is_an_error_page(web: Page) -> None:
    """An altered cursor answers an error page naming the cursor, not a 500."""
    r = web.get("/memory/notes?cursor=" + "A" * 40)
    assert r.status_code == 422 and "cursor" in r.text
