"""The Ed25519 keys interactions are signed with, as Discord signs them.

Discord signs every request it sends to an application's interactions
endpoint: ``X-Signature-Ed25519`` is the hex Ed25519 signature of the
``X-Signature-Timestamp`` value followed by the raw body, checked by the bot
against the application's ``verify_key`` (hex public key). Source: Discord's
developer documentation, "Interactions > Overview > Setting Up an Endpoint"
("Validating Security Request Headers").

The emulator derives each application's private key from its id and client
secret (SHA-256 of both as the 32-byte seed), so an application keeps its
``verify_key`` across restarts and state files without storing a key; a
test or a bot's ``.env`` can hold the public key. Signing and verifying use
the ``cryptography`` package.
"""

from __future__ import annotations

import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cmdsync.emulator.domain.objects import Application

SIGNATURE_HEADER = "X-Signature-Ed25519"
TIMESTAMP_HEADER = "X-Signature-Timestamp"


def private_key(app: Application) -> Ed25519PrivateKey:
    """The application's signing key (derived; see the module docstring)."""
    seed = hashlib.sha256(f"cmdsync-emulator:{app.id}:{app.client_secret}".encode()).digest()
    return Ed25519PrivateKey.from_private_bytes(seed)


def verify_key(app: Application) -> str:
    """The application's ``verify_key``: its Ed25519 public key, 64 hex digits."""
    return private_key(app).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def signed_headers(app: Application, body: bytes, timestamp: int) -> dict[str, str]:
    """The two signature headers for ``body`` sent at ``timestamp`` (epoch seconds)."""
    stamp = str(timestamp)
    signature = private_key(app).sign(stamp.encode() + body).hex()
    return {SIGNATURE_HEADER: signature, TIMESTAMP_HEADER: stamp}


def verify(public_key_hex: str, body: bytes, timestamp: str, signature_hex: str) -> bool:
    """Whether ``signature_hex`` signs ``timestamp + body`` for ``public_key_hex``.

    What a bot does with each request (False for malformed hex too).
    """
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex))
        key.verify(bytes.fromhex(signature_hex), timestamp.encode() + body)
    except (ValueError, InvalidSignature):
        return False
    return True
