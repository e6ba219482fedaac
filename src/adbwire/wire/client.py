"""`AdbClient`: one device, one multiplexed connection, the services as methods.

This is the blocking core every other layer uses; `adbwire.wire.aio` wraps it for anyio.
All methods are thread-safe: many calls may run at once on one connection. Each method is
a thin call into one service module under `wire/services/`, where the logic lives.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, BinaryIO

from adbwire.errors import AdbwireError, UsageError
from adbwire.wire import shell_quote
from adbwire.wire.banner import Banner
from adbwire.wire.connection import Connection, Signer, StateListener
from adbwire.wire.keys import AdbKey, load_keys
from adbwire.wire.services import control, sync
from adbwire.wire.services import exec as exec_service
from adbwire.wire.services import shell as shell_service
from adbwire.wire.services.control import AdbdRestart, RebootMode
from adbwire.wire.services.reconnect import tcp_connection_factory
from adbwire.wire.services.shell import ShellProcess, ShellResult
from adbwire.wire.services.sync import DirEntry, RemoteStat, SyncSession, TransferResult
from adbwire.wire.services.sync.pull_plan import EntriesCallback
from adbwire.wire.stream import Stream
from adbwire.wire.timeouts import Timeouts
from adbwire.wire.transport import TcpTransport, Transport, parse_tcp_address, stall_timeout

if TYPE_CHECKING:
    # Imported where used: pairing needs OpenSSL; install (zip, APK manifests), forward
    # and reverse load on first use, so `adbwire -s S shell` does not pay for them (#20).
    from adbwire.wire.pairing.client import PairingResult
    from adbwire.wire.services.forward import Forward, PortForwarder
    from adbwire.wire.services.install_multiple import MultipleInstallResult
    from adbwire.wire.services.install_push import Progress as InstallProgress
    from adbwire.wire.services.install_result import (
        InstallMethod,
        InstallOptions,
        InstallResult,
        UninstallResult,
        UserSpec,
    )
    from adbwire.wire.services.reverse import ReverseForwarder, ReverseListing

DEFAULT_PAIRING_TIMEOUT = Timeouts().connect
"""As pairing.client's, without importing it."""

ConnectionFactory = Callable[[], Connection]
ClientFactory = Callable[[], "Connection | AdbClient"]
Progress = Callable[[int, int | None], None]
LocalPath = str | os.PathLike[str]


class AdbClient:
    """A connected device. Create with `connect_tcp`, `connect_usb` or `connect`."""

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

    # ----------------------------------------------------------- files

    def stat(self, path: str, *, follow: bool = True, timeout: float | None = None) -> RemoteStat:
        return sync.stat(self.connection, path, follow=follow, timeout=timeout)

    def lstat(self, path: str, *, timeout: float | None = None) -> RemoteStat:
        """The entry itself, a symlink not followed."""
        return sync.lstat(self.connection, path, timeout=timeout)

    def exists(self, path: str, *, timeout: float | None = None) -> bool:
        return sync.exists(self.connection, path, timeout=timeout)

    def list_dir(
        self,
        path: str,
        *,
        dot_entries: bool = False,
        timeout: float | None = None,
        max_output: int | None = None,
    ) -> list[DirEntry]:
        """Entries of a directory (with `.` and `..` when `dot_entries`); `max_output` caps
        the listing's bytes as in shell."""
        return sync.list_dir(
            self.connection, path, dot_entries=dot_entries, timeout=timeout, max_output=max_output
        )

    def push(
        self,
        sources: Sequence[LocalPath],
        remote: str,
        *,
        sync_only: bool = False,
        progress: Progress | None = None,
        timeout: float | None = None,
        compression: sync.Compression = sync.Compression.ANY,
    ) -> TransferResult:
        """Copy local files/directories to the device, as `adb push` does (compressed with
        the best algorithm the device offers unless `compression` says otherwise)."""
        return sync.push(
            self.connection,
            sources,
            remote,
            sync_only=sync_only,
            progress=progress,
            timeout=timeout,
            compression=compression,
        )

    def pull(
        self,
        sources: Sequence[str],
        local: LocalPath,
        *,
        preserve: bool = False,
        progress: Progress | None = None,
        timeout: float | None = None,
        compression: sync.Compression = sync.Compression.NONE,
        min_rate: float | None = None,
        rate_grace: float = sync.DEFAULT_RATE_GRACE,
        max_entries: int = sync.DEFAULT_MAX_ENTRIES,
        max_depth: int = sync.DEFAULT_MAX_DEPTH,
        on_entries: EntriesCallback | None = None,
    ) -> TransferResult:
        """Copy device files/directories here, as `adb pull` does (never a partial file).

        `min_rate` (bytes/s, after `rate_grace` seconds) ends a transfer the device
        trickles; `max_entries`/`max_depth` bound the walk of a directory tree."""
        return sync.pull(
            self.connection,
            sources,
            local,
            preserve=preserve,
            progress=progress,
            timeout=timeout,
            compression=compression,
            min_rate=min_rate,
            rate_grace=rate_grace,
            max_entries=max_entries,
            max_depth=max_depth,
            on_entries=on_entries,
        )

    def push_stream(
        self,
        source: BinaryIO,
        remote: str,
        *,
        mode: int = 0o644,
        mtime: int | None = None,
        size: int | None = None,
        progress: Progress | None = None,
        timeout: float | None = None,
        compression: sync.Compression = sync.Compression.NONE,
    ) -> int:
        """Write a file on the device from a host stream (`size`, when known, lets the
        progress callback report a total)."""
        return sync.push_stream(
            self.connection,
            source,
            remote,
            mode=mode,
            mtime=mtime,
            size=size,
            progress=progress,
            timeout=timeout,
            compression=compression,
        )

    def pull_stream(
        self,
        remote: str,
        sink: BinaryIO,
        *,
        progress: Progress | None = None,
        timeout: float | None = None,
        min_rate: float | None = None,
        rate_grace: float = sync.DEFAULT_RATE_GRACE,
        compression: sync.Compression = sync.Compression.NONE,
    ) -> int:
        return sync.pull_stream(
            self.connection,
            remote,
            sink,
            progress=progress,
            timeout=timeout,
            min_rate=min_rate,
            rate_grace=rate_grace,
            compression=compression,
        )

    def sync_session(self, *, timeout: float | None = None) -> SyncSession:
        """One `sync:` stream for many file operations."""
        return SyncSession(self.connection, timeout=timeout)

    # ----------------------------------------------------------- packages

    def install(
        self,
        apk: LocalPath,
        options: InstallOptions | None = None,
        *,
        method: InstallMethod | None = None,
        progress: InstallProgress | None = None,
        timeout: float | None = None,
    ) -> InstallResult:
        """Install an APK, streamed when the device can (`method` forces one way)."""
        from adbwire.wire.services import install  # noqa: PLC0415 - see TYPE_CHECKING

        return install.install(
            self.connection, apk, options, method=method, progress=progress, timeout=timeout
        )

    def install_multiple(
        self,
        apks: Sequence[LocalPath],
        options: InstallOptions | None = None,
        *,
        timeout: float | None = None,
    ) -> MultipleInstallResult:
        """Install a base APK and its splits in one session, as `adb install-multiple`
        (SplitWriteError names an APK the package manager refused; the session is then
        abandoned)."""
        from adbwire.wire.services import install_multiple  # noqa: PLC0415

        return install_multiple.install_multiple(self.connection, apks, options, timeout=timeout)

    def uninstall(
        self,
        package: str,
        *,
        keep_data: bool = False,
        user: UserSpec | None = None,
        timeout: float | None = None,
    ) -> UninstallResult:
        from adbwire.wire.services import install  # noqa: PLC0415 - see TYPE_CHECKING

        return install.uninstall(
            self.connection, package, keep_data=keep_data, user=user, timeout=timeout
        )

    # ----------------------------------------------------------- forwarding

    def forward(self, local: str, remote: str) -> Forward:
        """Relay a loopback port to a device socket until removed or the client closes."""
        from adbwire.wire.services.forward import PortForwarder  # noqa: PLC0415

        if self._forwarder is None:
            self._forwarder = PortForwarder(self.connection)
        return self._forwarder.forward(local, remote)

    def port_forwarder(
        self, *, max_connections: int = 64, open_timeout: float | None = None
    ) -> PortForwarder:
        """A forwarder of its own over this client's link (the caller closes it); `forward`
        uses one the client keeps."""
        from adbwire.wire.services.forward import PortForwarder  # noqa: PLC0415

        return PortForwarder(
            self.connection, max_connections=max_connections, open_timeout=open_timeout
        )

    def reverse_forwarder(
        self, *, max_streams: int | None = None, timeout: float | None = None
    ) -> ReverseForwarder:
        """A reverse forwarder of its own over this client's link (the caller closes it);
        `reverse` uses one the client keeps. A link relays for one forwarder at a time.
        `max_streams` defaults to reverse.DEFAULT_MAX_STREAMS."""
        from adbwire.wire.services import reverse  # noqa: PLC0415 - see TYPE_CHECKING

        if max_streams is None:
            max_streams = reverse.DEFAULT_MAX_STREAMS
        return reverse.ReverseForwarder(self.connection, max_streams=max_streams, timeout=timeout)

    @property
    def forwards(self) -> list[Forward]:
        return [] if self._forwarder is None else self._forwarder.list_forwards()

    def reverse(self, remote: str, local: str, *, rebind: bool = True) -> str:
        """Have the device listen on `remote` and relay its connections to `local`
        (tcp:PORT on this host) while this client lives; returns the device-side spec
        (`tcp:0` becomes the port the device picked)."""
        return self._reverses().reverse(remote, local, rebind=rebind)

    def reverses(self) -> list[ReverseListing]:
        """The device's reverse listeners, as it lists them for this connection."""
        return self._reverses().list_reverses()

    def remove_reverse(self, remote: str) -> None:
        self._reverses().remove(remote)

    def _reverses(self) -> ReverseForwarder:
        from adbwire.wire.services.reverse import ReverseForwarder  # noqa: PLC0415

        if self._reverser is None:
            self._reverser = ReverseForwarder(self.connection)
        return self._reverser

    # ----------------------------------------------------------- device control

    def reboot(
        self, mode: RebootMode | str = RebootMode.SYSTEM, *, timeout: float | None = None
    ) -> str:
        return control.reboot(self.connection, mode, timeout=timeout)

    def root(
        self, *, wait: float = 30.0, reconnect: bool = True, timeout: float | None = None
    ) -> AdbdRestart:
        """Restart adbd as root and, unless `reconnect` is False, connect again (when the
        client knows how to) and adopt the new link."""
        factory = self._reconnect_factory() if reconnect else None
        return self._adopt(
            control.root(self.connection, reconnect_with=factory, wait=wait, timeout=timeout)
        )

    def unroot(
        self, *, wait: float = 30.0, reconnect: bool = True, timeout: float | None = None
    ) -> AdbdRestart:
        factory = self._reconnect_factory() if reconnect else None
        return self._adopt(
            control.unroot(self.connection, reconnect_with=factory, wait=wait, timeout=timeout)
        )

    def tcpip(self, port: int, *, timeout: float | None = None) -> AdbdRestart:
        """Restart adbd listening on TCP `port` (this connection then ends)."""
        return control.tcpip(self.connection, port, timeout=timeout)

    def usb(self, *, timeout: float | None = None) -> AdbdRestart:
        return control.usb(self.connection, timeout=timeout)

    def remount(self, *, reboot_if_needed: bool = False, timeout: float | None = None) -> str:
        return control.remount(self.connection, reboot_if_needed=reboot_if_needed, timeout=timeout)

    def _reconnect_factory(self) -> ConnectionFactory | None:
        make = self.reconnect
        if make is None:
            return None

        def connect() -> Connection:
            made = make()
            return made.connection if isinstance(made, AdbClient) else made

        return connect

    def _adopt(self, restart: AdbdRestart) -> AdbdRestart:
        if restart.connection is not None:
            self._close_forwards()
            self.connection = restart.connection
        return restart

    # ----------------------------------------------------------- closing

    def _close_forwards(self) -> None:
        if self._forwarder is not None:
            self._forwarder.close()
            self._forwarder = None
        if self._reverser is not None:
            self._reverser.close()
            self._reverser = None

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
