"""Does a text carry a credential? Secrets are never stored (CONTRACT §3, §12).

The one place that decides, for every writer: the curator drops every sentence that
carries a password, PIN, passcode, API key or token, card number or similar credential (so
"remember that my PIN is 1234" proposes nothing), its risk policy drops what it flags, the
run's messages are redacted with it (curator/episodes.py), and the committer refuses client
text that carries one (`refuse_secrets`: 422 naming the field, `graph.errors.SecretRefused`)
and never files a proposal that does (`proposal_secret`).

`looks_secret` flags a text when

* a credential word ("password", "PIN", "passphrase", "API key", "access token", "security
  code", "CVV", "SSN", "seed phrase" ...) is followed, within its clause, by "is", "was",
  ":", "=" ... and a value ("is hunter2", ": 4321", "= abc"), or directly by a value with a
  digit ("PIN 4321"). Between the word and "is" may stand prepositional phrases and one
  comma-closed aside: "my password at work is ...", "my bank PIN at Santander is ...", "my
  PIN for the bank is ...", "my password, by the way, is ...". A word that also has an
  everyday sense ("pin", "token", "secret") counts only with a value holding a digit ("the
  pin is loose" is not a secret, "my pin is 4821" is); "is:" and a dash standing alone
  link too ("my password is: X", "Password - X"), as does a quoted value ("the passphrase
  'purple otter lamp'");
* a verb sets the credential to a value with a digit or in quotes ("I changed my
  password to hunter7410", "I set my PIN to 7409"), or the value comes first ("7303 is my
  PIN", "keep 7408 as the PIN");
* it holds a string shaped like a machine credential (a provider key prefix such as
  `sk-`, `ghp_`, `AKIA`, `xoxb-`, a JWT, a PEM private key, or a long run of digits and
  letters of both cases: a hex id, a uuid or a commit hash is not one);
* it holds a card number: 13 to 19 digits, optionally grouped by spaces or dashes, that
  pass the Luhn check; or a US social security number (`123-45-6789`).

A bare mention ("I forgot my password again", "I reset my password", "the PIN pad was
broken") is not a secret: nothing is carried. Neither is a statement about the credential
rather than its value: after "is" comes a state or a place, not a value ("my password is
too short", "the API key is stored in Vault", "the password at work is expiring", "the wifi
password is on the fridge"). Precision matters as much as recall: what is flagged is
redacted from memory. The text is read after NFKC folding (full-width "ＰＩＮ" is "PIN")
with zero-width characters and soft hyphens removed ("P\u200bIN" is "PIN"), and once more
with "_" read as a space ("aws_secret_access_key = ..."). Not read: a credential and its
value in two sentences, dotted abbreviations ("p.i.n."), other languages. Deterministic,
offline, no state.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

from committer.proposals import Proposal
from graph.errors import SecretRefused

__all__ = ["REDACTED", "looks_secret", "proposal_secret", "refuse_secrets", "secret_field"]

REDACTED = "[redacted]"
"""What stands in a text for a sentence that carried a credential (CONTRACT §12)."""

_STRONG = (
    r"pass(?:word|wd|code|phrase)s?|pwd?|pins?\s+(?:code|number)s?|(?-i:PINs?)|pin\s*#"
    r"|(?:api|access|auth|bearer|refresh|session|secret|private|ssh|app|client)[\s_-]*"
    r"(?:key|token|secret)s?|credentials?|log-?in\s+details|security\s+(?:code|answer)s?"
    r"|cvv2?|cvc|csc|ssn|social\s+security\s+(?:number|no\.?)|(?:seed|recovery)\s+phrase"
    r"|one[\s-]time\s+(?:code|password)|otp|2fa\s+code|verification\s+code|wi-?fi\s+key"
    r"|(?:safe|lock|locker)\s+combination"
    r"|combination(?=\s+(?:to|for)\s+(?:the\s+|my\s+)?(?:safe|lock|locker))"
    r"|(?:door|alarm|gate|garage|keypad|entry|unlock|lock\s+screen|building)\s+code"
    r"|code(?=\s+(?:to|for|on)\s+(?:the\s+|my\s+|our\s+)?(?:front\s+|back\s+|side\s+|main\s+)?"
    r"(?:door|gate|garage|alarm|safe|lock|building|house|flat|apartment|keypad)\b)"
    r"|account\s+number|routing\s+number|iban"
)
"""Words that name a credential and nothing else."""
_WEAK = r"pins?|tokens?|secrets?"
"""Credential words with an everyday sense too: they count only with a value holding a digit."""
_W = (
    r"(?!(?:and|but|or|so|because|since|while|when|where|which|that|who|if|then|it|i|you|he"
    r"|she|we|they|this|there|is|was|are|were)\b)[\w'’-]+"
)
"""A word of a phrase between the credential word and "is": never one that opens a clause."""
_BETWEEN = (
    rf"(?:\s+(?:for|to|of|on|at|in|with|from)\s+{_W}(?:\s+{_W}){{0,2}}"  # at work, for the bank
    r"|\s*,[^,.;:!?\n]{1,40},)"  # , by the way,
)
"""What may stand between the credential word and its "is": a short prepositional phrase,
or an aside closed by a comma; up to three of them."""
_LINK = (
    r"(?:(?:is|was|are|were|will\s+be|has\s+been|reads|['’]s)(?:\s*:)?|=>?|:|->|(?<=\s)[-–—](?=\s))"
)
_ADVERB = r"(?:not|now|still|currently|actually|also|just|simply|always|never|[a-z]+ly)"
_STATE = (
    r"too|very|so|quite|wrong|incorrect|invalid|weak|strong|long|short|the\s+same|same"
    r"|different|secure|insecure|safe|unsafe|required|optional|mandatory|missing|lost|hard"
    r"|easy|simple|complicated|fine|ok|okay|good|bad|great|terrible|annoying|important|new"
    r"|old|correct|right|empty|blank|due|about|on|in|at|for|to|from|with|under|like|as"
    r"|written|stolen|forgotten|hidden|shown|given|taken|broken|chosen|frozen|worn|known"
    r"|unknown|here|there|somewhere|nowhere|something|what|that|which|how|why|where|when"
    r"|whatever|useless|gone|off|out|up|down|available|visible|valid|active|inactive|stuck"
    r"|(?-i:[a-z]{2,}(?:ed|ing))"
)
"""What follows "is" when it describes the credential instead of giving it ("is too short",
"is stored in Vault", "is expiring"): a state, a place, a question word, a lower-case
participle. A value that is one of these words alone is missed, on purpose."""
_PLACEHOLDER = r"\$\{|(?-i:\$[A-Z_]{2,}\b)|<[^<>\n]{1,40}>|\{\{|\*{3,}|x{3,}\b|\[redacted\]"
"""What a document writes in place of a value: `${DB_PASSWORD}`, `<your key>`, `****`."""
_VALUE = (
    rf"\s*(?!(?:{_ADVERB}\s+)*(?:{_STATE})(?![\w!@#$%^&*]))(?:{_ADVERB}\s+)*"
    rf"[\"'`‘“]?(?![.,;:!?]+(?:\s|$)|{_PLACEHOLDER})\S"
)
"""The start of a value: not a state, not a placeholder, not punctuation alone ("what is
my password?")."""
_DIGITAL = r"[\"'`]?[\w!@#$%^&*.-]*\d[\w!@#$%^&*.-]*"
_QUOTED = r"[\"'‘“][^\"'’”\n]{2,80}[\"'’”]"
_OWNER = r"(?:(?:my|the|our|your|his|her|their|a|new|current)\s+)"
_CARRIES = re.compile(
    rf"\b(?:{_STRONG})\b(?:(?:{_BETWEEN}){{0,3}}\s*{_LINK}{_VALUE}|\s+{_DIGITAL}|\s+{_QUOTED})"
    # a value given by a verb: "I changed my password to X", "set the PIN to 6142"
    rf"|\b(?:chang|set|reset|updat|switch|mak|made|chose|choos|pick)\w*\s+{_OWNER}*"
    rf"(?:{_STRONG}|{_WEAK})\s+(?:to|as)\s+(?:{_DIGITAL}|{_QUOTED})"
    # the value first: "5928 is my PIN", "keep 3071 as the PIN"
    rf"|(?<!\S){_DIGITAL}[\"'`]?\s+(?:is|was|as|will\s+be)\s+{_OWNER}+(?:{_STRONG}|{_WEAK})\b"
    r"(?!\s+(?:pad|manager|policy|hint|reset|field|prompt|length|rules?|requirements?|change))"
    rf"|\b(?:{_WEAK})\b(?:(?:{_BETWEEN}){{0,3}}\s*{_LINK}\s*(?:{_ADVERB}\s+)*{_DIGITAL}"
    r"|\s+\d{4,}\b)",
    re.IGNORECASE,
)
_MACHINE = re.compile(
    r"\b(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9]{12,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_\w{20,}|\bAKIA[0-9A-Z]{16}\b"
    r"|\bxox[abposr]-[\w-]{10,}|\bAIza[\w-]{30,}"
    r"|\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    # a long random run: digits and both cases (a hex id, a uuid, a commit hash is not one)
    r"|(?<![\w/.-])(?<!base64,)(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[a-z])"
    r"(?=[A-Za-z0-9_\-]*[A-Z])[A-Za-z0-9_\-]{32,}(?![\w/.-])"
)
_DIGITS = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_CARD_DIGITS = (13, 19)
"""Payment card numbers have 13 to 19 digits (ISO/IEC 7812)."""
_INVISIBLE = dict.fromkeys(
    map(ord, "\u00ad\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff")
)
"""Characters that show nothing: dropped before matching, so they cannot split a word."""
_SSN = re.compile(r"(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)")


def _luhn(digits: str) -> bool:
    """True when `digits` pass the Luhn checksum (card numbers do)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = sum(divmod(d * 2, 10))  # Luhn: the digits of the doubled digit, summed
        total += d
    return total % 10 == 0


def looks_secret(text: str) -> bool:
    """Return True when `text` carries a credential (password, PIN, key, card number ...).

    Args:
        text: any text: a sentence, a message, a proposed value.

    Returns:
        True for "my PIN is 4321", "the user's password is hunter2", "api key: sk-...",
        "4111 1111 1111 1111"; False for "I forgot my password" or "I live in Berlin".
    """
    if not text:
        return False
    # full-width and other compatibility forms fold to their letters, zero-width
    # characters and soft hyphens inside a word go ("ＰＩＮ", "P\u200bIN" read "PIN")
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    words = text.replace("_", " ")  # "aws_secret_access_key" names an access key
    if (
        _CARRIES.search(text)
        or _CARRIES.search(words)
        or _MACHINE.search(text)
        or _SSN.search(text)
    ):
        return True
    for m in _DIGITS.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if _CARD_DIGITS[0] <= len(digits) <= _CARD_DIGITS[1] and _luhn(digits):
            return True
    return False


def _label(name: str) -> str:
    """A field name as words: `bank_pin` and `bankPin` read "bank pin"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|[_\-.]+", " ", name).strip()


def _texts(value: Any, label: str | None = None) -> Iterator[str]:
    """The texts a value carries: a string or scalar as itself and under its label
    ("bank pin: 4821"); a JSON object's and list's members, each under its own key."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _texts(item, _label(str(key)))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item, label)
    elif value is not None and not isinstance(value, bool):
        yield str(value)
        if label:
            yield f"{label}: {value}"


def secret_field(fields: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> str | None:
    """The first field whose value carries a credential (`looks_secret`), or None.

    Args:
        fields: field name (as the client spells it) -> its value: a string, a scalar or
            any JSON value (every string and scalar in it is read, each also under its
            own key, so `{"pin": 4821}` carries one).
        labels: field name -> the words a scalar value is read under (a fact's value
            under its attribute: `bank_pin` with 4821 reads "bank pin: 4821").

    Returns:
        The name of the first field that carries a secret, in the order given; None.
    """
    for name, value in fields.items():
        label = _label(labels[name]) if labels and name in labels else None
        if any(looks_secret(text) for text in _texts(value, label)):
            return name
    return None


def refuse_secret_ids(ids: Mapping[str, str | None]) -> None:
    """Refuse client ids stored as given (a run's, chat's, message's or sync's) that carry
    a credential in words. An id with white space is words a person wrote and is read like
    text; an opaque token (no white space, e.g. `chatcmpl-…`) is never taken for one.

    Args:
        ids: field name (as the client spells it: `chat_id`, `id`) -> the id, or None.

    Raises:
        SecretRefused: an id carries a secret (422 naming it; CONTRACT §3, §12).
    """
    refuse_secrets({k: v for k, v in ids.items() if v and any(c.isspace() for c in v)})


def refuse_secrets(fields: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> None:
    """Refuse client text that carries a credential, before anything is written.

    Args:
        fields, labels: as `secret_field`.

    Raises:
        SecretRefused: a field carries a secret (422 naming it; CONTRACT §3, §12).
    """
    found = secret_field(fields, labels)
    if found is not None:
        raise SecretRefused(found)


def proposal_secret(p: Proposal) -> str | None:
    """The field of a proposal that carries a credential, or None: its value (read under
    its attribute), the entities it names, its evidence and reason, the note it keeps."""
    note = p.note
    return secret_field(
        {
            "value": p.value,
            "object": p.object.name if p.object else None,
            "subject": p.subject.name,
            "evidence": p.provenance.evidence,
            "reason": p.provenance.reason,
            "note": None if note is None else [note.title, note.body],
        },
        {"value": p.attribute},
    )
