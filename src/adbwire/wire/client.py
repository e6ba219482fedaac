"""`AdbClient`: one device, one multiplexed connection, the services as methods.

This is the blocking core every other layer uses; `adbwire.wire.aio` wraps it for anyio.
All methods are thread-safe: many calls may run at once on one connection. Each method is
a thin call into one service module under `wire/services/`, where the logic lives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from adbwire.errors import AdbwireError, UsageError
from adbwire.wire import shell_quote
from adbwire.wire.banner import Banner
from adbwire.wire.client_control import ControlMethods
from adbwire.wire.client_files import FileMethods, LocalPath, Progress
from adbwire.wire.client_forwarding import ForwardingMethods
from adbwire.wire.client_packages import PackageMethods
from adbwire.wire.connection import Connection, Signer, StateListener
from adbwire.wire.keys import AdbKey, load_keys
from adbwire.wire.services import exec as exec_service
from adbwire.wire.services import shell as shell_service
from adbwire.wire.services.reconnect import tcp_connection_factory
from adbwire.wire.services.shell import ShellProcess
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport, Transport, parse_tcp_address, stall_timeout

if TYPE_CHECKING:
    # Imported where used: pairing needs OpenSSL; USB needs libusb.
    from adbwire.wire.pairing.client import PairingResult
    from adbwire.wire.services.forward import PortForwarder
    from adbwire.wire.services.reverse import ReverseForwarder
    from adbwire.wire.services.shell_result import ShellResult

__all__ = ["AdbClient", "LocalPath", "Progress", "connect_tcp_many"]

DEFAULT_PAIRING_TIMEOUT = Timeouts().connect
"""As pairing.client's, without importing it."""

ConnectionFactory = Callable[[], Connection]
ClientFactory = Callable[[], "Connection | AdbClient"]


class AdbClient(FileMethods, PackageMethods, ForwardingMethods, ControlMethods):
    """A connected device. Create with `connect_tcp`, `connect_usb` or `connect`.

    The services are its methods: shell and exec here; files, packages, forwarding and
    device control in the mixins beside this module (client_*.py), one concern each."""

    def __init__(self, connection: Connection, reconnect: ClientFactory | None = None) -> None:
        self.connection = connection
        self.reconnect = reconnect
        """Opens a fresh connection to the same device (after adbd restarts); None if unknown."""
        self._forwarder: PortForwarder | None = None
        self._reverser: ReverseForwarder | None = None

    @classmethod
    def connect(
        cls,
        transport: Transport,
        keys: Sequence[Signer] | None = None,
        *,
        timeouts: Timeouts | None = None,
        on_state: StateListener | None = None,
        reconnect: ConnectionFactory | None = None,
    ) -> AdbClient:
        if keys is None:
            keys = load_keys()
        connection = Connection.open(transport, keys, timeouts=timeouts, on_state=on_state)
        return cls(connection, reconnect)

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
        transport = TcpTransport(host, port, io_timeout=stall_timeout(timeouts.operation))
        reconnect = tcp_connection_factory(address, keys, timeouts=timeouts)
        return cls.connect(
            transport, keys, timeouts=timeouts, on_state=on_state, reconnect=reconnect
        )

    @classmethod
    def connect_tcp_many(
        cls,
        addresses: Sequence[str],
        keys: Sequence[Signer] | None = None,
        *,
        timeouts: Timeouts | None = None,
        parallel: int = 32,
    ) -> Mapping[str, AdbClient | AdbwireError]:
        """Connect to many devices at once (a farm's endpoints), `parallel` at a time.

        Returns each address's client, or the error that address failed with: one
        unreachable device never stops the others. The keys are loaded once for all.
        """
        return connect_tcp_many(addresses, keys, timeouts=timeouts, parallel=parallel)

    @classmethod
    def connect_usb(
        cls,
        serial: str | None = None,
        keys: Sequence[Signer] | None = None,
        *,
        timeouts: Timeouts | None = None,
        on_state: StateListener | None = None,
    ) -> AdbClient:
        """Connect to a USB device by serial or 'usb:PORT-PATH', or to the only one attached."""
        from adbwire.wire.usb import connect_usb  # noqa: PLC0415 - usb imports this module

        return connect_usb(serial, keys, timeouts=timeouts, on_state=on_state)

    @staticmethod
    def pair(
        address: str,
        code: str,
        key: AdbKey | None = None,
        *,
        timeout: float = DEFAULT_PAIRING_TIMEOUT,
    ) -> PairingResult:
        """Pair with a phone for wireless debugging, as `adb pair HOST:PORT CODE` does.

        `address` and the 6-digit `code` are what the phone shows under Wireless debugging →
        "Pair device with pairing code"; `key` is the user's adb key by default. Afterwards
        the phone trusts the key: connect to the address of the Wireless debugging screen.
        Raises PairingCodeError for a wrong code (docs/wireless.md).
        """
        from adbwire.wire.pairing.client import pair as pair_device  # noqa: PLC0415

        return pair_device(address, code, key, timeout=timeout)

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

    @property
    def alive(self) -> bool:
        """False once the link failed (the device went away, a protocol error)."""
        return self.connection.failure is None

    @property
    def failure(self) -> AdbwireError | None:
        """Why the link failed; None while it is up."""
        return self.connection.failure

    @property
    def transport(self) -> Transport:
        """The link this client talks over (TCP, TLS, USB, a recording)."""
        return self.connection.transport

    # ----------------------------------------------------------- shell and exec

    def shell(
        self,
        command: str,
        *,
        stdin: bytes | None = None,
        timeout: float | None = None,
        max_output: int | None = None,
    ) -> ShellResult:
        """Run a shell command line as the device's shell parses it (like `adb shell CMD`).

        `max_output` caps stdout + stderr in bytes: past it the command is stopped and
        OutputTooLargeError raised (None, the default, reads everything).
        """
        return shell_service.run(
            self.connection, command, stdin=stdin, timeout=timeout, max_output=max_output
        )

    def shell_argv(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout: float | None = None,
        max_output: int | None = None,
    ) -> ShellResult:
        """Run a program with each argument quoted: no argument can start a second command."""
        return self.shell(
            shell_quote.join(argv), stdin=stdin, timeout=timeout, max_output=max_output
        )

    def start_shell(
        self,
        command: str,
        *,
        pty: bool = False,
        timeout: float | None = None,
        max_output: int | None = None,
    ) -> ShellProcess:
        """Start a command and stream its output (close the process to stop it)."""
        return ShellProcess(
            self.connection, command, pty=pty, timeout=timeout, max_output=max_output
        )

    def exec_out(
        self, command: str, *, timeout: float | None = None, max_output: int | None = None
    ) -> bytes:
        """Binary-safe stdout of a command (e.g. `screencap -p`); `max_output` as in shell."""
        return exec_service.exec_out(
            self.connection, command, timeout=timeout, max_output=max_output
        )

    def open_stream(self, service: str, *, timeout: float | None = None) -> Stream:
        return self.connection.open_stream(service, timeout)

    # ----------------------------------------------------------- closing

    def close(self) -> None:
        self._close_forwards()
        self.connection.close()

    def __enter__(self) -> AdbClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def connect_tcp_many(
    addresses: Sequence[str],
    keys: Sequence[Signer] | None = None,
    *,
    timeouts: Timeouts | None = None,
    parallel: int = 32,
) -> dict[str, AdbClient | AdbwireError]:
    """`AdbClient.connect_tcp` for every address, `parallel` connections at a time."""
    if parallel < 1:
        raise UsageError("parallel must be at least 1")
    unique = list(dict.fromkeys(addresses))
    signers = list(keys) if keys is not None else load_keys()

    def connect(address: str) -> AdbClient | AdbwireError:
        try:
            return AdbClient.connect_tcp(address, signers, timeouts=timeouts)
        except AdbwireError as error:
            return error

    if not unique:
        return {}
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415 - only farms need it

    with ThreadPoolExecutor(
        max_workers=min(parallel, len(unique)), thread_name_prefix="adbwire-connect"
    ) as pool:
        futures = {address: pool.submit(connect, address) for address in unique}
    results: dict[str, AdbClient | AdbwireError] = {}
    unexpected: BaseException | None = None
    for address, future in futures.items():
        try:
            results[address] = future.result()
        except BaseException as error:  # a bug: close what did connect, then raise it
            unexpected = unexpected or error
    if unexpected is not None:
        for result in results.values():
            if isinstance(result, AdbClient):
                result.close()
        raise unexpected
    return results
