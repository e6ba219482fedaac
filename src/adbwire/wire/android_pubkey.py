"""Android's RSA public-key format, as found in `adbkey.pub`, `adb_keys` and AUTH packets.

The binary form is a 524-byte struct of little-endian fields::

    u32   modulus_size_words   always 64 (a 2048-bit modulus)
    u32   n0inv                -1 / n mod 2**32 (a Montgomery constant)
    u8    modulus[256]         n, little-endian
    u8    rr[256]              (2**2048)**2 mod n, little-endian
    u32   exponent             usually 65537

The text form is that struct in standard base64, then a space and a comment that adb sets
to `user@host`. adbd only reads the modulus and exponent; the decoder here also checks the
two Montgomery constants so that a broken encoder anywhere is caught.
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import TYPE_CHECKING, Final

from adbwire.errors import KeyFileError, UsageError

if TYPE_CHECKING:  # the *_numbers functions need no cryptography (a CLI start, issue #20)
    from cryptography.hazmat.primitives.asymmetric import rsa

MODULUS_BYTES: Final = 256
MODULUS_WORDS: Final = MODULUS_BYTES // 4
ENCODED_SIZE: Final = 4 + 4 + MODULUS_BYTES + MODULUS_BYTES + 4
"""Size of the binary struct: 524 bytes."""

_HEAD = struct.Struct("<II")
_EXPONENT = struct.Struct("<I")
_WORD = 1 << 32
_R_SQUARED = 1 << (2 * MODULUS_BYTES * 8)


def _n0inv(modulus: int) -> int:
    return (-pow(modulus, -1, _WORD)) % _WORD


def pack_android_pubkey(public_key: rsa.RSAPublicKey) -> bytes:
    """The 524-byte binary struct for a 2048-bit RSA public key (else `UsageError`)."""
    numbers = public_key.public_numbers()
    return pack_android_numbers(numbers.n, numbers.e)


def pack_android_numbers(modulus: int, exponent: int) -> bytes:
    """`pack_android_pubkey` for a modulus and public exponent."""
    if (modulus.bit_length() + 7) // 8 != MODULUS_BYTES:
        raise UsageError(
            f"Android public keys hold 2048-bit RSA keys, not {modulus.bit_length()}-bit ones"
        )
    if not 0 < exponent < _WORD:
        raise UsageError(f"the RSA exponent {exponent} does not fit Android's 32-bit field")
    return b"".join(
        (
            _HEAD.pack(MODULUS_WORDS, _n0inv(modulus)),
            modulus.to_bytes(MODULUS_BYTES, "little"),
            (_R_SQUARED % modulus).to_bytes(MODULUS_BYTES, "little"),
            _EXPONENT.pack(exponent),
        )
    )


def unpack_android_pubkey(raw: bytes, *, source: object = "public key") -> rsa.RSAPublicKey:
    """Parse and check the 524-byte binary struct; errors name `source`."""
    from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: PLC0415 - see imports

    modulus, exponent = unpack_android_numbers(raw, source=source)
    return rsa.RSAPublicNumbers(exponent, modulus).public_key()


def unpack_android_numbers(raw: bytes, *, source: object = "public key") -> tuple[int, int]:
    """`unpack_android_pubkey` as (modulus, exponent)."""
    if len(raw) != ENCODED_SIZE:
        raise KeyFileError(
            source,
            f"an Android public key is {ENCODED_SIZE} bytes, this one is {len(raw)} "
            "(truncated or not an adb key)",
        )
    words, n0inv = _HEAD.unpack_from(raw, 0)
    if words != MODULUS_WORDS:
        raise KeyFileError(
            source,
            f"modulus size is {words} words, Android keys have {MODULUS_WORDS} (2048-bit RSA)",
        )
    offset = _HEAD.size
    modulus = int.from_bytes(raw[offset : offset + MODULUS_BYTES], "little")
    offset += MODULUS_BYTES
    rr = int.from_bytes(raw[offset : offset + MODULUS_BYTES], "little")
    offset += MODULUS_BYTES
    (exponent,) = _EXPONENT.unpack_from(raw, offset)

    if modulus.bit_length() <= (MODULUS_BYTES - 1) * 8 or modulus % 2 == 0:
        raise KeyFileError(source, "the modulus is not a 2048-bit odd number")
    if exponent < 3 or exponent % 2 == 0:
        raise KeyFileError(source, f"the exponent {exponent} is not a valid RSA exponent")
    if n0inv != _n0inv(modulus):
        raise KeyFileError(source, "the n0inv field does not match the modulus")
    if rr != _R_SQUARED % modulus:
        raise KeyFileError(source, "the rr field does not match the modulus")
    return modulus, exponent


def encode_android_pubkey(public_key: rsa.RSAPublicKey, comment: str | None = None) -> bytes:
    """The text form: base64 of the struct, then `" " + comment` when a comment is given.

    adb writes exactly this to `adbkey.pub` (no trailing newline) and sends it, plus a NUL,
    in AUTH RSAPUBLICKEY.
    """
    numbers = public_key.public_numbers()
    return encode_android_numbers(numbers.n, numbers.e, comment)


def encode_android_numbers(modulus: int, exponent: int, comment: str | None = None) -> bytes:
    """`encode_android_pubkey` for a modulus and public exponent."""
    text = base64.b64encode(pack_android_numbers(modulus, exponent))
    if comment is None:
        return text
    return text + b" " + comment.encode("utf-8")


def decode_android_pubkey(text: str | bytes, *, source: object = "public key") -> rsa.RSAPublicKey:
    """Parse the text form (`BASE64 [comment]`, trailing NUL or newline allowed).

    Raises `KeyFileError(source, problem)` for empty text, bad base64, a wrong length,
    a wrong word count or inconsistent fields.
    """
    from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: PLC0415 - see imports

    modulus, exponent = decode_android_numbers(text, source=source)
    return rsa.RSAPublicNumbers(exponent, modulus).public_key()


def decode_android_numbers(text: str | bytes, *, source: object = "public key") -> tuple[int, int]:
    """`decode_android_pubkey` as (modulus, exponent)."""
    data = text.encode("utf-8", "replace") if isinstance(text, str) else bytes(text)
    fields = data.rstrip(b"\0").split(None, 1)
    if not fields:
        raise KeyFileError(source, "is empty, expected an Android public key")
    try:
        raw = base64.b64decode(fields[0], validate=True)
    except (binascii.Error, ValueError) as error:
        raise KeyFileError(source, f"the public key is not valid base64 ({error})") from None
    return unpack_android_numbers(raw, source=source)
