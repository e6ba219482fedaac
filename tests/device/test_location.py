"""set_location through a fake emulator console on loopback: the token, `geo fix` with the
longitude first, refusals for phones, and bounded reads of a console that misbehaves."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.device import location
from adbwire.device.errors import UnsupportedError
from adbwire.errors import DeviceCommandError, UsageError

BANNER = (
    b"Android Console: Authentication required\r\n"
    b"Android Console: type 'auth <auth_token>' to authenticate\r\n"
    b"Android Console: you can find your <auth_token> in \r\n"
    b"'/home/u/.emulator_console_auth_token'\r\nOK\r\n"
)


class FakeConsole:
    def __init__(
        self, token: str, reply_after_banner: bytes | None = None, reset: bool = False
    ) -> None:
        self.token = token
        self.reply_after_banner = reply_after_banner
        self.reset = reset
        self.received: list[str] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        conn, _ = self.server.accept()
        with conn, conn.makefile("rb") as lines:
            conn.sendall(BANNER)
            if self.reply_after_banner is not None:
                conn.sendall(self.reply_after_banner)
                with contextlib.suppress(OSError):  # open until the client gives up
                    lines.read()
                return
            for raw in lines:
                if self.reset:  # an abortive close: the client's next read fails
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                line = raw.decode().strip()
                self.received.append(line)
                if line == "quit":
                    return
                ok = line != "auth wrong" and (
                    not line.startswith("auth") or line == f"auth {self.token}"
                )
                conn.sendall(b"OK\r\n" if ok else b"KO: authentication token does not match\r\n")


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / ".emulator_console_auth_token"
    path.write_text("s3cret\n")
    return path


@pytest.fixture
def console() -> Iterator[FakeConsole]:
    fake = FakeConsole("s3cret")
    yield fake
    fake.server.close()


def test_geo_fix_after_auth(console: FakeConsole, token_file: Path) -> None:
    serial = f"127.0.0.1:{console.port + 1}"  # adb's port is the console's plus one
    found = location.set_location(serial, 48.8584, 2.2945, token_file=token_file)
    assert found.port == console.port
    console.thread.join(5)
    assert console.received == ["auth s3cret", "geo fix 2.294500 48.858400", "quit"]


def test_wrong_token_is_the_consoles_words(token_file: Path) -> None:
    fake = FakeConsole("other")
    token_file.write_text("wrong")
    with pytest.raises(DeviceCommandError, match="token does not match"):
        location.set_location(f"127.0.0.1:{fake.port + 1}", 1, 2, token_file=token_file)
    fake.server.close()


def test_missing_token_and_phones_and_bad_positions(tmp_path: Path, console: FakeConsole) -> None:
    with pytest.raises(UsageError, match="missing or empty"):
        location.set_location(f"127.0.0.1:{console.port + 1}", 1, 2, token_file=tmp_path / "none")
    with pytest.raises(UnsupportedError, match="mock-location"):
        location.set_location("R58M12ABCDE", 1, 2)
    with pytest.raises(UnsupportedError):
        location.set_location("192.168.1.20:5555", 1, 2)
    with pytest.raises(UsageError):
        location.set_location("emulator-5554", 91, 0)
    assert location.console_for("emulator-5556").port == 5556


def test_a_console_that_never_says_ok_is_cut_off(token_file: Path) -> None:
    fake = FakeConsole("s3cret", reply_after_banner=b"x" * (70 * 1024))
    with pytest.raises(DeviceCommandError, match="over 64 KiB without OK"):
        location.set_location(f"127.0.0.1:{fake.port + 1}", 1, 2, token_file=token_file,
                              timeout=5)  # fmt: skip
    fake.server.close()


def test_a_console_that_drops_the_connection_is_a_typed_error(token_file: Path) -> None:
    fake = FakeConsole("s3cret", reset=True)
    with pytest.raises(DeviceCommandError, match="emulator console"):
        location.set_location(f"127.0.0.1:{fake.port + 1}", 1, 2, token_file=token_file,
                              timeout=5)  # fmt: skip
    fake.thread.join(5)
    fake.server.close()
