"""What was said (CONTRACT §12): a run's messages on its cause-and-effect page, and forgetting
one message or the whole conversation ("forget this conversation").

Through the REST routes' functions (`list_episodes`, `forget_episode`,
`forget_run_episodes`); forgetting needs scope `curate`, asks first, and can also retract
the facts whose only evidence the messages were.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from api.http.deps import PathId
from api.http.routes import episodes as rest
from api.http.schemas.audit import EffectsOut, EpisodesForgotten
from api.http.schemas.episodes import EpisodePublic
from api.web.answers import describe
from api.web.deps import PosterDep, ReaderDep, Viewer, scope_of
from api.web.render import PageRoute, page, see_other
from graph.read.reader import Reader
from graph.time import AsOf

router = APIRouter(prefix="/memory", route_class=PageRoute, include_in_schema=False)
MAX_MESSAGES = 500
"""Messages shown on a run's page (a run holds at most 2,000; the first 500 are shown)."""
Flag = Annotated[bool, Form()]


def run_messages(reader: Reader, viewer: Viewer, run_id: str) -> list[EpisodePublic]:
    """The messages of a run still kept now, oldest first (none for another event)."""
    scope = scope_of(reader, viewer)
    found = rest.list_episodes(scope, reader, AsOf.at(), None, run_id, None, None, MAX_MESSAGES)
    return found.items


def _answer(viewer: Viewer, done: EpisodesForgotten) -> None:
    n = len(done.episodes)
    text = f"forgot {n} message" + ("" if n == 1 else "s")
    if done.retracted:
        said = describe(EffectsOut(event=None, items=done.effects))
        text += f"; retracted {len(done.retracted)} facts drawn only from them: " + "; ".join(said)
    if done.kept:
        text += f"; {len(done.kept)} facts stay (other evidence backs them)"
    viewer.flash(text)


def _ask(
    request: Request, viewer: Viewer, title: str, lines: list[str], facts: bool, back: str
) -> HTMLResponse:
    fields: dict[str, str | list[str]] = {"facts": "true"} if facts else {}
    return page(
        request,
        viewer,
        "confirm.html",
        title=title,
        lines=lines,
        action=request.url.path,
        fields=fields,
        button="Forget",
        back=back,
    )


_FACTS_LINE = "The facts drawn only from it are retracted too (it was never said)."
_KEEP_LINE = "The facts learned from it stay; only the words are forgotten."


@router.post("/runs/{run_id}/forget", response_model=None)
def forget_conversation(
    run_id: PathId,
    request: Request,
    viewer: PosterDep,
    reader: ReaderDep,
    facts: Flag = False,
    confirmed: Flag = False,
) -> HTMLResponse | RedirectResponse:
    """Forget this conversation: every message of the run, and with `facts` the facts whose
    only evidence they were (CONTRACT §12)."""
    owner = viewer.need("curate")
    back = f"/memory/events/{run_id}"
    if not confirmed:
        count = len(run_messages(reader, viewer, run_id))
        lines = [
            f"Forget this conversation: its {count} messages are no longer kept.",
            _FACTS_LINE if facts else _KEEP_LINE,
            "Reads as known before now still see them; erasing is the only way to delete.",
        ]
        return _ask(request, viewer, "Forget this conversation", lines, facts, back)
    done = rest.forget_run_episodes(run_id, owner, request.app.state.committer, reader, facts)
    _answer(viewer, done)
    return see_other(back)


@router.post("/episodes/{episode_id}/forget", response_model=None)
def forget_message(
    episode_id: PathId,
    request: Request,
    viewer: PosterDep,
    reader: ReaderDep,
    facts: Flag = False,
    confirmed: Flag = False,
) -> HTMLResponse | RedirectResponse:
    """Forget one message ("forget that I said this"), with `facts` also the facts whose
    only evidence it was (CONTRACT §12)."""
    owner = viewer.need("curate")
    said = rest.get_episode(episode_id, scope_of(reader, viewer), reader)
    back = f"/memory/events/{said.run_id}"
    if not confirmed:
        lines = [f"Forget that {said.speaker or said.role} said: “{said.text}”."]
        lines.append(_FACTS_LINE if facts else _KEEP_LINE)
        return _ask(request, viewer, "Forget a message", lines, facts, back)
    done = rest.forget_episode(episode_id, owner, request.app.state.committer, reader, facts)
    _answer(viewer, done)
    return see_other(back)
