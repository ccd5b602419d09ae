"""Episodes, what was said (CONTRACT §12): kept with their run, forgotten on request.

`record_episodes` runs inside the transaction that files a curated run
(`committer.filing.record_run`): each message the curator handed over (`Said`, secrets
already replaced by `[redacted]`) becomes an immutable `Episode` with its speaker's person
entity, its search text and, embedded in one call for the whole run, its vector. The
episode's id derives from (owner, run, position, part), so a run filed twice (a lease
taken over) never duplicates what was said.

`EpisodeCommands` (a mixin of `committer.apply.Committer`) forgets one episode or a whole
run's, in one transaction recorded as one `action` event. With `facts`, it also retracts
(CONTRACT §2.2 retract: it was never true) every current row whose only evidence is the
forgotten messages: a row another message, a REST edit or an integration also stated
stays. What the retracted rows had pushed out comes back, unless its own only evidence
was forgotten too, in which case what *it* had pushed out comes back, and so on.

Evidence counts as forgotten when its message is forgotten by this call, or was by an
earlier forget that took its facts. A forget without facts leaves its facts standing for
good: a message forgotten that way still backs its rows, so a later forget with facts
neither retracts them nor skips them when deciding what comes back (found by a tester,
F6: after "forget that I said Kyoto", undoing a later Hanoi brought back Paris).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from committer.batch import Batch
from committer.curation import resolve
from committer.proposals import EntityRef, Proposal, Reviewed, Said
from committer.rules.retract import Found, gather_predecessors, plan_retract
from committer.search_index import Prepared, embed_texts
from committer.secrets import REDACTED, looks_secret
from committer.trail import Trail
from graph.embedding import Embedder, fact_text
from graph.errors import Conflict, NotFound
from graph.names import search_key
from graph.records import FactRecord, RunRecord
from graph.time import to_utc, utcnow
from graph.write.writer import Writer, WriteTx

PENDING_RUN = ("queued", "curating")
"""Run statuses whose episodes are not written yet: forgetting them now would not hold."""


def episode_id(owner: str, run_id: str, seq: int, part: str) -> str:
    """The id of an episode: the same message (and part) of the same run, the same id."""
    key = f"{owner}|{run_id}|{seq}|{part}"
    return "epi_" + hashlib.sha256(key.encode()).hexdigest()[:24]


def search_text(owner: str, said: Said) -> str:
    """What both indexes see of an episode: "<speaker>: <text>" for a named speaker other
    than the owner (questions name people, turns say "I"), else the text."""
    named = said.role == "user" and said.speaker and said.speaker.strip()
    if named and search_key(said.speaker or "") != search_key(owner):
        return f"{(said.speaker or '').strip()}: {said.text}"
    return said.text


@dataclass(frozen=True, slots=True)
class Embedded:
    """A run's episodes embedded before its transaction opens (so the embedder never runs
    while the owner is locked, nor again when the driver retries the transaction).

    Attributes:
        texts: each episode's search text (`search_text`), in `said` order.
        vectors: their vectors, or None (no embedder, or it failed: written without).
        model: the id of the model that made them, or None.
    """

    texts: list[str]
    vectors: list[list[float]] | None
    model: str | None


def embed_said(owner: str, said: Sequence[Said], embedder: Embedder | None) -> Embedded:
    """Embed a run's messages in one call (CONTRACT §12: written with their vectors in the
    transaction that files the run; an embedder that fails leaves them without vectors,
    `worldstate embeddings backfill` adds them later)."""
    return embed_run(owner, said, (), embedder)[0]


def embed_run(
    owner: str, said: Sequence[Said], reviewed: Sequence[Reviewed], embedder: Embedder | None
) -> tuple[Embedded, Embedder | None]:
    """Embed, in one call and before the transaction, a run's messages and the texts of the
    rows its committed proposals will most likely create (issue 12).

    A row's text names its subject entity as stored (`fact_text`); it is guessed here from
    the proposal (the name it gives, else the owner's own entity, named after the owner).
    A row whose text was guessed wrong, or that the rules create besides (a superseded
    row recorded again), is embedded in the transaction as before.

    Args:
        owner: the owner id.
        said: the run's messages (already redacted).
        reviewed: its reviewed proposals.
        embedder: the process's embedder, or None.

    Returns:
        (the messages' `Embedded`, the embedder for the transaction: one answering from
        the vectors made here, or `embedder` itself when nothing was embedded).
    """
    texts = [search_text(owner, s) for s in said]
    rows = [t for t in dict.fromkeys(_row_text(owner, r) for r in reviewed) if t is not None]
    wanted = list(dict.fromkeys(texts + rows))
    vectors = embed_texts(embedder, wanted) if wanted else None
    if embedder is None or vectors is None:
        return Embedded(texts, None, None), embedder
    made = dict(zip(wanted, vectors, strict=True))
    episodes = [made[t] for t in texts] if texts else None
    return Embedded(texts, episodes, embedder.model if texts else None), Prepared(embedder, made)


def _row_text(owner: str, r: Reviewed) -> str | None:
    """The search text of the row a committed assertion most likely creates, else None."""
    p = r.proposal
    if r.action != "commit" or p.op != "assert" or p.subject.id is not None:
        return None
    shown = p.object.name if p.object is not None else p.value
    if shown is None or (p.object is not None and p.object.id is not None):
        return None
    subject = p.subject.name if p.subject.name and p.subject.name.strip() else owner
    return fact_text(subject, p.attribute, shown)


@dataclass(frozen=True, slots=True)
class Filed:
    """What filing a run's episodes did.

    Attributes:
        speakers: message id -> the person entity who said it (None: nobody's words).
        episodes: message id -> the id of its episode (its own words when it has two).
        created: the ids of the episodes this filing wrote, in run order (none when the
            run was filed before: a lease taken over), for the commit's effects (§8).
    """

    speakers: dict[str, str | None]
    episodes: dict[str, str]
    created: tuple[str, ...] = ()


def record_episodes(
    w: WriteTx,
    owner: str,
    self_id: str,
    run: RunRecord,
    said: Sequence[Said],
    t: datetime,
    embedded: Embedded | None = None,
    withheld: Set[str] = frozenset(),
) -> Filed:
    """Write a curated run's messages as episodes at commit time `t` (CONTRACT §12).

    A `user` message's speaker is the person the run names (found by kind and name, or
    created, as the curator's proposals resolve it), or the owner's own entity; other
    roles have none.

    Args:
        w: the open write transaction (owner locked).
        owner: the owner id.
        self_id: the owner's own person entity.
        run: the run being filed.
        said: its messages as the curator handed them over (already redacted).
        t: the commit time.
        embedded: their search texts and vectors (`embed_said`, before the transaction);
            None embeds them here, with the transaction's embedder.
        withheld: ids of the messages a held privileged statement was drawn from
            (committer.proposals `PRIVILEGED`): their episodes (every part) are filed
            withheld, never pushed by prefetch nor found by search (CONTRACT §3: a
            statement waiting for a yes is invisible to those reads; the person's own
            listing and the chat's history still show it).
    """
    if not said:
        return Filed({}, {}, ())
    if embedded is None:
        embedded = embed_said(owner, said, w.embedder)
    ids: dict[str | None, str] = {}
    speakers: list[str | None] = []
    for s in said:
        if s.role != "user":
            speakers.append(None)
            continue
        if s.speaker not in ids:
            # POST /v1/runs refuses a secret speaker; one queued before that is named
            # [redacted], never created under its secret name (CONTRACT §12)
            name = REDACTED if s.speaker and looks_secret(s.speaker) else s.speaker
            ref = EntityRef(name=name, kind="person") if name else EntityRef()
            ids[s.speaker] = resolve(w, owner, self_id, ref, t)
        speakers.append(ids[s.speaker])
    vectors = embedded.vectors
    surface = REDACTED if looks_secret(run.surface or "") else run.surface
    items: list[dict[str, Any]] = []
    for i, (s, sid, text) in enumerate(zip(said, speakers, embedded.texts, strict=True)):
        items.append(
            {
                "id": episode_id(owner, run.id, s.seq, s.part),
                "chat_id": run.chat_id,
                "run_id": run.id,
                "message_id": s.message_id,
                "seq": s.seq,
                "part": s.part,
                "surface": surface,
                "role": s.role,
                "speaker_id": sid,
                "text": s.text,
                "said_at": to_utc(s.said_at, "at"),
                "source": s.source,
                "search_text": text,
                "embedding": None if vectors is None else vectors[i],
                "withheld": s.message_id is not None and s.message_id in withheld,
            }
        )
    made = w.create_episodes(owner, items, t, embedded.model)
    by_message: dict[str, str] = {}
    who: dict[str, str | None] = {}
    for item in items:
        mid = item["message_id"]
        if mid is not None and (mid not in by_message or item["part"] == "own"):
            by_message[mid] = item["id"]
            who[mid] = item["speaker_id"]
    return Filed(who, by_message, tuple(i["id"] for i in items if i["id"] in made))


def spoken_by(r: Reviewed, speakers: dict[str, str | None]) -> Reviewed:
    """`r` with the person who said its message on its provenance (`speaker_id`), from
    the episodes just filed (`Filed.speakers`)."""
    prov = r.proposal.provenance
    speaker = speakers.get(prov.message_id) if prov.message_id is not None else None
    if speaker is None or prov.speaker_id == speaker:
        return r
    proposal = r.proposal.model_copy(
        update={"provenance": prov.model_copy(update={"speaker_id": speaker})}
    )
    return r.model_copy(update={"proposal": proposal})


def said_by(w: WriteTx, owner: str, proposal: Proposal) -> Proposal:
    """`proposal` (kept later, from a stored proposal) with the person who said its message
    on its provenance, read from the message's episode (forgotten or not)."""
    prov = proposal.provenance
    if prov.run_id is None or prov.message_id is None:
        return proposal
    speaker = w.message_speakers(owner, prov.run_id, [prov.message_id]).get(prov.message_id)
    return proposal.model_copy(
        update={"provenance": prov.model_copy(update={"speaker_id": speaker})}
    )


@dataclass(frozen=True, slots=True)
class ForgetResult:
    """What forgetting episodes did (CONTRACT §12 "Forget a conversation").

    Attributes:
        episodes: the episodes forgotten (their `retracted_at` is `recorded_at`).
        retracted: fact rows retracted (with `facts`: their only evidence was forgotten).
        restored: rows recorded again: values the retracted rows had pushed out.
        kept: rows drawn from those messages that stay, corroborated by other evidence.
        recorded_at: the commit's transaction time, aware UTC.
        event_id: the `action` event that records it (CONTRACT §8).
    """

    episodes: tuple[str, ...]
    retracted: tuple[str, ...]
    restored: tuple[FactRecord, ...]
    kept: tuple[str, ...]
    recorded_at: datetime
    event_id: str


class EpisodeCommands:
    """Forgetting what was said."""

    _writer: Writer

    def forget_episode(
        self, owner: str, episode_id: str, *, facts: bool = False, by: str = "rest"
    ) -> ForgetResult:
        """Forget one episode: "forget that I said this" (CONTRACT §12), in one transaction.

        Args:
            owner: the owner id.
            episode_id: the episode.
            facts: also retract every current row whose only evidence is this message
                (its part: a pasted part's rows are the untrusted ones).
            by: who asks (`rest`, `chat:<id>`), the actor of the `action` event.

        Raises:
            NotFound: no such episode for this owner.
            Conflict: it is forgotten already.
        """

        def work(w: WriteTx) -> ForgetResult:
            t = w.begin_commit(owner, utcnow())
            found = w.episode_run(owner, episode_id)
            if found is None:
                raise NotFound("episode", episode_id)
            run_id, current = found
            if not current:
                raise Conflict(f"episode {episode_id!r} is already forgotten")
            gone = w.current_episodes(owner, run_id, episode_id)
            trail = Trail(w, owner, t)
            act = trail.act(
                "action",
                actor=by,
                action="forget_episodes",
                run_id=run_id,
                episode_id=episode_id,
            )
            mids = [e["message_id"] for e in gone if e["message_id"] is not None]
            return _forget(w, owner, t, trail, act, run_id, gone, mids if facts else None)

        return self._writer.transaction(work)

    def forget_run_episodes(
        self, owner: str, run_id: str, *, facts: bool = False, by: str = "rest"
    ) -> ForgetResult:
        """Forget every episode of a run (CONTRACT §12), in one transaction; with `facts`,
        retract the rows whose only evidence is the run's messages.

        Raises:
            NotFound: no such run for this owner.
            Conflict: the run is not curated yet (its episodes would be written later),
                or none of its episodes is left to forget (as a forgotten episode is).
        """

        def work(w: WriteTx) -> ForgetResult:
            t = w.begin_commit(owner, utcnow())
            run = w.run(owner, run_id)
            if run is None:
                raise NotFound("run", run_id)
            if run.status in PENDING_RUN:
                raise Conflict(
                    f"run {run_id!r} is {run.status}: its episodes are not written yet; "
                    "forget them once it is done"
                )
            gone = w.current_episodes(owner, run_id)
            if not gone:
                raise Conflict(
                    f"run {run_id!r} has nothing left to forget: none of its episodes is "
                    "current (forgotten already, or it kept none)"
                )
            trail = Trail(w, owner, t)
            act = trail.act("action", actor=by, action="forget_episodes", run_id=run_id)
            return _forget(w, owner, t, trail, act, run_id, gone, "run" if facts else None)

        return self._writer.transaction(work)


def _forget(
    w: WriteTx,
    owner: str,
    t: datetime,
    trail: Trail,
    act: str,
    run_id: str,
    gone: list[dict[str, Any]],
    messages: list[str] | str | None,
) -> ForgetResult:
    """Retract the episodes `gone` and, when `messages` is given (message ids, or "run"
    for every message of the run), the rows whose only evidence they were."""
    ids = [e["id"] for e in gone]
    w.retract_episodes(owner, ids, t, facts=messages is not None)
    trail.forgot(ids)
    if messages is None or messages == []:
        trail.flush()
        return ForgetResult(tuple(ids), (), (), (), t, act)
    forgotten = _Forgotten(w, owner, run_id, whole=messages == "run")
    candidates = w.rows_of_messages(owner, run_id, None if forgotten.whole else list(messages))
    forgotten.learn(c["evidence"] for c in candidates)
    doomed = [c for c in candidates if all(forgotten(e) for e in c["evidence"])]
    kept = tuple(c["id"] for c in candidates if c not in doomed)
    batch = Batch(w, owner, t, trail)
    doomed_ids = {c["id"] for c in doomed}
    retracted: list[str] = []
    restored: list[FactRecord] = []
    for c in doomed:
        row = w.fact(owner, c["id"])
        lineage = w.lineage(owner, row.id)
        rows = batch.rows(row.entity_id, row.attribute, min(start for start, _ in lineage))
        rows = [r for r in rows if r.id == row.id or r.id not in doomed_ids]
        preds = gather_predecessors(row.id, partial(_lookup, w, owner, row.id, forgotten))
        plan = plan_retract(row, lineage, preds, rows)
        restored.extend(batch.execute(plan, row.entity_id, row.attribute))
        retracted.extend(plan.retract)
    batch.flush()
    # A row restored for one retract and folded into a later one was never written.
    standing = {r.id: r for r in (batch.standing(x.id) for x in restored)}
    ended = tuple(i for i in retracted if batch.final(i) == i)
    return ForgetResult(tuple(ids), ended, tuple(standing.values()), kept, t, act)


class _Forgotten:
    """Whether an assertion, [run_id, message_id, source], was drawn from forgotten words:
    a message part whose episode is forgotten now, or earlier by a forget that took its
    facts (in a user message, untrusted assertions come from its pasted part, the others
    from the person's own words), else any message of the run being forgotten whole. A
    part forgotten earlier without its facts never is (its facts were left standing), nor
    is an integration's observation. Call `learn` with evidence before asking about it
    (one query per batch)."""

    def __init__(self, w: WriteTx, owner: str, run_id: str, *, whole: bool):
        self._w, self._owner, self._run_id, self.whole = w, owner, run_id, whole
        self._parts: dict[tuple[str, str], dict[str, tuple[str, bool]]] = {}
        self._asked: set[tuple[str, str]] = set()

    def learn(self, evidence: Iterable[Sequence[Sequence[Any]]]) -> None:
        """Read which parts of the messages behind `evidence` (lists of assertions) are
        forgotten, for those not read yet."""
        wanted = {
            (run, mid)
            for items in evidence
            for run, mid, _ in items
            if run is not None and mid is not None and (run, mid) not in self._asked
        }
        self._asked |= wanted
        self._parts.update(self._w.forgotten_parts(self._owner, sorted(wanted)))

    def __call__(self, item: Sequence[Any]) -> bool:
        run, mid, source = item
        if (source or "").startswith("integration:"):
            return False
        parts = self._parts.get((run, mid), {})
        pasted = source == "untrusted" and any(role == "user" for role, _ in parts.values())
        part = parts.get("pasted" if pasted else "own")
        if part is not None:
            return part[1]
        return self.whole and run == self._run_id


def _lookup(
    w: WriteTx,
    owner: str,
    undoing: str,
    forgotten: _Forgotten,
    ids: Sequence[str],
) -> list[Found]:
    """What held before the rows `ids` (`gather_predecessors`'s lookup), a row whose every
    assertion was forgotten counted as disowned too: it never comes back, and what it had
    pushed out stands in for it (undoing both assertions brings back what held before
    either)."""
    found = w.predecessors(owner, ids, undoing=undoing)
    evidence = w.evidence_of_rows(owner, [r.id for _, r, _, disowned in found if not disowned])
    forgotten.learn(evidence.values())
    return [
        (
            origin,
            row,
            depth,
            disowned or (bool(evidence.get(row.id)) and all(map(forgotten, evidence[row.id]))),
        )
        for origin, row, depth, disowned in found
    ]
