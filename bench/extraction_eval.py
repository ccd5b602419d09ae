"""How well does the deterministic extractor read the labelled turns? (CONTRACT §3, §4).

Runs `curator.extract.extract_message` over every turn of
`tests/data/extraction_labels.jsonl` (LoCoMo turns paraphrased in our own words, plus
written turns for kinds LoCoMo rarely holds) and prints precision and recall per kind
and overall, then overall by origin (LoCoMo-derived turns, whose `source` is
"<file>:<dia_id>", against `"written"` ones):

    /work/venv/bin/python bench/extraction_eval.py

Matching. A proposal matches an expected item of the same turn when all of these agree:

* `op` ("assert" or "end");
* subject: an expected `subject` of null is the speaker (the proposal's subject has no
  name, or the turn's speaker's name); otherwise the names agree, case-insensitively;
* `attribute`;
* value: `object` is compared with the proposal's object name, `value` with its value,
  both normalized (case-folded, white space collapsed, trailing punctuation and a leading
  "a", "an" or "the" dropped; numbers compared as text); an expected null value matches
  only a proposal without a value (an end of any value);
* `valid_from` at day precision, in the message's own offset; `valid_to` likewise, and a
  null `valid_to` only matches an open proposal.

Each expected item is matched at most once (greedily, in order). Recall for a kind is the
share of its expected items matched. Precision for a kind is the share of the proposals
attributed to it that match: a matched proposal counts for its item's kind; an unmatched
one (a false positive) for the kind its shape suggests (`guess_kind`). "none" lists the
false positives proposed on turns that expect nothing. "right day" is the share of the
items heard (a proposal agrees on all but the dates) that are also dated right: an item
heard with the wrong day counts against it, and against recall and precision too.

Kinds: those of issue 3 (`NEW_KINDS`), those of issue 12 (`HEARD_KINDS`: past actions and
events, acquisitions, visits, health, habits, hobbies taken up, a new job), and the older
ones (family, taste, work, place, identity, other).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from committer.proposals import Proposal
from curator.extract import extract_message
from graph.attributes import spec

LABELS = ROOT / "tests" / "data" / "extraction_labels.jsonl"
NEW_KINDS = ("ending", "move", "other_person", "memory_request", "assistant_preference")
HEARD_KINDS = ("event", "acquisition", "visit", "health", "habit", "hobby", "job")


def load(path: Path = LABELS) -> list[dict[str, Any]]:
    """The labelled turns, one JSON object per line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def norm(value: object) -> str | None:
    """A value as compared: case-folded, trimmed, without a leading article."""
    if value is None:
        return None
    text = " ".join(str(value).casefold().split()).strip(" .,!?;:'\"")
    return re.sub(r"^(?:a|an|the)\s+", "", text)


def guess_kind(p: Proposal, speaker: str | None) -> str:
    """The kind an unmatched proposal's shape suggests."""
    if p.type == "memory_request":
        return "memory_request"
    if p.subject.name not in (None, speaker):
        return "other_person"
    if p.op == "end":
        return "ending"
    if spec(p.attribute).preference or p.attribute == "tone":
        return "assistant_preference"
    if p.type == "move" or p.attribute in ("shift", "diet"):
        return "move"
    if p.type == "event":
        return "event"
    return {"location": "place", "hometown": "place", "employer": "work",
            "occupation": "work", "works_on": "work", "participated_in": "event",
            "member_of": "event", "life_event": "event", "likes": "taste", "dislikes": "taste",
            "favorite": "taste", "name": "identity", "age": "identity", "identity": "identity",
            "owns": "acquisition", "visited": "visit", "condition": "health",
            "allergy": "health", "habit": "habit", "practices": "hobby"}.get(
        p.attribute, "family")  # fmt: skip


def _day(when: datetime | None, at: datetime) -> str | None:
    return None if when is None else when.astimezone(at.tzinfo).date().isoformat()


def matches(p: Proposal, e: dict[str, Any], speaker: str | None, at: datetime) -> bool:
    """True when proposal `p` is the expected item `e` (see the module's docstring)."""
    return same_fact(p, e, speaker) and same_days(p, e, at)


def same_days(p: Proposal, e: dict[str, Any], at: datetime) -> bool:
    """The proposal's valid window is the item's, at day precision in the message's offset."""
    return _day(p.valid_from, at) == e["valid_from"] and _day(p.valid_to, at) == e["valid_to"]


def same_fact(p: Proposal, e: dict[str, Any], speaker: str | None) -> bool:
    """The proposal states the item's fact, whatever its dates."""
    if p.op != e["op"] or p.attribute != e["attribute"]:
        return False
    if e["subject"] is None:
        if p.subject.name not in (None, speaker):
            return False
    elif norm(p.subject.name) != norm(e["subject"]):
        return False
    if "object" in e:
        if p.object is None or norm(p.object.name) != norm(e["object"]):
            return False
    elif p.object is not None or norm(p.value) != norm(e.get("value")):
        return False
    return True


@dataclass
class Tally:
    """Counts per kind."""

    expected: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    proposed: Counter[str] = field(default_factory=Counter)
    correct: Counter[str] = field(default_factory=Counter)
    misdated: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)


def evaluate(turns: Iterable[dict[str, Any]]) -> Tally:
    """Run the extractor over `turns` and count matches per kind."""
    t = Tally()
    for turn in turns:
        at = datetime.fromisoformat(turn["at"])
        proposals = extract_message(turn["text"], at=at, speaker=turn["speaker"],
                                    message_id=turn["id"], run_id="eval")  # fmt: skip
        open_items = list(turn["expected"])
        for e in open_items:
            t.expected[e["kind"]] += 1
        for p in proposals:
            hit = next((e for e in open_items if matches(p, e, turn["speaker"], at)), None)
            if hit is not None:
                open_items.remove(hit)
                t.proposed[hit["kind"]] += 1
                t.correct[hit["kind"]] += 1
                t.found[hit["kind"]] += 1
                continue
            kind = guess_kind(p, turn["speaker"])
            t.proposed[kind] += 1
            if not turn["expected"]:
                t.proposed["none"] += 1
            value = p.object.name if p.object else p.value
            t.wrong.append(f"{turn['id']} [{kind}] {p.op} {p.subject.name or '-'}.{p.attribute}"
                           f"={value!r} from {_day(p.valid_from, at)}: {turn['text']}")  # fmt: skip
        for e in open_items:
            t.misses.append(f"{turn['id']} [{e['kind']}] {e}: {turn['text']}")
            if any(same_fact(p, e, turn["speaker"]) for p in proposals):
                t.misdated[e["kind"]] += 1
    return t


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "  - "


def report(t: Tally) -> str:
    """The table: per kind, expected / found / recall, proposed / correct / precision."""
    known = {*NEW_KINDS, *HEARD_KINDS}
    kinds = [*NEW_KINDS, *HEARD_KINDS, *sorted(set(t.expected) - known),
             *sorted(set(t.proposed) - set(t.expected) - known - {"none"}), "none"]  # fmt: skip
    header = (f"{'kind':<22}{'expected':>9}{'found':>7}{'recall':>8}{'proposed':>10}"
              f"{'correct':>9}{'precision':>11}{'right day':>11}")  # fmt: skip
    lines = [header]
    for k in dict.fromkeys(kinds):
        correct, heard = t.correct[k], t.found[k] + t.misdated[k]
        recall = _ratio(t.found[k], t.expected[k])
        lines.append(f"{k:<22}{t.expected[k]:>9}{t.found[k]:>7}{recall:>8}"
                     f"{t.proposed[k]:>10}{correct:>9}{_ratio(correct, t.proposed[k]):>11}"
                     f"{_ratio(t.found[k], heard):>11}")  # fmt: skip
    exp, found = sum(t.expected.values()), sum(t.found.values())
    proposed = sum(v for k, v in t.proposed.items() if k != "none")
    correct, heard = sum(t.correct.values()), found + sum(t.misdated.values())
    precision, dated = _ratio(correct, proposed), _ratio(found, heard)
    lines.append(f"{'overall':<22}{exp:>9}{found:>7}{_ratio(found, exp):>8}{proposed:>10}"
                 f"{correct:>9}{precision:>11}{dated:>11}")  # fmt: skip
    return "\n".join(lines)


def origin(turn: dict[str, Any]) -> str:
    """Where a turn comes from: "locomo" (`source` like "26.json:D3:7") or "written"."""
    return "written" if turn.get("source") == "written" else "locomo"


def report_by_origin(turns: list[dict[str, Any]]) -> str:
    """Overall precision and recall, split by the turns' origin."""
    header = (f"{'origin':<22}{'turns':>6}{'expected':>9}{'found':>7}{'recall':>8}"
              f"{'proposed':>10}{'correct':>9}{'precision':>11}")  # fmt: skip
    lines = [header]
    for name in ("locomo", "written", "all"):
        part = [x for x in turns if name == "all" or origin(x) == name]
        t = evaluate(part)
        exp, found = sum(t.expected.values()), sum(t.found.values())
        proposed = sum(v for k, v in t.proposed.items() if k != "none")
        correct = sum(t.correct.values())
        lines.append(f"{name:<22}{len(part):>6}{exp:>9}{found:>7}{_ratio(found, exp):>8}"
                     f"{proposed:>10}{correct:>9}{_ratio(correct, proposed):>11}")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Print the table; with `-v`, also every miss and every wrong proposal."""
    turns = load()
    t = evaluate(turns)
    print(f"{len(turns)} turns, {sum(1 for x in turns if not x['expected'])} expecting nothing")
    print(report(t))
    print()
    print(report_by_origin(turns))
    if "-v" in argv:
        print("\nmissed:", *t.misses, sep="\n  ")
        print("\nwrong:", *t.wrong, sep="\n  ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
