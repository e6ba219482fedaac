"""adbd's side of AUTH: decode Android public keys, verify token signatures, remember keys.

The simulator decodes keys itself (not through adbwire.wire) on purpose: when the client's
encoder and this decoder are written separately, a bug in one cannot hide in the other.

Android's RSAPublicKey struct (524 bytes, little-endian throughout)::

    u32 modulus_size_words   always 64 (2048-bit keys)
    u32 n0inv                -1 / n mod 2**32 (Montgomery constant, not needed to verify)
    u8  modulus[256]         n, little-endian
    u8  rr[256]              R**2 mod n, little-endian (likewise)
    u32 exponent             e, usually 65537
"""

from __future__ import annotations

import base64
import binascii
import struct
import threading
from collections.abc import Iterable
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils

__all__ = ["ANDROID_PUBKEY_SIZE", "KeyStore", "parse_android_pubkey", "verify_token_signature"]

MODULUS_WORDS: Final = 64
MODULUS_BYTES: Final = MODULUS_WORDS * 4
ANDROID_PUBKEY_SIZE: Final = 4 + 4 + MODULUS_BYTES + MODULUS_BYTES + 4
_WORDS = struct.Struct("<I")


class KeyFormatError(ValueError):
    """An authorized key is not an Android-format RSA public key."""


def parse_android_pubkey(text: str | bytes) -> rsa.RSAPublicKey:
    """Decode `BASE64[ comment]` (adb_keys line, adbkey.pub, AUTH RSAPUBLICKEY payload)."""
    if isinstance(text, bytes):
        text = text.split(b"\0", 1)[0].decode("ascii", errors="replace")
    fields = text.strip().split(None, 1)
    if not fields:
        raise KeyFormatError("empty public key")
    try:
        raw = base64.b64decode(fields[0], validate=True)
    except (binascii.Error, ValueError) as error:
        raise KeyFormatError(f"public key is not valid base64: {error}") from error
    if len(raw) != ANDROID_PUBKEY_SIZE:
        raise KeyFormatError(f"public key is {len(raw)} bytes, expected {ANDROID_PUBKEY_SIZE}")
    (words,) = _WORDS.unpack_from(raw, 0)
    if words != MODULUS_WORDS:
        raise KeyFormatError(f"modulus_size_words is {words}, expected {MODULUS_WORDS}")
    modulus = int.from_bytes(raw[8 : 8 + MODULUS_BYTES], "little")
    (exponent,) = _WORDS.unpack_from(raw, 8 + 2 * MODULUS_BYTES)
    try:
        return rsa.RSAPublicNumbers(exponent, modulus).public_key()
    except ValueError as error:
        raise KeyFormatError(f"not a usable RSA key: {error}") from error


def verify_token_signature(key: rsa.RSAPublicKey, token: bytes, signature: bytes) -> bool:
    """adbd's check: RSA PKCS#1 v1.5 over the token, which is taken as a SHA-1 digest."""
    try:
        key.verify(signature, token, padding.PKCS1v15(), utils.Prehashed(hashes.SHA1()))  # noqa: S303
    except (InvalidSignature, ValueError):
        return False
    return True


def _key_id(text: str) -> str:
    fields = text.strip().split(None, 1)
    return fields[0] if fields else ""


class KeyStore:
    """The device's adb_keys: authorized keys, plus keys waiting for the user to allow them."""

    def __init__(self, authorized: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._authorized: dict[str, rsa.RSAPublicKey] = {}
        self._pending: dict[str, str] = {}
        for line in authorized:
            self.authorize(line)

    def authorize(self, key_text: str) -> None:
        """Trust a key (raises KeyFormatError when it is not an Android public key)."""
        key = parse_android_pubkey(key_text)
        with self._lock:
            self._authorized[_key_id(key_text)] = key
            self._pending.pop(_key_id(key_text), None)

    def is_authorized(self, key_text: str) -> bool:
        with self._lock:
            return _key_id(key_text) in self._authorized

    def find_signer(self, token: bytes, signature: bytes) -> bool:
        with self._lock:
            keys = list(self._authorized.values())
        return any(verify_token_signature(key, token, signature) for key in keys)

    def add_pending(self, key_text: str) -> None:
        with self._lock:
            self._pending[_key_id(key_text)] = key_text

    def take_pending(self) -> list[str]:
        with self._lock:
            pending = list(self._pending.values())
            self._pending.clear()
            return pending

    @property
    def pending(self) -> list[str]:
        with self._lock:
            return list(self._pending.values())

    @property
    def authorized(self) -> list[rsa.RSAPublicKey]:
        with self._lock:
            return list(self._authorized.values())
