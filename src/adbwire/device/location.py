"""An emulator's GPS position, set through its console (``geo fix``).

The console listens on the emulator host's loopback at the port before adb's (an emulator
whose adb port is 5555 has its console on 5554; ``emulator-5554`` names the console port
itself). It asks for the token in the user's ``~/.emulator_console_auth_token`` (an empty
file turns authentication off). Every read has a size cap and a deadline; phones have no
console, so they get a clear UnsupportedError.
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass
from pathlib import Path

from adbwire.device.errors import UnsupportedError
from adbwire.errors import ConnectFailedError, DeviceCommandError, UsageError
from adbwire.wire.timeouts import Deadline

TOKEN_FILE = Path.home() / ".emulator_console_auth_token"
CONSOLE_SECONDS = 10.0
MAX_REPLY = 64 * 1024
_EMULATOR = re.compile(r"^emulator-(\d{4,5})$")
_LOOPBACK = re.compile(r"^(?:127\.0\.0\.1|localhost|\[::1\]):(\d{2,5})$")


@dataclass(frozen=True)
class Console:
    host: str
    port: int


def console_for(serial: str) -> Console:
    """Where the emulator behind ``serial`` has its console, or UnsupportedError."""
    match = _EMULATOR.match(serial)
    if match:
        return Console("127.0.0.1", int(match.group(1)))
    match = _LOOPBACK.match(serial)
    if match and int(match.group(1)) > 1:
        host = "::1" if serial.startswith("[") else "127.0.0.1"
        return Console(host, int(match.group(1)) - 1)
    raise UnsupportedError(
        f"{serial} is not an emulator on this computer: only an emulator's console can set a "
        "location (a phone needs a mock-location app)"
    )


def check_position(latitude: float, longitude: float) -> None:
    if not -90 <= latitude <= 90 or not -180 <= longitude <= 180:
        raise UsageError("latitude must be within -90..90 and longitude within -180..180")


def read_token(path: Path = TOKEN_FILE) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:1024].strip()
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise UsageError(f"cannot read the emulator console token {path}: {exc}") from None
    if any(c.isspace() for c in text):
        raise UsageError(f"{path} does not hold a console token")
    return text


class _Session:
    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock = sock
        self._deadline = deadline
        self._buffer = b""

    def reply(self) -> str:
        """Lines up to the console's ``OK`` (returned) or ``KO: why`` (raised)."""
        while True:
            start = 0
            while (end := self._buffer.find(b"\n", start)) >= 0:
                text = self._buffer[start:end].decode("utf-8", errors="replace").strip()
                start = end + 1
                if text == "OK" or text.startswith("KO"):
                    said, self._buffer = self._buffer[:start], self._buffer[start:]
                    if text.startswith("KO"):
                        raise DeviceCommandError(f"emulator console: {text[:200]}")
                    return said.decode("utf-8", errors="replace")
            if len(self._buffer) > MAX_REPLY:
                raise DeviceCommandError("emulator console: a reply over 64 KiB without OK")
            self._sock.settimeout(self._left())
            try:
                data = self._sock.recv(4096)
            except TimeoutError:
                raise DeviceCommandError("emulator console: no answer in time") from None
            if not data:
                raise DeviceCommandError("emulator console closed the connection")
            self._buffer += data

    def send(self, line: str) -> str:
        self.send_only(line)
        return self.reply()

    def send_only(self, line: str) -> None:
        self._sock.settimeout(self._left())
        self._sock.sendall(line.encode() + b"\r\n")

    def _left(self) -> float:
        remaining = self._deadline.remaining()
        return CONSOLE_SECONDS if remaining is None else max(remaining, 0.001)


def set_location(
    serial: str,
    latitude: float,
    longitude: float,
    *,
    token_file: Path = TOKEN_FILE,
    timeout: float = CONSOLE_SECONDS,
) -> Console:
    """``geo fix LONGITUDE LATITUDE`` on the emulator's console (note: longitude first)."""
    check_position(latitude, longitude)
    console = console_for(serial)
    token = read_token(token_file)
    deadline = Deadline(timeout, "emulator console")
    try:
        sock = socket.create_connection((console.host, console.port), timeout=timeout)
    except OSError as exc:
        raise ConnectFailedError(
            f"no emulator console at {console.host}:{console.port}: {exc.strerror or exc}"
        ) from None
    with sock:
        try:
            _geo_fix(_Session(sock, deadline), token, token_file, latitude, longitude)
        except OSError as exc:
            raise DeviceCommandError(
                f"emulator console at {console.host}:{console.port}: {exc.strerror or exc}"
            ) from None
    return console


def _geo_fix(
    session: _Session, token: str, token_file: Path, latitude: float, longitude: float
) -> None:
    banner = session.reply()
    if "Authentication required" in banner:
        if not token:
            raise UsageError(
                f"the emulator console asks for the token in {token_file}, which is missing "
                "or empty"
            )
        session.send(f"auth {token}")
    session.send(f"geo fix {longitude:.6f} {latitude:.6f}")
    session.send_only("quit")
