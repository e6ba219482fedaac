"""`AdbClient`: one device, one multiplexed connection, the services as methods.

This is the blocking core every other layer uses; `adbwire.wire.aio` wraps it for anyio.
All methods are thread-safe: many calls may run at once on one connection.
"""

from __future__ import annotations

from collections.abc import Sequence

from adbwire.wire import shell_quote
from adbwire.wire.banner import Banner
from adbwire.wire.connection import Connection, Signer, StateListener
from adbwire.wire.keys import load_keys
from adbwire.wire.services import exec as exec_service
from adbwire.wire.services import shell as shell_service
from adbwire.wire.services.shell import ShellProcess, ShellResult
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport, Transport, parse_tcp_address


class AdbClient:
    """A connected device. Create with `AdbClient.connect_tcp` or `AdbClient(connection)`."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    @classmethod
    def connect(
        cls,
        transport: Transport,
        keys: Sequence[Signer] | None = None,
        *,
        timeouts: Timeouts | None = None,
        on_state: StateListener | None = None,
    ) -> AdbClient:
        if keys is None:
            keys = load_keys()
        connection = Connection.open(transport, keys, timeouts=timeouts, on_state=on_state)
        return cls(connection)

    @classmethod
    def connect_tcp(
        cls,
        address: str,
        keys: Sequence[Signer] | None = None,
        *,
        timeouts: Timeouts | None = None,
        on_state: StateListener | None = None,
    ) -> AdbClient:
        """Connect to 'host[:port]' (port 5555 by default), like `adb connect`."""
        host, port = parse_tcp_address(address)
        timeouts = timeouts or Timeouts()
        transport = TcpTransport(host, port, io_timeout=timeouts.operation)
        return cls.connect(transport, keys, timeouts=timeouts, on_state=on_state)

    # ----------------------------------------------------------- identity

    @property
    def serial(self) -> str:
        """The device's serial as adb would show it (host:port for TCP)."""
        return self.connection.banner.serial or self.connection.transport.address

    @property
    def banner(self) -> Banner:
        return self.connection.banner

    @property
    def features(self) -> frozenset[str]:
        return self.connection.features

    # ----------------------------------------------------------- services

    def shell(
        self, command: str, *, stdin: bytes | None = None, timeout: float | None = None
    ) -> ShellResult:
        """Run a shell command line as the device's shell parses it (like `adb shell CMD`)."""
        return shell_service.run(self.connection, command, stdin=stdin, timeout=timeout)

    def shell_argv(
        self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float | None = None
    ) -> ShellResult:
        """Run a program with each argument quoted: no argument can start a second command."""
        return self.shell(shell_quote.join(argv), stdin=stdin, timeout=timeout)

    def start_shell(
        self, command: str, *, pty: bool = False, timeout: float | None = None
    ) -> ShellProcess:
        """Start a command and stream its output (close the process to stop it)."""
        return ShellProcess(self.connection, command, pty=pty, timeout=timeout)

    def exec_out(self, command: str, *, timeout: float | None = None) -> bytes:
        """Binary-safe stdout of a command (e.g. `screencap -p`)."""
        return exec_service.exec_out(self.connection, command, timeout=timeout)

    def open_stream(self, service: str, *, timeout: float | None = None) -> Stream:
        return self.connection.open_stream(service, timeout)

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> AdbClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
