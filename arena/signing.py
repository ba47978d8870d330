"""Signed messages between the platform and the arena: Ed25519 (``cryptography``), one key
per party. The platform signs every job; each arena host signs its ``started`` messages and
reports with its own key, which the platform knows by the host's name and can revoke.

A message travels as an *envelope*, JSON text::

    {"schema": "cucumbers-signed/1", "signer": "arena-1", "purpose": "report",
     "body": "<the message's own JSON text>", "signature": "<base64>"}

The signature covers the schema, the purpose, the signer and the body, each
length-prefixed behind a domain tag (:func:`signed_bytes`), so no signature made for one
purpose or one signer passes for another: a job's signature is never a report's.

Keys on disk: the private key as PEM PKCS#8 (unencrypted, file mode 0600), the public key as
one line ``ed25519:<base64 of the 32 raw bytes>`` (a file ``NAME.pub``, or inline in a
variable). ``python -m arena keygen --out PATH`` writes both.

No Django here: the arena worker uses it, and so does the platform.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

SCHEMA: Final = "cucumbers-signed/1"
#: What the signature is over starts with this, so it can be nothing else's signature.
DOMAIN: Final = b"cucumber-arena signed message\x00"
PUBLIC_PREFIX: Final = "ed25519:"
#: The name the platform signs jobs under.
PLATFORM_SIGNER: Final = "platform"
#: Longest signer name (an arena host's name).
MAX_SIGNER_CHARS: Final = 100


class Purpose(StrEnum):
    """What a signed message is: a job (platform → arena), a started message or a report
    (arena → platform); a review's job (platform → arena) and its result (arena →
    platform)."""

    JOB = "job"
    STARTED = "started"
    REPORT = "report"
    REVIEW_JOB = "review-job"
    REVIEW_RESULT = "review-result"


class SignatureError(ValueError):
    """An envelope that cannot be trusted; the message says why (unsigned, unknown signer,
    bad signature, wrong purpose...)."""


class KeyFileError(ValueError):
    """A key that cannot be used: missing, unreadable or not an Ed25519 key."""


# --- keys ---------------------------------------------------------------------------------


def generate_key() -> Ed25519PrivateKey:
    """A new private key."""
    return Ed25519PrivateKey.generate()


def public_text(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The public key as one line, ``ed25519:<base64>``."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return PUBLIC_PREFIX + base64.b64encode(raw).decode()


def parse_public_key(text: str) -> Ed25519PublicKey:
    """A public key from its line ``ed25519:<base64>``; raises :class:`KeyFileError`."""
    text = text.strip()
    if not text.startswith(PUBLIC_PREFIX):
        raise KeyFileError(f"a public key reads {PUBLIC_PREFIX}<base64>, not {text[:20]!r}")
    try:
        raw = base64.b64decode(text.removeprefix(PUBLIC_PREFIX), validate=True)
        return Ed25519PublicKey.from_public_bytes(raw)
    except (binascii.Error, ValueError):
        raise KeyFileError("a public key is 32 bytes in base64 after ed25519:") from None


def private_pem(key: Ed25519PrivateKey) -> bytes:
    """The private key as PEM PKCS#8, unencrypted (its file's mode protects it)."""
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def load_private_key(path: str | Path) -> Ed25519PrivateKey:
    """The private key in the PEM file ``path``; raises :class:`KeyFileError` naming it."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise KeyFileError(f"cannot read the key file {path}: {error.strerror}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise KeyFileError(f"{path} is not an unencrypted PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{path} holds a {type(key).__name__}, not an Ed25519 key")
    return key


def load_public_key_file(path: str | Path) -> Ed25519PublicKey:
    """The public key in the one-line file ``path``; raises :class:`KeyFileError`."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise KeyFileError(f"cannot read the public key file {path}: {error}") from None
    try:
        return parse_public_key(text)
    except KeyFileError as error:
        raise KeyFileError(f"{path}: {error}") from None


def write_key_pair(path: str | Path) -> str:
    """Write a new private key to ``path`` (0600) and its public key to ``path.pub``;
    refuses to overwrite either (``FileExistsError``). Returns the public key's line."""
    private = Path(path)
    public = private.with_name(private.name + ".pub")
    for existing in (private, public):
        if existing.exists():
            raise FileExistsError(f"{existing} exists: refusing to overwrite a key")
    key = generate_key()
    descriptor = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(private_pem(key))
    line = public_text(key)
    descriptor = os.open(public, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(descriptor, "w") as file:
        file.write(line + "\n")
    return line


def ensure_key_pair(path: str | Path) -> str:
    """The public key of the key at ``path``, written first (with ``path.pub``) if there
    is none: for local set-ups that make their keys on first run."""
    private = Path(path)
    if not private.exists():
        private.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        return write_key_pair(private)
    line = public_text(load_private_key(private))
    public = private.with_name(private.name + ".pub")
    if not public.exists():
        public.write_text(line + "\n")
    return line


# --- envelopes ----------------------------------------------------------------------------


def signed_bytes(schema: str, purpose: str, signer: str, body: str) -> bytes:
    """What a signature is over: the domain tag, then each field's UTF-8 bytes preceded by
    its length (8 bytes, big-endian), so no two different envelopes give the same bytes."""
    parts = [DOMAIN]
    for field in (schema, purpose, signer, body):
        data = field.encode()
        parts.append(len(data).to_bytes(8, "big"))
        parts.append(data)
    return b"".join(parts)


@dataclass(frozen=True, slots=True)
class Signer:
    """A party that signs: its name (``platform``, or the arena host's) and private key."""

    name: str
    key: Ed25519PrivateKey

    def seal(self, purpose: Purpose, body: str) -> str:
        """``body`` (a message's JSON text) in an envelope signed for ``purpose``."""
        signature = self.key.sign(signed_bytes(SCHEMA, purpose.value, self.name, body))
        return json.dumps(
            {
                "schema": SCHEMA,
                "signer": self.name,
                "purpose": purpose.value,
                "body": body,
                "signature": base64.b64encode(signature).decode(),
            }
        )

    @property
    def public(self) -> str:
        return public_text(self.key)


@dataclass(frozen=True, slots=True)
class Envelope:
    """An envelope as read, not yet verified: trust nothing in it before :meth:`verify`."""

    signer: str
    purpose: str
    body: str
    signature: bytes

    @classmethod
    def parse(cls, text: str | bytes) -> Envelope:
        """Read an envelope's fields; raises :class:`SignatureError` for anything that is
        not one (a bare message, unsigned, another schema)."""
        try:
            raw = json.loads(text)
        except (ValueError, UnicodeDecodeError):
            raise SignatureError("not an envelope: not JSON") from None
        if not isinstance(raw, dict):
            raise SignatureError("not an envelope: not a JSON object")
        if raw.get("schema") != SCHEMA:
            raise SignatureError(f"not a signed envelope (schema {str(raw.get('schema'))[:60]!r})")
        fields = {}
        for name in ("signer", "purpose", "body", "signature"):
            value = raw.get(name)
            if not isinstance(value, str) or not value:
                raise SignatureError(f"envelope without its {name}")
            fields[name] = value
        if set(raw) != {"schema", *fields}:
            raise SignatureError("envelope with unknown fields")
        if len(fields["signer"]) > MAX_SIGNER_CHARS:
            raise SignatureError("envelope whose signer's name is too long")
        try:
            signature = base64.b64decode(fields["signature"], validate=True)
        except binascii.Error:
            raise SignatureError("envelope whose signature is not base64") from None
        return cls(fields["signer"], fields["purpose"], fields["body"], signature)

    def verify(self, key: Ed25519PublicKey, purpose: Purpose) -> str:
        """The body, if this envelope was signed by ``key`` for ``purpose``."""
        if self.purpose != purpose.value:
            raise SignatureError(f"a {self.purpose!r} message where a {purpose.value!r} is due")
        try:
            key.verify(self.signature, signed_bytes(SCHEMA, self.purpose, self.signer, self.body))
        except InvalidSignature:
            raise SignatureError(f"bad signature for signer {self.signer!r}") from None
        return self.body


#: Finds a signer's public key by name, or raises :class:`SignatureError` saying why not
#: (unknown, revoked).
KeyLookup = Callable[[str], Ed25519PublicKey]


def open_envelope(
    text: str | bytes, purpose: Purpose, keys: Mapping[str, Ed25519PublicKey] | KeyLookup
) -> tuple[str, str]:
    """(signer, body) of an envelope signed for ``purpose`` by a key of ``keys`` (a mapping
    of signer names to keys, or a lookup); raises :class:`SignatureError` naming the
    problem."""
    envelope = Envelope.parse(text)
    if isinstance(keys, Mapping):
        key = keys.get(envelope.signer)
        if key is None:
            raise SignatureError(f"unknown signer {envelope.signer!r}")
    else:
        key = keys(envelope.signer)
    return envelope.signer, envelope.verify(key, purpose)


def claimed(text: str | bytes) -> dict[str, object]:
    """What an envelope that was refused claims (signer, purpose, match), for the log line
    only: never trusted."""
    out: dict[str, object] = {}
    try:
        raw = json.loads(text)
        out = {k: str(raw[k])[:100] for k in ("signer", "purpose") if k in raw}
        body = json.loads(raw["body"]) if isinstance(raw.get("body"), str) else raw
        if isinstance(body.get("match"), int):
            out["match"] = body["match"]
    except (ValueError, TypeError, KeyError, AttributeError):
        pass
    return out
