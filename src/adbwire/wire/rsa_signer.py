"""The adb key's RSA numbers read from its PEM file, and AUTH tokens signed with them, in
pure Python (no OpenSSL on the path of every `adbwire -s S shell`, issue #20).

Importing `cryptography` and loading the key through it costs ~80 ms per process (the
import, then OpenSSL's key check, whose primality tests are most of it); reading the numbers
here and signing with Python's `pow` costs a few ms. This reader knows only the two forms
adb writes and reads, unencrypted PKCS#8 (`BEGIN PRIVATE KEY`) and PKCS#1 (`BEGIN RSA
PRIVATE KEY`) with 2048-bit two-prime keys; it answers None for anything else, and keys.py
then loads the file through cryptography, whose errors name what is wrong.

What is checked before a key is used: the DER is strict (lengths within their container,
no trailing bytes, positive integers), n = p·q with n of 2048 bits, e odd, and dp, dq, qinv
consistent with d, p and q (so e·d ≡ 1 mod p-1 and q-1). p and q are not tested for
primality on every start as OpenSSL does; instead every signature is checked with the
public exponent before it leaves (a wrong signature, from a damaged key or a fault, is
never sent). Signing blinds the message with a fresh random factor, so the time `pow` takes
does not depend on the token a device chose.
"""

from __future__ import annotations

import base64
import binascii
import os
from typing import Final, NamedTuple

KEY_BITS: Final = 2048
SIGNATURE_BYTES: Final = KEY_BITS // 8
SHA1_DIGEST_INFO: Final = bytes.fromhex("3021300906052b0e03021a05000414")
"""DER DigestInfo for SHA-1 (RFC 8017 9.2): what adbd's RSA_verify(NID_sha1) expects."""
_RSA_ENCRYPTION_OID: Final = bytes.fromhex("2a864886f70d010101")  # 1.2.840.113549.1.1.1
_SEQUENCE, _INTEGER, _OCTET_STRING, _NULL, _OID = 0x30, 0x02, 0x04, 0x05, 0x06
_PEM_LABELS: Final = {b"PRIVATE KEY": "pkcs8", b"RSA PRIVATE KEY": "pkcs1"}


class RsaPrivateNumbers(NamedTuple):
    """A two-prime RSA private key (PKCS#1's RSAPrivateKey fields)."""

    n: int
    e: int
    d: int
    p: int
    q: int
    dp: int
    dq: int
    qinv: int


class _Malformed(Exception):
    """Not a key this reader takes (keys.py then asks cryptography, which says why)."""


def read_pem_private_key(data: bytes) -> RsaPrivateNumbers | None:
    """The numbers of an unencrypted 2048-bit RSA key in adb's PEM forms, checked for
    consistency; None when `data` is anything else or fails a check."""
    try:
        label, der = _pem_body(data)
        numbers = _pkcs1(_pkcs8_inner(der)) if label == "pkcs8" else _pkcs1(der)
    except _Malformed:
        return None
    return numbers if is_consistent(numbers) else None


def is_consistent(k: RsaPrivateNumbers) -> bool:
    """The checks a damaged or hand-made key fails (see the module's docstring)."""
    return (
        k.n.bit_length() == KEY_BITS
        and k.p > 1
        and k.q > 1
        and k.p != k.q
        and k.p * k.q == k.n
        and 1 < k.e < k.n
        and k.e % 2 == 1
        and 0 < k.d < k.n
        and k.dp == k.d % (k.p - 1)
        and k.dq == k.d % (k.q - 1)
        and (k.e * k.dp) % (k.p - 1) == 1
        and (k.e * k.dq) % (k.q - 1) == 1
        and 0 < k.qinv < k.p
        and (k.q * k.qinv) % k.p == 1
    )


def token_message(token: bytes) -> int:
    """EMSA-PKCS1-v1_5 of `token` taken as a SHA-1 digest, as an integer."""
    digest_info = SHA1_DIGEST_INFO + token
    padding = b"\xff" * (SIGNATURE_BYTES - 3 - len(digest_info))
    return int.from_bytes(b"\x00\x01" + padding + b"\x00" + digest_info, "big")


class SignatureFault(Exception):
    """The signature did not verify with the public key (a key that only looks sound)."""


def sign_token(key: RsaPrivateNumbers, token: bytes) -> bytes:
    """The PKCS#1 v1.5 signature of `token` as a SHA-1 digest (what adb's RSA_sign gives),
    through the CRT with blinding, verified before it is returned."""
    message = token_message(token)
    blind, unblind = _random_unit(key.n)
    blinded = (message * pow(blind, key.e, key.n)) % key.n
    s_p = pow(blinded % key.p, key.dp, key.p)
    s_q = pow(blinded % key.q, key.dq, key.q)
    combined = s_q + key.q * ((key.qinv * (s_p - s_q)) % key.p)
    signature = (combined * unblind) % key.n
    if pow(signature, key.e, key.n) != message:
        raise SignatureFault("the RSA signature does not verify with the key's public part")
    return signature.to_bytes(SIGNATURE_BYTES, "big")


def _random_unit(n: int) -> tuple[int, int]:
    """A random r invertible modulo n, and its inverse."""
    while True:
        candidate = int.from_bytes(os.urandom(SIGNATURE_BYTES), "big") % n
        if candidate > 1:
            try:
                return candidate, pow(candidate, -1, n)
            except ValueError:  # shares a factor with n: astronomically unlikely
                continue


def _pem_body(data: bytes) -> tuple[str, bytes]:
    lines = data.strip().splitlines()
    if len(lines) < 3:
        raise _Malformed
    first, last = lines[0].strip(), lines[-1].strip()
    for label, kind in _PEM_LABELS.items():
        if first == b"-----BEGIN " + label + b"-----" and last == b"-----END " + label + b"-----":
            body = b"".join(line.strip() for line in lines[1:-1])
            try:  # RFC 1421 headers (Proc-Type: 4,ENCRYPTED) are no base64: not ours
                return kind, base64.b64decode(body, validate=True)
            except (binascii.Error, ValueError):
                raise _Malformed from None
    raise _Malformed


class _Der:
    """A strict reader over one DER value's contents."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offset = 0

    def at_end(self) -> bool:
        return self.offset == len(self.data)

    def element(self, tag: int) -> bytes:
        data, offset = self.data, self.offset
        if offset + 2 > len(data) or data[offset] != tag:
            raise _Malformed
        length = data[offset + 1]
        offset += 2
        if length & 0x80:
            count = length & 0x7F
            if not 1 <= count <= 3 or offset + count > len(data):
                raise _Malformed
            length = int.from_bytes(data[offset : offset + count], "big")
            if length < 0x80 or data[offset] == 0:  # DER: the shortest form only
                raise _Malformed
            offset += count
        end = offset + length
        if end > len(data):
            raise _Malformed
        self.offset = end
        return data[offset:end]

    def integer(self) -> int:
        raw = self.element(_INTEGER)
        if not raw or raw[0] & 0x80 or (len(raw) > 1 and raw[0] == 0 and not raw[1] & 0x80):
            raise _Malformed  # empty, negative or not the shortest form
        return int.from_bytes(raw, "big")


def _pkcs8_inner(der: bytes) -> bytes:
    outer = _Der(der)
    info = _Der(outer.element(_SEQUENCE))
    if not outer.at_end() or info.integer() not in (0, 1):
        raise _Malformed
    algorithm = _Der(info.element(_SEQUENCE))
    if algorithm.element(_OID) != _RSA_ENCRYPTION_OID:
        raise _Malformed
    if not algorithm.at_end() and algorithm.element(_NULL) != b"":
        raise _Malformed
    if not algorithm.at_end():
        raise _Malformed
    return info.element(_OCTET_STRING)  # attributes and a public key may follow


def _pkcs1(der: bytes) -> RsaPrivateNumbers:
    outer = _Der(der)
    fields = _Der(outer.element(_SEQUENCE))
    if not outer.at_end() or fields.integer() != 0:  # version 1 is multi-prime
        raise _Malformed
    numbers = RsaPrivateNumbers(*(fields.integer() for _ in range(8)))
    if not fields.at_end():
        raise _Malformed
    return numbers
