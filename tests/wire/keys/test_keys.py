"""adbwire.wire.keys: keys generated in adb's formats, tokens signed and checked as adbd
does, key files adb cannot use refused by name, a stale adbkey.pub only warned about."""

from __future__ import annotations

import base64
import logging
import struct
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from adbwire.errors import KeyFileError, RemoteProtocolError
from adbwire.wire.keys import (
    encode_android_pubkey,
    generate_key,
    load_key,
    load_keys,
    verify_signature,
)

from .key_files_helpers import mode, same_key, write_pem

# DER DigestInfo header for SHA-1 (RFC 8017 section 9.2, note 1): what RSA_sign(NID_sha1) adds.
SHA1_DIGEST_INFO = bytes.fromhex("3021300906052b0e03021a05000414")
TOKEN = bytes(range(20))


def test_generated_files_have_adbs_formats_and_modes(tmp_path: Path) -> None:
    key = generate_key(tmp_path / "keys" / "adbkey")
    pem = (tmp_path / "keys" / "adbkey").read_bytes()
    public_text = (tmp_path / "keys" / "adbkey.pub").read_bytes()

    assert mode(tmp_path / "keys" / "adbkey") == 0o600
    assert mode(tmp_path / "keys" / "adbkey.pub") == 0o644
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----\n")  # PKCS#8, as adb writes
    assert pem.endswith(b"-----END PRIVATE KEY-----\n")
    assert key.private_key.key_size == 2048
    assert key.public_key.public_numbers().e == 65537

    encoded, comment = public_text.split(b" ")
    assert comment == b"alice@box"  # from LOGNAME and HOSTNAME, no trailing newline
    raw = base64.b64decode(encoded, validate=True)
    assert len(raw) == 524
    n = key.public_key.public_numbers().n
    words, n0inv = struct.unpack_from("<II", raw)
    assert words == 64
    assert (n0inv * n) % 2**32 == 2**32 - 1
    assert int.from_bytes(raw[8:264], "little") == n
    assert int.from_bytes(raw[264:520], "little") == pow(2, 4096, n)
    assert struct.unpack_from("<I", raw, 520) == (65537,)
    assert same_key(load_key(tmp_path / "keys" / "adbkey"), key.private_key)


def test_comment_can_be_chosen(tmp_path: Path) -> None:
    generate_key(tmp_path / "k", comment="ci@farm")
    assert (tmp_path / "k.pub").read_bytes().endswith(b"= ci@farm")


def test_signature_is_pkcs1_v15_over_the_token_as_sha1_digest(
    tmp_path: Path, spare: list[rsa.RSAPrivateKey]
) -> None:
    key = load_key(write_pem(tmp_path / "k", spare[0]))
    signature = key.sign(TOKEN)
    numbers = key.public_key.public_numbers()
    block = pow(int.from_bytes(signature, "big"), numbers.e, numbers.n).to_bytes(256, "big")
    suffix = b"\0" + SHA1_DIGEST_INFO + TOKEN
    assert block == b"\0\x01" + b"\xff" * (256 - 2 - len(suffix)) + suffix


def test_verify_signature_is_adbds_check(tmp_path: Path, spare: list[rsa.RSAPrivateKey]) -> None:
    key = load_key(write_pem(tmp_path / "k", spare[0]))
    other = load_key(write_pem(tmp_path / "other", spare[1]))
    offered = key.public_key_bytes()
    signature = key.sign(TOKEN)
    assert verify_signature(offered, TOKEN, signature)
    assert not verify_signature(offered, bytes(20), signature)
    assert not verify_signature(offered, TOKEN, other.sign(TOKEN))
    assert not verify_signature(offered, TOKEN, signature[:-1] + bytes([signature[-1] ^ 1]))
    assert not verify_signature(offered, TOKEN + b"x", signature)
    with pytest.raises(KeyFileError):
        verify_signature(b"garbage", TOKEN, signature)


def test_sign_refuses_a_token_that_is_not_20_bytes(
    tmp_path: Path, spare: list[rsa.RSAPrivateKey]
) -> None:
    key = load_key(write_pem(tmp_path / "k", spare[0]))
    with pytest.raises(RemoteProtocolError, match="21-byte"):
        key.sign(bytes(21))


def test_public_key_bytes_is_what_adb_sends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spare: list[rsa.RSAPrivateKey]
) -> None:
    key = load_key(write_pem(tmp_path / "k", spare[0]))
    assert key.public_key_bytes() == encode_android_pubkey(key.public_key, "alice@box") + b"\0"
    monkeypatch.setenv("LOGNAME", "bob")  # adb derives it anew each time, never from .pub
    monkeypatch.setenv("USERNAME", "bob")
    assert key.public_key_bytes().endswith(b" bob@box\0")


def test_pkcs1_keys_load_too(tmp_path: Path, spare: list[rsa.RSAPrivateKey]) -> None:
    path = write_pem(tmp_path / "old", spare[0], serialization.PrivateFormat.TraditionalOpenSSL)
    assert path.read_bytes().startswith(b"-----BEGIN RSA PRIVATE KEY-----")
    assert same_key(load_key(path), spare[0])


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "is empty"),
        (b"hello\n", "not a PEM private key"),
        (b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "not a valid PEM"),
        (b"x" * 70_000, "too large"),
    ],
)
def test_malformed_key_files_are_named(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "adbkey"
    path.write_bytes(content)
    with pytest.raises(KeyFileError, match=problem) as caught:
        load_key(path)
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: ")


def test_keys_adb_cannot_use_are_refused(tmp_path: Path, spare: list[rsa.RSAPrivateKey]) -> None:
    secret = serialization.BestAvailableEncryption(b"pw")
    encrypted = write_pem(tmp_path / "enc", spare[0], encryption=secret)
    with pytest.raises(KeyFileError, match="passphrase"):
        load_key(encrypted)
    with pytest.raises(KeyFileError, match="not an RSA key"):
        load_key(write_pem(tmp_path / "ec", ec.generate_private_key(ec.SECP256R1())))
    with pytest.raises(KeyFileError, match="1024-bit"):
        load_key(write_pem(tmp_path / "small", rsa.generate_private_key(65537, 1024)))


def test_a_bad_or_stale_pub_file_only_warns(
    home: Path, spare: list[rsa.RSAPrivateKey], caplog: pytest.LogCaptureFixture
) -> None:
    user = write_pem(home / ".android" / "adbkey", spare[0])
    pub = home / ".android" / "adbkey.pub"
    good = encode_android_pubkey(spare[0].public_key(), "alice@box")

    pub.write_bytes(good[:600])  # truncated
    with caplog.at_level(logging.WARNING, logger="adbwire.wire.keys"):
        assert [key.path for key in load_keys()] == [user]
    assert f"{pub}: an Android public key is 524 bytes, this one is 450" in caplog.text

    caplog.clear()
    pub.write_bytes(encode_android_pubkey(spare[1].public_key(), "alice@box"))  # another key
    with caplog.at_level(logging.WARNING, logger="adbwire.wire.keys"):
        assert same_key(load_keys()[0], spare[0])
    assert f"{pub} does not match {user}" in caplog.text

    caplog.clear()
    pub.write_bytes(good)
    with caplog.at_level(logging.WARNING, logger="adbwire.wire.keys"):
        load_keys()
    assert caplog.text == ""
