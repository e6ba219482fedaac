"""The three clients under test, behind one small interface.

- adbwire: `AdbClient` on one warm connection (shell v2, sync v2, delayed_ack).
- adb: Google's adb client binary, one process per call, as other MCP servers do.
- adb_shell: `AdbDeviceTcp` (0.4.4) on one connection, with a key the device trusts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from benchmarks.google_adb import GoogleAdb

ECHO_TEXT = "benchmark"
TRANSFER_TIMEOUT = 900.0


class BenchClient(Protocol):
    name: str

    def echo(self) -> None: ...

    def push(self, local: Path, remote: str) -> None: ...

    def pull(self, remote: str, local: Path) -> None: ...

    def close(self) -> None: ...


def _check_echo(name: str, output: bytes | str) -> None:
    text = output.decode() if isinstance(output, bytes) else output
    if text.strip() != ECHO_TEXT:
        raise RuntimeError(f"{name}: echo answered {text!r}")


class AdbwireClient:
    name = "adbwire"

    def __init__(self, serial: str, private_key: Path) -> None:
        from adbwire.wire.client import AdbClient  # noqa: PLC0415
        from adbwire.wire.keys import load_key  # noqa: PLC0415

        self.client = AdbClient.connect_tcp(serial, [load_key(private_key)])

    def echo(self) -> None:
        result = self.client.shell(f"echo {ECHO_TEXT}")
        _check_echo(self.name, result.stdout)

    def push(self, local: Path, remote: str) -> None:
        # -Z, like for like: Google's adb 29 cannot compress (the compression section
        # measures adbwire's default, which compresses random bytes for nothing here).
        from adbwire.wire.services.sync import Compression  # noqa: PLC0415

        raw = Compression.NONE
        result = self.client.push([local], remote, timeout=TRANSFER_TIMEOUT, compression=raw)
        result.raise_first()

    def pull(self, remote: str, local: Path) -> None:
        self.client.pull([remote], local, timeout=TRANSFER_TIMEOUT).raise_first()

    def close(self) -> None:
        self.client.close()


class GoogleAdbClient:
    name = "adb"

    def __init__(self, adb: GoogleAdb, serial: str) -> None:
        self.adb = adb
        self.serial = serial

    def echo(self) -> None:
        _check_echo(self.name, self.adb.ok("-s", self.serial, "shell", "echo", ECHO_TEXT))

    def push(self, local: Path, remote: str) -> None:
        self.adb.ok("-s", self.serial, "push", str(local), remote, timeout=TRANSFER_TIMEOUT)

    def pull(self, remote: str, local: Path) -> None:
        self.adb.ok("-s", self.serial, "pull", remote, str(local), timeout=TRANSFER_TIMEOUT)

    def close(self) -> None:
        pass


class AdbShellClient:
    name = "adb_shell"

    def __init__(self, serial: str, private_key: Path) -> None:
        from adb_shell.adb_device import AdbDeviceTcp  # noqa: PLC0415
        from adb_shell.auth.sign_cryptography import CryptographySigner  # noqa: PLC0415

        host, _sep, port = serial.rpartition(":")
        self.device = AdbDeviceTcp(host, int(port), default_transport_timeout_s=60.0)
        self.device.connect(rsa_keys=[CryptographySigner(str(private_key))], auth_timeout_s=30.0)

    def echo(self) -> None:
        _check_echo(self.name, self.device.shell(f"echo {ECHO_TEXT}"))

    def push(self, local: Path, remote: str) -> None:
        self.device.push(str(local), remote, read_timeout_s=TRANSFER_TIMEOUT)

    def pull(self, remote: str, local: Path) -> None:
        self.device.pull(remote, str(local), read_timeout_s=TRANSFER_TIMEOUT)

    def close(self) -> None:
        self.device.close()
