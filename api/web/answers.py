"""The committer's answer in words: what one write did, read back from its effects.

Every write the page makes returns an `event_id` (or a decision that has one); the page
reads that event's effects through the REST route (`GET /v1/events/{id}/effects`,
CONTRACT §8) and says what they were, e.g. "superseded Paris (2024-01-01 → 2024-06-01)".
"""

from __future__ import annotations

from api.http.schemas.audit import EffectPublic, EffectsOut
from api.http.schemas.core import FactPublic
from api.web.timewords import window

PAIRED = {"superseded": "superseded", "invalidated": "invalidated"}
"""An ended row whose remainder is written with this status is described by the remainder."""


def _value(fact: FactPublic, names: dict[str, str]) -> str:
    if fact.object_id is not None:
        return names.get(fact.object_id, "another entity")
    return str(fact.value)


def _span(fact: FactPublic) -> str:
    return window(fact.valid_from, fact.valid_to)


def describe(effects: EffectsOut, names: dict[str, str] | None = None) -> list[str]:
    """Sentences for what an event changed, in the order the commits did it.

    Args:
        effects: the event's effects (`api.http.routes.audit.effects`).
        names: entity names by id, for relationship values and entity changes.

    Returns:
        One sentence per thing done, e.g. "recorded location = Berlin (2024-06-01 → open)",
        "superseded Paris (2024-01-01 → 2024-06-01)", "ended Paris: it held
        2024-01-01 → 2026-12-01", "retracted Berlin: it was never true", "Paris holds
        again (2024-06-01 → open)"; "nothing changed" when there was nothing.
    """
    names = names or {}
    items = effects.items
    wrote = [e for e in items if e.change == "wrote" and e.fact is not None]
    used: set[str] = set()
    out: list[str] = []
    for e in items:
        f = e.fact
        if e.change == "changed":
            out.append(f"{names.get(e.entity_id or '', 'an entity')} {e.op}")
            continue
        if e.episode is not None:
            who = e.episode.speaker or e.episode.role
            out.append(f"forgot what {who} said: {e.episode.text!r}")
            continue
        if f is None or f.id in used:
            continue
        if e.change == "ended":
            out.append(_ended(e, f, wrote, used, names))
        elif e.op == "created":
            out.append(f"recorded {f.attribute} = {_value(f, names)} ({_span(f)})")
        elif e.op == "restored":
            out.append(f"{_value(f, names)} holds again ({_span(f)})")
        elif e.op == "remainder":
            out.append(f"kept {_value(f, names)} for {_span(f)}")
    return [s for s in out if s] or ["nothing changed"]


def _ended(
    e: EffectPublic,
    f: FactPublic,
    wrote: list[EffectPublic],
    used: set[str],
    names: dict[str, str],
) -> str:
    """One ended row, described by the remainder recorded in its place when there is one."""
    value = _value(f, names)
    for w in wrote:
        r = w.fact
        if (
            r is not None
            and w.op == "remainder"
            and r.id not in used
            and r.attribute == f.attribute
            and r.value == f.value
            and r.object_id == f.object_id
            and r.status in (e.op, PAIRED.get(e.op, ""))
        ):
            used.add(r.id)
            if e.op == "invalidated":
                return f"ended {value}: it held {_span(r)}"
            return f"{e.op} {value} ({_span(r)})"
    if e.op == "invalidated":
        return f"ended {value}: it never held ({_span(f)} was all in the future)"
    if e.op == "retracted":
        return f"retracted {value} ({_span(f)}): it was never true"
    if e.op == "coalesced":
        return ""
    return f"{e.op} {value} ({_span(f)})"
