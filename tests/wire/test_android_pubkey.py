"""adbwire.wire.android_pubkey: the 524-byte RSAPublicKey struct and its text form."""

from __future__ import annotations

import base64
import struct
from collections.abc import Callable

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from adbwire.errors import KeyFileError
from adbwire.wire.android_pubkey import (
    ENCODED_SIZE,
    decode_android_pubkey,
    encode_android_pubkey,
    pack_android_pubkey,
    unpack_android_pubkey,
)


@pytest.fixture(scope="module")
def spare() -> list[rsa.RSAPrivateKey]:
    return [rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(2)]


def test_encode_decode_round_trip(spare: list[rsa.RSAPrivateKey]) -> None:
    for private_key in spare:
        public_key = private_key.public_key()
        raw = pack_android_pubkey(public_key)
        assert len(raw) == ENCODED_SIZE == 524
        assert unpack_android_pubkey(raw) == public_key
        text = encode_android_pubkey(public_key, "me@here")
        assert text == base64.b64encode(raw) + b" me@here"
        for form in (text, text + b"\0", text + b"\n", text.decode(), base64.b64encode(raw)):
            assert decode_android_pubkey(form) == public_key


def test_small_exponent_round_trips(spare: list[rsa.RSAPrivateKey]) -> None:
    public_key = rsa.RSAPublicNumbers(3, spare[0].public_key().public_numbers().n).public_key()
    assert decode_android_pubkey(encode_android_pubkey(public_key)) == public_key


def _corrupt(raw: bytes, offset: int, value: bytes) -> bytes:
    return raw[:offset] + value + raw[offset + len(value) :]


def _flip(raw: bytes, offset: int) -> bytes:
    return _corrupt(raw, offset, bytes([raw[offset] ^ 1]))


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (lambda raw: b"", "is empty"),
        (lambda raw: b"  \0", "is empty"),
        (lambda raw: b"not*base64 me@here", "not valid base64"),
        (lambda raw: base64.b64encode(raw)[:-3] + b" me@x", "not valid base64"),
        (lambda raw: base64.b64encode(raw[:-4]), "is 520"),
        (lambda raw: base64.b64encode(raw + b"\0\0\0\0"), "is 528"),
        (lambda raw: base64.b64encode(_corrupt(raw, 0, struct.pack("<I", 32))), "32 words"),
        (lambda raw: base64.b64encode(_flip(raw, 4)), "n0inv"),
        (lambda raw: base64.b64encode(_flip(raw, 264)), "rr field"),
        (lambda raw: base64.b64encode(_corrupt(raw, 520, struct.pack("<I", 4))), "exponent 4"),
        (lambda raw: base64.b64encode(_corrupt(raw, 263, b"\0")), "not a 2048-bit"),
    ],
)
def test_decode_names_the_source_and_the_problem(
    spare: list[rsa.RSAPrivateKey], mutate: Callable[[bytes], bytes], problem: str
) -> None:
    text = mutate(pack_android_pubkey(spare[0].public_key()))
    with pytest.raises(KeyFileError, match=problem) as caught:
        decode_android_pubkey(text, source="/some/adb_keys")
    assert str(caught.value).startswith("/some/adb_keys: ")


def test_pack_refuses_keys_android_cannot_hold() -> None:
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key()
    with pytest.raises(ValueError, match="1024-bit"):
        pack_android_pubkey(small)
    n = (1 << 2047) | 1
    with pytest.raises(ValueError, match="32-bit"):
        pack_android_pubkey(rsa.RSAPublicNumbers((1 << 33) + 1, n).public_key())
