"""Print a worldstate answer one line per row, for the demo walkthrough (docs/demo.md).

Reads one JSON answer on stdin and prints it compactly:

* facts (`GET /v1/entities/{id}/facts`, `.../history...`): attribute, value, valid window,
  status, and `recorded_at` / `retracted_at` when `--known` is given;
* search results (`GET /v1/search`): score, then a fact's entity, attribute, value and
  valid window, or an episode's speaker, day and words;
* episodes (`GET /v1/episodes`): day, speaker, words;
* neighbours (`GET /v1/entities/{id}/neighbors`): each entity and the path to it;
* effects (`GET /v1/events/{id}/effects`): wrote or ended, how, and the row or episode;
* proposals (`GET /v1/proposals`): id, entity, attribute, value, policy;
* a prefetch answer (`POST /v1/prefetch`): its Markdown block and `degraded`;
* anything else: indented JSON.

A relationship's object is shown by name when `API` and `TOKEN` are set in the
environment (one `GET /v1/entities` call); otherwise by id. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from typing import Any


def _names() -> dict[str, str]:
    api, token = os.environ.get("API"), os.environ.get("TOKEN")
    if not api or not token:
        return {}
    request = urllib.request.Request(
        f"{api}/v1/entities?limit=500", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return {e["id"]: e["name"] for e in json.load(answer)["items"]}


def _value(fact: dict[str, Any], names: dict[str, str]) -> str:
    if fact["object_id"] is None:
        return str(fact["value"])
    return "→ " + names.get(fact["object_id"], fact["object_id"])


def _window(fact: dict[str, Any]) -> str:
    end = fact["valid_to"][:10] if fact["valid_to"] else "open"
    return f"[{fact['valid_from'][:10]} → {end})"


def _fact(fact: dict[str, Any], names: dict[str, str], known: bool) -> str:
    line = f"{fact['attribute']:<12} {_value(fact, names):<26} {_window(fact):<27} {fact['status']}"
    if known:
        line += f"  recorded {fact['recorded_at']}"
        if fact["retracted_at"]:
            line += f"  retracted {fact['retracted_at']}"
    return line


def _diff(answer: dict[str, Any], names: dict[str, str]) -> str:
    lines = [f"{answer['entity']['name']}, {answer['axis']} time {answer['from']} → {answer['to']}"]
    for change in answer["changed"]:
        before = ", ".join(_value(f, names) for f in change["before"])
        after = ", ".join(_value(f, names) for f in change["after"])
        lines.append(f"  changed {change['attribute']}: {before} → {after}")
    lines += [f"  added   {f['attribute']}: {_value(f, names)}" for f in answer["added"]]
    lines += [f"  removed {f['attribute']}: {_value(f, names)}" for f in answer["removed"]]
    return "\n".join(lines)


def _why(answer: dict[str, Any], names: dict[str, str]) -> str:
    fact = answer["fact"]
    lines = [
        f"{fact['attribute']} = {_value(fact, names)} {_window(fact)}, {answer['source']}: "
        f"{answer['evidence']!r}"
    ]
    for event in answer["chain"]:
        detail = " ".join(
            f"{key}={event[key]}"
            for key in ("message_id", "attribute", "policy", "decision")
            if event.get(key)
        )
        lines.append(f"  {event['kind']:<10} {event['id']:<30} {detail}".rstrip())
    for episode in answer.get("episodes") or []:
        lines.append(f"  said by {episode['speaker']}: {episode['text']!r}")
    return "\n".join(lines)


SAID_CHARS = 60
"""An episode's words are cut at this many characters."""


def _said(episode: dict[str, Any]) -> str:
    """An episode in one line: day, speaker, words (cut at `SAID_CHARS`)."""
    words = episode["text"]
    text = words if len(words) <= SAID_CHARS else words[: SAID_CHARS - 1] + "…"
    return f"{episode['said_at'][:10]} {episode['speaker'] or episode['role']}: {text!r}"


def _scored(item: dict[str, Any], names: dict[str, str]) -> str:
    """A search result: score, then a fact's entity, attribute, value and window, or an
    episode's day, speaker and words."""
    if item.get("kind") == "episode":
        return f"{item['score']:.4f}  said   {_said(item['episode'])}"
    f = item["fact"]
    return (
        f"{item['score']:.4f}  {item['entity']['name']:<6} {f['attribute']:<10} "
        f"{_value(f, names):<24} {_window(f)}"
    )


def _effect(item: dict[str, Any], names: dict[str, str]) -> str:
    """An effect: wrote or ended, how, and the row or the episode."""
    f = item["fact"]
    what = f"{f['attribute']:<10} {_value(f, names):<24} {_window(f)}" if f else ""
    if item.get("episode"):
        what = _said(item["episode"])
    return f"{item['change']:<7} {item['op']:<10} {what}".rstrip()


def _item(item: dict[str, Any], names: dict[str, str], known: bool) -> str:
    """One item of a list answer as a line."""
    if "score" in item:
        line = _scored(item, names)
    elif "change" in item and "op" in item:
        line = _effect(item, names)
    elif "via" in item:
        path = " ; ".join(
            f"{names.get(f['entity_id'], f['entity_id'])} {f['attribute']} {_value(f, names)}"
            for f in item["via"]
        )
        line = f"{item['entity']['name']:<8} via {path}"
    elif "policy" in item and "type" in item:
        who = item["entity_name"] or names.get(item["entity_id"], item["entity_id"])
        line = (
            f"{item['id']}  {who} {item['attribute']} = {item['value']!s}  "
            f"({item['status']}: {item['policy']})"
        )
    elif "said_at" in item and "text" in item:
        line = _said(item)
    elif "attribute" in item and "valid_from" in item:
        line = _fact(item, names, known)
    else:
        line = json.dumps(item, ensure_ascii=False)
    return line


def show(answer: dict[str, Any], known: bool = False) -> str:
    """Format one API answer (see the module docstring) as text."""
    if "block" in answer:
        return f"{answer['block']}\n(degraded: {json.dumps(answer['degraded'])})"
    names = _names()
    if "changed" in answer:
        return _diff(answer, names)
    if "chain" in answer:
        return _why(answer, names)
    items = answer.get("items")
    if not isinstance(items, list):
        return json.dumps(answer, indent=2, ensure_ascii=False)
    lines = [_item(item, names, known) for item in items]
    return "\n".join(lines) if lines else "(no items)"


if __name__ == "__main__":
    print(show(json.load(sys.stdin), known="--known" in sys.argv[1:]))
