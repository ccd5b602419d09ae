"""Did two imports of the same conversation write the same? (issue 12: a faster import must
write what the old one wrote.)

Compares two owner exports (`bench/import_bench.py --export DIR`, graph/read/export.py)
apart from what differs between any two imports: the owner's id, ids (random ones, and
those hashed from the owner), and transaction times (a datetime on or after `--since`,
default 2026-01-01: the data's own times, such as when a message was said or a fact began,
are older and are compared). Every node and relationship becomes one such line; the two
multisets of lines must be equal. Prints the counts per kind and every line that differs.

Usage:

    .venv/bin/python bench/import_same.py BEFORE.jsonl AFTER.jsonl [--since 2026-01-01]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ID = re.compile(r"\b[a-z]{2,5}_[0-9a-f]{12,}\b")
"""An id as the service makes them: `fct_3f2a...`, `epi_...`, `prp_...`, `evt_...`."""
WORKER = re.compile(r"^[\w.-]+-\d+-[0-9a-f]{6}$")
"""A curator worker's id (curator.worker.new_worker_id: host-pid-random)."""
BLANK = frozenset({"stripe", "digest"})
"""Properties derived from the owner's id (its run-queue stripe, a digest over its run)."""


def canonical(path: Path, since: str) -> Counter[str]:
    """The lines of an export with owner, ids and transaction times blanked out."""
    raw = path.read_text()
    lines = raw.splitlines()
    owner = json.loads(lines[0])["owner"]
    # the bench's run ids end with the owner's last 8 characters (bench/import_bench.py)
    text = raw.replace(owner, "OWNER").replace(owner[-8:], "OWNER8")
    out: Counter[str] = Counter()
    for line in text.splitlines()[1:]:
        item = json.loads(line)
        if item.get("end"):
            continue
        out[json.dumps(_blank(item, since), sort_keys=True, ensure_ascii=False)] += 1
    return out


def _blank(value: Any, since: str) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$datetime"}:
            return "<now>" if since <= value["$datetime"] < "9999" else value
        return {k: "<owner's>" if k in BLANK else _blank(v, since) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank(v, since) for v in value]
    if isinstance(value, str):
        return "<worker>" if WORKER.match(value) else ID.sub("<id>", value)
    return value


def main() -> None:
    """Compare, print, exit 1 when they differ."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--since", default="2026-01-01", help="times from here on are blanked")
    args = ap.parse_args()
    a, b = canonical(args.before, args.since), canonical(args.after, args.since)

    def kinds(c: Counter[str]) -> Counter[str]:
        out: Counter[str] = Counter()
        for line, n in c.items():
            item = json.loads(line)
            out[item.get("node") or item.get("rel")] += n
        return out

    ka, kb = kinds(a), kinds(b)
    for kind in sorted(set(ka) | set(kb)):
        mark = "" if ka[kind] == kb[kind] else "   <- differs"
        print(f"{kind:24} {ka[kind]:6d} {kb[kind]:6d}{mark}")
    only_a, only_b = a - b, b - a
    for line in sorted(only_a.elements()):
        print("- " + line[:400])
    for line in sorted(only_b.elements()):
        print("+ " + line[:400])
    same = not only_a and not only_b
    print(f"{'same' if same else 'DIFFERENT'}: {sum(a.values())} and {sum(b.values())} lines")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
