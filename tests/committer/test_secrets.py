"""What counts as a secret (committer/secrets.py; CONTRACT §3, §12: never stored).

Pure: no store. The texts are our own; the first rows of each table are the wordings a
tester found stored verbatim (words between the credential word and its "is").
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from committer.proposals import EntityRef, NoteProposal, Proposal, Provenance
from committer.secrets import looks_secret, proposal_secret, refuse_secrets, secret_field
from curator.episodes import REDACTED, redact
from graph.errors import InvalidInput, SecretRefused

CARRIED = [
    # words between the credential word and "is" (found stored verbatim)
    "The alarm password at the cabin is bluefinch.",
    "My password at the office is Kettle443.",
    "My password, just so you know, is Kettle443.",
    "My debit card PIN at Barclays is 7291.",
    "The passcode for the garage at mum's is 5517.",
    "The PIN for my account at the bank is 0385.",
    "My passphrase, if I ever forget, is purple otter lamp.",
    "The API key for the staging server is qwe-991-zzx.",
    "The security code on the back is 912.",
    "My CVV, for the record, is 404.",
    "Our access token at work is tk_77ab90.",
    # the simple wordings keep being caught
    "My PIN is 7291.",
    "our wifi password is lemontree",
    "password: Kettle443",
    "passcode = 5517",
    "PIN 7291",
    "my password's Kettle443",
    "My PIN is now 7291.",
    "my password is still Kettle443",
    "my pin is 7291",
    "the token is 88f1c2",
    "My secret at the gym is 2211.",
    "the door code is 4412",
    # wordings a tester found stored verbatim (F1; our own values)
    "my password is: Teapot5521",
    "I changed my password to Walrus8830.",
    "We set the PIN to 6142.",
    "I've updated the passcode to 'orchid-77'.",
    "5928 is my PIN.",
    "Keep 3071 as the PIN.",
    "Password - Walrus8830",
    "aws_secret_access_key = qP9xLm2Vb7Tr4Ws8Yz1Kd6Hn3Fc5Jg0",
    "db_password=Walrus8830",
    "my username is gull and the pw is Teapot5521",
    "pwd: Teapot5521",
    "The unlock code on my phone is 2684.",
    "The code for the back door is 9137.",
    "The code to the garage is 4406.",
    "Our house alarm code is 5512.",
    "She uses the passphrase 'velvet kettle sunrise 81'.",
    "My passphrase is yellow submarine river.",
    # Unicode look-alikes: full-width forms (NFKC) and zero-width characters in the word
    "My \uff30\uff29\uff2e is 6142.",
    "\uff4d\uff59\u3000\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44\u3000\uff49\uff53\u3000\uff54\uff45\uff41\uff11\uff12",
    "My P\u200bIN is 6142.",
    "my pass\u200dword is Teapot5521",
    "my pa\u00adssword is Teapot5521",
    # a long random token, digits and both cases
    "here you go: aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zQ",
]
NOT_CARRIED = [
    # mentions, not values (precision: a false positive redacts real memory)
    "I forgot my password yesterday.",
    "I reset my password.",
    "The PIN pad was broken.",
    "The PIN pad at the shop is broken.",
    "I changed my password at work and it is fine now.",
    "My password manager is great.",
    "The password policy at work is strict.",
    "The password at work is expiring soon.",
    "My password at work is expired.",
    "My password is too short.",
    "The API key is stored in Vault.",
    "The refresh token is rotated every hour.",
    "The wifi password is on the fridge.",
    "What is my password?",
    "Do you know what my PIN is?",
    "The pin is loose on the hinge.",
    "The secret is that I love cheese.",
    "The pins at the bowling alley are old.",
    "I reset my password on 3 May 2024.",
    "My password is the same as before.",
    "the password is not working",
    "I keep my passwords in a manager.",
    "DB password: ${DB_PASSWORD}",
    "api key = <your key here>",
    "I knocked down ten pins.",
    # ids are not keys: a hex id, a uuid, a commit hash
    "owner-3f9c0e1d2b4a59687a6b5c4d3e2f1a0b-2 edit 3",
    "see 1b4e28ba-2fa1-11d2-883f-0016d3cca427",
    "fixed in 7872f3f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7",
    "I live in Lisbon.",
    # near the F1 wordings, yet nothing is carried
    "My password is: too short, says the form.",
    "I changed my password to something stronger.",
    "I changed my password to a longer one.",
    "I set my PIN to expire next month.",
    "I changed my password for the bank.",
    "The password to the wifi is on the fridge.",
    "Password - forgotten again.",
    "The password-protected file is on the drive.",
    "2024 is the year I reset my password.",
    "What is the code for the front door?",
    "The code for the front door is broken.",
    "The door code is stuck on the keypad.",
    "The passphrase should be long.",
    "Is the pw still the same?",
    "My \uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44 is too short.",
    "The P\u200bIN pad was broken.",
    "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
    "the sha256 is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
]


@pytest.mark.parametrize("text", CARRIED)
def test_a_credential_with_its_value_is_a_secret(text: str) -> None:
    """A credential word, then (within the clause, phrases or an aside between) a value."""
    assert looks_secret(text)


@pytest.mark.parametrize("text", NOT_CARRIED)
def test_a_mention_or_a_state_is_not(text: str) -> None:
    """A mention, a compound ("PIN pad"), a state or place after "is", a question, a
    placeholder: nothing is carried."""
    assert not looks_secret(text)


@pytest.mark.parametrize("text", CARRIED[:4])
def test_the_found_wordings_are_redacted_in_episodes(text: str) -> None:
    """The run's messages lose the sentence: what a tester saw stored verbatim."""
    assert redact(f"Good morning. {text} Thanks!") == f"Good morning. {REDACTED} Thanks!"


@pytest.mark.parametrize(
    ("fields", "labels", "field"),
    [
        ({"value": "my PIN is 7291"}, None, "value"),
        ({"value": "7291"}, {"value": "bank_pin"}, "value"),  # read as "bank pin: 7291"
        ({"value": 7291}, {"value": "pin"}, "value"),
        ({"value": "7291", "evidence": "my password is Kettle443"}, None, "evidence"),
        ({"value": {"steps": [{"note": "door code is 4412"}]}}, None, "value"),
        ({"value": {"pin": 7291}}, None, "value"),  # a key labels its scalar
        ({"value": {"apiKey": "qwe-991-zzx"}}, None, "value"),
        ({"value": {"pin_pad": "broken", "token_count": 1200}}, None, None),
        ({"value": "broken"}, {"value": "pin_pad"}, None),
        ({"value": "2024-01-01"}, {"value": "password_changed"}, None),
        ({"value": True, "reason": None}, {"value": "passcode_enabled"}, None),
    ],
)
def test_secret_field_names_the_first_field_that_carries_one(
    fields: dict[str, object], labels: dict[str, str] | None, field: str | None
) -> None:
    """Strings, scalars under their label and JSON leaves under their keys are read."""
    assert secret_field(fields, labels) == field


def test_refuse_secrets_raises_a_422_naming_the_field() -> None:
    """`SecretRefused` is bad input (422 problem+json) naming the field."""
    with pytest.raises(SecretRefused) as caught:
        refuse_secrets({"title": "bank", "body": "PIN at the bank is 0385"})
    assert isinstance(caught.value, InvalidInput) and caught.value.field == "body"
    assert "never stores secrets" in caught.value.detail
    refuse_secrets({"title": "bank", "body": "I forgot my PIN at the bank"})


def _proposal(attribute: str, value: str, **kw: object) -> Proposal:
    return Proposal(
        id="p",
        subject=EntityRef(),
        attribute=attribute,
        value=value,
        valid_from=datetime(2024, 3, 1, tzinfo=UTC),
        type="test",
        provenance=Provenance(source="user_stated"),
        **kw,  # type: ignore[arg-type]
    )


def test_a_proposal_carrying_a_secret_is_found() -> None:
    """The committer drops these: the value under its attribute, and a note's body."""
    assert proposal_secret(_proposal("bank_pin", "7291")) == "value"
    note = NoteProposal(title="bank", body="my PIN at the bank is 0385")
    assert proposal_secret(_proposal("note", "bank", op="note", note=note)) == "note"
    assert proposal_secret(_proposal("habit", "taking insulin")) is None
