"""What was said, as the curator hands it to the committer (CONTRACT §12 "Episodes").

`said_in(run)` turns each message of a run into the `Said` the committer keeps as an
episode, under the curator's own rules (CONTRACT §3):

* a `user` message is the speaker's own words, source `user_stated`; text pasted into it
  (fenced, quoted or indented blocks, `curator.untrusted.split_pasted`) is a second part,
  source `untrusted`;
* assistant, tool, document and system messages are `untrusted`.

Secrets never reach the committer: every sentence `committer.secrets.looks_secret` flags is
replaced by `[redacted]` (`redact`), and so is a pair of neighbouring sentences that
carries a credential only together ("my PIN is" / "4821"); text that still looks like a
secret after that is redacted whole. The API redacts a run's messages the same way when
the run is posted (api/http/routes/runs.py), so the run's stored payload holds no secret
either.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from committer.proposals import Said
from committer.secrets import REDACTED, looks_secret
from curator.extract import split_sentences
from curator.untrusted import split_pasted
from graph.records import RunRecord


def redact(text: str) -> str:
    """Replace each sentence of `text` that carries a credential by `[redacted]`.

    Sentences are `curator.extract.split_sentences`'s; the white space between them is
    kept. A sentence is redacted when `looks_secret` flags it, or when it and its
    neighbour together are flagged while neither is alone (a value on the next line).
    If the result still looks secret, the whole text is `[redacted]`.

    Args:
        text: any message text.

    Returns:
        The text with no credential left in it ("my PIN is 4821." -> "[redacted]").
    """
    if not text or not looks_secret(text):
        return text
    spans = split_sentences(text)
    flagged = [looks_secret(text[b:e]) for b, e in spans]
    for i in range(len(spans) - 1):
        pair = text[spans[i][0] : spans[i + 1][1]]
        if not flagged[i] and not flagged[i + 1] and looks_secret(pair):
            flagged[i] = flagged[i + 1] = True
    out, last = [], 0
    for (begin, end), secret in zip(spans, flagged, strict=True):
        out.append(text[last:begin])
        out.append(REDACTED if secret else text[begin:end])
        last = end
    out.append(text[last:])
    result = "".join(out)
    return REDACTED if looks_secret(result) else result


def said_in(run: RunRecord) -> list[Said]:
    """The messages of a run as episodes to keep (see the module docstring), in run order.

    Blank messages (and blank parts) are left out. Times keep their offset.
    """
    payload: dict[str, Any] = json.loads(run.payload or "{}")
    out: list[Said] = []
    for seq, m in enumerate(payload.get("messages") or []):
        role, text = m.get("role") or "user", m.get("text") or ""
        at = datetime.fromisoformat(m["at"])
        base = {"seq": seq, "message_id": m.get("id"), "role": role, "said_at": at}
        if role == "user":
            own, pasted = split_pasted(text)
            parts = [("own", own, "user_stated"), ("pasted", pasted, "untrusted")]
            speaker = m.get("speaker")
        else:
            parts, speaker = [("own", text, "untrusted")], None
        for part, words, source in parts:
            if words.strip():
                out.append(
                    Said(
                        **base,
                        part=part,
                        speaker=speaker,
                        text=redact(words.strip()),
                        source=source,
                    )
                )
    return out
