"""Keys against Google's adb (Debian's /usr/bin/adb as the oracle).

- adb's `keygen` output is what we read, and our derivation of its public key is its `.pub`;
- the adb server keeps the user key exactly where `default_key_path()` looks;
- a key we generate is loaded by adb, which signs an AUTH token with it (our verifier
  accepts the signature) and then offers the very public key we derive.

Each test gives adb its own HOME, TMPDIR and server port, and kills that server at the end.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.wire.keys import (
    decode_android_pubkey,
    default_key_path,
    encode_android_pubkey,
    generate_key,
    load_key,
    load_keys,
    verify_signature,
)

ADB = Path("/usr/bin/adb")
TIMEOUT = 30.0

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def adb_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """An environment for adb (and for us, via monkeypatch) that touches only tmp_path."""
    home = tmp_path / "home"
    (tmp_path / "tmp").mkdir()
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(tmp_path / "tmp"),
        "LOGNAME": "alice",
        "HOSTNAME": "box",
        "ANDROID_ADB_SERVER_PORT": str(free_port()),
    }
    for name in ("ANDROID_USER_HOME", "ANDROID_SDK_HOME", "ADB_VENDOR_KEYS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        yield env
    finally:
        subprocess.run(
            [str(ADB), "kill-server"], env=env, capture_output=True, timeout=TIMEOUT, check=False
        )


def run_adb(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(ADB), *args], env=env, capture_output=True, timeout=TIMEOUT, check=False
    )


def test_we_load_adbs_keys_and_derive_its_public_key(
    adb_env: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / "adb-made"
    result = run_adb(adb_env, "keygen", str(path))
    assert result.returncode == 0, result.stderr
    adb_public = path.with_name("adb-made.pub").read_bytes()

    key = load_key(path)
    assert encode_android_pubkey(key.public_key, "alice@box") == adb_public
    assert key.public_key_bytes() == adb_public + b"\0"
    assert decode_android_pubkey(adb_public) == key.public_key
    assert verify_signature(adb_public, bytes(20), key.sign(bytes(20)))


def test_our_files_have_the_shape_of_adbs(adb_env: dict[str, str], tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    assert run_adb(adb_env, "keygen", str(theirs)).returncode == 0
    ours = tmp_path / "ours"
    generate_key(ours)
    for name in ("", ".pub"):
        assert stat.S_IMODE(Path(f"{ours}{name}").stat().st_mode) == stat.S_IMODE(
            Path(f"{theirs}{name}").stat().st_mode
        )
    ours_pem, theirs_pem = ours.read_bytes().splitlines(), theirs.read_bytes().splitlines()
    assert (ours_pem[0], ours_pem[-1]) == (theirs_pem[0], theirs_pem[-1])
    ours_pub, theirs_pub = Path(f"{ours}.pub").read_bytes(), Path(f"{theirs}.pub").read_bytes()
    assert len(ours_pub) == len(theirs_pub)
    assert ours_pub.split(b" ")[1] == theirs_pub.split(b" ")[1]  # same comment, same ending


def test_adb_keeps_the_user_key_where_we_look(
    adb_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = dict(adb_env)
    env["ANDROID_USER_HOME"] = str(tmp_path / "user-home")
    env["ANDROID_SDK_HOME"] = str(tmp_path / "sdk-home")
    result = run_adb(env, "start-server")
    assert result.returncode == 0, result.stderr
    monkeypatch.setenv("ANDROID_USER_HOME", env["ANDROID_USER_HOME"])
    monkeypatch.setenv("ANDROID_SDK_HOME", env["ANDROID_SDK_HOME"])

    assert default_key_path() == Path(env["HOME"]) / ".android" / "adbkey"
    assert default_key_path().is_file()
    assert not (tmp_path / "user-home").exists()
    assert not (tmp_path / "sdk-home").exists()
    [key] = load_keys(create=False)
    assert key.path == default_key_path()


# ---- a one-connection fake adbd: just enough of AUTH to make adb sign and offer its key

A_CNXN, A_AUTH = (struct.unpack("<I", name)[0] for name in (b"CNXN", b"AUTH"))
AUTH_TOKEN, AUTH_SIGNATURE, AUTH_RSAPUBLICKEY = 1, 2, 3


def send_packet(sock: socket.socket, command: int, arg0: int, payload: bytes) -> None:
    checksum = sum(payload) & 0xFFFFFFFF
    header = struct.pack("<6I", command, arg0, 0, len(payload), checksum, command ^ 0xFFFFFFFF)
    sock.sendall(header + payload)


def recv_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, "adb closed the connection"
        data += chunk
    return data


def recv_packet(sock: socket.socket) -> tuple[int, int, bytes]:
    command, arg0, _arg1, length, _check, magic = struct.unpack("<6I", recv_exact(sock, 24))
    assert magic == command ^ 0xFFFFFFFF
    return command, arg0, recv_exact(sock, length)


def test_adb_signs_with_and_offers_a_key_we_generated(adb_env: dict[str, str]) -> None:
    ours = generate_key(default_key_path())
    pem_before = ours.path.read_bytes()
    our_public = Path(f"{ours.path}.pub").read_bytes()
    token = os.urandom(20)
    seen: dict[str, bytes] = {}
    failure: list[BaseException] = []

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(TIMEOUT)
    port = listener.getsockname()[1]

    def fake_adbd() -> None:
        try:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(TIMEOUT)
                command, _, _ = recv_packet(conn)
                assert command == A_CNXN
                send_packet(conn, A_AUTH, AUTH_TOKEN, token)
                command, kind, seen["signature"] = recv_packet(conn)
                assert (command, kind) == (A_AUTH, AUTH_SIGNATURE)
                send_packet(conn, A_AUTH, AUTH_TOKEN, token)  # "rejected": adb has no more keys
                command, kind, seen["public_key"] = recv_packet(conn)
                assert (command, kind) == (A_AUTH, AUTH_RSAPUBLICKEY)
        except BaseException as error:
            failure.append(error)
        finally:
            listener.close()

    device = threading.Thread(target=fake_adbd, daemon=True)
    device.start()
    try:
        run_adb(adb_env, "connect", f"127.0.0.1:{port}")
        device.join(TIMEOUT)
    finally:
        listener.close()
    assert not device.is_alive(), "adb never completed the AUTH exchange"
    assert not failure, failure

    assert verify_signature(our_public, token, seen["signature"])
    assert seen["public_key"] == ours.public_key_bytes() == our_public + b"\0"
    assert ours.path.read_bytes() == pem_before  # adb used our key rather than replacing it
