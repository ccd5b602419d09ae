"""The committer as a request dependency, for the routes that write (never the chat read path)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from committer.apply import Committer


def get_committer(request: Request) -> Committer:
    """The process's committer (the only writer)."""
    return request.app.state.committer  # type: ignore[no-any-return]


CommitterDep = Annotated[Committer, Depends(get_committer)]
