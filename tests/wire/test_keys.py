"""adbwire.wire.keys: where keys live, how they are generated, signed with and checked.

Every test runs with HOME and the Android variables pointed into tmp_path (autouse fixture),
so the machine's real ~/.android is never read or written.
"""

from __future__ import annotations

import base64
import logging
import os
import stat
import struct
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from adbwire.errors import KeyFileError, RemoteProtocolError
from adbwire.wire import keys
from adbwire.wire.keys import (
    AdbKey,
    android_dir,
    decode_android_pubkey,
    default_key_path,
    encode_android_pubkey,
    generate_key,
    load_key,
    load_keys,
    verify_signature,
)

# DER DigestInfo header for SHA-1 (RFC 8017 section 9.2, note 1): what RSA_sign(NID_sha1) adds.
SHA1_DIGEST_INFO = bytes.fromhex("3021300906052b0e03021a05000414")
TOKEN = bytes(range(20))


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in ("ANDROID_USER_HOME", "ANDROID_SDK_HOME", "ADB_VENDOR_KEYS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in (("LOGNAME", "alice"), ("USERNAME", "alice")):
        monkeypatch.setenv(name, value)
    for name in ("HOSTNAME", "COMPUTERNAME"):
        monkeypatch.setenv(name, "box")
    assert Path.home() == home
    return home


@pytest.fixture(scope="module")
def spare() -> list[rsa.RSAPrivateKey]:
    """Pre-made 2048-bit keys, so that most tests do not pay for key generation."""
    return [rsa.generate_private_key(public_exponent=65537, key_size=2048) for _ in range(3)]


def write_pem(
    path: Path,
    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey,
    fmt: serialization.PrivateFormat = serialization.PrivateFormat.PKCS8,
    encryption: serialization.KeySerializationEncryption | None = None,
) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    encryption = encryption or serialization.NoEncryption()
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, fmt, encryption))
    return path


def same_key(a: AdbKey, b: rsa.RSAPrivateKey) -> bool:
    return a.public_key.public_numbers() == b.public_key().public_numbers()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ------------------------------------------------------------------ where keys are


def test_android_dir_is_home_dot_android_whatever_the_sdk_variables_say(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Google's adb ignores these two (checked against /usr/bin/adb in tests/interop).
    monkeypatch.setenv("ANDROID_USER_HOME", str(tmp_path / "user-home"))
    monkeypatch.setenv("ANDROID_SDK_HOME", str(tmp_path / "sdk-home"))
    assert android_dir() == home / ".android"
    assert default_key_path() == home / ".android" / "adbkey"


def test_missing_user_key_is_generated_under_home_only(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANDROID_USER_HOME", str(tmp_path / "user-home"))
    monkeypatch.setenv("ANDROID_SDK_HOME", str(tmp_path / "sdk-home"))
    loaded = load_keys()
    assert [key.path for key in loaded] == [home / ".android" / "adbkey"]
    assert mode(home / ".android") == 0o750
    assert mode(home / ".android" / "adbkey") == 0o600
    assert (home / ".android" / "adbkey.pub").is_file()
    assert not (tmp_path / "user-home").exists()
    assert not (tmp_path / "sdk-home").exists()
    assert same_key(load_keys()[0], loaded[0].private_key)  # second run reuses it


def test_no_key_is_created_when_told_not_to(home: Path) -> None:
    assert load_keys(create=False) == []
    assert not (home / ".android").exists()


def test_sdk_home_keys_are_tried_after_the_user_key(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spare: list[rsa.RSAPrivateKey]
) -> None:
    user = write_pem(home / ".android" / "adbkey", spare[0])
    user_home_key = write_pem(tmp_path / "user-home" / "adbkey", spare[1])
    sdk_key = write_pem(tmp_path / "sdk" / ".android" / "adbkey", spare[2])
    monkeypatch.setenv("ANDROID_USER_HOME", str(tmp_path / "user-home"))
    monkeypatch.setenv("ANDROID_SDK_HOME", str(tmp_path / "sdk"))
    assert [key.path for key in load_keys()] == [user, user_home_key, sdk_key]


def test_vendor_keys_follow_adb_rules(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spare: list[rsa.RSAPrivateKey],
    caplog: pytest.LogCaptureFixture,
) -> None:
    user = write_pem(home / ".android" / "adbkey", spare[0])
    vendor_dir = tmp_path / "vendor" / "a-dir"
    b_key = write_pem(vendor_dir / "b.adb_key", spare[1])
    a_key = write_pem(vendor_dir / "a.adb_key", spare[2])
    write_pem(vendor_dir / "readme.pem", rsa.generate_private_key(65537, 1024))  # wrong suffix
    (vendor_dir / "nested.adb_key").mkdir()  # directories are not recursed into
    file_key = write_pem(tmp_path / "vendor" / "b-file.pem", spare[1])  # a file: any name
    missing = tmp_path / "vendor" / "c-missing"
    entries = ["", str(missing), str(file_key), str(vendor_dir), str(vendor_dir), ""]
    monkeypatch.setenv("ADB_VENDOR_KEYS", os.pathsep.join(entries))

    with caplog.at_level(logging.WARNING, logger="adbwire.wire.keys"):
        loaded = load_keys()

    # The file holds the same key as b.adb_key, so it is tried once, under its first path.
    assert [key.path for key in loaded] == [user, a_key, b_key]
    assert keys.vendor_key_paths() == [a_key, b_key, file_key]
    assert str(missing) in caplog.text


def test_extra_paths_come_last_and_must_exist(
    home: Path, tmp_path: Path, spare: list[rsa.RSAPrivateKey]
) -> None:
    user = write_pem(home / ".android" / "adbkey", spare[0])
    extra = write_pem(tmp_path / "extra.pem", spare[1])
    assert [key.path for key in load_keys([extra])] == [user, extra]
    with pytest.raises(KeyFileError, match="does not exist") as caught:
        load_keys([tmp_path / "nope.pem"])
    assert caught.value.path == tmp_path / "nope.pem"


# ------------------------------------------------------------------ generation


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


def test_private_key_is_0600_and_complete_before_it_gets_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[int, bytes]] = []
    real_link = os.link

    def spying_link(src: str, dst: str | os.PathLike[str]) -> None:
        seen.append((mode(Path(src)), Path(src).read_bytes()))
        real_link(src, dst)

    monkeypatch.setattr(os, "link", spying_link)
    generate_key(tmp_path / "keys" / "adbkey")
    assert seen == [(0o600, (tmp_path / "keys" / "adbkey").read_bytes())]
    assert sorted(os.listdir(tmp_path / "keys")) == ["adbkey", "adbkey.pub"]  # no temp files


def test_existing_key_is_never_overwritten_without_force(tmp_path: Path) -> None:
    tmp_path = tmp_path / "keys"
    first = generate_key(tmp_path / "adbkey")
    before = (tmp_path / "adbkey").read_bytes()
    with pytest.raises(KeyFileError, match="already exists") as caught:
        generate_key(tmp_path / "adbkey")
    assert caught.value.path == tmp_path / "adbkey"
    assert (tmp_path / "adbkey").read_bytes() == before

    second = generate_key(tmp_path / "adbkey", force=True)
    assert not same_key(second, first.private_key)
    assert same_key(load_key(tmp_path / "adbkey"), second.private_key)
    assert decode_android_pubkey((tmp_path / "adbkey.pub").read_bytes()) == second.public_key
    assert mode(tmp_path / "adbkey") == 0o600
    assert sorted(os.listdir(tmp_path)) == ["adbkey", "adbkey.pub"]


def test_a_key_created_by_another_process_meanwhile_wins(
    home: Path, monkeypatch: pytest.MonkeyPatch, spare: list[rsa.RSAPrivateKey]
) -> None:
    real_link = os.link

    def racing_link(src: str, dst: str | os.PathLike[str]) -> None:
        write_pem(Path(dst), spare[0])  # the other adb/adbwire got there first
        real_link(src, dst)

    monkeypatch.setattr(os, "link", racing_link)
    loaded = load_keys()
    assert len(loaded) == 1
    assert same_key(loaded[0], spare[0])
    assert sorted(os.listdir(home / ".android")) == ["adbkey"]


def test_generate_reports_an_unwritable_place(tmp_path: Path) -> None:
    (tmp_path / "not-a-dir").write_text("file")
    with pytest.raises(KeyFileError) as caught:
        generate_key(tmp_path / "not-a-dir" / "adbkey")
    assert str(tmp_path / "not-a-dir" / "adbkey") in str(caught.value)
    with pytest.raises(KeyFileError, match="is a directory"):
        generate_key(tmp_path)


# ------------------------------------------------------------------ signing


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


# ------------------------------------------------------------------ bad key files


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


def test_a_directory_where_the_user_key_should_be(home: Path) -> None:
    (home / ".android" / "adbkey").mkdir(parents=True)
    with pytest.raises(KeyFileError, match="is a directory") as caught:
        load_keys()
    assert caught.value.path == home / ".android" / "adbkey"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads 0000")
def test_unreadable_key_file_is_named(tmp_path: Path, spare: list[rsa.RSAPrivateKey]) -> None:
    path = write_pem(tmp_path / "adbkey", spare[0])
    path.chmod(0)
    with pytest.raises(KeyFileError, match="cannot be read") as caught:
        load_key(path)
    assert caught.value.path == path


def test_read_errors_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spare: list[rsa.RSAPrivateKey]
) -> None:
    path = write_pem(tmp_path / "adbkey", spare[0])

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(keys, "open", denied, raising=False)
    with pytest.raises(KeyFileError, match="cannot be read: Permission denied") as caught:
        load_key(path)
    assert caught.value.path == path


def test_a_broken_vendor_key_is_named(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spare: list[rsa.RSAPrivateKey]
) -> None:
    write_pem(home / ".android" / "adbkey", spare[0])
    broken = tmp_path / "vendor" / "team.adb_key"
    broken.parent.mkdir()
    broken.write_text("not a key")
    monkeypatch.setenv("ADB_VENDOR_KEYS", str(broken.parent))
    with pytest.raises(KeyFileError) as caught:
        load_keys()
    assert caught.value.path == broken


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
