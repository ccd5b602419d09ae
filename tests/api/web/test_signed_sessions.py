"""Signed-cookie sessions of the Memory page (`serve --workers N`; api/web/sessions.py)."""

from __future__ import annotations

from api.web.sessions import IDLE_SECONDS, SignedSessions


class Clock:
    """Wall-clock seconds the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_another_process_with_the_same_secret_reads_the_session() -> None:
    """A session opened by one store is read by another with the same secret (another
    API process): same token hash and CSRF token; a store with another secret reads none."""
    clock = Clock()
    sid, opened = SignedSessions(b"k" * 32, clock=clock).open("digest-1")
    read = SignedSessions(b"k" * 32, clock=clock).get(sid)
    assert read is not None
    assert (read.token_digest, read.csrf) == ("digest-1", opened.csrf)
    assert SignedSessions(b"x" * 32, clock=clock).get(sid) is None


def test_a_tampered_or_malformed_cookie_is_no_session() -> None:
    """Changing the body (another token hash) or the signature, or a cookie of another
    shape, reads as no session."""
    store = SignedSessions(b"k" * 32, clock=Clock())
    sid, _ = store.open("digest-1")
    body, mac = sid.rsplit(".", 1)
    forged_body = store.seal(store.open("digest-2")[1]).rsplit(".", 1)[0]
    for bad in (f"{forged_body}.{mac}", f"{body}.{mac[:-2]}AA", "nodot", "", f"{mac}.{body}"):
        assert store.get(bad) is None, bad


def test_an_idle_session_expires_and_a_used_one_is_refreshed() -> None:
    """A cookie unused for longer than IDLE_SECONDS reads as none; one used in between is
    written back with a new idle clock (at most once a minute) and lives on."""
    clock = Clock()
    store = SignedSessions(b"k" * 32, clock=clock)
    sid, _ = store.open("digest-1")
    clock.now += 30
    same = store.get(sid)
    assert same is not None and store.reseal(sid, same) is None  # nothing changed yet
    clock.now += IDLE_SECONDS - 60
    used = store.get(sid)
    assert used is not None
    refreshed = store.reseal(sid, used)
    assert refreshed is not None
    clock.now += 120
    assert store.get(sid) is None
    assert store.get(refreshed) is not None


def test_a_flash_travels_in_the_cookie_and_is_dropped_once_shown() -> None:
    """A flash kept on a POST is in the resealed cookie the next request reads; shown and
    cleared, the cookie is resealed without it."""
    store = SignedSessions(b"k" * 32, clock=Clock())
    sid, session = store.open("digest-1")
    session.flash.append(("ok", "kept: city = Lisbon"))
    with_flash = store.reseal(sid, session)
    assert with_flash is not None
    shown = store.get(with_flash)
    assert shown is not None and shown.flash == [("ok", "kept: city = Lisbon")]
    shown.flash.clear()
    cleared = store.reseal(with_flash, shown)
    assert cleared is not None
    after = store.get(cleared)
    assert after is not None and after.flash == []
