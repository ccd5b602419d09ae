"""Print a worldstate answer one line per row, for the demo walkthrough (docs/demo.md).

Reads one JSON answer on stdin and prints it compactly:

* facts (`GET /v1/entities/{id}/facts`, `.../history...`): attribute, value, valid window,
  status, and `recorded_at` / `retracted_at` when `--known` is given;
* search results (`GET /v1/search`): score, entity, attribute, value, valid window;
* neighbours (`GET /v1/entities/{id}/neighbors`): each entity and the path to it;
* effects (`GET /v1/events/{id}/effects`): wrote or ended, how, and the row;
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
    return "\n".join(lines)


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
    lines = []
    for item in items:
        if "fact" in item and "score" in item:
            f = item["fact"]
            lines.append(
                f"{item['score']:.4f}  {item['entity']['name']:<6} {f['attribute']:<10} "
                f"{_value(f, names):<24} {_window(f)}"
            )
        elif "change" in item and "op" in item:
            f = item["fact"]
            what = f"{f['attribute']:<10} {_value(f, names):<24} {_window(f)}" if f else ""
            lines.append(f"{item['change']:<7} {item['op']:<10} {what}".rstrip())
        elif "via" in item:
            path = " ; ".join(
                f"{names.get(f['entity_id'], f['entity_id'])} {f['attribute']} {_value(f, names)}"
                for f in item["via"]
            )
            lines.append(f"{item['entity']['name']:<8} via {path}")
        elif "policy" in item and "type" in item:
            who = item["entity_name"] or names.get(item["entity_id"], item["entity_id"])
            lines.append(
                f"{item['id']}  {who} {item['attribute']} = {item['value']!s}  "
                f"({item['status']}: {item['policy']})"
            )
        elif "attribute" in item and "valid_from" in item:
            lines.append(_fact(item, names, known))
        else:
            lines.append(json.dumps(item, ensure_ascii=False))
    return "\n".join(lines) if lines else "(no items)"


if __name__ == "__main__":
    print(show(json.load(sys.stdin), known="--known" in sys.argv[1:]))
