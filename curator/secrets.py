"""Does a text carry a credential? (CONTRACT §3: credentials are never remembered as facts.)

`looks_secret` is the one public check: the extractor drops every sentence that carries a
password, PIN, passcode, API key or token, card number or similar credential (so "remember
that my PIN is 1234" proposes nothing), and the risk policy holds anything it flags.

It flags a text when

* a credential word ("password", "PIN", "API key", "access token", "CVV", "SSN", "seed
  phrase" ...) is followed closely by a value ("is hunter2", ": 4321", "= abc", "PIN 4321");
* it holds a string shaped like a machine credential (a provider key prefix such as
  `sk-`, `ghp_`, `AKIA`, `xoxb-`, a JWT, a PEM private key, or a long run of mixed
  letters and digits);
* it holds a card number: 13 to 19 digits, optionally grouped by spaces or dashes, that
  pass the Luhn check; or a US social security number (`123-45-6789`).

A bare mention ("I forgot my password again") is not a secret: nothing is carried.
Deterministic, offline, no state.
"""

from __future__ import annotations

import re

__all__ = ["looks_secret"]

_WORD = (
    r"pass(?:word|wd|code|phrase)s?|pins?(?:\s+(?:code|number))?|(?-i:PIN)s?|pin\s*#"
    r"|(?:api|access|auth|bearer|refresh|session|secret|private|ssh|app|client)[\s_-]*"
    r"(?:key|token|secret)s?|credentials?|log-?in\s+details|security\s+code"
    r"|cvv2?|cvc|csc|ssn|social\s+security\s+(?:number|no\.?)|(?:seed|recovery)\s+phrase"
    r"|one[\s-]time\s+(?:code|password)|otp|2fa\s+code|verification\s+code|wi-?fi\s+key"
    r"|(?:safe|lock|locker)\s+combination"
    r"|combination(?=\s+(?:to|for)\s+(?:the\s+|my\s+)?(?:safe|lock|locker))"
    r"|door\s+code|alarm\s+code|account\s+number|routing\s+number|iban"
)
_CARRIES = re.compile(
    rf"\b(?:{_WORD})\b(?:\s+(?:for|to|of|on)\s+(?:the\s+|my\s+|our\s+)?[\w'-]+(?:\s+[\w'-]+)?)?"
    r"(?:\s*(?:is|was|'s|are|=|:|->|reads|will\s+be)\s*[\"'`]?\S"
    r"|\s+[\"'`]?[\w!@#$%^&*.-]*\d[\w!@#$%^&*.-]*)",
    re.IGNORECASE,
)
_MACHINE = re.compile(
    r"\b(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9]{12,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_\w{20,}|\bAKIA[0-9A-Z]{16}\b"
    r"|\bxox[abposr]-[\w-]{10,}|\bAIza[\w-]{30,}"
    r"|\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|(?<![\w/.-])(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{32,}(?![\w/.-])"
)
_DIGITS = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_CARD_DIGITS = (13, 19)
"""Payment card numbers have 13 to 19 digits (ISO/IEC 7812)."""
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
    if _CARRIES.search(text) or _MACHINE.search(text) or _SSN.search(text):
        return True
    for m in _DIGITS.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if _CARD_DIGITS[0] <= len(digits) <= _CARD_DIGITS[1] and _luhn(digits):
            return True
    return False
