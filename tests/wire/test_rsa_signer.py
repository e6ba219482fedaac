"""adbwire.wire.rsa_signer: the adb key read and AUTH tokens signed without OpenSSL, checked
byte for byte against cryptography (OpenSSL), which is the oracle here."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils
from hypothesis import given, settings
from hypothesis import strategies as st

from adbwire.wire import keys as adb_keys
from adbwire.wire import rsa_signer
from adbwire.wire.rsa_signer import RsaPrivateNumbers, read_pem_private_key, sign_token

PKCS8 = serialization.PrivateFormat.PKCS8
PKCS1 = serialization.PrivateFormat.TraditionalOpenSSL


@pytest.fixture(scope="module")
def keys() -> list[rsa.RSAPrivateKey]:
    return [rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(3)]


def pem(key: rsa.RSAPrivateKey, fmt: serialization.PrivateFormat = PKCS8) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption())


def openssl_signature(key: rsa.RSAPrivateKey, token: bytes) -> bytes:
    return key.sign(token, padding.PKCS1v15(), utils.Prehashed(hashes.SHA1()))


def numbers_of(key: rsa.RSAPrivateKey) -> RsaPrivateNumbers:
    private = key.private_numbers()
    public = private.public_numbers
    return RsaPrivateNumbers(
        public.n,
        public.e,
        private.d,
        private.p,
        private.q,
        private.dmp1,
        private.dmq1,
        private.iqmp,
    )


@pytest.mark.parametrize("fmt", [PKCS8, PKCS1], ids=["pkcs8", "pkcs1"])
def test_both_pem_forms_give_the_keys_numbers(
    keys: list[rsa.RSAPrivateKey], fmt: serialization.PrivateFormat
) -> None:
    for key in keys:
        assert read_pem_private_key(pem(key, fmt)) == numbers_of(key)


def test_signatures_are_openssls_byte_for_byte(keys: list[rsa.RSAPrivateKey]) -> None:
    tokens = [bytes(20), b"\xff" * 20, bytes(range(20))] + [os.urandom(20) for _ in range(20)]
    for key in keys:
        numbers = read_pem_private_key(pem(key))
        assert numbers is not None
        for token in tokens:
            assert sign_token(numbers, token) == openssl_signature(key, token)


@settings(max_examples=40, deadline=None)
@given(token=st.binary(min_size=20, max_size=20))
def test_any_token_signs_as_openssl_does(token: bytes) -> None:
    assert sign_token(_ONE_NUMBERS, token) == openssl_signature(_ONE_KEY, token)


_ONE_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
_ONE_NUMBERS = numbers_of(_ONE_KEY)


def test_a_signature_that_does_not_verify_is_never_returned(
    keys: list[rsa.RSAPrivateKey],
) -> None:
    good = numbers_of(keys[0])
    faulty = good._replace(dp=good.dp ^ 2)  # a bit flipped in memory or in the file
    with pytest.raises(rsa_signer.SignatureFault):
        sign_token(faulty, bytes(20))


def test_each_signature_is_blinded_with_fresh_randomness(
    keys: list[rsa.RSAPrivateKey], monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[int] = []
    real_urandom = os.urandom

    def counting_urandom(size: int) -> bytes:
        drawn.append(size)
        return real_urandom(size)

    monkeypatch.setattr(os, "urandom", counting_urandom)
    numbers = numbers_of(keys[0])
    assert sign_token(numbers, bytes(20)) == sign_token(numbers, bytes(20))
    assert drawn == [256, 256]


def test_inconsistent_numbers_are_refused(keys: list[rsa.RSAPrivateKey]) -> None:
    good = numbers_of(keys[0])
    other = numbers_of(keys[1])
    assert rsa_signer.is_consistent(good)
    for broken in (
        good._replace(n=good.n + 2),
        good._replace(p=other.p),
        good._replace(dp=good.dp + 1),
        good._replace(dq=good.dq - 1),
        good._replace(qinv=(good.qinv + 1) % good.p),
        good._replace(e=good.e + 2),
        good._replace(d=good.d + 2),
        good._replace(p=good.q),
    ):
        assert not rsa_signer.is_consistent(broken), broken


def _der_length(length: int) -> bytes:
    if length < 0x80:
        return bytes([length])
    raw = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def _der(tag: int, body: bytes) -> bytes:
    return bytes([tag]) + _der_length(len(body)) + body


def _integer(value: int) -> bytes:
    return _der(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))


def _pkcs1_der(numbers: RsaPrivateNumbers, version: int = 0) -> bytes:
    return _der(0x30, _integer(version) + b"".join(_integer(v) for v in numbers))


def _wrap(der: bytes, label: bytes = b"RSA PRIVATE KEY") -> bytes:
    body = base64.encodebytes(der)
    return b"-----BEGIN " + label + b"-----\n" + body + b"-----END " + label + b"-----\n"


def test_the_der_written_here_is_what_openssl_writes(keys: list[rsa.RSAPrivateKey]) -> None:
    """So the malformed variants below differ from a real key only where they say."""
    key = keys[0]
    der = key.private_bytes(serialization.Encoding.DER, PKCS1, serialization.NoEncryption())
    assert _pkcs1_der(numbers_of(key)) == der
    assert read_pem_private_key(_wrap(_pkcs1_der(numbers_of(key)))) == numbers_of(key)


def test_anything_else_is_left_to_cryptography(keys: list[rsa.RSAPrivateKey]) -> None:
    key = keys[0]
    numbers = numbers_of(key)
    der = _pkcs1_der(numbers)
    encrypted = key.private_bytes(
        serialization.Encoding.PEM, PKCS1, serialization.BestAvailableEncryption(b"secret")
    )
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    for data in (
        b"",
        b"not a key",
        encrypted,  # Proc-Type/DEK-Info headers
        key.private_bytes(
            serialization.Encoding.PEM, PKCS8, serialization.BestAvailableEncryption(b"x")
        ),
        pem(small),
        pem(small, PKCS1),
        _wrap(der, b"EC PRIVATE KEY"),
        _wrap(der + b"\x00"),  # trailing bytes
        _wrap(der[:-1]),  # truncated
        _wrap(_pkcs1_der(numbers, version=1)),  # multi-prime
        _wrap(_pkcs1_der(numbers._replace(dp=numbers.dp + 1))),  # inconsistent
        _wrap(b"\x30\x83\x00" + der[2:]),  # a length not in its shortest form
        _wrap(der[:4] + b"\x02\x02\x00\x00" + der[7:]),  # version 0 not in its shortest form
        pem(key).replace(b"MII", b"MI!", 1),  # not base64
    ):
        assert read_pem_private_key(data) is None, data[:60]


def test_a_negative_integer_is_refused(keys: list[rsa.RSAPrivateKey]) -> None:
    """n without its leading zero byte reads as negative in DER, never as n."""
    numbers = numbers_of(keys[0])
    negative_n = _der(0x02, numbers.n.to_bytes(256, "big"))
    assert numbers.n.bit_length() == 2048  # so its first byte has the sign bit set
    fields = negative_n + b"".join(_integer(v) for v in numbers[1:])
    assert read_pem_private_key(_wrap(_der(0x30, _integer(0) + fields))) is None


def test_a_command_signs_without_openssl_a_farm_loads_it_once(tmp_path: Path) -> None:
    path = tmp_path / "adbkey"
    path.write_bytes(pem(_ONE_KEY))
    program = (
        "import sys\n"
        "from adbwire.wire.keys import load_key\n"
        f"key = load_key({str(path)!r})\n"
        "key.sign(bytes(20))\n"
        "print('cryptography' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["False"]

    key = adb_keys.load_key(path)
    tokens = [os.urandom(20) for _ in range(adb_keys.PURE_PYTHON_SIGNATURES + 3)]
    signatures = [key.sign(token) for token in tokens]
    assert signatures == [openssl_signature(_ONE_KEY, token) for token in tokens]
    assert key._private_key is not None  # loaded once the pure-Python budget was spent
    assert key._pure_signatures == adb_keys.PURE_PYTHON_SIGNATURES
