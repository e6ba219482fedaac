"""The pairing cipher: HKDF-SHA256 of the SPAKE2 key → AES-128-GCM with counter nonces.

As AOSP's pairing_auth/aes_128_gcm.cpp: the 16-byte AES key is HKDF(SHA-256, no salt,
info "adb pairing_auth aes-128-gcm key") of the 64-byte SPAKE2 key; each direction counts
its messages from 0, and the 12-byte nonce is that counter as a 64-bit integer in the first
8 bytes (little-endian: memcpy of a uint64_t on Android's little-endian CPUs), then zeros.
The 16-byte tag follows the ciphertext; there is no associated data. A counter moves only
when its operation succeeds.
"""

from __future__ import annotations

import struct
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

__all__ = ["HKDF_INFO", "TAG_SIZE", "DecryptionFailed", "PairingCipher"]

HKDF_INFO: Final = b"adb pairing_auth aes-128-gcm key"
KEY_SIZE: Final = 16
TAG_SIZE: Final = 16
NONCE_SIZE: Final = 12


class DecryptionFailed(Exception):
    """The tag did not verify: the peer derived another key (another password)."""


def _nonce(counter: int) -> bytes:
    return struct.pack("<Q", counter) + bytes(NONCE_SIZE - 8)


class PairingCipher:
    def __init__(self, key_material: bytes) -> None:
        if not key_material:
            raise ValueError("the pairing cipher needs key material")
        key = HKDF(algorithm=hashes.SHA256(), length=KEY_SIZE, salt=None, info=HKDF_INFO).derive(
            key_material
        )
        self._aead = AESGCM(key)
        self._encrypt_counter = 0
        self._decrypt_counter = 0

    def encrypt(self, plaintext: bytes) -> bytes:
        sealed = self._aead.encrypt(_nonce(self._encrypt_counter), plaintext, None)
        self._encrypt_counter += 1
        return sealed

    def decrypt(self, sealed: bytes) -> bytes:
        try:
            plaintext = self._aead.decrypt(_nonce(self._decrypt_counter), sealed, None)
        except InvalidTag:
            raise DecryptionFailed from None
        self._decrypt_counter += 1
        return plaintext
