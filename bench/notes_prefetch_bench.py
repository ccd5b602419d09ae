"""Prefetch with notes present (issue 15): p50/p99 of a turn's push beside the `RETURN 1`
floor measured in the same run, and what the notes part adds.

Store (on a Neo4j of your own): `--owners` owners, each with `--entities` people holding
five facts each and `--notes` notes (the 50 of bench/notes_set.py, varied), written through
the committer as the service writes them. Messages name 0 to 3 of the owner's people and
ask one of the notes' questions.

Prints p50/p99 in ms of: `RETURN 1` in a READ transaction (the floor); prefetch as served
(`block.build`: scope, the entity query, the notes' query, ranking); prefetch without its
notes part (the same snapshot and ranking, no notes query); the notes part alone (the
scope and its one query, in a snapshot); and how often a block carried notes.

Usage:

    .venv/bin/python bench/notes_prefetch_bench.py --uri bolt://127.0.0.1:7687
        [--owners 20] [--entities 50] [--notes 300] [--samples 1000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.chat.prefetch import block as prefetch
from api.chat.prefetch import notes as noted
from api.chat.prefetch.mentions import mention_keys
from bench.measure import p
from bench.notes_set import NOTES
from committer.apply import Committer
from committer.proposals import Assertion
from graph.driver import connect
from graph.notes import NoteDraft, is_claim
from graph.read.reader import Reader
from graph.schema import ensure_schema
from graph.time import utcnow

FIRST = ("Ana", "Bo", "Cai", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo")
LAST = ("Silva", "Berg", "Khan", "Moreau", "Ito")
TEAMS = ("platform", "billing", "growth", "support", "mobile", "design")


def seed(committer: Committer, owner: str, entities: int, notes: int) -> list[str]:
    """People with five facts each, and notes; return the people's names."""
    committer.ensure_owner(owner)
    names = [f"{FIRST[i % 10]} {LAST[(i // 10) % 5]}{i // 50 or ''}" for i in range(entities)]
    for name in names:
        e = committer.create_entity(owner, name, "person")
        committer.assert_facts(
            owner,
            [
                Assertion(entity_id=e.id, attribute=a, value=v)
                for a, v in (
                    ("location", "Lisbon"),
                    ("employer", "Acme"),
                    ("likes", "tea"),
                    ("likes", "chess"),
                    ("works_on", TEAMS[len(name) % len(TEAMS)]),
                )
            ],
        )
    for i in range(notes):
        kind, title, body, _ = NOTES[i % len(NOTES)]
        team = TEAMS[(i // len(NOTES)) % len(TEAMS)]
        review = utcnow() + timedelta(days=1 + i % 60) if is_claim(kind) else None
        draft = NoteDraft(
            kind=kind, title=f"{title} ({team} team)" if i >= len(NOTES) else title,
            body=body, review_at=review,
        )  # fmt: skip
        committer.write_note(owner, draft)
    return names


def main() -> None:
    """Seed, warm, measure, print."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--uri", required=True, help="Bolt URI of a Neo4j of your own")
    ap.add_argument("--owners", type=int, default=20)
    ap.add_argument("--entities", type=int, default=50)
    ap.add_argument("--notes", type=int, default=300)
    ap.add_argument("--samples", type=int, default=1000)
    args = ap.parse_args()
    rng = random.Random(15)
    with connect(args.uri, None, None) as driver:
        ensure_schema(driver)
        committer = Committer(driver)
        run = f"{rng.getrandbits(32):08x}"
        owners = [f"bench-notes-{run}-{i}" for i in range(args.owners)]
        began = time.perf_counter()
        people = {o: seed(committer, o, args.entities, args.notes) for o in owners}
        print(f"seeded {args.owners} owners x ({args.entities} people, {args.notes} notes) "
              f"in {time.perf_counter() - began:.0f} s")  # fmt: skip
        reader = Reader(driver, retry=False, timeout=None)

        def message() -> tuple[str, str]:
            owner = rng.choice(owners)
            named = rng.sample(people[owner], rng.randint(0, 3))
            question = rng.choice(NOTES)[3]
            return owner, (" and ".join(named) + ": " if named else "") + question

        def full(owner: str, text: str) -> prefetch.Prefetch:
            return prefetch.build(reader, owner, "bench", text, utcnow(), 2000, 40)

        def without_notes(owner: str, text: str) -> prefetch.Prefetch:
            at = utcnow()
            with reader.snapshot() as snap:
                scope = snap.prefetch_scope(owner, "bench", at)
                view = prefetch.read_view(snap, scope, mention_keys(text), at)
            return prefetch.compose(view, at, 2000, 40)

        def notes_only(owner: str, text: str) -> noted.NotesView:
            at = utcnow()
            with reader.snapshot() as snap:
                scope = snap.prefetch_scope(owner, "bench", at)
                return noted.read(snap, scope, text, at)

        def ping(_owner: str, _text: str) -> None:
            with reader.snapshot() as snap:
                snap.ping()

        cases: tuple[tuple[str, Callable[[str, str], object]], ...] = (
            ("floor", ping),
            ("full", full),
            ("bare", without_notes),
            ("notes", notes_only),
        )

        for _ in range(300):  # warm: plans, page cache, JIT
            o, m = message()
            full(o, m)
            without_notes(o, m)
        lat: dict[str, list[float]] = {"floor": [], "full": [], "bare": [], "notes": []}
        carried = 0
        for _ in range(args.samples):
            o, m = message()
            for name, fn in cases:
                t0 = time.perf_counter()
                out = fn(o, m)
                lat[name].append((time.perf_counter() - t0) * 1000)
                if name == "full" and isinstance(out, prefetch.Prefetch):
                    carried += any(i["kind"] in ("note", "notes_due") for i in out.items)
    floor = statistics.median(lat["floor"])
    print(f"\n{'measure':48} {'p50 ms':>8} {'p99 ms':>8} {'p50/floor':>10} {'p99/floor':>10}")
    for name, label in (
        ("floor", "RETURN 1 in a READ transaction (floor)"),
        ("full", "prefetch with notes (block.build)"),
        ("bare", "prefetch without its notes part"),
        ("notes", "the notes part alone (scope + its query)"),
    ):
        xs = lat[name]
        m50, m99 = statistics.median(xs), p(xs, 0.99)
        print(f"{label:48} {m50:8.2f} {m99:8.2f} {m50 / floor:10.1f} {m99 / floor:10.1f}")
    print(f"\nblocks carrying notes or a due line: {carried}/{args.samples}")


if __name__ == "__main__":
    main()
