"""The pairing cipher: AOSP's HKDF parameters, AES-128-GCM, and the nonce counters."""

from __future__ import annotations

import struct

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from adbwire.wire.pairing.cipher import DecryptionFailed, PairingCipher

KEY_MATERIAL = bytes(range(64))


def reference_aead() -> AESGCM:
    """AES-128-GCM keyed as aes_128_gcm.cpp keys it, built here from its parameters."""
    key = HKDF(
        algorithm=hashes.SHA256(), length=16, salt=None, info=b"adb pairing_auth aes-128-gcm key"
    ).derive(KEY_MATERIAL)
    return AESGCM(key)


def nonce(counter: int) -> bytes:
    return struct.pack("<Q", counter) + bytes(4)


def test_each_message_uses_the_next_counter_as_nonce() -> None:
    cipher = PairingCipher(KEY_MATERIAL)
    aead = reference_aead()
    first = cipher.encrypt(b"peer info")
    second = cipher.encrypt(b"peer info")
    assert len(first) == len(b"peer info") + 16
    assert aead.decrypt(nonce(0), first, None) == b"peer info"
    assert aead.decrypt(nonce(1), second, None) == b"peer info"


def test_decryption_counts_independently_and_only_on_success() -> None:
    aead = reference_aead()
    cipher = PairingCipher(KEY_MATERIAL)
    cipher.encrypt(b"moves only the sending counter")
    with pytest.raises(DecryptionFailed):
        cipher.decrypt(b"\0" * 40)
    assert cipher.decrypt(aead.encrypt(nonce(0), b"one", None)) == b"one"
    assert cipher.decrypt(aead.encrypt(nonce(1), b"two", None)) == b"two"


def test_another_key_cannot_open_it() -> None:
    sealed = PairingCipher(KEY_MATERIAL).encrypt(b"secret")
    with pytest.raises(DecryptionFailed):
        PairingCipher(bytes(64)).decrypt(sealed)
    assert PairingCipher(KEY_MATERIAL).decrypt(sealed) == b"secret"
