"""Signed envelopes and keys (arena/signing.py): a genuine envelope opens to its signer and
body; anything tampered with (body, signer, purpose, schema, signature), unsigned, signed
by another key or for another purpose is refused with a reason; key files are private and
never overwritten; ``python -m arena keygen`` writes them."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.signing import (
    SCHEMA,
    Envelope,
    KeyFileError,
    Purpose,
    SignatureError,
    Signer,
    claimed,
    generate_key,
    load_private_key,
    load_public_key_file,
    open_envelope,
    parse_public_key,
    public_text,
    signed_bytes,
    write_key_pair,
)

REPO = Path(__file__).resolve().parents[2]
BODY = json.dumps({"schema": "cucumbers-match-report/1", "match": 12, "attempt": "a"})


@pytest.fixture
def host() -> Signer:
    return Signer("arena-1", generate_key())


def keys_of(*signers: Signer) -> dict[str, Any]:
    return {signer.name: signer.key.public_key() for signer in signers}


def edited(text: str, **changes: str) -> str:
    return json.dumps(json.loads(text) | changes)


def test_a_genuine_envelope_opens_to_its_signer_and_body(host: Signer) -> None:
    text = host.seal(Purpose.REPORT, BODY)
    assert json.loads(text)["schema"] == SCHEMA
    assert open_envelope(text, Purpose.REPORT, keys_of(host)) == ("arena-1", BODY)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"body": BODY.replace("12", "13")}, "bad signature"),
        ({"signer": "arena-2"}, "bad signature"),  # a known name, another's envelope
        ({"purpose": "job"}, "a 'job' message where a 'report' is due"),
        ({"purpose": "started"}, "a 'started' message where a 'report' is due"),
    ],
)
def test_a_tampered_envelope_is_refused(host: Signer, change: dict[str, str], reason: str) -> None:
    other = Signer("arena-2", generate_key())
    tampered = edited(host.seal(Purpose.REPORT, BODY), **change)
    with pytest.raises(SignatureError, match=reason):
        open_envelope(tampered, Purpose.REPORT, keys_of(host, other))


def test_a_signature_for_one_purpose_never_passes_for_another(host: Signer) -> None:
    # Relabelled as a report, a started message's signature does not verify.
    started = json.loads(host.seal(Purpose.STARTED, BODY))
    relabelled = json.dumps(started | {"purpose": "report"})
    with pytest.raises(SignatureError, match="bad signature"):
        open_envelope(relabelled, Purpose.REPORT, keys_of(host))


def test_a_message_signed_by_another_key_under_a_known_name_is_refused(host: Signer) -> None:
    impostor = Signer("arena-1", generate_key())
    with pytest.raises(SignatureError, match="bad signature for signer 'arena-1'"):
        open_envelope(impostor.seal(Purpose.REPORT, BODY), Purpose.REPORT, keys_of(host))


def test_an_unknown_signer_is_refused(host: Signer) -> None:
    stranger = Signer("stranger", generate_key())
    with pytest.raises(SignatureError, match="unknown signer 'stranger'"):
        open_envelope(stranger.seal(Purpose.REPORT, BODY), Purpose.REPORT, keys_of(host))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (BODY, "not a signed envelope"),  # the bare message, unsigned
        ("not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        (json.dumps({"schema": SCHEMA, "signer": "a", "purpose": "report", "body": BODY}),
         "without its signature"),
        (json.dumps({"schema": SCHEMA, "signer": "a", "purpose": "report", "body": BODY,
                     "signature": "!!"}), "not base64"),
        (json.dumps({"schema": "cucumbers-signed/0", "signer": "a"}), "not a signed envelope"),
    ],
)  # fmt: skip
def test_what_is_not_a_signed_envelope_is_refused_saying_why(text: str, reason: str) -> None:
    with pytest.raises(SignatureError, match=reason):
        Envelope.parse(text)


def test_an_envelope_with_extra_fields_is_refused(host: Signer) -> None:
    with pytest.raises(SignatureError, match="unknown fields"):
        Envelope.parse(edited(host.seal(Purpose.REPORT, BODY), note="x"))


def test_the_signed_bytes_cannot_be_shifted_between_fields() -> None:
    # Length prefixes: moving a character from one field to the next changes the bytes.
    assert signed_bytes(SCHEMA, "job", "ab", "c") != signed_bytes(SCHEMA, "job", "a", "bc")


def test_a_lookup_can_refuse_a_signer_with_its_own_reason(host: Signer) -> None:
    def revoked(name: str) -> Any:
        raise SignatureError(f"arena host {name!r} was revoked")

    with pytest.raises(SignatureError, match="was revoked"):
        open_envelope(host.seal(Purpose.REPORT, BODY), Purpose.REPORT, revoked)


def test_what_a_refused_envelope_claims_is_read_for_the_log_only(host: Signer) -> None:
    text = host.seal(Purpose.REPORT, BODY)
    assert claimed(text) == {"signer": "arena-1", "purpose": "report", "match": 12}
    assert claimed("garbage") == {}


def test_a_key_pair_is_written_private_and_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "host"
    line = write_key_pair(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert Path(f"{path}.pub").read_text().strip() == line
    assert public_text(load_private_key(path)) == line
    assert public_text(load_public_key_file(f"{path}.pub")) == line
    before = path.read_bytes()
    with pytest.raises(FileExistsError):
        write_key_pair(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "text", ["", "ssh-ed25519 AAAA", "ed25519:not-base64!", "ed25519:" + "A" * 8]
)
def test_a_malformed_public_key_is_refused(text: str) -> None:
    with pytest.raises(KeyFileError):
        parse_public_key(text)


def test_an_unreadable_or_foreign_private_key_is_refused_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="cannot read the key file"):
        load_private_key(tmp_path / "missing")
    junk = tmp_path / "junk"
    junk.write_text("hello")
    with pytest.raises(KeyFileError, match="not an unencrypted PEM private key"):
        load_private_key(junk)


def test_keygen_writes_the_pair_prints_the_public_key_and_refuses_to_overwrite(
    tmp_path: Path,
) -> None:
    command = [sys.executable, "-m", "arena", "keygen", "--out", str(tmp_path / "k")]
    first = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == (tmp_path / "k.pub").read_text().strip()
    assert first.stdout.startswith("ed25519:")
    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "refusing to overwrite" in again.stderr
