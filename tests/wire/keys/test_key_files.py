"""adbwire.wire.key_files: where keys live, and how key files are read and written (the
user key, SDK-home and vendor keys, modes, atomic writes, read errors named)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from adbwire.errors import KeyFileError
from adbwire.wire import key_files
from adbwire.wire.keys import (
    android_dir,
    decode_android_pubkey,
    default_key_path,
    generate_key,
    load_key,
    load_keys,
)

from .key_files_helpers import mode, same_key, write_pem


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
    assert key_files.vendor_key_paths() == [a_key, b_key, file_key]
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

    monkeypatch.setattr(key_files, "open", denied, raising=False)
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
