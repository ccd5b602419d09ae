"""What every write to a document or a state value does first: open the holder, and record
the change's cause and effect (CONTRACT §8, §14).

Writes to an owner's own holder lock the owner (`begin_commit`); writes to a group's lock
the writer's owner node and then the group's (the order of `committer.groups`, so no two
transactions take the two locks in opposite orders), after checking that the writer is a
member now (another owner's group answers as absent, CONTRACT §7).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from committer.owners import ensure_owner
from committer.trail import COMMITTER, Trail
from graph.errors import NotFound
from graph.held import Holder
from graph.records import event_key
from graph.time import utcnow
from graph.write.writer import WriteTx


@dataclass(frozen=True, slots=True)
class Author:
    """Who makes a change: the owner, and the token it used (None from the command line)."""

    owner: str
    token_id: str | None = None


@dataclass(frozen=True, slots=True)
class Opened:
    """A holder opened for writing inside one transaction.

    Attributes:
        holder: the holder.
        erased_with: whom erasure removes its versions with (the owner itself, or the
            group's creator, CONTRACT §9).
        t: this commit's time, strictly after the holder's previous commit.
    """

    holder: Holder
    erased_with: str
    t: datetime


def open_holder(w: WriteTx, owner: str, group_id: str | None) -> Opened:
    """Lock the writer (and the group) and take the commit time.

    Raises:
        NotFound: `group_id` names no group `owner` is a member of now.
    """
    ensure_owner(w, owner)
    t = w.begin_commit(owner, utcnow())
    if group_id is None:
        return Opened(Holder(owner=owner), owner, t)
    clock = w.group_clock(owner, group_id, t)
    if clock is None or not w.is_member(group_id, owner):
        raise NotFound("group", group_id)
    creator, t = clock
    return Opened(Holder(group_id=group_id), creator, t)


@dataclass(frozen=True, slots=True)
class Recorded:
    """The events of one change: its cause (an action or a sync) and its commit's key."""

    cause: str
    commit_key: str


def record_cause(
    w: WriteTx,
    owner: str,
    t: datetime,
    kind: str,
    *,
    event_id: str | None = None,
    **detail: Any,
) -> Recorded:
    """Record the change's cause event (`action` or `sync`, by `owner`) and the commit it
    led to, in this transaction (committer/trail.py). The caller links the commit to the
    versions it wrote and retracted (`WriteTx.link_*_effects`)."""
    trail = Trail(w, owner, t)
    cause = trail.act(kind, event_id=event_id, actor=owner, **detail)
    trail.event("commit", event_id=trail.commit_id, actor=COMMITTER, causes=[cause])
    trail.flush()
    return Recorded(cause, event_key(owner, trail.commit_id))
